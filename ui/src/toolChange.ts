/**
 * A changed MCP tool, for reading (SPEC §11): each changed part of its definition as text, and a
 * line diff of before and after, so what a server rewrote behind the user's back — a sentence
 * added to a description, a hint flipped — stands out.
 */
import type { DefinitionPart, McpToolDefinition } from "./types";

export type DiffLine = { kind: "same" | "add" | "del"; text: string };

/** One part of a definition as text: descriptions as written, the rest as indented JSON. */
export function partText(def: McpToolDefinition | null, part: DefinitionPart): string {
  if (!def) return "";
  switch (part) {
    case "title":
      return def.title ?? "";
    case "description":
      return def.description;
    case "inputSchema":
      return JSON.stringify(def.inputSchema, null, 2);
    case "outputSchema":
      return def.outputSchema === undefined ? "" : JSON.stringify(def.outputSchema, null, 2);
    case "annotations":
      return def.annotations === undefined ? "" : JSON.stringify(def.annotations, null, 2);
  }
}

/** Splits a description into sentences (a rewritten description usually adds one) and JSON into lines. */
function units(text: string, part: DefinitionPart): string[] {
  if (text === "") return [];
  if (part === "description" || part === "title") {
    return text
      .split(/(?<=[.!?。！？])\s+|\n/)
      .map((s) => s.trim())
      .filter((s) => s !== "");
  }
  return text.split("\n");
}

/**
 * The shortest edit from `before` to `after`, unit by unit (longest common subsequence). Inputs
 * are a tool definition's parts: small, so the quadratic table is fine; past 2,000 units each
 * side is shown whole, removed then added.
 */
export function diffUnits(before: string[], after: string[]): DiffLine[] {
  const n = before.length;
  const m = after.length;
  if (n * m > 4_000_000) {
    return [...before.map((text) => ({ kind: "del" as const, text })), ...after.map((text) => ({ kind: "add" as const, text }))];
  }
  // lcs[i][j]: the common length of before[i..] and after[j..].
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i]!;
    const below = lcs[i + 1]!;
    for (let j = m - 1; j >= 0; j--) {
      row[j] = before[i] === after[j] ? below[j + 1]! + 1 : Math.max(below[j]!, row[j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (before[i] === after[j]) {
      out.push({ kind: "same", text: before[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      out.push({ kind: "del", text: before[i]! });
      i++;
    } else {
      out.push({ kind: "add", text: after[j]! });
      j++;
    }
  }
  while (i < n) out.push({ kind: "del", text: before[i++]! });
  while (j < m) out.push({ kind: "add", text: after[j++]! });
  return out;
}

/** The diff of one part between two definitions (`before` null: all of it is new). */
export function partDiff(before: McpToolDefinition | null, after: McpToolDefinition, part: DefinitionPart): DiffLine[] {
  return diffUnits(units(partText(before, part), part), units(partText(after, part), part));
}
