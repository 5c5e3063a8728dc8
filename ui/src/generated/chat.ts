// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// Chats, messages, their history and the events of a turn.
import type { ApprovalId, ChatId, McpViewLink } from "./common";
import type { Attachment, CallDecision, CallStatus, DecidedBy, Decision, ExecutionPolicy, GuardMark, PendingApproval, RecordStatus, Source, TaskState, ToolEffects } from "./gate";
import type { AskedQuestion, ElicitationOutcome, LentModel, PendingElicitation } from "./mcp";
import type { SandboxReport } from "./sandbox";
import type { ChatToolOverrides } from "./tools";

export type ChatParams = { 
/**
 * Sampling temperature, 0–2.
 */
temperature?: number, 
/**
 * The longest answer, in tokens.
 */
maxTokens?: number, };

export type PresetInput = { name: string, systemPrompt: string, 
/**
 * `None`: the first configured provider, as for any new chat.
 */
providerId?: number, 
/**
 * Empty: the provider's default model.
 */
model: string, params: ChatParams, 
/**
 * Tool groups turned on (`true`) or off (`false`) in chats started from the preset; groups
 * not named follow the app-wide setting.
 */
groups: { [key in string]: boolean }, };

export type Preset = { id: number, createdAt: number, name: string, systemPrompt: string, 
/**
 * `None`: the first configured provider, as for any new chat.
 */
providerId?: number, 
/**
 * Empty: the provider's default model.
 */
model: string, params: ChatParams, 
/**
 * Tool groups turned on (`true`) or off (`false`) in chats started from the preset; groups
 * not named follow the app-wide setting.
 */
groups: { [key in string]: boolean }, };

export type ChatRow = { id: ChatId, title: string, providerId: number | null, model: string, systemPrompt: string, workspace: string | null, toolOverrides: ChatToolOverrides, 
/**
 * Temperature and answer length for this chat only.
 */
params: ChatParams, createdAt: number, updatedAt: number, };

export type ChatCursor = { updatedAt: number, id: ChatId, };

export type NewChat = { title: string, providerId?: number, model: string, systemPrompt: string, workspace?: string, 
/**
 * Temperature and answer length (a chat started from a preset).
 */
params?: ChatParams, };

export type SearchHit = { chat: ChatId, title: string, 
/**
 * A short excerpt around the match, the match between [`MATCH_START`] and [`MATCH_END`];
 * empty for title matches.
 */
snippet: string, 
/**
 * The message that matched (none for a title match): opening the hit shows its branch.
 */
message: number | null, };

export type Role = "user" | "assistant" | "tool";

export type MessageStatus = "streaming" | "complete" | "stopped" | "error" | "interrupted";

export type Usage = { inputTokens: number, outputTokens: number, 
/**
 * Input tokens served from the prompt cache (cheaper and faster).
 */
cacheReadTokens: number, 
/**
 * Input tokens written to the prompt cache by this request.
 */
cacheWriteTokens: number, };

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | { "other": string };

export type AssistantToolCall = { id: string, name: string, 
/**
 * The arguments as the model sent them: JSON text (possibly invalid).
 */
arguments: string, };

export type ToolResultMessage = { callId: string, name: string, content: string, isError: boolean, 
/**
 * Where the result came from (F-80), kept with the stored message so a chat's exposure
 * can be read back from the branch it shows. Never sent to the model.
 */
sources?: Array<Source>, };

export type FailureKind = "auth" | "rateLimited" | "contextTooLong" | "server" | "network" | "stalled" | "incomplete" | "refused" | "setup" | "storage" | "internal";

export type TurnFailure = { message: string, 
/**
 * What kind of failure (none in answers saved before kinds were kept).
 */
kind: FailureKind | null, retryable: boolean, };

export type ThinkingBlock = { "type": "thinking", thinking: string, signature: string, } | { "type": "redacted", data: string, };

export type ImagePart = { 
/**
 * `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
 */
mediaType: string, 
/**
 * The image's bytes in standard base64.
 */
data: string, };

export type RetryNotice = { 
/**
 * Which retry this is (1-based), of `max_retries`.
 */
attempt: number, maxRetries: number, 
/**
 * What broke the previous attempt.
 */
error: string, };

export type AssistantPayload = { toolCalls: Array<AssistantToolCall>, 
/**
 * The model's reasoning, shown in the answer's "Thinking" section (F-29).
 */
reasoning?: string, 
/**
 * Anthropic thinking blocks, sent back unchanged in the turn's later rounds (F-29).
 */
thinking?: Array<ThinkingBlock>, 
/**
 * Set while the answer's stream is being tried again: the broken attempt's text was
 * dropped, and this says why and which retry is under way (F-26).
 */
retry?: RetryNotice, 
/**
 * The model that wrote this answer (versions of an answer may come from different ones).
 */
model?: string, 
/**
 * Why the turn failed on this message, so a reopened chat still says why and offers Retry.
 */
failure?: TurnFailure, 
/**
 * Where the answer came from when another model wrote it elsewhere: an imported chat
 * (F-80).
 */
sources?: Array<Source>, };

export type ToolPayload = { results: Array<ToolResultMessage>, };

export type UserPayload = { attachments?: Array<Attachment>, 
/**
 * Where the message's text came from besides the user's typing: an MCP prompt filled in,
 * an imported chat (F-80).
 */
sources?: Array<Source>, };

export type MessageRow = { id: number, chat: ChatId, role: Role, content: string, status: MessageStatus, 
/**
 * An assistant's `AssistantPayload` or a tool message's `ToolPayload` (chat::history), as
 * stored; every field may be missing in rows older versions wrote.
 */
payload: Partial<AssistantPayload & ToolPayload & UserPayload> | null, usage: Usage | null, createdAt: number, 
/**
 * The message before this one on its branch (none for a chat's first message).
 */
parentId: number | null, 
/**
 * Every version of this message (it and its siblings, oldest first) when there is more
 * than one: edits of a user message, regenerated answers. Empty otherwise.
 */
siblings: Array<number>, };

export type RecordedCall = { chat: ChatId, messageId: number | null, round: number, seq: number, callId: string, requestedName: string, tool: string | null, group: string | null, rawArgs: string, resolvedArgs: string | null, policy: ExecutionPolicy | null, decision: CallDecision, decidedBy: DecidedBy, status: RecordStatus, resultText: string | null, isError: boolean, truncated: boolean, resultVar: string | null, argsVar: string | null, startedAt: number, endedAt: number | null, durationMs: number | null, 
/**
 * Images the tool returned, shown with the result (F-45).
 */
resultImages?: Array<Attachment>, 
/**
 * How a sandboxed tool ran and what the sandbox blocked (F-46).
 */
sandbox?: SandboxReport, 
/**
 * Where the result came from (F-80): shown on the tool card.
 */
sources?: Array<Source>, 
/**
 * What the call could do (F-81).
 */
effects?: ToolEffects, 
/**
 * How it went through the provenance gate (F-85).
 */
guard: GuardMark, 
/**
 * The view its server ships with the result (F-96).
 */
view?: McpViewLink, 
/**
 * Made by the view of call `c<view_of>`, not by the model.
 */
viewOf?: number, 
/**
 * What the chat's model answered the call's server, request by request (F-99).
 */
lent?: Array<LentModel>, 
/**
 * What the call's server asked the user during it, and how each question ended (F-99).
 */
asked?: Array<AskedQuestion>, };

export type ChatHistory = { messages: Array<MessageRow>, calls: Array<RecordedCall>, 
/**
 * A turn is running in this chat now (its events arrive on the turn's channel).
 */
running: boolean, 
/**
 * The chat's revision when it was read: the history is at least this new. A window that
 * holds it asks for the revision (`chat_revision`) before reading the chat again.
 */
revision: number, 
/**
 * When the branch has messages before these: the first of these, the `before` that reads
 * the page before them. `null`: the history reaches the chat's first message.
 */
earlier: number | null, 
/**
 * The task grant in force in the chat (F-98), which its header shows while it lasts.
 */
task: TaskState | null, };

export type ChatRevision = { revision: number, running: boolean, 
/**
 * Calls waiting for the user's answer: a chat with no turn has them when a server's view
 * made a call (F-96), and they change nothing in its revision.
 */
waiting: number, };

export type OutputStream = "stdout" | "stderr" | "log";

export type ApprovalOutcome = { "type": "decided", decision: Decision, } | { "type": "cancelled" };

export type CallSummary = { tool: string | null, status: CallStatus, decision: CallDecision, decidedBy: DecidedBy, durationMs: number, 
/**
 * A one-line preview of the result.
 */
preview: string, 
/**
 * The text the model received.
 */
content: string, truncated: boolean, resultVar: string | null, argsVar: string | null, 
/**
 * Images the tool returned, shown to the user beside the result (F-45).
 */
images?: Array<Attachment>, 
/**
 * How a sandboxed tool ran and what the sandbox blocked (F-46).
 */
sandbox?: SandboxReport, 
/**
 * Where the result came from (F-80), shown on the tool card.
 */
sources?: Array<Source>, 
/**
 * How the call went through the provenance gate (F-85).
 */
guard: GuardMark, 
/**
 * The view the server ships with the tool (F-96), shown under the card (from the
 * call's start: [`ToolEvent::Started`] carries it too).
 */
view?: McpViewLink, };

export type ToolEvent = { "type": "beforeCall", chat: ChatId, seq: number, callId: string, requestedName: string, rawArgs: string, 
/**
 * Made by the view of call `c<view_of>` (F-96), not by the model.
 */
viewOf?: number, } | { "type": "approvalRequested", approval: PendingApproval, } | { "type": "approvalResolved", chat: ChatId, seq: number, id: ApprovalId, outcome: ApprovalOutcome, } | { "type": "started", chat: ChatId, seq: number, tool: string, args: string, 
/**
 * The view its server ships with the tool (F-96): shown under the card from now,
 * once the gate let the call run.
 */
view?: McpViewLink, } | { "type": "outputDelta", chat: ChatId, seq: number, stream: OutputStream, text: string, skipped: number, } | { "type": "progress", chat: ChatId, seq: number, progress: number, total: number | null, message: string | null, } | { "type": "finished", chat: ChatId, seq: number, summary: CallSummary, } | { "type": "elicitationRequested", elicitation: PendingElicitation, } | { "type": "elicitationResolved", chat: ChatId, seq: number, id: ApprovalId, outcome: ElicitationOutcome, } | { "type": "modelLent", chat: ChatId, seq: number, lent: LentModel, } | { "type": "serverAsked", chat: ChatId, seq: number, asked: AskedQuestion, } | { "type": "questionAsked", chat: ChatId, seq: number, id: ApprovalId, question: string, choices: Array<string>, } | { "type": "questionResolved", chat: ChatId, seq: number, id: ApprovalId, answered: boolean, } | { "type": "taskChanged", chat: ChatId, task: TaskState | null, };

export type TurnOutcome = { "type": "completed", usage: Usage, } | { "type": "stopped", usage: Usage, } | { "type": "failed", error: string, kind: FailureKind, retryable: boolean, usage: Usage, };

export type ChatEvent = { "type": "turnStarted", chat: ChatId, userMessageId: number | null, } | { "type": "roundStarted", round: number, messageId: number, } | { "type": "textDelta", messageId: number, text: string, } | { "type": "reasoningDelta", messageId: number, text: string, } | { "type": "toolCallStarted", messageId: number, index: number, id: string, name: string, } | { "type": "tool", event: ToolEvent, } | { "type": "retrying", attempt: number, maxRetries: number, delayMs: number, error: string, kind: FailureKind, messageId: number | null, } | { "type": "roundFinished", round: number, messageId: number, finish: FinishReason, usage: Usage, } | { "type": "turnFinished", outcome: TurnOutcome, };

export type ExportFormat = "markdown" | "json";

export type RetryPolicy = { 
/**
 * Retries after the first attempt (so at most `max_retries + 1` requests).
 */
maxRetries: number, 
/**
 * The backoff of the first retry; it doubles with every further one.
 */
baseDelayMs: number, 
/**
 * The longest wait: backoff stops growing here, and a server asking for longer is not
 * waited for (the turn fails and says how long the server asked for).
 */
maxDelayMs: number, 
/**
 * Full jitter: each backoff wait is drawn uniformly from zero to its exponential ceiling,
 * so many clients failing together do not come back together. Off only where a test
 * measures the backoff itself.
 */
jitter: boolean, };

export type TurnSettings = { 
/**
 * Rounds with tools per turn; then one final answer without tools.
 */
maxRounds: number, 
/**
 * The same call this many times in a row asks the user (0 turns the check off).
 */
doomLoopThreshold: number, 
/**
 * Read-only calls run at most this many at once.
 */
maxParallel: number, maxTokens: number, temperature: number | null, retry: RetryPolicy, 
/**
 * A stream silent this long (before it starts or between two pieces) is broken and tried
 * again (F-26). Not a limit on the whole answer.
 */
idleTimeoutMs: number, 
/**
 * How often streamed text is saved (F-61: a crash loses at most this much).
 */
saveIntervalMs: number, };
