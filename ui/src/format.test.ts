import { describe, expect, it } from "vitest";
import { executionKeyDecision, parseEditedArguments } from "./approvals";
import { compressArgs, diffLines, formatDuration, prettyJson, snippetParts, statusInfo } from "./format";

describe("tool card formatting", () => {
  it("compresses arguments to one line", () => {
    expect(compressArgs({ path: "src/a.rs", limit: 20, opts: { x: 1 }, list: [1, 2] })).toBe('path="src/a.rs", limit=20, opts={…}, list=[2]');
    expect(compressArgs({ text: "a\n  b" })).toBe('text="a b"');
    expect(compressArgs({ text: "x".repeat(200) }).length).toBeLessThanOrEqual(96);
    expect(compressArgs(null)).toBe("");
  });

  it("formats durations", () => {
    expect(formatDuration(3)).toBe("3 ms");
    expect(formatDuration(1234)).toBe("1.23 s");
    expect(formatDuration(75_000)).toBe("1 min 15 s");
    expect(formatDuration(null)).toBe("");
  });

  it("maps statuses to icons and tones", () => {
    expect(statusInfo("success")).toMatchObject({ tone: "ok", label: "status.success" });
    expect(statusInfo("execution_rejected").tone).toBe("warn");
    expect(statusInfo("timed_out").tone).toBe("error");
    expect(statusInfo("weird").label).toBeNull();
  });

  it("pretty-prints JSON strings and values", () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson("not json")).toBe("not json");
  });

  it("classifies diff lines and search snippets", () => {
    expect(diffLines("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n ctx").map((l) => l.kind)).toEqual(["meta", "meta", "hunk", "del", "add", "ctx"]);
    expect(snippetParts("a [b] c [d]")).toEqual([
      { text: "a ", match: false },
      { text: "b", match: true },
      { text: " c ", match: false },
      { text: "d", match: true },
    ]);
  });
});

describe("approval keys", () => {
  const base = { inTextField: false, inReasonField: false, reason: "", ctrl: false };
  it("maps Enter, A and Esc", () => {
    expect(executionKeyDecision("Enter", base)).toEqual({ type: "allowOnce" });
    expect(executionKeyDecision("a", base)).toEqual({ type: "allowForChat" });
    expect(executionKeyDecision("Escape", base)).toEqual({ type: "deny", reason: null });
    expect(executionKeyDecision("Escape", { ...base, reason: "  too risky " })).toEqual({ type: "deny", reason: "too risky" });
    expect(executionKeyDecision("x", base)).toBeNull();
    expect(executionKeyDecision("a", { ...base, ctrl: true })).toBeNull();
  });
  it("leaves text fields alone except the reason field", () => {
    expect(executionKeyDecision("Enter", { ...base, inTextField: true })).toBeNull();
    expect(executionKeyDecision("a", { ...base, inTextField: true, inReasonField: true })).toBeNull();
    expect(executionKeyDecision("Enter", { ...base, inTextField: true, inReasonField: true, reason: "no" })).toEqual({ type: "deny", reason: "no" });
  });
  it("validates edited JSON", () => {
    expect(parseEditedArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseEditedArguments("{").ok).toBe(false);
  });
});
