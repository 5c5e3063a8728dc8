/** Pure formatting helpers for tool cards, the log and the approval cards. */
import { type Key, t } from "./i18n";
import { sourceText } from "./provenance";
import type {
  AskReason,
  CommandError,
  DecidedBy,
  ErrorKind,
  ExecutionChoice,
  Invalid,
  Missing,
  OffPlan,
  ResultChoice,
  SandboxMode,
  UiCallStatus,
} from "./types";

const ERROR_KINDS: Record<ErrorKind, true> = {
  busy: true,
  notFound: true,
  invalid: true,
  keychain: true,
  provider: true,
  storage: true,
  internal: true,
};

/** Whether a rejection is the backend's `CommandError` (`{ kind, message }`). */
export function isCommandError(error: unknown): error is CommandError {
  if (!error || typeof error !== "object") return false;
  const e = error as { kind?: unknown; message?: unknown };
  return typeof e.kind === "string" && e.kind in ERROR_KINDS && typeof e.message === "string";
}

/** A command's failure in the user's language, by its kind; the backend's message gives the details. */
export function commandErrorText(error: CommandError): string {
  const message = error.message;
  switch (error.kind) {
    case "busy":
      return t("error.busy");
    case "notFound":
      return t("error.notFound", { message: error.missing ? missingText(error.missing) : message });
    case "invalid":
      return t("error.invalid", { message: error.invalid ? invalidText(error.invalid) : message });
    case "keychain":
      return t("error.keychain", { message });
    case "provider":
      return t("error.provider", { message });
    case "storage":
      return t("error.storage", { message });
    case "internal":
      return t("error.internal", { message });
  }
}

/** What a command named that is not there, in the user's language. */
export function missingText(missing: Missing): string {
  switch (missing.type) {
    case "chat":
      return t("missing.chat");
    case "provider":
      return t("missing.provider");
    case "preset":
      return t("missing.preset");
    case "message":
      return t("missing.message");
    case "call":
      return t("missing.call", { seq: missing.seq });
    case "mcpServer":
      return t("missing.mcpServer", { name: missing.name });
    case "tool":
      return t("missing.tool", { name: missing.tool });
  }
}

/** What a command was given that it does not take, in the user's language. */
export function invalidText(invalid: Invalid): string {
  switch (invalid.type) {
    case "emptyMessage":
      return t("invalid.emptyMessage");
    case "emptyTitle":
      return t("invalid.emptyTitle");
    case "presetWithoutName":
      return t("invalid.presetWithoutName");
    case "temperature":
      return t("invalid.temperature", { value: invalid.value });
    case "maxTokens":
      return t("invalid.maxTokens");
    case "noSuchProvider":
      return t("invalid.noSuchProvider");
    case "mcpNameTaken":
      return t("invalid.mcpNameTaken", { name: invalid.name });
    case "mcpNotRunning":
      return t("invalid.mcpNotRunning", { server: invalid.server });
    case "elicitationAnswer":
      return t("invalid.elicitationAnswer", { reason: invalid.reason });
    case "mcpSignIn":
      return t("invalid.mcpSignIn", { server: invalid.server, reason: invalid.reason });
    case "mcpNotRemote":
      return t("invalid.mcpNotRemote", { server: invalid.server });
    case "mcpViewsPaused":
      return t("invalid.mcpViewsPaused", { list: invalid.servers.join(", ") });
    case "mcpSignInUnderWay":
      return t("invalid.mcpSignInUnderWay", { server: invalid.server });
    case "mcpTextsChanged":
      return t("invalid.mcpTextsChanged", { server: invalid.server });
    case "settingsChanged":
      return t("invalid.settingsChanged");
    case "mcpToolNotUnderReview":
      return t("invalid.mcpToolNotUnderReview", { server: invalid.server, tool: invalid.tool });
    case "mcpToolChangedAgain":
      return t("invalid.mcpToolChangedAgain", { server: invalid.server, tool: invalid.tool });
    case "mcpSecretsNotReused":
      return invalid.secrets.length
        ? t("invalid.mcpSecretsNotReused", { server: invalid.server, secrets: invalid.secrets.join(", ") })
        : t("invalid.mcpHiddenNotReused", { server: invalid.server });
    case "sandboxOffUnconfirmed":
      return t("invalid.sandboxOffUnconfirmed");
    case "notBlocked":
      return t("invalid.notBlocked", { seq: invalid.seq });
    case "import":
      return t("invalid.import", { reason: invalid.reason });
    case "other":
      return invalid.message;
  }
}

/** A readable message for anything a rejected promise may carry (commands reject with a `CommandError`). */
export function errorMessage(error: unknown): string {
  if (isCommandError(error)) return commandErrorText(error);
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  if (error && typeof error === "object" && "message" in error) {
    const message = (error as { message: unknown }).message;
    if (typeof message === "string") return message;
  }
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

export type StatusTone = "ok" | "error" | "warn" | "busy" | "wait" | "muted";

/** Icon, tone and label key for a call status. */
export function statusInfo(status: UiCallStatus): { icon: string; tone: StatusTone; label: Key } {
  switch (status) {
    case "success":
      return { icon: "✓", tone: "ok", label: "status.success" };
    case "error":
      return { icon: "✕", tone: "error", label: "status.error" };
    case "invalid_args":
      return { icon: "✕", tone: "error", label: "status.invalid_args" };
    case "not_found":
      return { icon: "?", tone: "error", label: "status.not_found" };
    case "execution_rejected":
      return { icon: "⊘", tone: "warn", label: "status.execution_rejected" };
    case "result_rejected":
      return { icon: "⊘", tone: "warn", label: "status.result_rejected" };
    case "cancelled":
      return { icon: "–", tone: "muted", label: "status.cancelled" };
    case "timed_out":
      return { icon: "◷", tone: "error", label: "status.timed_out" };
    case "in_background":
      return { icon: "◔", tone: "busy", label: "status.in_background" };
    case "running":
      return { icon: "●", tone: "busy", label: "status.running" };
    case "pending":
      return { icon: "…", tone: "busy", label: "status.pending" };
    case "awaiting_approval":
      return { icon: "!", tone: "wait", label: "status.awaiting_approval" };
    case "awaiting_result_review":
      return { icon: "!", tone: "wait", label: "status.awaiting_result_review" };
  }
}

function scalar(v: unknown, max: number): string {
  if (typeof v === "string") {
    const one = v.replace(/\s+/g, " ");
    return JSON.stringify(one.length > max ? one.slice(0, max - 1) + "…" : one);
  }
  if (v === null || typeof v !== "object") return String(v);
  if (Array.isArray(v)) return `[${v.length}]`;
  return "{…}";
}

/** One-line form of a call's arguments: `path="src/a.rs", limit=20`. */
export function compressArgs(args: unknown, max = 96): string {
  if (args === null || args === undefined) return "";
  if (typeof args !== "object" || Array.isArray(args)) {
    const s = typeof args === "string" ? args.replace(/\s+/g, " ") : (JSON.stringify(args) ?? "");
    return s.length > max ? s.slice(0, max - 1) + "…" : s;
  }
  const parts = Object.entries(args as Record<string, unknown>).map(([k, v]) => `${k}=${scalar(v, 40)}`);
  const s = parts.join(", ");
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

export function prettyJson(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || ms < 0) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${s} s`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
}

/**
 * The words for what was decided about running a call. `allow` and `deny` are the automatic
 * answers (auto policy, rule, record) and read "Allowed" / "Denied"; the others are the user's
 * buttons, each in its own words.
 */
export function executionChoiceKey(c: ExecutionChoice): Key {
  switch (c) {
    case "allow":
      return "decision.allow";
    case "allowOnce":
      return "decision.allowOnce";
    case "allowForChat":
      return "decision.allowForChat";
    case "alwaysAllow":
      return "decision.alwaysAllow";
    case "editAndAllow":
      return "decision.editAndAllow";
    case "deny":
      return "decision.deny";
    case "denyAndStop":
      return "decision.denyAndStop";
    case "endorseAndAllow":
      return "decision.endorseAndAllow";
  }
}

/** The words for what the user decided about a call's result before the model saw it. */
export function resultChoiceKey(c: ResultChoice): Key {
  switch (c) {
    case "approve":
      return "decision.approve";
    case "editAndApprove":
      return "decision.editAndApprove";
    case "reject":
      return "decision.reject";
  }
}

/** Who decided whether a call runs; `null` when nobody did (it failed or was cancelled first). */
export function decidedByKey(by: DecidedBy): Key | null {
  switch (by) {
    case "auto":
      return "by.auto";
    case "user":
      return "by.user";
    case "rule":
      return "by.rule";
    case "record":
      return "by.record";
    case "plan":
      return "by.plan";
    case "policy":
      return "by.policy";
    case "none":
      return null;
  }
}

/** Whether an execution choice let the call run (for the tone of its line). */
export function executionAllowed(c: ExecutionChoice): boolean {
  switch (c) {
    case "allow":
    case "allowOnce":
    case "allowForChat":
    case "alwaysAllow":
    case "editAndAllow":
    case "endorseAndAllow":
      return true;
    case "deny":
    case "denyAndStop":
      return false;
  }
}

/** Whether a result choice let the model see the (possibly edited) result. */
export function resultApproved(c: ResultChoice): boolean {
  switch (c) {
    case "approve":
    case "editAndApprove":
      return true;
    case "reject":
      return false;
  }
}

/** A byte count for people: `512 B`, `1.4 MB`, `2.0 MB`, `12 MB` (decimal units, as file managers show). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  const units = ["KB", "MB", "GB", "TB"] as const;
  // One decimal below 10 (as rounded), none above.
  const shown = (v: number) => v.toFixed(v < 9.95 ? 1 : 0);
  let value = bytes / 1000;
  let unit = 0;
  // Compare the rounded figure, so 999,999 bytes reads "1.0 MB", never "1000 KB".
  while (unit < units.length - 1 && Number(shown(value)) >= 1000) {
    value /= 1000;
    unit++;
  }
  return `${shown(value)} ${units[unit]}`;
}

/** What a unified-diff line is, for colouring. */
export type DiffKind = "add" | "del" | "hunk" | "meta" | "ctx";

/** Classifies unified-diff lines for colouring. */
export function diffLines(diff: string): Array<{ kind: DiffKind; text: string }> {
  return diff.split("\n").map((text) => {
    if (text.startsWith("+++") || text.startsWith("---")) return { kind: "meta", text };
    if (text.startsWith("@@")) return { kind: "hunk", text };
    if (text.startsWith("+")) return { kind: "add", text };
    if (text.startsWith("-")) return { kind: "del", text };
    return { kind: "ctx", text };
  });
}

/** Splits a search snippet (matches marked with [ ]) into plain and highlighted parts. */
export function snippetParts(snippet: string): Array<{ text: string; match: boolean }> {
  const parts: Array<{ text: string; match: boolean }> = [];
  // The engine marks matches with two private-use characters (MATCH_START, MATCH_END), which
  // no text contains: brackets in the text itself stay text.
  const re = /\uE000([^\uE001]*)\uE001/g;
  let last = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    if (m.index > last) parts.push({ text: snippet.slice(last, m.index), match: false });
    parts.push({ text: m[1] ?? "", match: true });
    last = m.index + m[0].length;
  }
  if (last < snippet.length) parts.push({ text: snippet.slice(last), match: false });
  return parts;
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * A chat's last change as the sidebar shows it: the time today ("02:05 PM", "14:05"), the day
 * before today ("Oct 3", "10月3日"), in the current language. Formatted from the catalogue rather
 * than with `Intl.DateTimeFormat`: the locale data that loads cost the idle window 2.6 MB
 * (F-71), for two short formats in two languages.
 */
export function relativeTime(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  if (d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate()) {
    const h = d.getHours();
    const hour = t("date.clock") === "12" ? h % 12 || 12 : h;
    return t(h < 12 ? "date.timeAm" : "date.timePm", { hour: pad2(hour), minute: pad2(d.getMinutes()) });
  }
  return t("date.day", { month: t(`date.month${d.getMonth() + 1}` as Key), day: d.getDate() });
}

/** A chat's title as shown everywhere: its own, or "New chat" until it has one. */
export function chatTitle(chat: { title: string }): string {
  return chat.title.trim() ? chat.title : t("sidebar.untitled");
}

/** Why the user is asked about a call, in the user's language. */
export function askReasonText(reason: AskReason): string {
  switch (reason.type) {
    case "askOnce":
      return t("approval.reason.askOnce");
    case "askAlways":
      return t("approval.reason.askAlways");
    case "rule": {
      const { rule } = reason;
      const what = rule.pattern === null ? t("approval.reason.ruleEvery") : t("approval.reason.ruleMatching", { pattern: rule.pattern });
      const scope = rule.scope.type === "global" ? t("rules.global") : t("approval.reason.ruleThisChat");
      return t("approval.reason.rule", { tool: rule.tool, what, scope });
    }
    case "repeated": {
      const by = decidedByKey(reason.wouldAllow);
      return t("approval.reason.repeated", { times: reason.times, by: by ? t(by) : t("by.policy") });
    }
    case "exposed": {
      const by = decidedByKey(reason.wouldAllow);
      return t("approval.reason.exposed", { by: by ? t(by) : t("by.policy") });
    }
    case "toolChanged": {
      const by = reason.wouldAllow ? decidedByKey(reason.wouldAllow) : null;
      return by ? t("approval.reason.toolChangedSetAside", { by: t(by) }) : t("approval.reason.toolChanged");
    }
    case "offPlan": {
      const how = offPlanText(reason.off);
      const by = reason.wouldAllow ? decidedByKey(reason.wouldAllow) : null;
      return by ? t("approval.reason.offPlanSetAside", { how, by: t(by) }) : t("approval.reason.offPlan", { how });
    }
    case "plan":
      return reason.shown.exposed ? t("plan.exposed") : t("plan.intro");
  }
}

/** How a call leaves the plan the user approved (F-98), in the user's language. */
export function offPlanText(off: OffPlan): string {
  switch (off.type) {
    case "tool":
      return t("plan.off.tool");
    case "usedUp":
      return t("plan.off.usedUp", { max: off.maxCalls });
    case "pattern":
      return t("plan.off.pattern", { subject: off.subject });
    case "target": {
      const argument = off.argument.replace(/^\//, "");
      const from = off.takenFrom ?? [];
      return from.length
        ? t("plan.off.targetFrom", { value: off.value, argument, from: from.map(sourceText).join(", ") })
        : t("plan.off.target", { value: off.value, argument });
    }
    case "unconfined":
      return unconfinedText(off.mode);
  }
}

/** Why the sandbox cannot keep a plan's commands to its hosts and files (F-98). */
export function unconfinedText(mode: SandboxMode): string {
  switch (mode) {
    case "off":
    case "confined":
      return t("plan.off.unconfined.off");
    case "unavailable":
      return t("plan.off.unconfined.unavailable");
    case "partial":
      return t("plan.off.unconfined.partial");
  }
}
