import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatRow, Preset } from "../types";

vi.mock("../api", () => ({
  searchChats: vi.fn(),
  renameChat: vi.fn(),
}));

import * as api from "../api";
import { CHAT_PAGE, firstScreenRows } from "./chatPages";
import { pauseLeft, Sidebar } from "./Sidebar";
import { chatRow } from "./testChats";
import { unmount } from "./testRoot";

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

/** Past the typing pause, then lets the answer land. */
async function settle() {
  await act(() => new Promise((resolve) => setTimeout(resolve, 200)));
}

describe("the first screen", () => {
  it("shows the chats a window holds first and the rest of the page once that frame is painted", async () => {
    const page = Array.from({ length: CHAT_PAGE }, (_, i) => ({ ...chats[0]!, id: i + 1, title: `Chat ${i + 1}` }));
    await mount([], undefined, undefined, undefined, page);
    const rows = () => Array.from(root.querySelectorAll<HTMLElement>(".chat-list [data-chat]")).map((b) => b.dataset["chat"]);
    const actions = () => root.querySelectorAll(".chat-list .chat-item-actions button").length;
    expect(rows()).toEqual(page.slice(0, firstScreenRows(window.innerHeight)).map((c) => String(c.id)));
    // The rename and delete buttons (shown on hover or focus) are left out of that frame.
    expect(actions()).toBe(0);
    await act(() => new Promise((r) => requestAnimationFrame(() => setTimeout(() => setTimeout(r, 0), 0))));
    expect(rows()).toEqual(page.map((c) => String(c.id)));
    expect(actions()).toBe(2 * CHAT_PAGE);
  });

  it("renders more rows than a window of any height holds, and never fewer than 10", () => {
    for (const height of [200, 600, 860, 1440, 2160]) {
      // A row is about 34 px tall at the smallest text size.
      expect(firstScreenRows(height)).toBeGreaterThanOrEqual(Math.ceil(height / 34));
    }
    expect(firstScreenRows(860)).toBeLessThan(40);
    expect(firstScreenRows(0)).toBe(10);
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
    await settle();
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
    vi.mocked(api.searchChats).mockRejectedValue(new Error("index rebuilding"));
    await mount();
    await type("train");
    await settle();
    expect(root.querySelector(".chat-list .inline-error")?.textContent).toBe("index rebuilding");
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
