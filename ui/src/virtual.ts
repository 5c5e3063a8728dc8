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

/**
 * Rows of one height (the sidebar's chats): the rows to render for a scroll position, as
 * half-open `[start, end)` index ranges in order. Those in `[top, top + viewport]` and
 * `overscan` rows on each side, and the row `keep` wherever it is: the row that has the
 * keyboard focus (or is being renamed) must not be dropped when the list scrolls away from it.
 */
export function rowRanges(
  total: number,
  rowHeight: number,
  top: number,
  viewport: number,
  overscan: number,
  keep: number | null,
): Array<[number, number]> {
  if (total <= 0) return [];
  const h = Math.max(1, rowHeight);
  const start = Math.min(total - 1, Math.max(0, Math.floor(top / h) - overscan));
  const end = Math.max(start + 1, Math.min(total, Math.ceil((top + Math.max(0, viewport)) / h) + overscan));
  if (keep === null || keep < 0 || keep >= total || (keep >= start - 1 && keep <= end)) {
    const from = keep === start - 1 ? keep : start;
    const to = keep === end && end < total ? end + 1 : end;
    return [[from, to]];
  }
  return keep < start
    ? [
        [keep, keep + 1],
        [start, end],
      ]
    : [
        [start, end],
        [keep, keep + 1],
      ];
}

/** A part of a windowed list as drawn: space standing for items left out, or one item. */
export type Segment = { kind: "gap"; height: number; before: number | null } | { kind: "item"; index: number; top: number };

/**
 * The parts to draw for window `w`: its items, plus the items in `kept` outside it, in order,
 * with space between them standing for the items left out (`before` names the item a gap sits
 * above, `null` at the end; `top` is where an item is placed, from the first item's top). A kept item is one whose page must not be lost when the list
 * scrolls away from it: an MCP view's frame would load again, and the view forget its state.
 * A gap is drawn above the first item and below the last even when it is empty.
 */
export function windowSegments(heights: readonly number[], w: Window, kept: readonly number[]): Segment[] {
  const n = heights.length;
  const offsets = prefixSums(heights);
  const outside = kept.filter((i) => Number.isInteger(i) && i >= 0 && i < n && (i < w.start || i >= w.end));
  const indices = [...new Set(outside)];
  for (let i = w.start; i < Math.min(w.end, n); i++) indices.push(i);
  indices.sort((a, b) => a - b);
  const out: Segment[] = [];
  let next = 0;
  for (const i of indices) {
    if (i > next || out.length === 0) out.push({ kind: "gap", height: (offsets[i] ?? 0) - (offsets[next] ?? 0), before: i });
    out.push({ kind: "item", index: i, top: offsets[i] ?? 0 });
    next = i + 1;
  }
  out.push({ kind: "gap", height: (offsets[n] ?? 0) - (offsets[next] ?? 0), before: null });
  return out;
}
