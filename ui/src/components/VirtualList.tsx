import type { ComponentChildren, RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { visibleWindow } from "../virtual";
import { useScrollView } from "./hooks";

/**
 * Lists shorter than this render whole. At 120, a chat of 150 messages with a tool call in
 * most turns (113 shown once tool results are folded into their calls) rendered every message
 * and its markdown on opening: the idle window held 40 MB more than windowed (issue 16).
 */
export const VIRTUALIZE_FROM = 40;
/** Height assumed for an item not measured yet. */
const ESTIMATE = 120;
/** Extra pixels rendered above and below the viewport. */
const OVERSCAN = 800;

export interface VirtualItem {
  key: string | number;
  render: () => ComponentChildren;
}

/**
 * Renders the items of a long list that are near the viewport of `scroller`, with spacers for the
 * rest; heights are measured as items render. `stick` keeps the view at the bottom (new text).
 */
export function VirtualList({
  items,
  scroller,
  stick,
}: {
  items: VirtualItem[];
  scroller: RefObject<HTMLDivElement | null>;
  stick: RefObject<boolean>;
}) {
  const list = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string | number, number>());
  // Until it is read, the view is at the end: a chat opens on its newest messages.
  const view = useScrollView(scroller, list, { top: Number.MAX_SAFE_INTEGER, height: 800 });
  const [, setMeasured] = useState(0);

  const sizes = items.map((it) => heights.current.get(it.key) ?? ESTIMATE);
  const total = sizes.reduce((a, b) => a + b, 0);
  const top = Math.min(view.top, Math.max(0, total - view.height));
  const w = visibleWindow(sizes, top, view.height, OVERSCAN);
  const shown = items.slice(w.start, w.end);

  useLayoutEffect(() => {
    const l = list.current;
    if (!l) return;
    // The rendered items only: looking each up among all of a long chat's items cost every
    // scrolled frame thousands of comparisons.
    const keys = new Map(shown.map((it) => [String(it.key), it.key]));
    let changed = false;
    for (const child of Array.from(l.children)) {
      const key = keys.get((child as HTMLElement).dataset["vkey"] ?? "");
      if (key === undefined) continue;
      const h = (child as HTMLElement).offsetHeight;
      if (h > 0 && heights.current.get(key) !== h) {
        heights.current.set(key, h);
        changed = true;
      }
    }
    if (changed) setMeasured((n) => n + 1);
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });

  return (
    <div ref={list} class="virtual-list">
      <div style={{ height: `${w.before}px` }} aria-hidden="true" />
      {shown.map((it) => (
        <div key={it.key} data-vkey={String(it.key)}>
          {it.render()}
        </div>
      ))}
      <div style={{ height: `${w.after}px` }} aria-hidden="true" />
    </div>
  );
}
