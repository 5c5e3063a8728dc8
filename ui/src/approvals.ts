/** Keyboard map of an execution approval card (F-07), kept pure so it can be tested. */
import type { ExecutionDecision, JsonValue } from "./types";

export interface KeyContext {
  /** Focus is in a text field of the card (reason, pattern or arguments editor). */
  inTextField: boolean;
  /** Focus is in the deny-reason field. */
  inReasonField: boolean;
  reason: string;
  ctrl: boolean;
}

function reasonOrNull(reason: string): string | null {
  const r = reason.trim();
  return r ? r : null;
}

/**
 * Enter = allow once, A = allow for this chat, Esc = deny (with the reason typed so far).
 * In the reason field Enter denies with that reason; other text fields keep their keys.
 */
export function executionKeyDecision(key: string, ctx: KeyContext): ExecutionDecision | null {
  if (key === "Escape") {
    if (ctx.inTextField && !ctx.inReasonField) return null;
    return { type: "deny", reason: reasonOrNull(ctx.reason) };
  }
  if (ctx.inReasonField) {
    return key === "Enter" ? { type: "deny", reason: reasonOrNull(ctx.reason) } : null;
  }
  if (ctx.inTextField || ctx.ctrl) return null;
  if (key === "Enter") return { type: "allowOnce" };
  if (key === "a" || key === "A") return { type: "allowForChat" };
  return null;
}

/** Parses the arguments editor; an error message for invalid JSON (the backend validates the rest). */
export function parseEditedArguments(text: string): { ok: true; value: JsonValue } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
