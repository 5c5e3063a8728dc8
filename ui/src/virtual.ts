/**
 * Windowing for long chats: which items to render for a scroll position, given the heights
 * measured so far (and an estimate for the rest). Pure, so it is tested without a DOM.
 */

export interface Window {
  /** First item to render. */
  start: number;
  /** One past the last item to render. */
  end: number;
  /** Space above the first rendered item, in px. */
  before: number;
  /** Space below the last rendered item, in px. */
  after: number;
}

/** Offsets of each item's top: `offsets[i]` is the sum of the heights before item `i`. */
export function prefixSums(heights: readonly number[]): number[] {
  const out = new Array<number>(heights.length + 1);
  out[0] = 0;
  for (let i = 0; i < heights.length; i++) out[i + 1] = (out[i] ?? 0) + (heights[i] ?? 0);
  return out;
}

/** The last index `i` with `offsets[i] <= y` (binary search). */
function indexAt(offsets: readonly number[], y: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((offsets[mid] ?? 0) <= y) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(0, lo);
}

/**
 * The items that intersect `[top, top + viewport]` plus `overscan` px on each side.
 * `top` is the scroll position relative to the list's own top.
 */
export function visibleWindow(heights: readonly number[], top: number, viewport: number, overscan: number): Window {
  const n = heights.length;
  if (n === 0) return { start: 0, end: 0, before: 0, after: 0 };
  const offsets = prefixSums(heights);
  const total = offsets[n] ?? 0;
  const from = Math.max(0, top - overscan);
  const to = Math.min(total, top + viewport + overscan);
  const start = indexAt(offsets, from);
  let end = indexAt(offsets, to) + 1;
  end = Math.min(n, Math.max(end, start + 1));
  return { start, end, before: offsets[start] ?? 0, after: total - (offsets[end] ?? total) };
}
