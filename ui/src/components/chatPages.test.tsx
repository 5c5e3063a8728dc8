import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatCursor, ChatRow } from "../types";

vi.mock("../api", () => ({ listChats: vi.fn() }));

import * as api from "../api";
import {
  CHAT_PAGE,
  type ChatPages,
  FIRST_PAGE_GLOBAL,
  FIRST_PAGE_REFRESH_MS,
  FIRST_SCREEN_MEASURE,
  rememberedMetrics,
  takeFirstPage,
  useChatPages,
} from "./chatPages";
import { chatRow } from "./testChats";
import { unmount } from "./testRoot";
import { commandError } from "../testing/backend";

/** `n` chats, newest first, ids from `from` down. */
function rows(from: number, n: number): ChatRow[] {
  return Array.from({ length: n }, (_, i) => chatRow(from - i, { updatedAt: (from - i) * 1000 }));
}

/** A database of `total` chats answering pages as the engine does. */
function database(total: number) {
  const all = rows(total, total);
  vi.mocked(api.listChats).mockImplementation((after: ChatCursor | null, limit: number) => {
    const start = after ? all.findIndex((c) => c.id === after.id) + 1 : 0;
    return Promise.resolve(all.slice(start, start + limit));
  });
  return all;
}

let root: HTMLElement;
const out: { current: ChatPages | null } = { current: null };
function Probe() {
  out.current = useChatPages();
  return null;
}
function pages(): ChatPages {
  if (!out.current) throw new Error("not rendered");
  return out.current;
}
async function mount() {
  await act(async () => {
    render(<Probe />, root);
  });
  await act(async () => {});
}

beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  vi.mocked(api.listChats).mockReset();
});
afterEach(() => unmount(root));

describe("the sidebar's chat pages", () => {
  it("reads the first page only, then each older page after the last row", async () => {
    const all = database(250);
    await mount();
    expect(pages().data).toEqual(all.slice(0, CHAT_PAGE));
    expect(pages().more).toBe(true);
    expect(api.listChats).toHaveBeenCalledWith(null, CHAT_PAGE);
    await act(() => pages().loadMore());
    const last = all[CHAT_PAGE - 1];
    expect(api.listChats).toHaveBeenLastCalledWith({ updatedAt: last?.updatedAt, id: last?.id }, CHAT_PAGE);
    await act(() => pages().loadMore());
    expect(pages().data).toEqual(all);
    expect(pages().more).toBe(false);
    // Nothing is read past the end.
    const calls = vi.mocked(api.listChats).mock.calls.length;
    await act(() => pages().loadMore());
    expect(api.listChats).toHaveBeenCalledTimes(calls);
  });

  it("a reload reads as many chats as are shown, from the top", async () => {
    database(250);
    await mount();
    await act(() => pages().loadMore());
    await act(() => pages().reload());
    expect(api.listChats).toHaveBeenLastCalledWith(null, 2 * CHAT_PAGE);
    expect(pages().data).toHaveLength(2 * CHAT_PAGE);
  });

  it("a page that answers after a reload is dropped: the reload's rows stand", async () => {
    const all = database(250);
    await mount();
    let answer: (rows: ChatRow[]) => void = () => {};
    vi.mocked(api.listChats).mockImplementationOnce(
      () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    );
    const slow = pages().loadMore();
    // Meanwhile a chat is renamed and the list is read again.
    const renamed = all.map((c) => (c.id === 250 ? { ...c, title: "Renamed" } : c));
    vi.mocked(api.listChats).mockResolvedValueOnce(renamed.slice(0, CHAT_PAGE));
    await act(() => pages().reload());
    await act(async () => {
      answer(all.slice(CHAT_PAGE, 2 * CHAT_PAGE));
      await slow;
    });
    expect(pages().data).toHaveLength(CHAT_PAGE);
    expect(pages().data?.[0]?.title).toBe("Renamed");
  });

  it("says why a page could not be read and keeps what it has", async () => {
    database(250);
    await mount();
    vi.mocked(api.listChats).mockRejectedValueOnce(commandError("storage", "database is locked"));
    await act(() => pages().loadMore());
    expect(pages().error).toBe("The database failed: database is locked");
    expect(pages().data).toHaveLength(CHAT_PAGE);
  });
});

describe("the first page handed with the page", () => {
  afterEach(() => vi.useRealTimers());

  it("is shown at once without asking, taken once, and read again a moment later", async () => {
    const all = database(250);
    const handed = all.slice(0, CHAT_PAGE).map((c) => ({ ...c, title: `${c.title} (when the window opened)` }));
    (window as unknown as Record<string, unknown>)[FIRST_PAGE_GLOBAL] = handed;
    vi.useFakeTimers();
    await act(async () => {
      render(<Probe />, root);
    });
    // The very first render has the chats: nothing was asked.
    expect(pages().data).toEqual(handed);
    expect(pages().more).toBe(true);
    expect(api.listChats).not.toHaveBeenCalled();
    expect(FIRST_PAGE_GLOBAL in window).toBe(false);
    expect(takeFirstPage()).toBeUndefined();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(FIRST_PAGE_REFRESH_MS);
    });
    expect(api.listChats).toHaveBeenCalledWith(null, CHAT_PAGE);
    expect(pages().data).toEqual(all.slice(0, CHAT_PAGE));
  });

  it("is ignored when it is not a list, and the page asks instead", async () => {
    const all = database(5);
    (window as unknown as Record<string, unknown>)[FIRST_PAGE_GLOBAL] = { not: "rows" };
    await mount();
    expect(FIRST_PAGE_GLOBAL in window).toBe(false);
    expect(api.listChats).toHaveBeenCalledWith(null, CHAT_PAGE);
    expect(pages().data).toEqual(all);
    expect(pages().more).toBe(false);
  });
});

describe("the sidebar's first screen", () => {
  it("is measured once, from asking for the first page to the frame that shows it", async () => {
    // A fresh copy of the module: whether the first screen was measured is the module's own
    // state, and an earlier test's measure may still wait on a frame that a test with fake
    // timers swallowed.
    vi.resetModules();
    const freshApi = await import("../api");
    const fresh = await import("./chatPages");
    performance.clearMarks();
    performance.clearMeasures();
    vi.mocked(freshApi.listChats).mockResolvedValue(rows(250, CHAT_PAGE));
    let got: ChatPages | null = null;
    function FreshProbe() {
      got = fresh.useChatPages();
      return null;
    }
    await act(async () => {
      render(<FreshProbe />, root);
    });
    await act(async () => {});
    expect(got).not.toBeNull();
    await act(async () => {
      await got?.reload();
    });
    // After the frame that follows the first page.
    await new Promise((r) => requestAnimationFrame(() => setTimeout(() => setTimeout(r, 0), 0)));
    const measures = performance.getEntriesByName(FIRST_SCREEN_MEASURE, "measure");
    expect(measures).toHaveLength(1);
    expect(measures[0]?.duration).toBeGreaterThanOrEqual(0);
    // Asked once: the reload after the first page is not measured again.
    expect(performance.getEntriesByName("tollgate:chats-asked", "mark")).toHaveLength(1);
    expect(freshApi.listChats).toHaveBeenCalledTimes(2);
  });
});

describe("the list's metrics from the last window", () => {
  it("are taken only when they make sense for this window", () => {
    expect(rememberedMetrics(JSON.stringify({ rowPx: 34, chromePx: 220 }), 860)).toEqual({ rowPx: 34, chromePx: 220 });
    expect(rememberedMetrics(null, 860)).toBeNull();
    expect(rememberedMetrics("{not json", 860)).toBeNull();
    expect(rememberedMetrics(JSON.stringify({ rowPx: "34", chromePx: 220 }), 860)).toBeNull();
    // Rows under the floor, absurdly tall rows, or a list with no room in this window.
    expect(rememberedMetrics(JSON.stringify({ rowPx: 10, chromePx: 220 }), 860)).toBeNull();
    expect(rememberedMetrics(JSON.stringify({ rowPx: 900, chromePx: 220 }), 860)).toBeNull();
    expect(rememberedMetrics(JSON.stringify({ rowPx: 34, chromePx: 900 }), 860)).toBeNull();
    expect(rememberedMetrics(JSON.stringify({ rowPx: 34, chromePx: -5 }), 860)).toBeNull();
  });
});
