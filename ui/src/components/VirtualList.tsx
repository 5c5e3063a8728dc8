import type { ComponentChildren, RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { visibleWindow, windowSegments } from "../virtual";
import { type Stick, useScrollView } from "./hooks";

/**
 * Lists shorter than this render whole. At 120, a chat of 150 messages with a tool call in
 * most turns (113 shown once tool results are folded into their calls) rendered every message
 * and its markdown on opening: the idle window held 40 MB more than windowed (F-71).
 */
export const VIRTUALIZE_FROM = 40;
/** Height assumed for an item not measured yet. */
const ESTIMATE = 120;
/** Extra pixels rendered above and below the viewport. */
const OVERSCAN = 800;

export interface VirtualItem {
  key: string | number;
  render: () => ComponentChildren;
  /**
   * Once drawn, stays drawn when the list scrolls away from it: an item holding an MCP view,
   * whose frame would load again and forget what the user did in it.
   */
  keep?: boolean;
}

/** Height of the row above the first item while earlier items are still coming. */
export const HEAD_HEIGHT = 44;

/**
 * Renders the items of a long list that are near the viewport of `scroller`, with spacers for the
 * rest; heights are measured as items render. `stick` keeps the view at the bottom (new text).
 * `head`, while earlier items are still being read, is shown above the first item.
 *
 * Items put in front of those shown (a long chat's earlier pages, read after its last one) keep
 * the view where it was: the scroll position moves down by the height they and the head add,
 * in the same frame, so what the user reads does not jump.
 */
export function VirtualList({
  items,
  scroller,
  stick,
  head = null,
  windowed = true,
}: {
  items: VirtualItem[];
  scroller: RefObject<HTMLDivElement | null>;
  stick: Stick;
  head?: ComponentChildren;
  /**
   * Off, every item is drawn (a short list), in the same elements as when windowed: a list
   * that grows long enough to be windowed keeps what it drew — an MCP view's page with it.
   */
  windowed?: boolean;
}) {
  const list = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string | number, number>());
  // Until it is read, the view is at the end: a chat opens on its newest messages.
  const view = useScrollView(scroller, list, { top: Number.MAX_SAFE_INTEGER, height: 800 });
  const [, setMeasured] = useState(0);
  const kept = useRef(new Set<string | number>());
  // What the last render started with, and how far the view moved since the scroll position
  // was last read: until the scroll event of that move comes back, the window is found with it.
  const shown0 = useRef<{ first: string | number | null; head: number }>({ first: null, head: 0 });
  const anchor = useRef({ view, shift: 0 });
  if (anchor.current.view !== view) anchor.current = { view, shift: 0 };
  const observe = useItemResizes(list, scroller, stick, heights, (grown) => {
    anchor.current.shift += grown;
    setMeasured((n) => n + 1);
  });

  const sizes = items.map((it) => heights.current.get(it.key) ?? ESTIMATE);
  const headHeight = head === null || head === undefined || head === false ? 0 : HEAD_HEIGHT;
  let added = headHeight - shown0.current.head;
  const first = items[0]?.key ?? null;
  if (shown0.current.first !== null && first !== shown0.current.first) {
    const at = items.findIndex((it) => it.key === shown0.current.first);
    if (at > 0) for (let i = 0; i < at; i++) added += sizes[i] ?? 0;
    else if (at < 0) added = 0;
  }
  shown0.current = { first, head: headHeight };
  anchor.current.shift += added;
  const total = sizes.reduce((a, b) => a + b, 0) + headHeight;
  const top = Math.min(view.top + anchor.current.shift, Math.max(0, total - view.height));
  const itemsTop = top - headHeight;
  const w = windowed ? visibleWindow(sizes, itemsTop, view.height, OVERSCAN) : { start: 0, end: items.length, before: 0, after: 0 };
  // Items to keep: those marked so that have been drawn, wherever the list is now.
  const keptIndices: number[] = [];
  const keptNow = new Set<string | number>();
  items.forEach((it, i) => {
    if (!it.keep) return;
    const inWindow = i >= w.start && i < w.end;
    if (inWindow || kept.current.has(it.key)) keptNow.add(it.key);
    if (!inWindow && kept.current.has(it.key)) keptIndices.push(i);
  });
  kept.current = keptNow;
  const segments = windowSegments(sizes, w, keptIndices);
  // The items drawn, in order, and where each is placed, from the top of the first item.
  const drawnItems = segments.flatMap((seg) => (seg.kind === "item" ? [seg] : []));
  const shownIndices = drawnItems.map((seg) => seg.index);
  const shown = shownIndices.flatMap((i) => (items[i] ? [items[i]] : []));
  const tops = drawnItems.map((seg) => seg.top);

  useLayoutEffect(() => {
    const l = list.current;
    if (!l) return;
    // The rendered items only: looking each up among all of a long chat's items cost every
    // scrolled frame thousands of comparisons.
    const keys = new Map(shown.map((it, i) => [String(it.key), i]));
    let changed = false;
    // How much the items wholly above the view grew or shrank from the height they were placed
    // with: scrolling up into items not measured yet would otherwise push what the user reads
    // down by the difference, frame after frame, and a fast scroll would skip over them.
    let grown = 0;
    for (const child of Array.from(l.children)) {
      const i = keys.get((child as HTMLElement).dataset["vkey"] ?? "");
      const it = i === undefined ? undefined : shown[i];
      if (i === undefined || it === undefined) continue;
      const h = (child as HTMLElement).offsetHeight;
      const placed = sizes[shownIndices[i] ?? -1] ?? ESTIMATE;
      if (h > 0 && h !== placed) {
        heights.current.set(it.key, h);
        changed = true;
        if ((tops[i] ?? 0) + placed <= itemsTop) grown += h - placed;
      }
    }
    if (changed) setMeasured((n) => n + 1);
    observe(shown);
    const el = scroller.current;
    if (el && stick.now()) el.scrollTop = el.scrollHeight;
    else if (el && added + grown !== 0) {
      anchor.current.shift += grown;
      el.scrollTop += added + grown;
    }
  });

  return (
    <div ref={list} class="virtual-list">
      {headHeight ? (
        <div class="virtual-head" style={{ height: `${headHeight}px` }}>
          {head}
        </div>
      ) : null}
      {segments.map((seg) => {
        if (seg.kind === "gap") {
          const before = seg.before === null ? undefined : items[seg.before];
          return (
            <div key={before === undefined ? "gap:end" : `gap:${String(before.key)}`} style={{ height: `${seg.height}px` }} aria-hidden="true" />
          );
        }
        const it = items[seg.index];
        return it ? (
          <div key={it.key} data-vkey={String(it.key)}>
            {it.render()}
          </div>
        ) : null;
      })}
    </div>
  );
}

/**
 * Watches the rendered items for changes of size they make on their own, after the list has
 * measured them: a message whose deferred part renders a frame later, a card that folds. An
 * item wholly above the view that grows or shrinks would push what the user reads up or down;
 * the scroll position moves by the same amount in the same frame instead (unless the view
 * follows the bottom), and `changed` is told how far it moved. Returns what to call after each render,
 * with the items it shows.
 */
function useItemResizes(
  list: RefObject<HTMLDivElement | null>,
  scroller: RefObject<HTMLDivElement | null>,
  stick: Stick,
  heights: RefObject<Map<string | number, number>>,
  changed: (grown: number) => void,
): (shown: VirtualItem[]) => void {
  const latest = useRef({ stick, changed, keys: new Map<string, string | number>() });
  latest.current.stick = stick;
  latest.current.changed = changed;
  const observer = useRef<ResizeObserver | null>(null);
  const watched = useRef(new Set<Element>());
  // A layout effect, and called before the list's own: the first render's items are watched.
  useLayoutEffect(() => {
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver((entries) => {
      const el = scroller.current;
      const sizes = heights.current;
      if (!el || !sizes) return;
      const viewTop = el.getBoundingClientRect().top;
      let grown = 0;
      let any = false;
      for (const entry of entries) {
        const item = entry.target as HTMLElement;
        const key = latest.current.keys.get(item.dataset["vkey"] ?? "");
        const before = key === undefined ? undefined : sizes.get(key);
        const h = item.offsetHeight;
        if (key === undefined || before === undefined || h === 0 || h === before) continue;
        sizes.set(key, h);
        any = true;
        if (item.getBoundingClientRect().top + before <= viewTop) grown += h - before;
      }
      if (!any) return;
      const moved = grown !== 0 && !latest.current.stick.now();
      if (moved) el.scrollTop += grown;
      latest.current.changed(moved ? grown : 0);
    });
    observer.current = ro;
    return () => {
      ro.disconnect();
      observer.current = null;
      watched.current = new Set();
    };
  }, [scroller, heights]);
  return (shown) => {
    latest.current.keys = new Map(shown.map((it) => [String(it.key), it.key]));
    const ro = observer.current;
    const l = list.current;
    if (!ro || !l) return;
    const now = new Set(Array.from(l.children).filter((c) => (c as HTMLElement).dataset["vkey"] !== undefined));
    for (const c of watched.current) if (!now.has(c)) ro.unobserve(c);
    for (const c of now) if (!watched.current.has(c)) ro.observe(c);
    watched.current = now;
  };
}
