import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatHistory, PendingApproval } from "./types";

vi.mock("./api", () => ({
  chatHistory: vi.fn(),
  chatRevision: vi.fn(),
  pendingApprovals: vi.fn(() => Promise.resolve([])),
  sendMessage: vi.fn(),
  retryTurn: vi.fn(),
  stopTurn: vi.fn(),
}));

import * as api from "./api";
import * as session from "./session";
import { HISTORY_FIRST_PAGE, HISTORY_PAGE } from "./bindings";
import { ChatStore } from "./store";
import { commandError } from "./testing/backend";

const history: ChatHistory = { messages: [], calls: [], running: false, revision: 0, earlier: null, task: null };

let store: ChatStore;
beforeEach(() => {
  store = new ChatStore((flush) => flush());
  vi.mocked(api.chatHistory).mockReset().mockResolvedValue(history);
  vi.mocked(api.chatRevision).mockReset().mockResolvedValue({ revision: 0, running: false, waiting: 0 });
});

describe("a failed chat action shows as the chat's alert, never as a rejection", () => {
  it("send: the alert says why, the pending message goes and the chat is not running", async () => {
    vi.mocked(api.sendMessage).mockRejectedValueOnce(commandError("busy", "A turn is already running in this chat."));
    await expect(session.send(4, "hello", store)).resolves.toBe(false);
    const s = store.get(4);
    expect(s.alert).toEqual({ action: "send", message: "A reply is already being written in this chat; wait for it or press Stop." });
    expect(s.running).toBe(false);
    expect(s.messages).toEqual([]);
    expect(session.isLive(4)).toBe(false);
  });

  it("send: a new message clears the old alert", async () => {
    vi.mocked(api.sendMessage).mockRejectedValueOnce(commandError("provider", "offline")).mockResolvedValueOnce(undefined);
    await session.send(4, "one", store);
    await expect(session.send(4, "two", store)).resolves.toBe(true);
    expect(store.get(4).alert).toBeNull();
  });

  it("stop: the alert says the turn could not be stopped", async () => {
    vi.mocked(api.stopTurn).mockRejectedValueOnce(commandError("internal", "backend gone"));
    await expect(session.stop(5, store)).resolves.toBe(false);
    expect(store.get(5).alert).toEqual({ action: "stop", message: "Internal error: backend gone" });
  });

  it("retry: the turn's own error comes back with Retry, and the alert says why the retry failed", async () => {
    store.update(6, (s) => ({ ...s, error: { message: "rate limited", retryable: true, kind: "rateLimited" } }));
    vi.mocked(api.retryTurn).mockRejectedValueOnce(commandError("invalid", "no provider"));
    await expect(session.retry(6, store)).resolves.toBe(false);
    const s = store.get(6);
    expect(s.error).toEqual({ message: "rate limited", retryable: true, kind: "rateLimited" });
    expect(s.running).toBe(false);
    expect(s.alert).toEqual({ action: "retry", message: "Not accepted: no provider" });
  });

  it("refresh: a failed background reload becomes a reload alert; the next good one clears it", async () => {
    vi.mocked(api.chatHistory).mockRejectedValueOnce(commandError("storage", "database locked"));
    await expect(session.refresh(7, store)).resolves.toBeUndefined();
    expect(store.get(7).alert).toEqual({ action: "reload", message: "The database failed: database locked" });
    await session.refresh(7, store);
    expect(store.get(7).alert).toBeNull();
  });

  it("a reload keeps an alert about something else until it is dismissed", async () => {
    vi.mocked(api.stopTurn).mockRejectedValueOnce(commandError("internal", "backend gone"));
    await session.stop(8, store);
    await session.loadChat(8, store);
    expect(store.get(8).alert?.action).toBe("stop");
    session.dismissAlert(8, store);
    expect(store.get(8).alert).toBeNull();
  });

  it("loadChat itself still rejects, for the view that opens the chat to show", async () => {
    vi.mocked(api.chatHistory).mockRejectedValueOnce(commandError("notFound", "no such chat"));
    await expect(session.loadChat(9, store)).rejects.toThrow("no such chat");
  });
});

describe("opening a chat again reads it only when it changed (F-71)", () => {
  const said = (id: number, text: string, revision: number): ChatHistory => ({
    ...history,
    revision,
    messages: [
      { id, chat: 3, parentId: null, role: "user", content: text, status: "complete", payload: null, usage: null, createdAt: 0, siblings: [id] },
    ],
  });

  it("a chat held at the revision it has now is not read again", async () => {
    vi.mocked(api.chatHistory).mockResolvedValueOnce(said(1, "hello", 7));
    await session.loadChat(3, store);
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 7, running: false, waiting: 0 });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(1);
    expect(store.get(3).messages.map((m) => m.content)).toEqual(["hello"]);
  });

  it("a chat whose revision moved on is read again and shows what changed", async () => {
    vi.mocked(api.chatHistory)
      .mockResolvedValueOnce(said(1, "hello", 7))
      .mockResolvedValueOnce(said(2, "edited", 9));
    await session.loadChat(3, store);
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 9, running: false, waiting: 0 });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(2);
    expect(store.get(3).messages.map((m) => m.content)).toEqual(["edited"]);
    expect(store.get(3).revision).toBe(9);
  });

  it("a chat with a turn running is read again even at the same revision (its approvals are not in it)", async () => {
    vi.mocked(api.chatHistory).mockResolvedValueOnce(said(1, "hello", 7));
    await session.loadChat(3, store);
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 7, running: true, waiting: 0 });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(2);
  });

  it("a chat with no turn is read again when a call waits in it (a server's view asked), and shows the card", async () => {
    vi.mocked(api.chatHistory).mockResolvedValue(said(1, "hello", 7));
    await session.loadChat(3, store);
    const card = { id: "a1", chat: 3, seq: 2 } as unknown as PendingApproval;
    vi.mocked(api.pendingApprovals).mockResolvedValueOnce([card]);
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 7, running: false, waiting: 1 });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(2);
    expect(store.get(3).approvals).toEqual([card]);
    // Answered: nothing waits, but the card held is dropped by reading again.
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 7, running: false, waiting: 0 });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(3);
    expect(store.get(3).approvals).toEqual([]);
  });

  it("a state not read from history (events only) and a forced reload both read without asking", async () => {
    store.update(3, (s) => ({ ...s, running: true }));
    await session.loadChat(3, store);
    expect(api.chatRevision).not.toHaveBeenCalled();
    expect(api.chatHistory).toHaveBeenCalledTimes(1);
    await session.loadChat(3, store, true);
    expect(api.chatRevision).not.toHaveBeenCalled();
    expect(api.chatHistory).toHaveBeenCalledTimes(2);
  });

  it("a failed revision check rejects like a failed read, for the view to show", async () => {
    await session.loadChat(3, store);
    vi.mocked(api.chatRevision).mockRejectedValueOnce(commandError("notFound", "no such chat"));
    await expect(session.loadChat(3, store)).rejects.toThrow("no such chat");
  });
});

describe("a long chat is read a page at a time (F-71)", { timeout: 30_000 }, () => {
  /** A chat of `turns` question-and-answer turns, message ids 1, 2, … in order. */
  function chat(turns: number, from = 1): ChatHistory["messages"] {
    const rows: ChatHistory["messages"] = [];
    for (let i = 0; i < 2 * turns; i++) {
      const id = from + i;
      const role = i % 2 === 0 ? "user" : "assistant";
      rows.push({
        id,
        chat: 3,
        parentId: id - 1 || null,
        role,
        content: `m${id}`,
        status: "complete",
        payload: null,
        usage: null,
        createdAt: id,
        siblings: [],
      });
    }
    return rows;
  }

  /** Answers `chat_history` as the engine does: the last `limit` messages before `before`, back to a turn's start. */
  function serve(rows: () => ChatHistory["messages"], revision = 1) {
    vi.mocked(api.chatHistory).mockImplementation((_chat, before = null, limit = null) => {
      const all = rows();
      const end = before === null ? all.length : all.findIndex((m) => m.id === before);
      let start = limit === null ? 0 : Math.max(0, end - limit);
      while (start > 0 && all[start]?.role !== "user") start--;
      const messages = all.slice(start, end);
      return Promise.resolve({ messages, calls: [], running: false, revision, earlier: start > 0 ? (messages[0]?.id ?? null) : null, task: null });
    });
  }

  const contents = () => store.get(3).messages.map((m) => m.content);
  // Pages come a frame apart: under a loaded test run, more than waitFor's default second.
  const whole = async () => vi.waitFor(() => expect(store.get(3).earlier).toBeNull(), { timeout: 20_000 });

  it("opens on the last page, then reads the pages before it until the chat is whole", async () => {
    const rows = chat(400);
    serve(() => rows);
    await session.loadChat(3, store);
    expect(vi.mocked(api.chatHistory).mock.calls[0]).toEqual([3, null, HISTORY_FIRST_PAGE]);
    expect(store.get(3).messages).toHaveLength(HISTORY_FIRST_PAGE);
    expect(store.get(3).earlier).toBe(801 - HISTORY_FIRST_PAGE);
    await whole();
    expect(contents()).toEqual(rows.map((m) => m.content));
    const pages = vi.mocked(api.chatHistory).mock.calls.slice(1);
    expect(pages.every(([, before, limit]) => before !== null && limit === HISTORY_PAGE)).toBe(true);
    expect(pages).toHaveLength(Math.ceil((800 - HISTORY_FIRST_PAGE) / HISTORY_PAGE));
  });

  it("a chat read again (a turn ended) reads only its last page and keeps the pages it held", async () => {
    let rows = chat(400);
    serve(() => rows, 1);
    await session.loadChat(3, store);
    await whole();
    rows = [...rows, ...chat(1, 801)];
    serve(() => rows, 2);
    vi.mocked(api.chatHistory).mockClear();
    await session.loadChat(3, store, true);
    expect(api.chatHistory).toHaveBeenCalledTimes(1);
    expect(store.get(3).earlier).toBeNull();
    expect(contents()).toEqual(rows.map((m) => m.content));
  });

  it("a read still under way into another store never holds up this one (the suite's fresh-clone failure)", async () => {
    const rows = chat(400);
    serve(() => rows);
    const served = vi.mocked(api.chatHistory).getMockImplementation();
    // Another store's read of chat 3 waits on a page that never comes.
    vi.mocked(api.chatHistory)
      .mockImplementationOnce((...args) => served!(...args))
      .mockImplementationOnce(() => new Promise(() => {}));
    const other = new ChatStore((flush) => flush());
    await session.loadChat(3, other);
    await vi.waitFor(() => expect(api.chatHistory).toHaveBeenCalledTimes(2), { timeout: 20_000 });
    // This store reads the same chat whole all the same.
    await session.loadChat(3, store);
    await whole();
    expect(contents()).toEqual(rows.map((m) => m.content));
    expect(other.get(3).earlier).not.toBeNull();
  });

  it("a page that cannot be read becomes the chat's alert; reading again finishes the chat", async () => {
    const rows = chat(400);
    serve(() => rows);
    const served = vi.mocked(api.chatHistory).getMockImplementation();
    vi.mocked(api.chatHistory)
      .mockImplementationOnce((...args) => served!(...args))
      .mockRejectedValueOnce(commandError("storage", "database locked"));
    await session.loadChat(3, store);
    await vi.waitFor(() => expect(store.get(3).alert).toEqual({ action: "reload", message: "The database failed: database locked" }), {
      timeout: 20_000,
    });
    expect(store.get(3).earlier).not.toBeNull();
    await session.readEarlier(3, store);
    expect(store.get(3).earlier).toBeNull();
    expect(store.get(3).alert).toBeNull();
    expect(contents()).toEqual(rows.map((m) => m.content));
  });

  it("a page read for a branch no longer on screen is dropped, never mixed in", async () => {
    const old = chat(100);
    serve(() => old);
    const served = vi.mocked(api.chatHistory).getMockImplementation();
    let release = () => {};
    vi.mocked(api.chatHistory)
      .mockImplementationOnce((...args) => served!(...args))
      .mockImplementationOnce((...args) => new Promise((resolve) => (release = () => void served!(...args).then(resolve))));
    await session.loadChat(3, store);
    await vi.waitFor(() => expect(api.chatHistory).toHaveBeenCalledTimes(2), { timeout: 20_000 });
    // Another branch is shown meanwhile: different messages from its second turn on.
    const other = [...old.slice(0, 2), ...chat(99, 1001)];
    serve(() => other, 2);
    await session.loadChat(3, store, true);
    release();
    await whole();
    expect(contents()).toEqual(other.map((m) => m.content));
  });
});
