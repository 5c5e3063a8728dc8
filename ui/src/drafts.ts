/**
 * Text waiting for a chat's composer before the chat is on screen (a new chat started from a
 * summary of one that grew too long): the composer takes it once, when it opens.
 */
import type { Attachment, ChatId, Source } from "./types";

const waiting = new Map<ChatId, string>();

/** Leaves `text` for the composer of `chat`, replacing what was left before. */
export function leaveDraft(chat: ChatId, text: string): void {
  waiting.set(chat, text);
}

/** The text left for `chat`'s composer, once (the next call has none). */
export function takeDraft(chat: ChatId): string | null {
  const text = waiting.get(chat) ?? null;
  waiting.delete(chat);
  return text;
}

/**
 * Things offered to a chat's composer from elsewhere in the chat: the open composer takes each
 * at once, a composer opened later takes those waiting when it opens.
 */
class Offers<T> {
  private waiting = new Map<ChatId, T[]>();
  private takers = new Map<ChatId, (items: T[]) => void>();

  offer(chat: ChatId, items: T[]): void {
    const taker = this.takers.get(chat);
    if (taker) taker(items);
    else this.waiting.set(chat, [...(this.waiting.get(chat) ?? []), ...items]);
  }

  /** `take` receives the chat's offers (those waiting first) until the returned function is called. */
  take(chat: ChatId, take: (items: T[]) => void): () => void {
    const waiting = this.waiting.get(chat);
    this.waiting.delete(chat);
    if (waiting?.length) take(waiting);
    this.takers.set(chat, take);
    return () => {
      if (this.takers.get(chat) === take) this.takers.delete(chat);
    };
  }
}

/** Files: a resource a tool's result linked (SPEC §11). */
const files = new Offers<Attachment>();

/** Offers `list` to the composer of `chat`. */
export function offerFiles(chat: ChatId, list: Attachment[]): void {
  files.offer(chat, list);
}

/** The composer of `chat` takes offered files until the returned function is called. */
export function takeOfferedFiles(chat: ChatId, take: (list: Attachment[]) => void): () => void {
  return files.take(chat, take);
}

/** A message an MCP server's view wrote for the chat (F-96): the user reads it, and sends it or not. */
export interface OfferedMessage {
  text: string;
  sources: Source[];
}

const messages = new Offers<OfferedMessage>();

/** Offers a message to the composer of `chat`: it fills the box, never sends itself. */
export function offerMessage(chat: ChatId, message: OfferedMessage): void {
  messages.offer(chat, [message]);
}

/** The composer of `chat` takes offered messages until the returned function is called. */
export function takeOfferedMessages(chat: ChatId, take: (list: OfferedMessage[]) => void): () => void {
  return messages.take(chat, take);
}
