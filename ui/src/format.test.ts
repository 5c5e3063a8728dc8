import { describe, expect, it } from "vitest";
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
