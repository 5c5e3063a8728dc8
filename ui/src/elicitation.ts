/**
 * An MCP server's form (elicitation, SPEC §11) as fields to show and fill: the requested schema
 * is an object of plain-typed properties (text, number, integer, yes/no, one of a list, several
 * of a list). What the user typed becomes the content sent back; the engine checks it against
 * the schema again before it goes.
 */

import { secretNamed } from "./secretNames";
import type { JsonValue } from "./types";

export type FieldKind =
  | {
      type: "text";
      format: "email" | "uri" | "date" | "date-time" | null;
      minLength: number | null;
      maxLength: number | null;
      /** Named like a secret (a password, a token, a key): typed as dots, never shown on screen. */
      secret: boolean;
    }
  | { type: "number"; integer: boolean; minimum: number | null; maximum: number | null }
  | { type: "boolean" }
  | { type: "choice"; options: { value: string; label: string }[] }
  | { type: "choices"; options: { value: string; label: string }[]; minItems: number | null; maxItems: number | null };

export interface Field {
  name: string;
  title: string;
  description: string | null;
  required: boolean;
  kind: FieldKind;
  /** The server's default, as the field's first value. */
  initial: string | boolean | string[];
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The options of an enum-like schema: `enum` (with `enumNames`), or `oneOf`/`anyOf` of `const` + `title`. */
function options(schema: Json): { value: string; label: string }[] | null {
  if (Array.isArray(schema["enum"])) {
    const names = Array.isArray(schema["enumNames"]) ? (schema["enumNames"] as unknown[]) : [];
    return (schema["enum"] as unknown[]).map((v, i) => ({ value: String(v), label: str(names[i]) ?? String(v) }));
  }
  const list = Array.isArray(schema["oneOf"]) ? schema["oneOf"] : Array.isArray(schema["anyOf"]) ? schema["anyOf"] : null;
  if (list) {
    return (list as unknown[]).map((o) => {
      const one = obj(o);
      const value = String(one["const"] ?? "");
      return { value, label: str(one["title"]) ?? value };
    });
  }
  return null;
}

function kindOf(schema: Json, name: string): FieldKind {
  const type = schema["type"];
  if (type === "array") {
    const items = obj(schema["items"]);
    return { type: "choices", options: options(items) ?? [], minItems: num(schema["minItems"]), maxItems: num(schema["maxItems"]) };
  }
  const listed = options(schema);
  if (listed) return { type: "choice", options: listed };
  if (type === "boolean") return { type: "boolean" };
  if (type === "number" || type === "integer")
    return { type: "number", integer: type === "integer", minimum: num(schema["minimum"]), maximum: num(schema["maximum"]) };
  const format = str(schema["format"]);
  return {
    type: "text",
    format: format === "email" || format === "uri" || format === "date" || format === "date-time" ? format : null,
    minLength: num(schema["minLength"]),
    maxLength: num(schema["maxLength"]),
    // A field whose name or title says it holds a secret. Servers should not ask for one in a
    // form (the MCP spec sends them to a page instead); when one does, it is at least not shown.
    secret: secretNamed(name) || secretNamed(str(schema["title"]) ?? ""),
  };
}

function initialOf(kind: FieldKind, schema: Json): Field["initial"] {
  const d = schema["default"];
  switch (kind.type) {
    case "boolean":
      return d === true;
    case "choices":
      return Array.isArray(d) ? d.map(String) : [];
    case "number":
      return typeof d === "number" ? String(d) : "";
    case "choice":
    case "text":
      return d === undefined || d === null ? "" : String(d);
  }
}

/** The fields of a requested schema, in the server's order. */
export function formFields(schema: unknown): Field[] {
  const root = obj(schema);
  const required = new Set(Array.isArray(root["required"]) ? (root["required"] as unknown[]).map(String) : []);
  return Object.entries(obj(root["properties"])).map(([name, raw]) => {
    const s = obj(raw);
    const kind = kindOf(s, name);
    return {
      name,
      title: str(s["title"]) ?? name,
      description: str(s["description"]),
      required: required.has(name),
      kind,
      initial: initialOf(kind, s),
    };
  });
}

/** What one field says is wrong with its value, or null. Messages are catalogue keys with values. */
export type FieldProblem =
  { key: "form.required" } | { key: "form.notNumber" } | { key: "form.notInteger" } | { key: "form.range"; min: string; max: string };

/**
 * The content to send for the values typed: numbers as numbers, yes/no as booleans, empty
 * optional fields left out. Returns the problems instead when a field is not filled as asked.
 */
export function formContent(
  fields: Field[],
  values: Record<string, string | boolean | string[]>,
): { ok: true; content: { [key: string]: JsonValue } } | { ok: false; problems: Record<string, FieldProblem> } {
  const content: { [key: string]: JsonValue } = {};
  const problems: Record<string, FieldProblem> = {};
  for (const f of fields) {
    const v = values[f.name] ?? f.initial;
    switch (f.kind.type) {
      case "boolean":
        content[f.name] = v === true;
        break;
      case "choices": {
        const list = Array.isArray(v) ? v : [];
        if (f.required && list.length === 0) problems[f.name] = { key: "form.required" };
        else if (list.length > 0 || f.required) content[f.name] = list;
        break;
      }
      case "number": {
        const text = String(v).trim();
        if (text === "") {
          if (f.required) problems[f.name] = { key: "form.required" };
          break;
        }
        const n = Number(text);
        if (!Number.isFinite(n)) problems[f.name] = { key: "form.notNumber" };
        else if (f.kind.integer && !Number.isInteger(n)) problems[f.name] = { key: "form.notInteger" };
        else if ((f.kind.minimum !== null && n < f.kind.minimum) || (f.kind.maximum !== null && n > f.kind.maximum))
          problems[f.name] = { key: "form.range", min: String(f.kind.minimum ?? "−∞"), max: String(f.kind.maximum ?? "∞") };
        else content[f.name] = n;
        break;
      }
      case "choice":
      case "text": {
        const text = String(v);
        if (text.trim() === "") {
          if (f.required) problems[f.name] = { key: "form.required" };
        } else content[f.name] = text;
        break;
      }
    }
  }
  return Object.keys(problems).length ? { ok: false, problems } : { ok: true, content };
}
