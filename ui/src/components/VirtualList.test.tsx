import { render } from "preact";
import { useRef } from "preact/hooks";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { layout } from "./testLayout";
import { unmount } from "./testRoot";
import { useFollowBottom } from "./hooks";
import { HEAD_HEIGHT, VirtualList } from "./VirtualList";

let root: HTMLElement;
let restore = () => {};
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  restore = layout();
});
afterEach(async () => {
  await unmount(root);
  restore();
});

/**
 * A scroller holding a windowed list of items `from..to`, with a head while `loading`; the items
 * in `keep` are kept drawn once drawn.
 */
function List({ from, to, loading, stick, keep = [] }: { from: number; to: number; loading: boolean; stick: boolean; keep?: number[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const items = [];
  for (let i = from; i < to; i++) items.push({ key: i, render: () => <p>item {i}</p>, keep: keep.includes(i) });
  return (
    <div class="scroller" ref={scroller}>
      <VirtualList items={items} scroller={scroller} stick={{ now: () => stick }} head={loading ? <span>loading</span> : null} />
    </div>
  );
}

/** The same list in a scroller that follows its bottom as a chat's does (`useFollowBottom`). */
function Following({ to }: { to: number }) {
  const scroller = useRef<HTMLDivElement>(null);
  const { stick, onScroll } = useFollowBottom(scroller, "chat", to);
  const items = [];
  for (let i = 0; i < to; i++) items.push({ key: i, render: () => <p>item {i}</p> });
  return (
    <div class="scroller" ref={scroller} onScroll={onScroll}>
      <VirtualList items={items} scroller={scroller} stick={stick} />
    </div>
  );
}

async function showFollowing(to: number) {
  await act(() => {
    render(<Following to={to} />, root);
  });
}

async function show(from: number, to: number, loading: boolean, stick = false, keep: number[] = []) {
  await act(() => {
    render(<List from={from} to={to} loading={loading} stick={stick} keep={keep} />, root);
  });
}

async function nextFrame() {
  await act(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
}

function scroller(): HTMLElement {
  const el = root.querySelector<HTMLElement>(".scroller");
  if (!el) throw new Error("no scroller");
  return el;
}

/** The element drawing item `key`. */
function drawn(key: number): HTMLElement {
  const item = root.querySelector<HTMLElement>(`[data-vkey="${key}"]`);
  if (!item) throw new Error(`item ${key} is not drawn`);
  return item;
}

/** Where item `key` is drawn, in px from the top of the scroller's viewport (fake layout). */
function drawnAt(key: number): number {
  return drawn(key).getBoundingClientRect().top;
}

/** Items 0..600, all measured, scrolled to `top`: the item read there and where it is drawn. */
async function readingAt(top: number): Promise<{ reading: number; at: number }> {
  await show(0, 600, false);
  await nextFrame();
  await scrollTo(top);
  await nextFrame();
  const reading = topmost();
  return { reading, at: drawnAt(reading) };
}

/** The first item drawn at or below the top of the view. */
function topmost(): number {
  const key = Array.from(root.querySelectorAll<HTMLElement>("[data-vkey]"))
    .map((e) => Number(e.dataset["vkey"]))
    .find((k) => drawnAt(k) >= 0);
  if (key === undefined) throw new Error("nothing is drawn in view");
  return key;
}

async function scrollTo(top: number) {
  scroller().scrollTop = top;
  await act(async () => {
    scroller().dispatchEvent(new Event("scroll"));
    await new Promise((r) => requestAnimationFrame(() => r(undefined)));
  });
}

describe("a windowed list that grows at the top", () => {
  it("keeps what the user reads in place as earlier items and the end of the head come in", async () => {
    await show(500, 600, true);
    await nextFrame();
    await scrollTo(2000);
    const reading = topmost();
    const at = drawnAt(reading);

    // 250 earlier items come in: the item read stays where it was drawn.
    await show(250, 600, true);
    expect(drawnAt(reading)).toBe(at);
    await nextFrame();
    expect(drawnAt(reading)).toBe(at);

    // The last page: its items come in and the head goes, in one render.
    await show(0, 600, false);
    expect(root.querySelector(".virtual-head")).toBeNull();
    expect(drawnAt(reading)).toBe(at);
    await nextFrame();
    expect(drawnAt(reading)).toBe(at);
  });

  it("shows the head above the first item, and stays at the end while following it", async () => {
    await show(500, 600, true, true);
    await nextFrame();
    const el = scroller();
    expect(el.scrollTop).toBe(el.scrollHeight - 400);
    await show(250, 600, true, true);
    await nextFrame();
    expect(el.scrollTop).toBe(el.scrollHeight - 400);
    expect(Array.from(root.querySelectorAll("[data-vkey]")).at(-1)?.textContent).toBe("item 599");

    await scrollTo(0);
    const head = root.querySelector<HTMLElement>(".virtual-head");
    expect(head?.textContent).toBe("loading");
    expect(head?.style.height).toBe(`${HEAD_HEIGHT}px`);
    expect(root.querySelector("[data-vkey]")?.textContent).toBe("item 250");
  });

  it("scrolling up into items not measured yet moves the view by what was scrolled, not by their measured size", async () => {
    const { reading, at } = await readingAt(20000);
    for (const step of [1, 2]) {
      await scrollTo(scroller().scrollTop - 400);
      await nextFrame();
      expect(drawnAt(reading)).toBe(at + 400 * step);
    }
  });
});

describe("a kept item (an MCP view)", () => {
  it("stays the same element, in its place, while the list scrolls away from it and back", async () => {
    // Items of 60 px: the view is item 3, near the top.
    await show(0, 600, false, false, [3, 590]);
    await nextFrame();
    await scrollTo(0);
    await nextFrame();
    const element = drawn(3);
    const at = drawnAt(3);
    // Far below, item 3 is still drawn, where it lies; so is item 590, drawn when the list
    // opened on its end; items between are not.
    for (const top of [6000, 12000, 15000]) {
      await scrollTo(top);
      await nextFrame();
      expect(drawn(3)).toBe(element);
      expect(drawnAt(3)).toBe(at - scroller().scrollTop);
      expect(scroller().scrollTop).toBeGreaterThan(top / 2);
      expect(drawn(590).textContent).toBe("item 590");
      expect(root.querySelector('[data-vkey="300"]')).toBeNull();
    }
    await scrollTo(0);
    await nextFrame();
    expect(drawn(3)).toBe(element);
    expect(drawnAt(3)).toBe(at);
  });

  it("is let go when it is no longer marked", async () => {
    await show(0, 600, false, false, [3]);
    await nextFrame();
    await scrollTo(20000);
    await nextFrame();
    expect(drawn(3)).toBeTruthy();
    await show(0, 600, false, false, []);
    await nextFrame();
    expect(root.querySelector('[data-vkey="3"]')).toBeNull();
  });
});

describe("a list that follows its bottom", () => {
  const atBottom = () => scroller().scrollTop === scroller().scrollHeight - 400;

  it("follows new items while at the bottom", async () => {
    await showFollowing(100);
    await nextFrame();
    expect(atBottom()).toBe(true);
    await showFollowing(101);
    await nextFrame();
    expect(atBottom()).toBe(true);
    expect(Array.from(root.querySelectorAll("[data-vkey]")).at(-1)?.textContent).toBe("item 100");
  });

  it("keeps a move up whose scroll event has not come yet when new items come first", async () => {
    await showFollowing(100);
    await nextFrame();
    expect(atBottom()).toBe(true);
    // The user scrolls up a screen; the browser reports it a frame later, and a new item comes
    // in before that (a loaded machine, a long chat's pages arriving).
    scroller().scrollTop -= 400;
    const reading = topmost();
    const at = drawnAt(reading);
    await showFollowing(101);
    expect(drawnAt(reading)).toBe(at);
    expect(atBottom()).toBe(false);

    // The event comes: the view stays, and stays through the next item too.
    await scrollTo(scroller().scrollTop);
    await showFollowing(102);
    await nextFrame();
    expect(drawnAt(reading)).toBe(at);
    expect(atBottom()).toBe(false);
  });
});

/**
 * A ResizeObserver for jsdom, which has none: `resize` reports the given elements to every
 * observer watching them, as a browser does after the layout in which they changed size.
 */
function fakeResizeObserver(): { resize: (...els: Element[]) => void; restore: () => void } {
  const observers = new Set<{ cb: ResizeObserverCallback; watched: Set<Element>; self: ResizeObserver }>();
  class Fake {
    private entry: { cb: ResizeObserverCallback; watched: Set<Element>; self: ResizeObserver };
    constructor(cb: ResizeObserverCallback) {
      this.entry = { cb, watched: new Set(), self: this as unknown as ResizeObserver };
      observers.add(this.entry);
    }
    observe(el: Element) {
      this.entry.watched.add(el);
    }
    unobserve(el: Element) {
      this.entry.watched.delete(el);
    }
    disconnect() {
      observers.delete(this.entry);
    }
  }
  const saved = globalThis.ResizeObserver;
  globalThis.ResizeObserver = Fake as unknown as typeof ResizeObserver;
  return {
    resize: (...els) => {
      for (const o of observers) {
        const hit = els.filter((el) => o.watched.has(el)).map((target) => ({ target }) as ResizeObserverEntry);
        if (hit.length) o.cb(hit, o.self);
      }
    },
    restore: () => {
      globalThis.ResizeObserver = saved;
    },
  };
}

describe("an item that changes size on its own", () => {
  let ro: ReturnType<typeof fakeResizeObserver>;
  beforeEach(() => {
    ro = fakeResizeObserver();
  });
  afterEach(() => ro.restore());

  /** Gives the drawn item `key` a height of its own, and reports it as a browser would. */
  async function resize(key: number, height: number) {
    const item = drawn(key);
    Object.defineProperty(item, "offsetHeight", { configurable: true, get: () => height });
    await act(() => ro.resize(item));
  }

  it("above the view: what the user reads stays where it is, in the same frame", async () => {
    const { reading, at } = await readingAt(6000);
    const above = reading - 2;
    await resize(above, 20);
    expect(drawnAt(reading)).toBe(at);
    await resize(above, 140);
    expect(drawnAt(reading)).toBe(at);
    await nextFrame();
    expect(drawnAt(reading)).toBe(at);
  });

  it("in the view: what is below it moves, what is above it does not", async () => {
    const { reading, at } = await readingAt(6000);
    await resize(reading + 1, 100);
    expect(drawnAt(reading)).toBe(at);
    expect(drawnAt(reading + 2)).toBe(at + 60 + 100);
  });
});
