/**
 * Text waiting for a chat's composer before the chat is on screen (a new chat started from a
 * summary of one that grew too long): the composer takes it once, when it opens.
 */
import type { Attachment, ChatId } from "./types";

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

/** Files offered to a chat's composer from elsewhere in the chat (a resource a tool linked). */
const offered = new Map<ChatId, Attachment[]>();
const takers = new Map<ChatId, (files: Attachment[]) => void>();

/**
 * Offers `files` to the composer of `chat`: the open composer takes them at once, a composer
 * opened later takes them when it opens.
 */
export function offerFiles(chat: ChatId, files: Attachment[]): void {
  const taker = takers.get(chat);
  if (taker) taker(files);
  else offered.set(chat, [...(offered.get(chat) ?? []), ...files]);
}

/** The composer of `chat` takes offered files (those waiting first) until the returned function is called. */
export function takeOfferedFiles(chat: ChatId, take: (files: Attachment[]) => void): () => void {
  const waiting = offered.get(chat);
  offered.delete(chat);
  if (waiting?.length) take(waiting);
  takers.set(chat, take);
  return () => {
    if (takers.get(chat) === take) takers.delete(chat);
  };
}
