import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatHistory } from "./types";

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
import { ChatStore } from "./store";

const history: ChatHistory = { messages: [], calls: [], running: false, revision: 0 };

let store: ChatStore;
beforeEach(() => {
  store = new ChatStore((flush) => flush());
  vi.mocked(api.chatHistory).mockReset().mockResolvedValue(history);
  vi.mocked(api.chatRevision).mockReset().mockResolvedValue({ revision: 0, running: false });
});

describe("a failed chat action shows as the chat's alert, never as a rejection", () => {
  it("send: the alert says why, the pending message goes and the chat is not running", async () => {
    vi.mocked(api.sendMessage).mockRejectedValueOnce("A turn is already running in this chat.");
    await expect(session.send(4, "hello", store)).resolves.toBe(false);
    const s = store.get(4);
    expect(s.alert).toEqual({ action: "send", message: "A turn is already running in this chat." });
    expect(s.running).toBe(false);
    expect(s.messages).toEqual([]);
    expect(session.isLive(4)).toBe(false);
  });

  it("send: a new message clears the old alert", async () => {
    vi.mocked(api.sendMessage).mockRejectedValueOnce(new Error("offline")).mockResolvedValueOnce(undefined);
    await session.send(4, "one", store);
    await expect(session.send(4, "two", store)).resolves.toBe(true);
    expect(store.get(4).alert).toBeNull();
  });

  it("stop: the alert says the turn could not be stopped", async () => {
    vi.mocked(api.stopTurn).mockRejectedValueOnce(new Error("backend gone"));
    await expect(session.stop(5, store)).resolves.toBe(false);
    expect(store.get(5).alert).toEqual({ action: "stop", message: "backend gone" });
  });

  it("retry: the turn's own error comes back with Retry, and the alert says why the retry failed", async () => {
    store.update(6, (s) => ({ ...s, error: { message: "rate limited", retryable: true } }));
    vi.mocked(api.retryTurn).mockRejectedValueOnce(new Error("no provider"));
    await expect(session.retry(6, store)).resolves.toBe(false);
    const s = store.get(6);
    expect(s.error).toEqual({ message: "rate limited", retryable: true });
    expect(s.running).toBe(false);
    expect(s.alert).toEqual({ action: "retry", message: "no provider" });
  });

  it("refresh: a failed background reload becomes a reload alert; the next good one clears it", async () => {
    vi.mocked(api.chatHistory).mockRejectedValueOnce(new Error("database locked"));
    await expect(session.refresh(7, store)).resolves.toBeUndefined();
    expect(store.get(7).alert).toEqual({ action: "reload", message: "database locked" });
    await session.refresh(7, store);
    expect(store.get(7).alert).toBeNull();
  });

  it("a reload keeps an alert about something else until it is dismissed", async () => {
    vi.mocked(api.stopTurn).mockRejectedValueOnce(new Error("backend gone"));
    await session.stop(8, store);
    await session.loadChat(8, store);
    expect(store.get(8).alert?.action).toBe("stop");
    session.dismissAlert(8, store);
    expect(store.get(8).alert).toBeNull();
  });

  it("loadChat itself still rejects, for the view that opens the chat to show", async () => {
    vi.mocked(api.chatHistory).mockRejectedValueOnce(new Error("no such chat"));
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
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 7, running: false });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(1);
    expect(store.get(3).messages.map((m) => m.content)).toEqual(["hello"]);
  });

  it("a chat whose revision moved on is read again and shows what changed", async () => {
    vi.mocked(api.chatHistory)
      .mockResolvedValueOnce(said(1, "hello", 7))
      .mockResolvedValueOnce(said(2, "edited", 9));
    await session.loadChat(3, store);
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 9, running: false });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(2);
    expect(store.get(3).messages.map((m) => m.content)).toEqual(["edited"]);
    expect(store.get(3).revision).toBe(9);
  });

  it("a chat with a turn running is read again even at the same revision (its approvals are not in it)", async () => {
    vi.mocked(api.chatHistory).mockResolvedValueOnce(said(1, "hello", 7));
    await session.loadChat(3, store);
    vi.mocked(api.chatRevision).mockResolvedValueOnce({ revision: 7, running: true });
    await session.loadChat(3, store);
    expect(api.chatHistory).toHaveBeenCalledTimes(2);
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
    vi.mocked(api.chatRevision).mockRejectedValueOnce(new Error("no such chat"));
    await expect(session.loadChat(3, store)).rejects.toThrow("no such chat");
  });
});
