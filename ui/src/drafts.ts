/**
 * Text waiting for a chat's composer before the chat is on screen (a new chat started from a
 * summary of one that grew too long): the composer takes it once, when it opens.
 */
import type { ChatId } from "./types";

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
