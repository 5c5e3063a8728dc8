import { afterEach, describe, expect, it, vi } from "vitest";
import {
  askReasonText,
  compressArgs,
  errorMessage,
  decidedByKey,
  diffLines,
  executionChoiceKey,
  formatBytes,
  formatDuration,
  offPlanText,
  prettyJson,
  relativeTime,
  resultChoiceKey,
  snippetParts,
  statusInfo,
} from "./format";
import { setLanguage, t } from "./i18n";
import { commandError } from "./testing/backend";
import type { DecidedBy, ExecutionChoice, ResultChoice, UiCallStatus } from "./types";

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
    const all: UiCallStatus[] = [
      "running",
      "success",
      "error",
      "invalid_args",
      "not_found",
      "execution_rejected",
      "result_rejected",
      "cancelled",
      "timed_out",
      "pending",
      "awaiting_approval",
      "awaiting_result_review",
    ];
    for (const s of all) expect(t(statusInfo(s).label), s).toBeTruthy();
  });

  it("formats byte counts", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1_400_000)).toBe("1.4 MB");
    expect(formatBytes(2_000_000)).toBe("2.0 MB");
    expect(formatBytes(12_345)).toBe("12 KB");
    expect(formatBytes(999_999)).toBe("1.0 MB");
    expect(formatBytes(3_200_000_000)).toBe("3.2 GB");
    expect(formatBytes(-1)).toBe("");
  });

  it("pretty-prints JSON strings and values", () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson("not json")).toBe("not json");
  });

  it("classifies diff lines and search snippets", () => {
    expect(diffLines("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n ctx").map((l) => l.kind)).toEqual(["meta", "meta", "hunk", "del", "add", "ctx"]);
    expect(snippetParts("a \uE000b\uE001 c[0] \uE000d\uE001")).toEqual([
      { text: "a ", match: false },
      { text: "b", match: true },
      { text: " c[0] ", match: false },
      { text: "d", match: true },
    ]);
    // Brackets in the text are never taken for a match.
    expect(snippetParts("let [a, b] = x")).toEqual([{ text: "let [a, b] = x", match: false }]);
  });
});

describe("decision words", () => {
  it("gives every execution choice its own words; the automatic allow reads as Allowed", () => {
    const all: ExecutionChoice[] = ["allow", "allowOnce", "allowForChat", "alwaysAllow", "editAndAllow", "deny", "denyAndStop"];
    const words = all.map((c) => t(executionChoiceKey(c)));
    expect(new Set(words).size).toBe(all.length);
    expect(t(executionChoiceKey("allow"))).toBe("Allowed");
    expect(t(executionChoiceKey("allowOnce"))).toBe("Allowed once");
    expect(t(executionChoiceKey("deny"))).toBe("Denied");
  });

  it("gives every result choice its own words", () => {
    const all: ResultChoice[] = ["approve", "editAndApprove", "reject"];
    expect(all.map((c) => t(resultChoiceKey(c)))).toEqual(["Result approved", "Result edited", "Result withheld"]);
  });

  it("names who decided, and nobody for none", () => {
    const all: DecidedBy[] = ["auto", "user", "rule", "record", "plan", "policy"];
    expect(all.map((b) => decidedByKey(b))).toEqual(["by.auto", "by.user", "by.rule", "by.record", "by.plan", "by.policy"]);
    expect(decidedByKey("none")).toBeNull();
  });
});

describe("command errors", () => {
  it("words each kind in the user's language and keeps the backend's details", () => {
    setLanguage("en");
    expect(errorMessage({ kind: "busy", message: "a reply is already being written" })).toBe(
      "A reply is already being written in this chat; wait for it or press Stop.",
    );
    expect(errorMessage({ kind: "notFound", message: "chat 9 does not exist" })).toBe("It does not exist any more: chat 9 does not exist");
    expect(errorMessage({ kind: "keychain", message: "locked" })).toContain("keychain");
    setLanguage("zh-CN");
    expect(errorMessage({ kind: "storage", message: "disk full" })).toBe("数据库出错：disk full");
    setLanguage("en");
  });

  it("says what is missing or refused from its data, whole, in the user's language", () => {
    const gone = commandError("notFound", "chat 9 does not exist", { missing: { type: "chat", chat: 9 } });
    const hot = commandError("invalid", "the temperature must be between 0 and 2, not 2.5", { invalid: { type: "temperature", value: 2.5 } });
    const secrets = commandError("invalid", 'server "docs" now points somewhere else…', {
      invalid: { type: "mcpSecretsNotReused", server: "docs", secrets: ["API_KEY", "TOKEN"] },
    });
    const deeper = commandError("invalid", "the file is over 5 MB", { invalid: { type: "other", message: "the file is over 5 MB" } });
    setLanguage("en");
    expect(errorMessage(gone)).toBe("It does not exist any more: this chat was deleted");
    expect(errorMessage(hot)).toBe("Not accepted: the temperature must be between 0 and 2, not 2.5");
    expect(errorMessage(secrets)).toContain("enter API_KEY, TOKEN again");
    expect(errorMessage(deeper)).toBe("Not accepted: the file is over 5 MB");
    setLanguage("zh-CN");
    expect(errorMessage(gone)).toBe("已不存在：此对话已被删除");
    expect(errorMessage(hot)).toBe("未被接受：温度必须在 0 到 2 之间，而不是 2.5");
    expect(errorMessage(secrets)).toContain("请重新输入 API_KEY, TOKEN");
    // Words no catalogue has stay as the backend said them.
    expect(errorMessage(deeper)).toBe("未被接受：the file is over 5 MB");
    setLanguage("en");
  });

  it("falls back for what is not a command error", () => {
    expect(errorMessage(new Error("boom"))).toBe("boom");
    expect(errorMessage("plain")).toBe("plain");
    // An unknown kind is not mistaken for a command error.
    expect(errorMessage({ kind: "weird", message: "m" })).toBe("m");
  });
});

describe("why the user is asked", () => {
  it("says each reason in plain words", () => {
    setLanguage("en");
    expect(askReasonText({ type: "askOnce" })).toContain("asks once");
    expect(askReasonText({ type: "askAlways" })).toBe("This tool asks before every call.");
    expect(
      askReasonText({
        type: "rule",
        rule: { id: 1, tool: "run_command", pattern: "git *", action: "ask", scope: { type: "global" }, createdAt: 0 },
      }),
    ).toBe("A rule asks for approval: run_command, matching “git *”, in every chat.");
    expect(askReasonText({ type: "repeated", times: 3, wouldAllow: "rule" })).toBe(
      "The model made this exact call 3 times in a row (a rule would have allowed it).",
    );
    setLanguage("zh-CN");
    expect(askReasonText({ type: "askAlways" })).toBe("此工具在每次调用前都会询问。");
    setLanguage("en");
  });
});

describe("relativeTime", () => {
  const now = new Date(2026, 10, 25, 15, 30).getTime();
  const at = (...parts: [number, number, number, number, number]) => new Date(...parts).getTime();
  afterEach(() => setLanguage("en"));

  it("shows the time for today and the day for earlier, as the language writes them", () => {
    const cases: Array<[number, string, string]> = [
      [at(2026, 10, 25, 9, 5), "09:05 AM", "09:05"],
      [at(2026, 10, 25, 0, 7), "12:07 AM", "00:07"],
      [at(2026, 10, 25, 12, 0), "12:00 PM", "12:00"],
      [at(2026, 10, 25, 23, 59), "11:59 PM", "23:59"],
      [at(2026, 9, 3, 9, 5), "Oct 3", "10月3日"],
      [at(2026, 10, 24, 23, 59), "Nov 24", "11月24日"],
      // The same day of another year is not today.
      [at(2025, 10, 25, 15, 30), "Nov 25", "11月25日"],
      [at(2026, 0, 1, 0, 0), "Jan 1", "1月1日"],
      [at(2026, 11, 31, 0, 0), "Dec 31", "12月31日"],
    ];
    for (const [ms, en, zh] of cases) {
      setLanguage("en");
      expect(relativeTime(ms, now)).toBe(en);
      setLanguage("zh-CN");
      expect(relativeTime(ms, now)).toBe(zh);
    }
  });

  it("never builds an Intl formatter (its locale data cost the idle window megabytes)", () => {
    const made = vi.spyOn(Intl, "DateTimeFormat");
    for (let i = 0; i < 100; i++) relativeTime(now - i * 3_600_000, now);
    expect(made).not.toHaveBeenCalled();
    made.mockRestore();
  });
});

describe("a call off the plan the user approved", () => {
  it("says how it leaves the plan, and what would have allowed it", () => {
    const target = askReasonText({
      type: "offPlan",
      off: { type: "target", argument: "/to", value: "eve@evil.example" },
      wouldAllow: "auto",
    });
    expect(target).toContain("eve@evil.example (in to) is not a target the plan names");
    expect(target).toContain("auto policy would have allowed it");
    expect(askReasonText({ type: "offPlan", off: { type: "tool" }, wouldAllow: null })).toBe(
      "A plan you approved is in force, and this call leaves it: no step of the plan calls this tool.",
    );
    expect(offPlanText({ type: "usedUp", maxCalls: 2 })).toContain("all 2 of their calls");
    expect(offPlanText({ type: "pattern", subject: "/etc/passwd" })).toContain("/etc/passwd");
    expect(offPlanText({ type: "unconfined", mode: "off" })).toBe(
      "this chat’s commands run without the sandbox, so the plan cannot keep them to its hosts and files",
    );
    expect(offPlanText({ type: "unconfined", mode: "unavailable" })).toContain("no sandbox for commands");
  });

  it("says where a target off the plan was taken from", () => {
    const off = offPlanText({
      type: "target",
      argument: "/url",
      value: "http://127.0.0.2/collect",
      takenFrom: [{ type: "web", url: "http://127.0.0.1/notes", host: "127.0.0.1" }],
    });
    expect(off).toBe("http://127.0.0.2/collect (in url) is not a target the plan names; it was taken from http://127.0.0.1/notes");
  });
});
