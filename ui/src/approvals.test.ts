import { describe, expect, it } from "vitest";
import { alwaysAllowDecision, executionKeyDecision, type KeyContext, parseEditedArguments, resultKeyDecision } from "./approvals";

/** Focus on the card element itself, no modifier. */
const onCard: KeyContext = { onCard: true, inTextField: false, inReasonField: false, reason: "", ctrl: false, shift: false, repeat: false };
/** Focus on a button (or radio, summary, any control) inside the card. */
const onButton: KeyContext = { ...onCard, onCard: false };
const inReason: KeyContext = { ...onCard, onCard: false, inTextField: true, inReasonField: true };
const inEditor: KeyContext = { ...onCard, onCard: false, inTextField: true };

describe("execution card keys", () => {
  it("maps Enter, A and Esc when the card itself has focus", () => {
    expect(executionKeyDecision("Enter", onCard)).toEqual({ type: "allowOnce" });
    expect(executionKeyDecision("a", onCard)).toEqual({ type: "allowForChat" });
    expect(executionKeyDecision("A", onCard)).toEqual({ type: "allowForChat" });
    expect(executionKeyDecision("Escape", onCard)).toEqual({ type: "deny", reason: null });
    expect(executionKeyDecision("Escape", { ...onCard, reason: "  too risky " })).toEqual({ type: "deny", reason: "too risky" });
    expect(executionKeyDecision("x", onCard)).toBeNull();
    expect(executionKeyDecision(" ", onCard)).toBeNull();
    expect(executionKeyDecision("a", { ...onCard, ctrl: true })).toBeNull();
    expect(executionKeyDecision("Enter", { ...onCard, ctrl: true })).toBeNull();
    expect(executionKeyDecision("Enter", { ...onCard, shift: true })).toBeNull();
  });

  it("never allows from a focused button: Enter and Space are the button's, Esc may only deny", () => {
    expect(executionKeyDecision("Enter", onButton)).toBeNull();
    expect(executionKeyDecision(" ", onButton)).toBeNull();
    expect(executionKeyDecision("a", onButton)).toBeNull();
    expect(executionKeyDecision("Escape", onButton)).toEqual({ type: "deny", reason: null });
  });

  it("ignores auto-repeated keys, so a held Enter cannot run through the queue", () => {
    expect(executionKeyDecision("Enter", { ...onCard, repeat: true })).toBeNull();
    expect(executionKeyDecision("a", { ...onCard, repeat: true })).toBeNull();
    expect(executionKeyDecision("Escape", { ...onCard, repeat: true })).toBeNull();
  });

  it("leaves text fields alone except the reason field", () => {
    expect(executionKeyDecision("Enter", inEditor)).toBeNull();
    expect(executionKeyDecision("Escape", inEditor)).toBeNull();
    expect(executionKeyDecision("a", inReason)).toBeNull();
    expect(executionKeyDecision("Enter", { ...inReason, reason: "no" })).toEqual({ type: "deny", reason: "no" });
    expect(executionKeyDecision("Escape", { ...inReason, reason: "no" })).toEqual({ type: "deny", reason: "no" });
  });
});

describe("result card keys", () => {
  it("approves with Enter only on the card itself and withholds with Esc", () => {
    expect(resultKeyDecision("Enter", onCard)).toEqual({ type: "approve" });
    expect(resultKeyDecision("Enter", { ...onCard, shift: true })).toBeNull();
    expect(resultKeyDecision("Enter", { ...onCard, repeat: true })).toBeNull();
    expect(resultKeyDecision("a", onCard)).toBeNull();
    expect(resultKeyDecision("Escape", onCard)).toEqual({ type: "reject", reason: null });
  });

  it("never approves from a focused button", () => {
    expect(resultKeyDecision("Enter", onButton)).toBeNull();
    expect(resultKeyDecision(" ", onButton)).toBeNull();
    expect(resultKeyDecision("Escape", onButton)).toEqual({ type: "reject", reason: null });
  });

  it("withholds with the reason from the reason field and leaves the result editor alone", () => {
    expect(resultKeyDecision("Enter", { ...inReason, reason: " secret " })).toEqual({ type: "reject", reason: "secret" });
    expect(resultKeyDecision("Escape", { ...inReason, reason: "x" })).toEqual({ type: "reject", reason: "x" });
    expect(resultKeyDecision("Enter", inEditor)).toBeNull();
    expect(resultKeyDecision("Escape", inEditor)).toBeNull();
  });
});

describe("edited arguments", () => {
  it("validates edited JSON", () => {
    expect(parseEditedArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseEditedArguments("{").ok).toBe(false);
  });
});

describe("alwaysAllowDecision", () => {
  it("sends the trimmed pattern, or nothing for an empty one", () => {
    expect(alwaysAllowDecision("thisChat", "matching", "  git status * ")).toEqual({
      type: "alwaysAllow",
      scope: "thisChat",
      grant: { type: "matching", pattern: "git status *" },
    });
    expect(alwaysAllowDecision("allChats", "matching", "")).toBeNull();
    expect(alwaysAllowDecision("allChats", "matching", " \t\n")).toBeNull();
  });

  it("grants every call only when that was chosen, whatever the pattern field holds", () => {
    expect(alwaysAllowDecision("allChats", "everyCall", "")).toEqual({ type: "alwaysAllow", scope: "allChats", grant: { type: "everyCall" } });
    expect(alwaysAllowDecision("thisChat", "everyCall", "git *")).toEqual({ type: "alwaysAllow", scope: "thisChat", grant: { type: "everyCall" } });
  });
});
