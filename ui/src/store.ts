/**
 * Per-chat timeline state shared by every view. Backend events are queued and applied once per
 * animation frame, so a fast stream (thousands of deltas a second) costs one render per frame.
 */
import { applyEvent, type ChatState, emptyChat } from "./timeline";
import type { ChatEvent, ChatId } from "./types";

type Listener = () => void;
type Scheduler = (flush: () => void) => void;

const defaultScheduler: Scheduler = (flush) => {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => flush());
  else setTimeout(flush, 16);
};

/** Whether `event` asks the user something: an approval card, the model's or a server's question. */
function waitsOnUser(event: ChatEvent): boolean {
  if (event.type !== "tool") return false;
  switch (event.event.type) {
    case "approvalRequested":
    case "questionAsked":
    case "elicitationRequested":
      return true;
    case "beforeCall":
    case "approvalResolved":
    case "started":
    case "outputDelta":
    case "progress":
    case "finished":
    case "questionResolved":
    case "elicitationResolved":
    case "modelLent":
    case "serverAsked":
    case "taskChanged":
      return false;
  }
}

export class ChatStore {
  private states = new Map<ChatId, ChatState>();
  private queue: Array<[ChatId, ChatEvent]> = [];
  private scheduled = false;
  private listeners = new Set<Listener>();

  constructor(private schedule: Scheduler = defaultScheduler) {}

  get(chat: ChatId): ChatState {
    return this.states.get(chat) ?? emptyChat(chat);
  }

  has(chat: ChatId): boolean {
    return this.states.has(chat);
  }

  set(chat: ChatId, state: ChatState): void {
    this.states.set(chat, state);
    this.notify();
  }

  update(chat: ChatId, f: (s: ChatState) => ChatState): void {
    this.set(chat, f(this.get(chat)));
  }

  delete(chat: ChatId): void {
    this.states.delete(chat);
    this.notify();
  }

  /**
   * Queues an event; it is applied on the next frame together with the others that arrive. One
   * the user waits on (a card, a question) is applied at once, with everything queued before
   * it: a card opens a frame sooner, and nothing shows out of order.
   */
  push(chat: ChatId, event: ChatEvent): void {
    this.queue.push([chat, event]);
    if (waitsOnUser(event)) {
      this.flush();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  /** Applies every queued event now and notifies once. */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const queue = this.queue;
    this.queue = [];
    for (const [chat, event] of queue) this.states.set(chat, applyEvent(this.get(chat), event));
    this.notify();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }
}

export const chatStore = new ChatStore();
