/** Keyboard maps of the approval cards (F-07), kept pure so they can be tested. */
import type { ExecutionDecision, JsonValue, ResultDecision, RuleGrant, RuleScopeChoice } from "./types";

export interface KeyContext {
  /**
   * The card element itself has focus (the key event's target is the card, not a control in it).
   * Only then do the card's Enter and A shortcuts apply: a focused button does what its label
   * says, natively, on Enter and Space.
   */
  onCard: boolean;
  /** Focus is in a text field of the card (reason, pattern, arguments or result editor). */
  inTextField: boolean;
  /** Focus is in the deny-reason field. */
  inReasonField: boolean;
  reason: string;
  /** Ctrl, Meta or Alt is held. */
  ctrl: boolean;
  /** Shift is held: Shift+Enter is not the Enter shortcut. */
  shift: boolean;
  /** An auto-repeat of a held key: never a decision, so a held Enter cannot run through the queue. */
  repeat: boolean;
}

function reasonOrNull(reason: string): string | null {
  const r = reason.trim();
  return r ? r : null;
}

/** What a key means on an approval card, before it is turned into the card's own decision type. */
type KeyMeaning = "yes" | "yesForChat" | "no" | null;

/**
 * The shared rule of both cards: Esc says no anywhere but in an editor (never yes); in the reason
 * field Enter says no with that reason; Enter (yes) and A (yes for this chat) only when the card
 * itself has focus.
 */
function keyMeaning(key: string, ctx: KeyContext): KeyMeaning {
  if (ctx.repeat) return null;
  if (key === "Escape") return ctx.inTextField && !ctx.inReasonField ? null : "no";
  if (ctx.inReasonField) return key === "Enter" ? "no" : null;
  if (!ctx.onCard || ctx.inTextField || ctx.ctrl) return null;
  if (key === "Enter") return ctx.shift ? null : "yes";
  if (key === "a" || key === "A") return "yesForChat";
  return null;
}

/**
 * Execution card: Enter = allow once, A = allow for this chat (both only with focus on the card),
 * Esc = deny with the reason typed so far. In the reason field Enter denies with that reason;
 * other text fields keep their keys.
 */
export function executionKeyDecision(key: string, ctx: KeyContext): ExecutionDecision | null {
  const meaning = keyMeaning(key, ctx);
  switch (meaning) {
    case "yes":
      return { type: "allowOnce" };
    case "yesForChat":
      return { type: "allowForChat" };
    case "no":
      return { type: "deny", reason: reasonOrNull(ctx.reason) };
    case null:
      return null;
  }
}

/**
 * Result card: Enter = approve (only with focus on the card), Esc = withhold with the reason typed
 * so far; in the reason field Enter withholds with that reason. A means nothing here.
 */
export function resultKeyDecision(key: string, ctx: KeyContext): ResultDecision | null {
  const meaning = keyMeaning(key, ctx);
  switch (meaning) {
    case "yes":
      return { type: "approve" };
    case "no":
      return { type: "reject", reason: reasonOrNull(ctx.reason) };
    case "yesForChat":
    case null:
      return null;
  }
}

/** Parses the arguments editor; an error message for invalid JSON (the backend validates the rest). */
export function parseEditedArguments(text: string): { ok: true; value: JsonValue } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * What "Create rule and allow" sends: a rule for calls matching the pattern (trimmed), or for
 * every call of the tool only when that was chosen. `null` for an empty pattern: nothing can be
 * sent, and an empty pattern is never read as "every call".
 */
export function alwaysAllowDecision(scope: RuleScopeChoice, grant: RuleGrant["type"], pattern: string): ExecutionDecision | null {
  switch (grant) {
    case "matching": {
      const p = pattern.trim();
      return p ? { type: "alwaysAllow", scope, grant: { type: "matching", pattern: p } } : null;
    }
    case "everyCall":
      return { type: "alwaysAllow", scope, grant: { type: "everyCall" } };
  }
}
