/**
 * The words of the provenance gate (F-80…F-85): where content came from, what a call may do,
 * why a card is the gate's doing, and the stretches of the arguments that came from untrusted
 * content — pure functions, so the card, the header and the tool card say the same things.
 */
import { type Key, t } from "./i18n";
import type { ArgSpan, ExposureView, GuardNote, JsonValue, Source, SpanKind, ToolEffects, TrustKey, WayOut } from "./types";

/** The last one or two parts of a folder, for a line that has no room for the whole path. */
export function shortFolder(folder: string): string {
  const parts = folder.split(/[\\/]/).filter(Boolean);
  return parts.length <= 2 ? folder : `…/${parts.slice(-2).join("/")}`;
}

/** A tool's name on its server (`mail__send_email` → `send_email`). */
function remoteName(tool: string, server: string): string {
  return tool.startsWith(`${server}__`) ? tool.slice(server.length + 2) : tool;
}

/** Where content came from, in a few words. */
export function sourceText(s: Source): string {
  switch (s.type) {
    case "web":
      return s.url;
    case "file":
      return t("source.file", { path: s.path, folder: shortFolder(s.folder) });
    case "command":
      return t("source.command", { folder: shortFolder(s.folder) });
    case "mcpTool":
      return t("source.mcpTool", { server: s.server, tool: remoteName(s.tool, s.server) });
    case "mcpResource":
      return t("source.mcpResource", { server: s.server, uri: s.uri });
    case "mcpPrompt":
      return t("source.mcpPrompt", { server: s.server, name: s.name });
    case "attachment":
      return t("source.attachment", { name: s.name });
    case "import":
      return t("source.import", { title: s.title });
    case "network":
      return s.hosts.length
        ? t("source.networkHosts", { hosts: s.hosts.join(", "), folder: shortFolder(s.folder) })
        : t("source.network", { folder: shortFolder(s.folder) });
    case "mcpServer":
      return t("source.mcpServer", { server: s.server });
    case "mcpView":
      return t("source.mcpView", { server: s.server });
  }
}

/** What the user trusts or endorses, in a few words ("docs.rs", "the MCP server mail"). */
export function trustKeyText(k: TrustKey): string {
  switch (k.type) {
    case "host":
      return k.host;
    case "folder":
      return t("trust.folder", { folder: shortFolder(k.folder) });
    case "server":
      return t("trust.server", { server: k.server });
    case "tool":
      return t("trust.tool", { tool: k.tool });
    case "attachment":
      return t("trust.attachment", { name: k.name });
    case "import":
      return t("trust.import", { title: k.title });
    case "network":
      return t("trust.network");
  }
}

/** Why content from `s` can steer the model, in the words of the kind of thing it is. */
function carrierKey(s: Source): Key {
  switch (s.type) {
    case "web":
      return "guard.carrier.web";
    case "mcpTool":
    case "mcpResource":
    case "mcpPrompt":
    case "mcpServer":
    case "mcpView":
      return "guard.carrier.mcp";
    case "file":
    case "command":
      return "guard.carrier.folder";
    case "attachment":
      return "guard.carrier.attachment";
    case "import":
      return "guard.carrier.import";
    case "network":
      return "guard.carrier.network";
  }
}

/** Whether sending out is all a call may do (a fetch): it is held only for what it could leak. */
export function onlySendsOut(e: ToolEffects): boolean {
  return e.sendsOut && !e.writes && !e.executes && !e.irreversible;
}

/** What a call may do, as a list of short phrases; "read-only" when it changes and sends nothing. */
export function effectsWords(e: ToolEffects): string[] {
  const words: string[] = [];
  if (e.writes) words.push(t("effects.writes"));
  if (e.executes) words.push(t("effects.executes"));
  if (e.sendsOut) words.push(t("effects.sendsOut"));
  if (e.irreversible) words.push(t("effects.irreversible"));
  if (words.length === 0) words.push(t("effects.readOnly"));
  if (e.readsPrivate) words.push(t("effects.readsPrivate"));
  return words;
}

/** The card's one line: why the gate holds this call. */
export function guardWhy(note: GuardNote): string {
  const first = note.exposedTo[0];
  if (!first) return t("guard.whyExpanded");
  const more = note.exposedCount > 1 ? t("guard.andMore", { n: note.exposedCount - 1 }) : "";
  const line = t("guard.why", { source: sourceText(first), more, carrier: t(carrierKey(first)) });
  const secret = note.privateRead[0];
  const parts = [line];
  if (note.unconfirmed) parts.push(t("guard.whyClaimed"));
  if (note.chosenTargets?.length) parts.push(t("guard.whyTarget", { targets: note.chosenTargets.map(pointerLabel).join(", ") }));
  else if (onlySendsOut(note.effects) && secret) parts.push(t("guard.whyLeak", { source: sourceText(secret) }));
  return parts.join(" ");
}

/** A piece of an argument string: plain, or a stretch that came from somewhere. */
export interface MarkedPiece {
  text: string;
  kind: SpanKind | null;
  source: Source | null;
}

/** One argument string that holds highlighted stretches. */
export interface MarkedArgument {
  pointer: string;
  /** The argument's path for people: `command`, `headers › 0`. */
  label: string;
  pieces: MarkedPiece[];
}

/** An argument's path for people: `/headers/0` → `headers › 0`; the root → "the arguments". */
export function pointerLabel(pointer: string): string {
  const label = pointer
    .split("/")
    .slice(1)
    .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(" › ");
  return label || t("guard.wholeArgument");
}

/** The value at a JSON pointer (RFC 6901), if it is there. */
function at(value: JsonValue, pointer: string): JsonValue | undefined {
  let here: JsonValue | undefined = value;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(here)) here = here[Number(key)];
    else if (here !== null && typeof here === "object") here = (here as Record<string, JsonValue>)[key];
    else return undefined;
  }
  return here;
}

/**
 * The argument strings the gate found spans in, each split at its spans. Offsets count Unicode
 * characters (as the engine does), not UTF-16 units; overlapping spans keep the first.
 */
export function markedArguments(args: JsonValue, spans: ArgSpan[]): MarkedArgument[] {
  const byPointer = new Map<string, ArgSpan[]>();
  for (const s of spans) byPointer.set(s.pointer, [...(byPointer.get(s.pointer) ?? []), s]);
  const out: MarkedArgument[] = [];
  for (const [pointer, list] of byPointer) {
    const value = at(args, pointer);
    if (typeof value !== "string") continue;
    const chars = Array.from(value);
    const pieces: MarkedPiece[] = [];
    let pos = 0;
    for (const s of [...list].sort((a, b) => a.start - b.start)) {
      const start = Math.max(s.start, pos);
      const end = Math.min(s.end, chars.length);
      if (end <= start) continue;
      if (start > pos) pieces.push({ text: chars.slice(pos, start).join(""), kind: null, source: null });
      pieces.push({ text: chars.slice(start, end).join(""), kind: s.kind, source: s.source });
      pos = end;
    }
    if (pos < chars.length) pieces.push({ text: chars.slice(pos).join(""), kind: null, source: null });
    out.push({ pointer, label: pointerLabel(pointer), pieces });
  }
  return out;
}

/** A way out, in a few words. */
export function wayOutText(w: WayOut): string {
  switch (w.type) {
    case "tool":
      return w.tool;
    case "commandNetwork":
      return t("exposure.commandNetwork");
  }
}

/** Whether all three legs of the "lethal trifecta" stand: untrusted content, private data, a way out. */
export function trifecta(view: ExposureView): boolean {
  return view.guard && view.untrustedCount > 0 && view.privateCount > 0 && view.waysOut.length > 0;
}

/** What to trust to lift a source (the engine's `Source::key`). */
export function keyOf(s: Source): TrustKey {
  switch (s.type) {
    case "web":
      return { type: "host", host: s.host };
    case "file":
    case "command":
      return { type: "folder", folder: s.folder };
    case "mcpTool":
    case "mcpResource":
    case "mcpPrompt":
    case "mcpServer":
    case "mcpView":
      return { type: "server", server: s.server };
    case "attachment":
      return { type: "attachment", name: s.name };
    case "import":
      return { type: "import", title: s.title };
    case "network": {
      const [only, ...rest] = s.hosts;
      return only !== undefined && rest.length === 0 ? { type: "host", host: only } : { type: "network" };
    }
  }
}
