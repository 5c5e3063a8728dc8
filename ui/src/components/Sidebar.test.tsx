import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatRow, Preset } from "../types";

vi.mock("../api", () => ({
  searchChats: vi.fn(),
  renameChat: vi.fn(),
}));

import * as api from "../api";
import { CHAT_PAGE, LIST_METRICS_KEY, OVERSCAN_ROWS } from "./chatPages";
import { pauseLeft, Sidebar } from "./Sidebar";
import { chatRow } from "./testChats";
import { unmount } from "./testRoot";
import { commandError } from "../testing/backend";

const chats: ChatRow[] = [chatRow(1, { title: "Travel plans" })];

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  vi.mocked(api.searchChats).mockReset();
});
afterEach(() => unmount(root));

async function mount(
  presets: Preset[] = [],
  onNewFromPreset: (id: number) => void = () => {},
  onImport: () => void = () => {},
  more: { moreChats: boolean; onMoreChats: () => void } = { moreChats: false, onMoreChats: () => {} },
  list: ChatRow[] = chats,
) {
  await act(async () => {
    render(
      <Sidebar
        chats={list}
        {...more}
        loadError={null}
        notices={[]}
        current={1}
        waiting={{}}
        onSelect={() => {}}
        onNew={() => {}}
        presets={presets}
        onNewFromPreset={onNewFromPreset}
        onImport={onImport}
        status={null}
        onRenamed={() => {}}
        onDelete={() => {}}
        onSettings={() => {}}
        settingsOpen={false}
        searchRef={{ current: null }}
      />,
      root,
    );
  });
}

async function type(text: string) {
  const box = root.querySelector<HTMLInputElement>('.search input[type="search"]');
  if (!box) throw new Error("no search box");
  await act(async () => {
    box.value = text;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

/** Waits past the typing pause until `shown` matches what the list shows (the answer landed). */
async function settle(shown: string) {
  await vi.waitFor(
    async () => {
      await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
      if (!root.querySelector(shown)) throw new Error(`nothing matches ${shown} yet`);
    },
    { timeout: 20_000, interval: 20 },
  );
}

describe("the windowed chat list", () => {
  const page = Array.from({ length: CHAT_PAGE }, (_, i) => ({ ...chats[0]!, id: i + 1, title: `Chat ${i + 1}` }));
  const rows = () => Array.from(root.querySelectorAll<HTMLElement>(".chat-list [data-chat]")).map((b) => Number(b.dataset["chat"]));
  const withActions = () =>
    Array.from(root.querySelectorAll<HTMLElement>(".chat-list .chat-row"))
      .filter((r) => r.querySelectorAll(".chat-item-actions button").length === 2)
      .map((r) => Number(r.dataset["row"]));
  const listHeight = () =>
    Array.from(root.querySelectorAll<HTMLElement>(".chat-list li")).reduce(
      // jsdom lays nothing out: a rendered row stands for the 28 px the list takes rows to be.
      (sum, li) => sum + (li.classList.contains("chat-gap") ? parseFloat(li.style.height) : 28),
      0,
    );
  const painted = () => act(() => new Promise((r) => requestAnimationFrame(() => setTimeout(() => setTimeout(r, 0), 0))));
  /** Scrolls the list to `top` px in a view `height` px tall, as the window would lay it out. */
  async function scrollTo(top: number, height = 560) {
    const nav = root.querySelector<HTMLElement>("nav.chat-list")!;
    const list = nav.querySelector("ul")!;
    Object.defineProperty(nav, "clientHeight", { value: height, configurable: true });
    nav.scrollTop = top;
    list.getBoundingClientRect = () => ({ top: -top }) as DOMRect;
    await act(() => {
      nav.dispatchEvent(new Event("scroll"));
    });
    await act(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
  }

  it("renders the rows in view first, then a few more each side, and stands in for the rest", async () => {
    await mount([], undefined, undefined, undefined, page);
    const inView = Math.ceil(window.innerHeight / 28);
    expect(rows()).toEqual(page.slice(0, inView).map((c) => c.id));
    expect(listHeight()).toBe(CHAT_PAGE * 28);
    await painted();
    expect(rows()).toEqual(page.slice(0, inView + OVERSCAN_ROWS).map((c) => c.id));
    expect(listHeight()).toBe(CHAT_PAGE * 28);
    // Screen readers hear the row's place in the whole list.
    const first = root.querySelector<HTMLElement>(".chat-list .chat-row")!;
    expect([first.getAttribute("aria-posinset"), first.getAttribute("aria-setsize")]).toEqual(["1", String(CHAT_PAGE)]);
  });

  it("renders, in its first frame, only the rows that fit the list as the last window measured it", async () => {
    localStorage.setItem(LIST_METRICS_KEY, JSON.stringify({ rowPx: 40, chromePx: window.innerHeight - 400 }));
    // The list lays out 400 px tall, as the last window measured it (jsdom lays nothing out).
    const height = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "clientHeight");
    Object.defineProperty(HTMLElement.prototype, "clientHeight", {
      configurable: true,
      get(this: HTMLElement) {
        return this.matches("nav.chat-list") ? 400 : 0;
      },
    });
    try {
      await mount([], undefined, undefined, undefined, page);
      expect(rows()).toEqual(page.slice(0, 10).map((c) => c.id));
      const gap = root.querySelector<HTMLElement>(".chat-list .chat-gap");
      expect(gap?.style.height).toBe(`${(CHAT_PAGE - 10) * 40}px`);
    } finally {
      localStorage.removeItem(LIST_METRICS_KEY);
      if (height) Object.defineProperty(HTMLElement.prototype, "clientHeight", height);
    }
  });

  it("follows the scroll and keeps the focused row, with its buttons, wherever the list goes", async () => {
    await mount([], undefined, undefined, undefined, page);
    await painted();
    expect(withActions()).toEqual([]);
    root.querySelector<HTMLButtonElement>('[data-chat="3"]')!.focus();
    await act(() => {});
    // The focused row and the one before it (for Shift+Tab) have their rename and delete buttons.
    expect(withActions()).toEqual([2, 3]);
    await scrollTo(60 * 28);
    const shown = rows();
    expect(shown).toContain(3);
    expect(shown).toContain(61);
    expect(shown).not.toContain(2);
    expect(shown).not.toContain(40);
    expect(shown.length).toBeLessThan(20 + 2 * OVERSCAN_ROWS + 2);
    expect(document.activeElement).toBe(root.querySelector('[data-chat="3"]'));
    expect(listHeight()).toBe(CHAT_PAGE * 28);
    // Tab onto the row's rename button, then away from the list: the row goes with the focus.
    root.querySelector<HTMLButtonElement>('[data-row="3"] .chat-item-actions button')!.focus();
    await act(() => {});
    expect(rows()).toContain(3);
    root.querySelector<HTMLInputElement>(".search input")!.focus();
    await act(() => {});
    expect(rows()).not.toContain(3);
    expect(withActions()).toEqual([]);
  });

  it("gives the row under the pointer its buttons", async () => {
    await mount([], undefined, undefined, undefined, page);
    await act(() => {
      root.querySelector('[data-chat="5"] .chat-item-title')!.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    });
    expect(withActions()).toEqual([5]);
    await act(() => {
      root.querySelector(".chat-list ul")!.dispatchEvent(new MouseEvent("mouseleave"));
    });
    expect(withActions()).toEqual([]);
  });
});

describe("older chats", () => {
  it("are read on the button at the end of the list, and only while some are left", async () => {
    const onMoreChats = vi.fn();
    await mount([], undefined, undefined, { moreChats: true, onMoreChats });
    const button = root.querySelector<HTMLButtonElement>('[data-role="more-chats"]');
    expect(button?.textContent).toBe("Show older chats");
    await act(() => button?.click());
    expect(onMoreChats).toHaveBeenCalledTimes(1);
    await mount([], undefined, undefined, { moreChats: false, onMoreChats });
    expect(root.querySelector('[data-role="more-chats"]')).toBeNull();
  });

  it("are read as the list scrolls near its end", async () => {
    const onMoreChats = vi.fn();
    await mount([], undefined, undefined, { moreChats: true, onMoreChats });
    const nav = root.querySelector<HTMLElement>("nav.chat-list");
    if (!nav) throw new Error("no list");
    // jsdom lays nothing out: the sizes a 5,000-pixel list shows in a 600-pixel box.
    Object.defineProperties(nav, { scrollHeight: { value: 5000 }, clientHeight: { value: 600 } });
    nav.scrollTop = 1000;
    await act(() => {
      nav.dispatchEvent(new Event("scroll"));
    });
    expect(onMoreChats).not.toHaveBeenCalled();
    nav.scrollTop = 3900;
    await act(() => {
      nav.dispatchEvent(new Event("scroll"));
    });
    expect(onMoreChats).toHaveBeenCalledTimes(1);
  });
});

describe("chat search", () => {
  it("searches once typing pauses and shows the hits", async () => {
    vi.mocked(api.searchChats).mockResolvedValue([{ chat: 1, title: "Travel plans", snippet: "book the \uE000train\uE001 to [B]", message: 12 }]);
    await mount();
    await type("tr");
    await type("train");
    await settle(".chat-list .snippet");
    expect(vi.mocked(api.searchChats).mock.calls).toEqual([["train"]]);
    expect(root.querySelector(".chat-list .snippet")?.textContent).toBe("book the train to [B]");
    expect(root.querySelector(".chat-list .snippet mark")?.textContent).toBe("train");
  });

  it("counts the typing pause from the last key, not from when the search could start", () => {
    expect(pauseLeft(1000, 1000)).toBe(150);
    expect(pauseLeft(1000, 1040)).toBe(110);
    expect(pauseLeft(1000, 1150)).toBe(0);
    expect(pauseLeft(1000, 1400)).toBe(0);
    // A clock read before the key (it never runs backwards, but the pause never grows).
    expect(pauseLeft(1000, 900)).toBe(150);
  });

  it("shows why a search failed instead of the unfiltered list", async () => {
    vi.mocked(api.searchChats).mockRejectedValue(commandError("storage", "index rebuilding"));
    await mount();
    await type("train");
    await settle(".chat-list .inline-error");
    expect(root.querySelector(".chat-list .inline-error")?.textContent).toBe("The database failed: index rebuilding");
  });
});

describe("new chat with an assistant", () => {
  const preset: Preset = { id: 4, name: "Reviewer", systemPrompt: "Review code.", model: "", params: {}, groups: {}, createdAt: 0 };

  it("offers import alone while there are no assistants", async () => {
    let imports = 0;
    await mount(
      [],
      () => {},
      () => imports++,
    );
    await act(async () => root.querySelector<HTMLButtonElement>('[data-role="new-from-preset"]')?.click());
    const items = [...root.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')];
    expect(items.map((b) => b.textContent?.trim())).toEqual(["Import chats…"]);
    await act(async () => items[0]?.click());
    expect(imports).toBe(1);
    expect(root.querySelector('[role="menu"]')).toBeNull();
  });

  it("lists the assistants beside New chat and starts the chosen one", async () => {
    const picked: number[] = [];
    await mount([preset], (id) => picked.push(id));
    const caret = root.querySelector<HTMLButtonElement>('[data-role="new-from-preset"]');
    expect(caret?.getAttribute("aria-label")).toBe("More ways to start: assistants, import");
    await act(async () => caret?.click());
    const item = [...root.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')].find((b) => b.textContent === "Reviewer");
    await act(async () => item?.click());
    expect(picked).toEqual([4]);
    expect(root.querySelector('[role="menu"]')).toBeNull();
  });
});
