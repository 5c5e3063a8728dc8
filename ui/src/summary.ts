/**
 * A new chat's first message, made from one that grew longer than the model reads: what the
 * conversation began with and where it left off, each message shortened, for the user to read,
 * change and send. Made here, without the model: the model cannot read the chat any more.
 */
import { chatTitle } from "./format";
import { t } from "./i18n";
import type { TimelineMessage } from "./timeline";

/** Characters kept of each message quoted. */
export const QUOTED_CHARS = 600;
/** Messages quoted from the end of the conversation. */
export const LAST_MESSAGES = 6;

function shortened(text: string): string {
  const flat = text.trim();
  if (flat.length <= QUOTED_CHARS) return flat;
  const head = flat.slice(0, QUOTED_CHARS);
  // Never cut a surrogate pair in two.
  const safe = /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
  return `${safe}…`;
}

function quoted(m: TimelineMessage): string {
  const who = m.role === "user" ? t("summary.you") : t("summary.assistant");
  return `${who}: ${shortened(m.content)}`;
}

/** The first message of a chat that carries on from `title`'s conversation `messages`. */
export function carryOver(title: string, messages: TimelineMessage[]): string {
  const said = messages.filter((m) => m.content.trim() !== "");
  const first = said.find((m) => m.role === "user");
  const last = said.slice(-LAST_MESSAGES).filter((m) => m !== first);
  const parts = [t("summary.intro", { title: chatTitle({ title }) })];
  if (first) parts.push(t("summary.began"), quoted(first));
  if (last.length) parts.push(t("summary.leftOff"), ...last.map(quoted));
  parts.push(t("summary.goOn"));
  return parts.join("\n\n");
}
