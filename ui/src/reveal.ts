/**
 * What an approval card shows of text the model or a tool wrote. Every character that draws
 * nothing or changes the direction of the text around it becomes a visible `⟨U+202E⟩` marker, and
 * whitespace runs long enough to push the rest of a line (or the rest of the text) out of view
 * become `␣×N` / `↵×N` markers. Display only: the decision sent back carries the original text.
 */
import { diffLines, type DiffKind } from "./format";

export type Segment =
  | { kind: "text"; text: string }
  /** `count` identical invisible, control or direction-changing characters in a row. */
  | { kind: "hidden"; code: number; count: number; label: string }
  /** A run of spaces or tabs too long to show as is. */
  | { kind: "spaces"; count: number; label: string }
  /** A run of line breaks (with only whitespace between) too long to show as is. */
  | { kind: "breaks"; count: number; label: string };

export interface Revealed {
  segments: Segment[];
  /** How many invisible or direction-changing characters the text holds. */
  hidden: number;
  /** Lines of the original text. */
  lines: number;
}

/** The longest whitespace runs shown as they are (each at least 8: shorter runs are never scanned). */
export interface RunLimits {
  /** Spaces or tabs within a line (after its first non-space character). */
  space: number;
  /** Spaces or tabs at the start of a line (indentation, nested JSON). */
  indent: number;
  /** Line breaks in a row. */
  breaks: number;
}

/** Command, arguments and diff: what will run or be written. A gap of more than 8 is marked. */
export const PAYLOAD_LIMITS: RunLimits = { space: 8, indent: 32, breaks: 8 };
/** Tool output for the model: aligned columns (`ls -l`, tables) stay as they are. */
export const OUTPUT_LIMITS: RunLimits = { space: 64, indent: 64, breaks: 16 };

/**
 * Invisible, control and direction-changing characters: C0 controls but tab and line feed (a
 * carriage return before a line feed is a line ending, see SCAN), DEL and C1 controls, the soft
 * hyphen, combining grapheme joiner, Arabic letter mark, Hangul and Khmer fillers, Mongolian
 * vowel separator, zero-width space / non-joiner / joiner, LRM / RLM, line and paragraph
 * separators, bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), word
 * joiner and invisible operators, the byte order mark, interlinear annotation marks, tag
 * characters (U+E0000–U+E007F, used to smuggle text past readers) and variation selectors
 * 17–256. Variation selectors 1–16 are left alone: every emoji uses them.
 */
const HIDDEN =
  "[\\0-\\x08\\x0B-\\x1F\\x7F-\\x9F\\xAD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180E\\u200B-\\u200F" +
  "\\u2028-\\u202E\\u2060-\\u206F\\u3164\\uFEFF\\uFFA0\\uFFF9-\\uFFFB\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}]";
/** Space characters that draw as blank width. */
const SPACE = "[ \\t\\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u3000]";
/** A hidden character (not the CR of a CRLF), or a whitespace run long enough to maybe mark. */
// The class lists combining marks (U+034F and others) on purpose, each as its own code point.
// eslint-disable-next-line no-misleading-character-class
const SCAN = new RegExp(`((?!\\r\\n)${HIDDEN})|((?:${SPACE}|\\r?\\n){9,})`, "gu");
// eslint-disable-next-line no-misleading-character-class
const HIDDEN_ONE = new RegExp(`^${HIDDEN}$`, "u");
const LINE_BREAK = /\r?\n/;

/** Whether one character (one code point) is flagged as invisible or direction-changing. */
export function isHiddenChar(char: string): boolean {
  return HIDDEN_ONE.test(char);
}

/** `U+202E`: the code point in the usual notation. */
export function codePointName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

function hiddenLabel(code: number, count: number): string {
  return `⟨${codePointName(code)}⟩${count > 1 ? `×${count}` : ""}`;
}

function pushText(out: Segment[], text: string): void {
  if (!text) return;
  const last = out[out.length - 1];
  if (last && last.kind === "text") out[out.length - 1] = { kind: "text", text: last.text + text };
  else out.push({ kind: "text", text });
}

function pushSpaces(out: Segment[], run: string, limit: number): void {
  if (run.length > limit) out.push({ kind: "spaces", count: run.length, label: `␣×${run.length}` });
  else pushText(out, run);
}

/** A whitespace run of `text` starting at `index`: its line breaks, trailing and leading spaces. */
function pushWhitespace(out: Segment[], text: string, index: number, run: string, limits: RunLimits): void {
  const pieces = run.split(LINE_BREAK);
  const atLineStart = index === 0 || text[index - 1] === "\n";
  pushSpaces(out, pieces[0] ?? "", atLineStart ? limits.indent : limits.space);
  const breaks = pieces.length - 1;
  if (breaks === 0) return;
  if (breaks > limits.breaks) {
    pushText(out, "\n");
    out.push({ kind: "breaks", count: breaks, label: `↵×${breaks}` });
  } else {
    for (const blank of pieces.slice(1, -1)) {
      pushText(out, "\n");
      pushSpaces(out, blank, limits.indent);
    }
  }
  pushText(out, "\n");
  pushSpaces(out, pieces[pieces.length - 1] ?? "", limits.indent);
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

/** Splits `text` into plain runs and visible markers, counting its hidden characters. */
export function reveal(text: string, limits: RunLimits = PAYLOAD_LIMITS): Revealed {
  const segments: Segment[] = [];
  let hidden = 0;
  let last = 0;
  SCAN.lastIndex = 0;
  for (let m = SCAN.exec(text); m; m = SCAN.exec(text)) {
    pushText(segments, text.slice(last, m.index));
    if (m[1] !== undefined) {
      // One marker for a run of the same character (5,000 zero-width spaces are one line, not 5,000).
      const code = m[1].codePointAt(0) ?? 0;
      const width = m[1].length;
      let end = m.index + width;
      let count = 1;
      while (text.codePointAt(end) === code && !(code === 0x0d && text[end + 1] === "\n")) {
        end += width;
        count++;
      }
      segments.push({ kind: "hidden", code, count, label: hiddenLabel(code, count) });
      hidden += count;
      last = end;
      SCAN.lastIndex = end;
    } else {
      pushWhitespace(segments, text, m.index, m[0], limits);
      last = m.index + m[0].length;
    }
  }
  pushText(segments, text.slice(last));
  return { segments, hidden, lines: countLines(text) };
}

/** The text as the card draws it, markers included (for tests and plain-text uses). */
export function displayText(segments: Segment[]): string {
  return segments.map((s) => (s.kind === "text" ? s.text : s.label)).join("");
}

export interface RevealedDiffLine {
  kind: DiffKind;
  /** The `+`, `-` or ` ` of an added, removed or context line, drawn as is. */
  prefix: string;
  body: Revealed;
}

export interface RevealedDiff {
  lines: RevealedDiffLine[];
  /** Hidden characters in all its lines. */
  hidden: number;
}

/**
 * A unified diff, line by line. The marker column is kept apart so a changed line's indentation
 * counts as indentation.
 */
export function revealDiff(diff: string): RevealedDiff {
  const lines = diffLines(diff).map((l): RevealedDiffLine => {
    const cut = l.kind === "add" || l.kind === "del" || (l.kind === "ctx" && l.text.startsWith(" ")) ? 1 : 0;
    return { kind: l.kind, prefix: l.text.slice(0, cut), body: reveal(l.text.slice(cut)) };
  });
  return { lines, hidden: lines.reduce((n, l) => n + l.body.hidden, 0) };
}
