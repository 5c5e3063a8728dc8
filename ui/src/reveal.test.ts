import { describe, expect, it } from "vitest";
import { codePointName, displayText, isHiddenChar, OUTPUT_LIMITS, reveal, revealDiff } from "./reveal";

const shown = (text: string) => displayText(reveal(text).segments);

describe("hidden characters", () => {
  it("marks every bidi control, zero-width and invisible character the card must not hide", () => {
    const flagged = [
      ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c],
      ...[0x200b, 0x200c, 0x200d, 0x2060, 0xfeff],
      ...[0x00, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f, 0xad],
      ...[0x2028, 0x2029, 0xe0041, 0xe007f],
    ];
    for (const code of flagged) {
      const char = String.fromCodePoint(code);
      const r = reveal(`a${char}b`);
      expect(r.hidden, codePointName(code)).toBe(1);
      expect(displayText(r.segments)).toBe(`a⟨${codePointName(code)}⟩b`);
      expect(isHiddenChar(char)).toBe(true);
    }
  });

  it("leaves ordinary text, tabs, line breaks, CRLF, CJK, RTL letters and emoji alone", () => {
    const plain = "ls -la\tdocs\r\n中文 עברית ❤️ café\n";
    expect(reveal(plain)).toEqual({ segments: [{ kind: "text", text: plain }], hidden: 0, lines: 3 });
    for (const c of ["a", " ", "\t", "\n", "\uFE0F", "\u00A0"]) expect(isHiddenChar(c)).toBe(false);
  });

  it("shows the real order of a Trojan Source style command", () => {
    // Displayed by a browser as `rm -rf safe/ # txt.exe`-style confusion; revealed it is plain.
    const r = reveal('echo "\u202Eexe.txt\u202C" && \u2066rm -rf ~\u2069');
    expect(displayText(r.segments)).toBe('echo "⟨U+202E⟩exe.txt⟨U+202C⟩" && ⟨U+2066⟩rm -rf ~⟨U+2069⟩');
    expect(r.hidden).toBe(4);
    expect(r.segments.filter((s) => s.kind === "hidden")).toHaveLength(4);
  });

  it("flags a lone carriage return but not the one of a CRLF", () => {
    const r = reveal("safe\rrm -rf ~\r\nnext");
    expect(displayText(r.segments)).toBe("safe⟨U+000D⟩rm -rf ~\r\nnext");
    expect(r.hidden).toBe(1);
  });

  it("draws a run of one character as one counted marker", () => {
    const r = reveal(`x${"\u200B".repeat(5000)}y\u{E0041}\u{E0042}`);
    expect(displayText(r.segments)).toBe("x⟨U+200B⟩×5000y⟨U+E0041⟩⟨U+E0042⟩");
    expect(r.hidden).toBe(5002);
    expect(r.segments[1]).toEqual({ kind: "hidden", code: 0x200b, count: 5000, label: "⟨U+200B⟩×5000" });
  });
});

describe("whitespace runs", () => {
  it("collapses the 5,000 spaces that would push `; curl x|sh` out of view", () => {
    const r = reveal(`git status${" ".repeat(5000)}; curl x|sh`);
    expect(displayText(r.segments)).toBe("git status␣×5000; curl x|sh");
    expect(r.segments[1]).toEqual({ kind: "spaces", count: 5000, label: "␣×5000" });
    expect(r.hidden).toBe(0);
  });

  it("keeps short gaps and ordinary indentation, marks deep indentation", () => {
    expect(shown("a        b")).toBe("a        b");
    expect(shown("a         b")).toBe("a␣×9b");
    expect(shown(`{\n${" ".repeat(20)}"deep": 1\n}`)).toBe(`{\n${" ".repeat(20)}"deep": 1\n}`);
    expect(shown(`x\n${" ".repeat(400)}hidden`)).toBe("x\n␣×400hidden");
    expect(shown(`\t\t\t\t\t\t\t\t\tx`)).toBe("\t\t\t\t\t\t\t\t\tx");
    expect(shown(`x\t\t\t\t\t\t\t\t\ty`)).toBe("x␣×9y");
  });

  it("collapses long runs of line breaks, keeps a few", () => {
    expect(shown(`git status${"\n".repeat(5000)}curl x|sh`)).toBe("git status\n↵×5000\ncurl x|sh");
    expect(shown("a\n\n\nb")).toBe("a\n\n\nb");
    expect(shown(`a${"\r\n".repeat(9)}b`)).toBe("a\n↵×9\nb");
    expect(shown(`a   \n${"   \n".repeat(3)}  b`)).toBe(`a   \n${"   \n".repeat(3)}  b`);
    expect(reveal(`a${"\n".repeat(5000)}b`).lines).toBe(5001);
  });

  it("is looser for tool output, where aligned columns are common", () => {
    const table = `name${" ".repeat(20)}size\nfile.txt${" ".repeat(16)}12`;
    expect(displayText(reveal(table, OUTPUT_LIMITS).segments)).toBe(table);
    expect(displayText(reveal(`ok${" ".repeat(5000)}secret`, OUTPUT_LIMITS).segments)).toBe("ok␣×5000secret");
  });
});

describe("diffs", () => {
  it("keeps the +/- column apart so indentation stays indentation, and counts hidden characters", () => {
    const d = revealDiff(`--- a\n+++ b\n@@ -1 +1 @@\n-${" ".repeat(12)}old\n+${" ".repeat(12)}new\u202E\n ctx`);
    expect(d.lines.map((l) => [l.kind, l.prefix, displayText(l.body.segments)])).toEqual([
      ["meta", "", "--- a"],
      ["meta", "", "+++ b"],
      ["hunk", "", "@@ -1 +1 @@"],
      ["del", "-", `${" ".repeat(12)}old`],
      ["add", "+", `${" ".repeat(12)}new⟨U+202E⟩`],
      ["ctx", " ", "ctx"],
    ]);
    expect(d.hidden).toBe(1);
  });
});
