/**
 * The chat timeline as view state, and the pure reducer that turns backend events into it.
 * `fromHistory` rebuilds the same shape from `chat_history`, so a reopened chat looks the same
 * as the live one did.
 */
import type {
  Attachment,
  CallDecision,
  ChatEvent,
  ChatHistory,
  ChatId,
  DecidedBy,
  ExecutionPolicy,
  FailureKind,
  GuardMark,
  LentModel,
  AskedQuestion,
  McpViewLink,
  MessageStatus,
  PendingApproval,
  PendingElicitation,
  RecordedCall,
  RetryNotice,
  SandboxReport,
  Source,
  TaskState,
  AssistantToolCall,
  ToolEvent,
  UiCallStatus,
  Usage,
} from "./types";
import { LIVE_TAIL_BYTES } from "./bindings";

export interface CallView {
  seq: number;
  callId: string;
  messageId: number | null;
  round: number | null;
  name: string;
  group: string | null;
  /** Arguments as the model sent them (string) or as resolved (parsed when possible). */
  args: unknown;
  status: UiCallStatus;
  policy: ExecutionPolicy | null;
  /** What was decided about running it and about its result; each part absent until decided. */
  decision: CallDecision;
  /** Who decided whether it runs (`none` until someone did). A result is only ever reviewed by the user. */
  decidedBy: DecidedBy;
  durationMs: number | null;
  preview: string | null;
  content: string | null;
  isError: boolean;
  truncated: boolean;
  resultVar: string | null;
  argsVar: string | null;
  /** Images the tool returned (F-45), shown with the result; the model only reads a note of them. */
  images: Attachment[];
  /** How a sandboxed command ran and what the sandbox blocked (F-46). */
  sandbox: SandboxReport | null;
  /** Where the result came from (F-80). */
  sources: Source[];
  /** How the call went through the provenance gate (F-85). */
  guard: GuardMark;
  /** Live stdout / stderr / log while running: its last LIVE_OUTPUT_LIMIT characters. */
  output: string;
  /** Characters of live output dropped from the front to keep `output` within the limit. */
  outputDropped: number;
  /** How far the call has got, as its MCP server last reported while it ran (SPEC §11). */
  progress: CallProgress | null;
  /** The view its MCP server ships with the tool (F-96), shown under the card once the call runs. */
  view: McpViewLink | null;
  /** Made by the view of call `viewOf` (F-96), not by the model: shown under that view. */
  viewOf: number | null;
  /** Went on after its turn as its server's task (F-99): its result's review outlives the turn. */
  afterTurn?: boolean;
  /** What the chat's model answered the call's server, request by request (sampling, F-99). */
  lent?: LentModel[];
  /** What the call's server asked the user during it, and how each question ended (F-99). */
  asked?: AskedQuestion[];
}

/** An MCP server's last progress report for a running call. */
export interface CallProgress {
  progress: number;
  /** Known only when the server says how much there is to do. */
  total: number | null;
  message: string | null;
}

export interface TimelineMessage {
  id: number;
  role: "user" | "assistant";
  content: string;
  /** The model's reasoning, shown in the "Thinking" section above the answer (never answer text). */
  reasoning: string;
  /** Set while a broken stream is tried again: its text was discarded, and this says why. */
  retry: RetryNotice | null;
  status: MessageStatus;
  toolCalls: AssistantToolCall[];
  usage: Usage | null;
  createdAt: number;
  /** Every version of this message, oldest first, when there is more than one (F-56). */
  siblings?: number[];
  /** The model that wrote this answer. */
  model?: string | undefined;
  /** Files attached to a user message (F-57). */
  attachments?: Attachment[] | undefined;
}

export interface Question {
  id: string;
  seq: number;
  question: string;
  choices: string[];
  /** Set when an MCP server asks (SPEC §11), not the model. */
  elicitation?: PendingElicitation;
}

/**
 * Something the user did in a chat, outside a turn's own events, that failed: sending a
 * message, Stop, Retry, or reading the chat again after a turn or a background change.
 */
export type ChatAction = "send" | "stop" | "retry" | "reload" | "edit" | "regenerate" | "branch" | "rerun";

/** Why a `ChatAction` failed; shown above the composer until dismissed or superseded. */
export interface ChatAlert {
  action: ChatAction;
  message: string;
}

export interface ChatState {
  chat: ChatId;
  messages: TimelineMessage[];
  calls: CallView[];
  approvals: PendingApproval[];
  questions: Question[];
  running: boolean;
  /** The error of the last failed turn, shown with Retry. */
  /** Why the last turn failed; `kind` is what the window acts on (null in answers saved before kinds were kept). */
  error: { message: string; retryable: boolean; kind: FailureKind | null } | null;
  /** A request being tried again (before anything was shown; a shown answer carries its own `retry`). */
  retrying: { attempt: number; maxRetries: number; delayMs: number; error: string; messageId: number | null } | null;
  /** Usage of the last finished turn. */
  turnUsage: Usage | null;
  /** The last failed action in this chat (not the turn's own failure, which is `error`). */
  alert: ChatAlert | null;
  /**
   * The chat's revision when its history was read (F-71); null when this state was not read from
   * history. Opening the chat again reads it again only when the revision moved on.
   */
  revision: number | null;
  /**
   * While messages before the first one here are still to be read: the `before` that reads the
   * page before them (`chat_history`'s `earlier`). A long chat opens on its last page (F-71).
   */
  earlier: number | null;
  /** The task grant in force (F-98): the plan the user approved and the calls each step made. */
  task: TaskState | null;
}

export function emptyChat(chat: ChatId): ChatState {
  return {
    chat,
    messages: [],
    calls: [],
    approvals: [],
    questions: [],
    running: false,
    error: null,
    retrying: null,
    turnUsage: null,
    alert: null,
    revision: null,
    earlier: null,
    task: null,
  };
}

/** Parses JSON argument strings; anything else is returned unchanged. */
export function parseArgs(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function callFromRecord(r: RecordedCall): CallView {
  return {
    seq: r.seq,
    callId: r.callId,
    messageId: r.messageId,
    round: r.round,
    name: r.tool ?? r.requestedName,
    group: r.group,
    args: parseArgs(r.resolvedArgs ?? r.rawArgs),
    status: r.status,
    afterTurn: r.status === "in_background",
    policy: r.policy,
    decision: r.decision,
    decidedBy: r.decidedBy,
    durationMs: r.durationMs,
    preview: r.resultText === null ? null : firstLine(r.resultText),
    content: r.resultText,
    isError: r.isError,
    truncated: r.truncated,
    resultVar: r.resultVar,
    argsVar: r.argsVar,
    images: r.resultImages ?? [],
    sandbox: r.sandbox ?? null,
    sources: r.sources ?? [],
    guard: r.guard,
    output: "",
    outputDropped: 0,
    progress: null,
    view: r.view ?? null,
    viewOf: r.viewOf ?? null,
    lent: r.lent ?? [],
    asked: r.asked ?? [],
  };
}

function firstLine(text: string, max = 160): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

/** Rebuilds the view state from stored history. Tool messages feed their results into the calls. */
export function fromHistory(chat: ChatId, history: ChatHistory, approvals: PendingApproval[] = []): ChatState {
  const state = emptyChat(chat);
  const calls = history.calls.map(callFromRecord);
  const byCallId = new Map(calls.map((c) => [c.callId, c]));
  const unrecorded: CallView[] = [];
  for (const m of history.messages) {
    if (m.role === "tool") {
      for (const r of m.payload?.results ?? []) {
        if (byCallId.has(r.callId)) continue;
        // A result without a recorded call (e.g. from an older store): show it as a finished call.
        const view: CallView = {
          ...blankCall(0, r.callId, r.name, null),
          status: r.isError ? "error" : "success",
          content: r.content,
          preview: firstLine(r.content),
          isError: r.isError,
        };
        const owner = [...history.messages]
          .reverse()
          .find((x) => x.role === "assistant" && x.id < m.id && (x.payload?.toolCalls ?? []).some((c) => c.id === r.callId));
        view.messageId = owner?.id ?? null;
        byCallId.set(r.callId, view);
        unrecorded.push(view);
      }
      continue;
    }
    state.messages.push({
      id: m.id,
      role: m.role,
      content: m.content,
      reasoning: m.payload?.reasoning ?? "",
      retry: m.payload?.retry ?? null,
      status: m.status,
      toolCalls: m.payload?.toolCalls ?? [],
      usage: m.usage,
      createdAt: m.createdAt,
      siblings: m.siblings,
      model: m.payload?.model,
      attachments: m.payload?.attachments,
    });
  }
  // Made-up numbers below every recorded call's, in the order the results came: -n … -1.
  unrecorded.forEach((c, i) => (c.seq = i - unrecorded.length));
  calls.push(...unrecorded);
  // A view's calls sit with the call whose view made them.
  const bySeq0 = new Map(calls.map((c) => [c.seq, c]));
  for (const c of calls) {
    if (c.viewOf !== null && c.messageId === null) c.messageId = bySeq0.get(c.viewOf)?.messageId ?? null;
  }
  // Give calls without a message the assistant message that requested them.
  for (const c of calls) {
    if (c.messageId !== null) continue;
    const owner = state.messages.find((m) => m.toolCalls.some((t) => t.id === c.callId));
    if (owner) c.messageId = owner.id;
  }
  state.calls = bySeq(calls);
  state.running = history.running;
  state.revision = history.revision;
  state.earlier = history.earlier ?? null;
  state.task = history.task ?? null;
  state.approvals = approvals;
  // A call read while it waits for the user says so (its record only says it runs).
  for (const a of approvals) {
    const waiting = state.calls.find((c) => c.seq === a.seq);
    if (waiting && (waiting.status === "running" || waiting.status === "in_background")) {
      waiting.status = a.request.kind === "execution" ? "awaiting_approval" : "awaiting_result_review";
    }
  }
  const last = state.messages[state.messages.length - 1];
  if (last && last.role === "assistant" && last.status === "error") {
    const stored = history.messages.find((m) => m.id === last.id)?.payload?.failure;
    state.error = { message: stored?.message ?? "", retryable: stored?.retryable ?? true, kind: stored?.kind ?? null };
  }
  return state;
}

/** Calls in `seq` order, made up calls (negative numbers, see `fromHistory`) first. */
function bySeq(calls: CallView[]): CallView[] {
  return calls.sort((a, b) => a.seq - b.seq);
}

/**
 * Puts `page`, the history just before the first message of `state` (read with `before` =
 * `state.earlier`), in front of it. Calls `fromHistory` made up for results without a record
 * are numbered below those already held, so no two calls share a number.
 */
export function withEarlier(state: ChatState, page: ChatHistory): ChatState {
  const older = fromHistory(state.chat, page);
  const lowest = state.calls.reduce((low, c) => Math.min(low, c.seq), 0);
  const calls = older.calls.map((c) => (c.seq < 0 ? { ...c, seq: c.seq + lowest } : c));
  return {
    ...state,
    messages: [...older.messages, ...state.messages],
    calls: bySeq([...calls, ...state.calls]),
    earlier: page.earlier,
  };
}

/**
 * A chat read again from its last page (`next`) keeps the messages before that page which
 * `previous` already held: everything before a message is that message's ancestors, the same
 * on every branch through it, so they need not be read again. When `previous` does not hold
 * the page's first message (another branch, or not read that far), `next` stands alone.
 */
export function keepEarlier(previous: ChatState, next: ChatState): ChatState {
  if (next.earlier === null) return next;
  const at = previous.messages.findIndex((m) => m.id === next.earlier);
  if (at < 0) return next;
  const kept = previous.messages.slice(0, at);
  const ids = new Set(kept.map((m) => m.id));
  const calls = previous.calls.filter((c) => c.messageId !== null && ids.has(c.messageId));
  return {
    ...next,
    messages: [...kept, ...next.messages],
    calls: bySeq([...calls, ...next.calls]),
    earlier: previous.earlier,
  };
}

function blankCall(seq: number, callId: string, name: string, messageId: number | null): CallView {
  return {
    seq,
    callId,
    messageId,
    round: null,
    name,
    group: null,
    args: null,
    status: "running",
    policy: null,
    decision: { execution: null, result: null },
    decidedBy: "none",
    durationMs: null,
    preview: null,
    content: null,
    isError: false,
    truncated: false,
    resultVar: null,
    argsVar: null,
    images: [],
    sandbox: null,
    sources: [],
    guard: "quiet",
    output: "",
    outputDropped: 0,
    progress: null,
    view: null,
    viewOf: null,
  };
}

function updateMessage(state: ChatState, id: number, f: (m: TimelineMessage) => TimelineMessage): ChatState {
  let found = false;
  const messages = state.messages.map((m) => {
    if (m.id !== id) return m;
    found = true;
    return f(m);
  });
  if (found) return { ...state, messages };
  const created = f({
    id,
    role: "assistant",
    content: "",
    reasoning: "",
    retry: null,
    status: "streaming",
    toolCalls: [],
    usage: null,
    createdAt: Date.now(),
  });
  return { ...state, messages: [...state.messages, created] };
}

function updateCall(state: ChatState, seq: number, f: (c: CallView) => CallView): ChatState {
  if (!state.calls.some((c) => c.seq === seq)) return state;
  return { ...state, calls: state.calls.map((c) => (c.seq === seq ? f(c) : c)) };
}

function currentAssistant(state: ChatState): TimelineMessage | undefined {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i];
    if (m?.role === "assistant") return m;
  }
  return undefined;
}

/** Id used for the user's message until the backend names it in `turnStarted`. */
export const PENDING_USER_ID = -1;

/** Adds the user's message optimistically before `send_message` answers. */
export function addPendingUserMessage(state: ChatState, text: string, now = Date.now(), attachments: Attachment[] = []): ChatState {
  return {
    ...state,
    error: null,
    running: true,
    messages: [
      ...state.messages,
      {
        id: PENDING_USER_ID,
        role: "user",
        content: text,
        reasoning: "",
        retry: null,
        status: "complete",
        toolCalls: [],
        usage: null,
        createdAt: now,
        attachments,
      },
    ],
  };
}

/** The view as an edit of user message `message` starts: what came before it, then the new version. */
export function startEdit(state: ChatState, message: number, text: string, now = Date.now()): ChatState {
  const at = state.messages.findIndex((m) => m.id === message);
  if (at < 0) return addPendingUserMessage(state, text, now);
  return addPendingUserMessage(keepMessages(state, at), text, now);
}

/** The view as a regeneration of the turn `message` belongs to starts: the conversation up to that turn's question. */
export function startRegenerate(state: ChatState, message: number): ChatState {
  const at = state.messages.findIndex((m) => m.id === message);
  let question = at;
  while (question >= 0 && state.messages[question]?.role !== "user") question--;
  const kept = at < 0 ? state : keepMessages(state, question + 1);
  return { ...kept, error: null, running: true };
}

/** The first `count` messages and their calls; approvals and questions belong to a turn that is over. */
function keepMessages(state: ChatState, count: number): ChatState {
  const messages = state.messages.slice(0, count);
  const ids = new Set(messages.map((m) => m.id));
  return { ...state, messages, calls: state.calls.filter((c) => c.messageId === null || ids.has(c.messageId)), turnUsage: null };
}

/**
 * How much live output a call keeps: the last 16 Ki characters (UTF-16 code units), about 300
 * lines, as many as the engine sends at most in one event (`LIVE_TAIL_BYTES`, generated from
 * it). The whole output is in the result; a bigger live tail costs the window its layout on
 * every update of a flood (F-71).
 */
export const LIVE_OUTPUT_LIMIT = LIVE_TAIL_BYTES;

/**
 * Appends a chunk of live output, keeping only the tail of `limit` characters and counting what
 * was dropped, so a command that prints without end cannot grow the UI's memory without bound.
 * `skipped` is what the backend already left out before `text` (it sends a flood as a tail).
 */
export function appendOutput(
  kept: { output: string; outputDropped: number },
  text: string,
  skipped = 0,
  limit = LIVE_OUTPUT_LIMIT,
): { output: string; outputDropped: number } {
  // Output skipped before this text: everything kept so far comes before it, so it goes too.
  const before = skipped > 0 ? { output: "", outputDropped: kept.outputDropped + kept.output.length + skipped } : kept;
  const all = before.output + text;
  if (all.length <= limit) return { output: all, outputDropped: before.outputDropped };
  let cut = all.length - limit;
  // Never start on the second half of a surrogate pair.
  const first = all.charCodeAt(cut);
  if (first >= 0xdc00 && first <= 0xdfff) cut++;
  return { output: all.slice(cut), outputDropped: before.outputDropped + cut };
}

/**
 * Whether the call's view shows under its card. A call has a view only once the gate let it run
 * (`started` brings it), so it shows while the call runs, while its result waits for review and
 * after the user decided on it (`pending` again until it ends), and after it ended. Never while
 * the call waits for the user to let it run.
 */
export function showsView(c: CallView): boolean {
  return c.view !== null && c.status !== "awaiting_approval";
}

/** Whether a call with this status has not ended yet (so a finished turn ends it as cancelled). */
export function isUnfinished(status: UiCallStatus): boolean {
  switch (status) {
    case "pending":
    case "awaiting_approval":
    case "awaiting_result_review":
    case "running":
      return true;
    case "success":
    case "error":
    case "invalid_args":
    case "not_found":
    case "execution_rejected":
    case "result_rejected":
    case "cancelled":
    case "timed_out":
    case "in_background":
      return false;
  }
}

/** Whether the call's work still goes on: unfinished, or going on as its server's task after its turn (F-99). */
export function goesOn(status: UiCallStatus): boolean {
  return isUnfinished(status) || status === "in_background";
}

export function applyToolEvent(state: ChatState, event: ToolEvent): ChatState {
  switch (event.type) {
    case "beforeCall": {
      if (state.calls.some((c) => c.seq === event.seq)) return state;
      const viewOf = event.viewOf ?? null;
      // A view's call belongs with the call whose view made it, not with the answer being written.
      const messageId =
        viewOf !== null
          ? (state.calls.find((c) => c.seq === viewOf)?.messageId ?? null)
          : ((state.messages.find((m) => m.toolCalls.some((t) => t.id === event.callId)) ?? currentAssistant(state))?.id ?? null);
      const call = blankCall(event.seq, event.callId, event.requestedName, messageId);
      call.viewOf = viewOf;
      call.args = parseArgs(event.rawArgs);
      call.status = "pending";
      return { ...state, calls: [...state.calls, call] };
    }
    case "approvalRequested": {
      const a = event.approval;
      if (state.approvals.some((x) => x.id === a.id)) return state;
      const next = { ...state, approvals: [...state.approvals, a] };
      return updateCall(next, a.seq, (c) => ({
        ...c,
        group: a.group ?? c.group,
        name: a.tool || c.name,
        status: a.request.kind === "execution" ? "awaiting_approval" : "awaiting_result_review",
        policy: a.request.kind === "execution" ? a.request.policy : c.policy,
        args: a.request.kind === "execution" ? a.request.arguments : c.args,
      }));
    }
    case "approvalResolved": {
      const approvals = state.approvals.filter((x) => x.id !== event.id);
      const questions = state.questions.filter((x) => x.id !== event.id);
      return updateCall({ ...state, approvals, questions }, event.seq, (c) =>
        c.status === "awaiting_approval" || c.status === "awaiting_result_review" ? { ...c, status: "pending" } : c,
      );
    }
    case "started":
      // The gate let it run: its view (if its server ships one) shows from now.
      return updateCall(state, event.seq, (c) => ({
        ...c,
        status: "running",
        name: event.tool,
        args: parseArgs(event.args),
        view: event.view ?? c.view,
      }));
    case "outputDelta":
      return updateCall(state, event.seq, (c) => ({ ...c, ...appendOutput(c, event.text, event.skipped) }));
    case "progress":
      // A report that arrives after its call ended (the server sent it first) changes nothing.
      return updateCall(state, event.seq, (c) =>
        goesOn(c.status) ? { ...c, progress: { progress: event.progress, total: event.total, message: event.message } } : c,
      );
    case "finished": {
      const s = event.summary;
      return updateCall(state, event.seq, (c) => ({
        ...c,
        name: s.tool ?? c.name,
        status: s.status,
        afterTurn: c.afterTurn || s.status === "in_background",
        progress: null,
        decision: s.decision,
        decidedBy: s.decidedBy,
        durationMs: s.durationMs,
        preview: s.preview,
        content: s.content,
        isError: s.status !== "success" && s.status !== "in_background",
        truncated: s.truncated,
        resultVar: s.resultVar,
        argsVar: s.argsVar,
        images: s.images ?? [],
        sandbox: s.sandbox ?? null,
        sources: s.sources ?? [],
        guard: s.guard,
        // A call that failed after it started keeps the view it showed (told it was cancelled).
        view: s.view ?? c.view,
      }));
    }
    case "questionAsked":
      if (state.questions.some((q) => q.id === event.id)) return state;
      return {
        ...state,
        questions: [...state.questions, { id: event.id, seq: event.seq, question: event.question, choices: event.choices }],
      };
    case "questionResolved":
    case "elicitationResolved":
      return state.questions.some((q) => q.id === event.id) ? { ...state, questions: state.questions.filter((q) => q.id !== event.id) } : state;
    case "elicitationRequested": {
      const e = event.elicitation;
      if (state.questions.some((q) => q.id === e.id)) return state;
      return { ...state, questions: [...state.questions, { id: e.id, seq: e.seq, question: e.message, choices: [], elicitation: e }] };
    }
    case "modelLent":
      // An exchange already read with the chat's history is not added twice.
      return updateCall(state, event.seq, (c) =>
        (c.lent ?? []).some((l) => l.at === event.lent.at && l.answer === event.lent.answer) ? c : { ...c, lent: [...(c.lent ?? []), event.lent] },
      );
    case "serverAsked":
      // A question already read with the chat's history is not added twice.
      return updateCall(state, event.seq, (c) =>
        (c.asked ?? []).some((q) => q.id === event.asked.id) ? c : { ...c, asked: [...(c.asked ?? []), event.asked] },
      );
    case "taskChanged":
      return { ...state, task: event.task };
  }
}

export function applyEvent(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case "turnStarted": {
      const messages = state.messages.map((m) => (m.id === PENDING_USER_ID ? { ...m, id: event.userMessageId ?? m.id } : m));
      return { ...state, messages, running: true, error: null, retrying: null };
    }
    case "roundStarted":
      return updateMessage({ ...state, retrying: null }, event.messageId, (m) => ({ ...m, status: "streaming" }));
    case "textDelta":
      return updateMessage(state, event.messageId, (m) => ({ ...m, content: m.content + event.text, retry: null }));
    case "reasoningDelta":
      return updateMessage(state, event.messageId, (m) => ({ ...m, reasoning: m.reasoning + event.text, retry: null }));
    case "toolCallStarted":
      return updateMessage(state, event.messageId, (m) =>
        m.toolCalls.some((t) => t.id === event.id) ? m : { ...m, toolCalls: [...m.toolCalls, { id: event.id, name: event.name, arguments: "" }] },
      );
    case "tool":
      return applyToolEvent(state, event.event);
    case "retrying": {
      const retrying = {
        attempt: event.attempt,
        maxRetries: event.maxRetries,
        delayMs: event.delayMs,
        error: event.error,
        messageId: event.messageId,
      };
      if (event.messageId === null) return { ...state, retrying };
      // The stream broke after showing something: that attempt is discarded, text, reasoning and
      // tool calls alike (none of its calls runs), and the answer says it is being tried again.
      const notice: RetryNotice = { attempt: event.attempt, maxRetries: event.maxRetries, error: event.error };
      return updateMessage({ ...state, retrying }, event.messageId, (m) => ({
        ...m,
        content: "",
        reasoning: "",
        toolCalls: [],
        retry: notice,
        status: "streaming",
      }));
    }
    case "roundFinished":
      // A round that used no tokens (a rerun the user asked for, F-46) shows no usage.
      return updateMessage({ ...state, retrying: null }, event.messageId, (m) => ({
        ...m,
        status: "complete",
        usage: event.usage.inputTokens || event.usage.outputTokens ? event.usage : m.usage,
        retry: null,
      }));
    case "turnFinished": {
      const o = event.outcome;
      const endStatus: MessageStatus = o.type === "completed" ? "complete" : o.type === "stopped" ? "stopped" : "error";
      const messages = state.messages.map((m) => (m.status === "streaming" ? { ...m, status: endStatus } : m));
      // A call going on after its turn (F-99) is not the turn's: it still runs, and its result's
      // review (or its task's question) stays on its card.
      const calls = state.calls.map((c): CallView => (isUnfinished(c.status) && !c.afterTurn ? { ...c, status: "cancelled" } : c));
      const goingOn = new Set(state.calls.filter((c) => c.afterTurn).map((c) => c.seq));
      return {
        ...state,
        messages,
        calls,
        running: false,
        approvals: state.approvals.filter((a) => goingOn.has(a.seq)),
        questions: state.questions.filter((q) => goingOn.has(q.seq)),
        // A grant lasts for its turn at most (F-98).
        task: null,
        retrying: null,
        turnUsage: o.usage,
        error: o.type === "failed" ? { message: o.error, retryable: o.retryable, kind: o.kind } : null,
      };
    }
  }
}

/** Calls that belong to an assistant message, in order. */
export function callsFor(state: ChatState, messageId: number): CallView[] {
  return state.calls.filter((c) => c.messageId === messageId);
}

/** A turn of the tool-chain log: the user's message (its id keeps the turn's place as earlier turns are read) and its calls. */
export interface LogTurn {
  userId: number;
  userText: string;
  calls: CallView[];
}

/** Groups the chat's calls per user turn for the tool-chain log. */
export function callsByTurn(state: ChatState): LogTurn[] {
  const turns: LogTurn[] = [];
  let current: LogTurn | null = null;
  const owner = new Map<number, LogTurn>();
  for (const m of state.messages) {
    if (m.role === "user") {
      current = { userId: m.id, userText: m.content, calls: [] };
      turns.push(current);
    } else if (current) {
      owner.set(m.id, current);
    }
  }
  for (const c of state.calls) {
    const turn = c.messageId !== null ? owner.get(c.messageId) : turns[turns.length - 1];
    if (turn) turn.calls.push(c);
  }
  return turns.filter((t) => t.calls.length > 0);
}
