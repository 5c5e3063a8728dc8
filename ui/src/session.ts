/**
 * Starting turns and loading chats into the store. Events from a turn's channel go to the store
 * whichever chat is on screen, so switching chats never loses a running turn.
 */
import * as api from "./api";
import { errorMessage } from "./format";
import { type ChatStore, chatStore } from "./store";
import { addPendingUserMessage, fromHistory, PENDING_USER_ID } from "./timeline";
import type { ChatEvent, ChatId } from "./types";

/** Chats whose turn events arrive on a channel this window holds. */
const live = new Set<ChatId>();
let onTurnEnd: (chat: ChatId) => void = () => {};

export function setTurnEndListener(f: (chat: ChatId) => void): void {
  onTurnEnd = f;
}

export function isLive(chat: ChatId): boolean {
  return live.has(chat);
}

/** Loads history (and pending approvals of a running turn) unless a live turn already feeds the store. */
export async function loadChat(chat: ChatId, store: ChatStore = chatStore, force = false): Promise<void> {
  if (!force && live.has(chat) && store.has(chat)) return;
  const history = await api.chatHistory(chat);
  const approvals = history.running ? await api.pendingApprovals(chat).catch(() => []) : [];
  if (!force && live.has(chat)) return;
  const previous = store.has(chat) ? store.get(chat) : null;
  const next = fromHistory(chat, history, approvals);
  // Keep the error text of a turn that just failed: history only knows that it failed.
  if (previous?.error && next.error && !next.error.message) next.error = previous.error;
  if (previous?.error && !next.error && !history.running && previous.error.message) next.error = previous.error;
  store.set(chat, next);
}

function handler(chat: ChatId, store: ChatStore) {
  return (event: ChatEvent) => {
    store.push(chat, event);
    if (event.type === "turnFinished") {
      live.delete(chat);
      // Let the frame apply the event, then take the stored truth (ids, statuses, usage).
      setTimeout(() => {
        store.flush();
        void loadChat(chat, store, true)
          .catch(() => {})
          .finally(() => onTurnEnd(chat));
      }, 0);
    }
  };
}

export async function send(chat: ChatId, text: string, store: ChatStore = chatStore): Promise<void> {
  store.update(chat, (s) => addPendingUserMessage(s, text));
  live.add(chat);
  try {
    await api.sendMessage(chat, text, handler(chat, store));
  } catch (e) {
    live.delete(chat);
    store.update(chat, (s) => ({
      ...s,
      running: false,
      messages: s.messages.filter((m) => m.id !== PENDING_USER_ID),
      error: { message: errorMessage(e), retryable: false },
    }));
    throw e;
  }
}

export async function retry(chat: ChatId, store: ChatStore = chatStore): Promise<void> {
  store.update(chat, (s) => ({ ...s, error: null, running: true }));
  live.add(chat);
  try {
    await api.retryTurn(chat, handler(chat, store));
  } catch (e) {
    live.delete(chat);
    store.update(chat, (s) => ({ ...s, running: false, error: { message: errorMessage(e), retryable: true } }));
    throw e;
  }
}

export async function stop(chat: ChatId): Promise<void> {
  await api.stopTurn(chat);
}

/** Drops a decided approval or answered question from view (the backend event may come later or elsewhere). */
export function resolveLocally(chat: ChatId, id: string, store: ChatStore = chatStore): void {
  store.update(chat, (s) => ({
    ...s,
    approvals: s.approvals.filter((a) => a.id !== id),
    questions: s.questions.filter((q) => q.id !== id),
  }));
}
