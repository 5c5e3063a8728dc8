/**
 * Starting turns and loading chats into the store. Events from a turn's channel go to the store
 * whichever chat is on screen, so switching chats never loses a running turn.
 *
 * Sending, Stop, Retry and background reloads never reject: a failure becomes the chat's
 * `alert`, which the chat shows above its composer, so no caller can drop it on the floor.
 */
import * as api from "./api";
import { errorMessage } from "./format";
import { t } from "./i18n";
import { type ChatStore, chatStore } from "./store";
import { HISTORY_FIRST_PAGE, HISTORY_PAGE } from "./bindings";
import {
  addPendingUserMessage,
  type ChatAction,
  type ChatState,
  fromHistory,
  keepEarlier,
  startEdit,
  startRegenerate,
  withEarlier,
} from "./timeline";
import type { Attachment, ChatEvent, ChatId, ModelChoice, Source } from "./types";

/** Chats whose turn events arrive on a channel this window holds. */
const live = new Set<ChatId>();
let onTurnEnd: (chat: ChatId) => void = () => {};
let onTurnStart: (chat: ChatId) => void = () => {};

export function setTurnEndListener(f: (chat: ChatId) => void): void {
  onTurnEnd = f;
}

/** Called once a turn has started (the chat may have been given its title from the message). */
export function setTurnStartListener(f: (chat: ChatId) => void): void {
  onTurnStart = f;
}

export function isLive(chat: ChatId): boolean {
  return live.has(chat);
}

function alert(store: ChatStore, chat: ChatId, action: ChatAction, e: unknown): void {
  store.update(chat, (s) => ({ ...s, alert: { action, message: errorMessage(e) } }));
}

/** Hides the chat's alert (its close button). */
export function dismissAlert(chat: ChatId, store: ChatStore = chatStore): void {
  store.update(chat, (s) => ({ ...s, alert: null }));
}

/**
 * Loads history (and pending approvals of a running turn) unless a live turn already feeds the
 * store, or the store holds the chat as it was read and its revision has not moved on since
 * (F-71: opening a 5,000-message chat again read and parsed megabytes, and its re-render stalled
 * the window for a frame after it was on screen). Rejects when the chat cannot be read: the view
 * that asked shows why.
 */
export async function loadChat(chat: ChatId, store: ChatStore = chatStore, force = false): Promise<void> {
  if (!force && live.has(chat) && store.has(chat)) return;
  const held = !force && store.has(chat) ? store.get(chat).revision : null;
  if (held !== null) {
    const now = await api.chatRevision(chat);
    // A running turn's approvals and questions are not in the revision, nor are the calls a
    // server's view made (F-96): a chat with either is read.
    const waitingHeld = store.get(chat).approvals.length;
    if (now.revision === held && !now.running && now.waiting === 0 && waitingHeld === 0) {
      // A read of its earlier pages that failed starts again when the chat is opened again.
      if (store.get(chat).earlier !== null) void readEarlier(chat, store);
      return;
    }
  }
  // Approvals wait in a chat with no turn too: those of the calls its servers' views made.
  // Both are asked for at once.
  const [history, approvals] = await Promise.all([api.chatHistory(chat, null, HISTORY_FIRST_PAGE), api.pendingApprovals(chat)]);
  if (!force && live.has(chat)) return;
  const previous = store.has(chat) ? store.get(chat) : null;
  const read = fromHistory(chat, history, approvals);
  const next = previous ? keepEarlier(previous, read) : read;
  // Keep the error text of a turn that just failed: history only knows that it failed.
  if (previous?.error && next.error && !next.error.message) next.error = previous.error;
  if (previous?.error && !next.error && !history.running && previous.error.message) next.error = previous.error;
  // An alert stays until dismissed, except one saying that reading the chat failed: it just worked.
  next.alert = previous?.alert && previous.alert.action !== "reload" ? previous.alert : null;
  store.set(chat, next);
  if (next.earlier !== null) void readEarlier(chat, store);
}

/** Chats whose earlier pages are being read, by the store they are read into: a read into one
 * store never holds up a read into another (tests make a store each; a read left over from one
 * made the next one's chat stay half-read). */
const readingEarlier = new WeakMap<ChatStore, Set<ChatId>>();

function readingInto(store: ChatStore): Set<ChatId> {
  let chats = readingEarlier.get(store);
  if (!chats) {
    chats = new Set();
    readingEarlier.set(store, chats);
  }
  return chats;
}

/** Resolves after the next frame is painted (the next task after it). */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => setTimeout(resolve, 0));
    else setTimeout(resolve, 0);
  });
}

/**
 * Reads the pages before the first message the store holds of `chat`, one per frame, until the
 * chat is whole: the chat is on screen from its last page, and the rest comes in behind it.
 * A page that no longer fits (the chat was read again, or closed) is dropped; a page that cannot
 * be read becomes the chat's alert.
 */
export async function readEarlier(chat: ChatId, store: ChatStore = chatStore): Promise<void> {
  const reading = readingInto(store);
  if (reading.has(chat)) return;
  reading.add(chat);
  try {
    for (;;) {
      await afterPaint();
      const before = store.has(chat) ? store.get(chat).earlier : null;
      if (before === null) return;
      const page = await api.chatHistory(chat, before, HISTORY_PAGE);
      if (store.has(chat) && store.get(chat).earlier === before) {
        // A page read after one that failed clears what the failure said.
        store.update(chat, (s) => ({ ...withEarlier(s, page), alert: s.alert?.action === "reload" ? null : s.alert }));
      }
    }
  } catch (e) {
    alert(store, chat, "reload", e);
  } finally {
    reading.delete(chat);
  }
}

/** Reads the chat again in the background (a turn ended, another window changed it). */
export async function refresh(chat: ChatId, store: ChatStore = chatStore, force = false): Promise<void> {
  try {
    await loadChat(chat, store, force);
  } catch (e) {
    alert(store, chat, "reload", e);
  }
}

function handler(chat: ChatId, store: ChatStore) {
  return (event: ChatEvent) => {
    store.push(chat, event);
    if (event.type === "turnFinished") {
      live.delete(chat);
      // Let the frame apply the event, then take the stored truth (ids, statuses, usage).
      setTimeout(() => {
        store.flush();
        void refresh(chat, store, true).finally(() => onTurnEnd(chat));
      }, 0);
    }
  };
}

/**
 * Starts a turn: the view changes at once (`optimistic`), and if the turn cannot start it goes
 * back to what it was and the chat's alert says why. Resolves to whether the turn started.
 */
async function begin(
  chat: ChatId,
  action: ChatAction,
  store: ChatStore,
  optimistic: (s: ChatState) => ChatState,
  start: (onEvent: (event: ChatEvent) => void) => Promise<void>,
): Promise<boolean> {
  const before = store.get(chat);
  store.update(chat, (s) => ({ ...optimistic(s), alert: null }));
  live.add(chat);
  try {
    await start(handler(chat, store));
    onTurnStart(chat);
    return true;
  } catch (e) {
    live.delete(chat);
    store.set(chat, before);
    alert(store, chat, action, e);
    return false;
  }
}

/** Sends a message, starting a turn. Resolves to whether the turn started; why not is the chat's alert. */
export function send(
  chat: ChatId,
  text: string,
  store: ChatStore = chatStore,
  attachments: Attachment[] = [],
  sources: Source[] = [],
): Promise<boolean> {
  return begin(
    chat,
    "send",
    store,
    (s) => addPendingUserMessage(s, text, Date.now(), attachments),
    (h) => api.sendMessage(chat, text, attachments, h, sources),
  );
}

/** Runs the last turn again. If it cannot start, the turn's own error comes back (with Retry) and the chat's alert says why. */
export function retry(chat: ChatId, store: ChatStore = chatStore): Promise<boolean> {
  return begin(
    chat,
    "retry",
    store,
    (s) => ({ ...s, error: null, running: true }),
    (h) => api.retryTurn(chat, h),
  );
}

/** Sends `text` as a new version of user message `message` (F-56); the view shows the new branch. */
export function edit(chat: ChatId, message: number, text: string, store: ChatStore = chatStore): Promise<boolean> {
  return begin(
    chat,
    "edit",
    store,
    (s) => startEdit(s, message, text),
    (h) => api.editMessage(chat, message, text, h),
  );
}

/** Runs blocked call `c<seq>` again without the sandbox (F-46): the user's message saying so, the call, then the model's answer. */
export function rerunUnsandboxed(chat: ChatId, seq: number, command: string, store: ChatStore = chatStore): Promise<boolean> {
  const text = t("sandbox.rerunMessage", { seq, command });
  return begin(
    chat,
    "rerun",
    store,
    (s) => addPendingUserMessage(s, text, Date.now()),
    (h) => api.rerunUnsandboxed(chat, seq, text, h),
  );
}

/** Answers the turn of `message` again, with the chat's model or `model` (F-56). */
export function regenerate(chat: ChatId, message: number, model: ModelChoice | null = null, store: ChatStore = chatStore): Promise<boolean> {
  return begin(
    chat,
    "regenerate",
    store,
    (s) => startRegenerate(s, message),
    (h) => api.regenerateAnswer(chat, message, model, h),
  );
}

/** Shows another version of a message (‹ ›) or the branch of a search hit; resolves to whether it did. */
export async function showBranch(chat: ChatId, message: number, store: ChatStore = chatStore): Promise<boolean> {
  try {
    await api.showBranch(chat, message);
    await loadChat(chat, store, true);
    return true;
  } catch (e) {
    alert(store, chat, "branch", e);
    return false;
  }
}

/**
 * Opens a search hit's message: its branch is shown unless it is on screen already, or a turn
 * runs there (the branch cannot change under a turn; the chat opens as it is).
 */
export async function showMessage(chat: ChatId, message: number, store: ChatStore = chatStore): Promise<void> {
  if (store.has(chat)) {
    const s = store.get(chat);
    if (s.running || s.messages.some((m) => m.id === message)) return;
  }
  await showBranch(chat, message, store);
}

/** Stops the chat's turn; resolves to whether the stop was delivered (why not is the chat's alert). */
export async function stop(chat: ChatId, store: ChatStore = chatStore): Promise<boolean> {
  try {
    await api.stopTurn(chat);
    return true;
  } catch (e) {
    alert(store, chat, "stop", e);
    return false;
  }
}

/** Drops a decided approval or answered question from view (the backend event may come later or elsewhere). */
export function resolveLocally(chat: ChatId, id: string, store: ChatStore = chatStore): void {
  store.update(chat, (s) => ({
    ...s,
    approvals: s.approvals.filter((a) => a.id !== id),
    questions: s.questions.filter((q) => q.id !== id),
  }));
}
