import { render } from "preact";
import { useRef } from "preact/hooks";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { layout } from "./testLayout";
import { unmount } from "./testRoot";
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

/** A scroller holding a windowed list of items `from..to`, with a head while `loading`. */
function List({ from, to, loading, stick }: { from: number; to: number; loading: boolean; stick: boolean }) {
  const scroller = useRef<HTMLDivElement>(null);
  const follow = useRef(stick);
  follow.current = stick;
  const items = [];
  for (let i = from; i < to; i++) items.push({ key: i, render: () => <p>item {i}</p> });
  return (
    <div class="scroller" ref={scroller}>
      <VirtualList items={items} scroller={scroller} stick={follow} head={loading ? <span>loading</span> : null} />
    </div>
  );
}

async function show(from: number, to: number, loading: boolean, stick = false) {
  await act(() => {
    render(<List from={from} to={to} loading={loading} stick={stick} />, root);
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

/** Where item `key` is drawn, in px from the top of the scroller's viewport (fake layout: 60 px items). */
function drawnAt(key: number): number {
  let y = 0;
  for (const child of Array.from(root.querySelectorAll<HTMLElement>(".virtual-list > *"))) {
    if (child.dataset["vkey"] === String(key)) return y - scroller().scrollTop;
    y += child.dataset["vkey"] !== undefined ? 60 : parseFloat(child.style.height || "0");
  }
  throw new Error(`item ${key} is not drawn`);
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
    await show(0, 600, false);
    await nextFrame();
    await scrollTo(20000);
    await nextFrame();
    const reading = topmost();
    const at = drawnAt(reading);
    for (const step of [1, 2]) {
      await scrollTo(scroller().scrollTop - 400);
      await nextFrame();
      expect(drawnAt(reading)).toBe(at + 400 * step);
    }
  });
});
