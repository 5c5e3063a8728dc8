// Generated from Tollgate's Rust types by src-tauri/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test -p tollgate --test bindings`.
/* eslint-disable */

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type ChatId = number;

export type ApprovalId = string;

export type ExecutionPolicy = "auto" | "ask-once" | "ask-always" | "deny";

export type ResultPolicy = "never" | "on-error" | "always";

export type CallStatus = "success" | "error" | "invalid_args" | "not_found" | "execution_rejected" | "result_rejected" | "cancelled" | "timed_out";

export type DecidedBy = "auto" | "user" | "rule" | "record" | "policy" | "none";

export type ExecutionChoice = "allow" | "allowOnce" | "allowForChat" | "alwaysAllow" | "editAndAllow" | "deny" | "denyAndStop" | "endorseAndAllow";

export type ResultChoice = "approve" | "editAndApprove" | "reject";

export type CallDecision = { execution: ExecutionChoice | null, result: ResultChoice | null, };

export type RecordStatus = "running" | "success" | "error" | "invalid_args" | "not_found" | "execution_rejected" | "result_rejected" | "cancelled" | "timed_out";

export type RuleGrant = { "type": "matching", pattern: string, } | { "type": "everyCall" };

export type RuleSubjectKind = "command" | "path" | "url" | "args";

export type ToolCalling = "native" | "text";

export type Source = { "type": "web", url: string, host: string, } | { "type": "file", folder: string, path: string, } | { "type": "command", folder: string, } | { "type": "mcpTool", server: string, tool: string, } | { "type": "mcpResource", server: string, uri: string, } | { "type": "mcpPrompt", server: string, name: string, } | { "type": "attachment", name: string, } | { "type": "import", title: string, } | { "type": "mcpServer", server: string, } | { "type": "network", folder: string, hosts: Array<string>, };

export type TrustKey = { "type": "host", host: string, } | { "type": "folder", folder: string, } | { "type": "server", server: string, } | { "type": "tool", tool: string, } | { "type": "attachment", name: string, } | { "type": "import", title: string, } | { "type": "network", };

export type ToolEffects = { 
/**
 * Changes files or other state.
 */
writes: boolean, 
/**
 * Runs programs.
 */
executes: boolean, 
/**
 * Sends data out of the machine (a request, a message, an upload).
 */
sendsOut: boolean, 
/**
 * Cannot be undone (a payment, a deletion, a sent email).
 */
irreversible: boolean, 
/**
 * Its results hold the user's private data (files, mail, secrets).
 */
readsPrivate: boolean, };

export type GuardSettings = { 
/**
 * The provenance gate is on (the default). Turning it off is a warned choice.
 */
enabled: boolean, 
/**
 * Hosts, folders, servers and tools whose content the user trusts in every chat.
 */
trusted: Array<TrustKey>, 
/**
 * Folders whose files are untrusted when they are a chat's workspace (a repository just
 * cloned, a downloads folder).
 */
untrustedFolders: Array<string>, };

export type SpanKind = "untrusted" | "private";

export type ArgSpan = { 
/**
 * The JSON pointer of the string in the arguments (`/command`, `/headers/0`).
 */
pointer: string, 
/**
 * Where in that string, in characters (Unicode scalar values), end exclusive.
 */
start: number, end: number, kind: SpanKind, 
/**
 * Where the text came from.
 */
source: Source, };

export type GuardNote = { 
/**
 * What the call may do.
 */
effects: ToolEffects, 
/**
 * The untrusted sources in the model's context when it made the call, most recent first
 * (at most [`GuardNote::MAX_SOURCES`]).
 */
exposedTo: Array<Source>, 
/**
 * How many untrusted sources there are in all.
 */
exposedCount: number, 
/**
 * Private content the model had read (files, private tools), most recent first.
 */
privateRead: Array<Source>, 
/**
 * Highlighted stretches of the arguments.
 */
spans: Array<ArgSpan>, 
/**
 * What would have allowed the call without a card had the chat not been exposed.
 */
wouldAllow?: DecidedBy, 
/**
 * The arguments that name where the call goes or whom it acts on (a URL, a recipient, an
 * account), as JSON pointers, whose value was copied from untrusted content (issue 45):
 * the content chose the destination.
 */
chosenTargets?: Array<string>, 
/**
 * What the call may do is only the server's claim (its annotations), not yet confirmed by
 * the user (issue 45): the gate judges it as a call that may change or send anything.
 */
unconfirmed?: boolean, 
/**
 * What the user can endorse for this chat to lift the exposure.
 */
endorsable: Array<TrustKey>, };

export type GuardMark = "quiet" | "escalated" | "noted" | "endorsed";

export type WayOut = { "type": "tool", tool: string, } | { "type": "commandNetwork" };

export type ExposureView = { 
/**
 * The gate is on.
 */
guard: boolean, 
/**
 * Untrusted sources in the branch, most recent first (at most [`GuardNote::MAX_SOURCES`]).
 */
untrusted: Array<Source>, untrustedCount: number, 
/**
 * What the user endorsed for this chat (each can be taken back).
 */
endorsed: Array<TrustKey>, 
/**
 * Private content in the branch, most recent first (at most [`GuardNote::MAX_SOURCES`]).
 */
private: Array<Source>, privateCount: number, 
/**
 * The ways out enabled in this chat.
 */
waysOut: Array<WayOut>, 
/**
 * The user turned the ways out off for this chat.
 */
waysOutOff: boolean, };

export type Autonomy = { 
/**
 * Consequential calls that reached the permission stage.
 */
consequential: number, 
/**
 * … of which ran without asking: by the tool's policy, a rule, an ask-once record.
 */
byPolicy: number, byRule: number, byRecord: number, 
/**
 * … of which asked because the chat was exposed (would have run otherwise).
 */
escalated: number, 
/**
 * … of which the user allowed by endorsing a source.
 */
endorsed: number, 
/**
 * … of which asked (for any reason) and the user answered.
 */
asked: number, };

export type WrittenFile = { 
/**
 * The workspace folder the file is in.
 */
workspace: string, 
/**
 * The file's path inside the workspace.
 */
path: string, 
/**
 * The untrusted sources in context when it was written.
 */
sources: Array<Source>, 
/**
 * When it was written (ms since the epoch).
 */
writtenAt: number, };

export type ToolView = { name: string, description: string, enabled: boolean, 
/**
 * The effective policies (the user's override, else the tool's default).
 */
executionPolicy: ExecutionPolicy, resultPolicy: ResultPolicy, 
/**
 * The tool's own defaults, for "Default (…)" in the settings.
 */
defaultExecutionPolicy: ExecutionPolicy, defaultResultPolicy: ResultPolicy, readOnly: boolean, timeoutMs: number, 
/**
 * What a call may do (F-81): the user's override, else the tool's own declaration.
 */
effects: ToolEffects, 
/**
 * The tool's own declaration, for "As the tool says" in the settings.
 */
defaultEffects: ToolEffects, 
/**
 * The effects are only what an MCP server claims: the user has not confirmed them, so
 * the provenance gate does not take them at their word (issue 45).
 */
effectsClaimed: boolean, 
/**
 * The arguments that name where a call goes (JSON pointers): the user's, else the tool's.
 */
targets: Array<string>, 
/**
 * The tool's own targets, for "As the tool says".
 */
defaultTargets: Array<string>, };

export type GroupView = { name: string, title: string, description: string, enabled: boolean, tools: Array<ToolView>, };

export type SandboxLevel = "workspaceOnly" | "readOnly" | "off";

export type ChatSandbox = { level: SandboxLevel, network: boolean, 
/**
 * With the network off, the hosts commands may still reach through Tollgate's proxy
 * ("only these hosts": a package registry, say); empty, none (issue 33).
 */
hosts?: Array<string>, 
/**
 * Commands may change the workspace's git hooks and configuration (which run code outside
 * the sandbox later); off by default (issue 33).
 */
gitWritable?: boolean, 
/**
 * Variables the user adds to the commands' clean environment (never a secret, nor the
 * address of a service outside: the service refuses those names).
 */
env?: { [key in string]: string }, };

export type SandboxSupport = { 
/**
 * The Landlock ABI the kernel enforces; 0 where it has none.
 */
landlockAbi: number, 
/**
 * Whether commands get namespaces of their own (mount, PID, network, IPC).
 */
namespaces: boolean, 
/**
 * Why there are no namespaces, when there are none.
 */
namespacesMissing?: string, 
/**
 * Why there is no sandbox at all, when there is none.
 */
unavailable?: string, 
/**
 * What is not enforced for a chat with the network off ([`SandboxSupport::gaps`]).
 */
gapsNetworkOff: Array<SandboxGap>, 
/**
 * What is not enforced for a chat with the network on.
 */
gapsNetworkOn: Array<SandboxGap>, };

export type SandboxGap = "localSockets" | "network" | "udp" | "abstractSockets" | "signals" | "protectedPaths" | "truncate" | "deviceIoctl" | "fileRules" | "hostsOnly";

export type SandboxMode = "confined" | "partial" | "off" | "unavailable";

export type SandboxReport = { level: SandboxLevel, network: boolean, 
/**
 * The hosts the command may reach with the network off ("only these hosts").
 */
hosts?: Array<string>, mode: SandboxMode, 
/**
 * What this system cannot enforce for this command (empty when [`SandboxMode::Confined`]).
 */
gaps?: Array<SandboxGap>, 
/**
 * The names of the variables the chat added to the clean environment.
 */
env?: Array<string>, 
/**
 * Whether git's hooks and configuration were writable (the chat allowed it).
 */
gitWritable?: boolean, 
/**
 * One line per kind of operation the sandbox blocked ("writing outside the workspace:
 * /home/ann/outside"), as the model was told.
 */
blocked?: Array<string>, 
/**
 * The workspace the command ran in: a rerun runs there, not in the chat's current one.
 */
workspace?: string, 
/**
 * Files in the workspace the blocked run changed (relative paths, a few): a rerun without
 * the sandbox would run them as the blocked run left them, so it names them first.
 */
changed?: Array<string>, };

export type ChatToolOverrides = { groups: { [key in string]: boolean }, tools: { [key in string]: boolean }, 
/**
 * The chat's sandbox level and network switch (F-46).
 */
sandbox: ChatSandbox, 
/**
 * Sources the user endorsed for this chat: their content no longer exposes it (F-83).
 */
endorsed?: Array<TrustKey>, 
/**
 * The user turned the ways out off for this chat: tools that send out are hidden and
 * commands get no network (F-82).
 */
waysOutOff?: boolean, };

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

export type AttachmentKind = "image" | "text" | "resourceLink";

export type Attachment = { name: string, kind: AttachmentKind, 
/**
 * For images, the format read from the bytes; for text, what the window said.
 */
mediaType: string, 
/**
 * Base64 (images) or the text itself.
 */
data: string, 
/**
 * Where the file came from when not from the user's disk: an MCP server's resource
 * (F-80). A file the user picked is an attachment by its name.
 */
source?: Source, };

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
guard: GuardMark, };

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
earlier: number | null, };

export type ChatRevision = { revision: number, running: boolean, };

export type McpToolDefinition = { title?: string, description: string, inputSchema: JsonValue, outputSchema?: JsonValue, 
/**
 * The hints as the server sent them (`readOnlyHint`, `destructiveHint`, …).
 */
annotations?: JsonValue, };

export type DefinitionPart = "title" | "description" | "inputSchema" | "outputSchema" | "annotations";

export type ReviewReason = "changed" | "replaced";

export type ToolChange = { 
/**
 * The server (and tool group) name.
 */
server: string, 
/**
 * The tool's name on the server.
 */
tool: string, reason: ReviewReason, 
/**
 * The parts that differ from `before` (every part when there is no `before`).
 */
changed: Array<DefinitionPart>, 
/**
 * The definition the grants were made for; `None` for a tool first seen on a replaced
 * server.
 */
before: McpToolDefinition | null, after: McpToolDefinition, 
/**
 * Names `after`, so that accepting it accepts exactly what the user read: a server that
 * changes the tool again meanwhile is not accepted by the same click.
 */
fingerprint: string, };

export type FindingKind = "hiddenText" | "addressedToModel" | "shadowing" | "asksForSecrets" | "longerThanItsSchema";

export type ServerFinding = { kind: FindingKind, 
/**
 * The tool (its name on the server) whose text it is in; `None`: the instructions.
 */
tool?: string, 
/**
 * The text around it, hidden characters shown as `U+XXXX`.
 */
excerpt: string, };

export type ReviewedTool = { 
/**
 * Its name in Tollgate (`server__tool`).
 */
name: string, 
/**
 * Its name on the server.
 */
remote: string, title?: string, description: string, inputSchema: JsonValue, 
/**
 * What the server's annotations say a call may do.
 */
declared: ToolEffects, 
/**
 * What the user confirmed or set, if anything.
 */
confirmed?: ToolEffects, };

export type ServerReviewState = "unreviewed" | "changed" | "confirmed";

export type ServerReview = { server: string, state: ServerReviewState, 
/**
 * The instructions it sends when it starts (they reach the system prompt).
 */
instructions?: string, tools: Array<ReviewedTool>, findings: Array<ServerFinding>, 
/**
 * Names what was shown: confirming it confirms exactly this, not what the server says
 * after a change made while the user read.
 */
fingerprint: string, };

export type ApprovalPreview = { "type": "diff", path: string, diff: string, } | { "type": "command", command: string, cwd: string, } | { "type": "largeWrite", path: string, bytesBefore: number, bytesAfter: number, };

export type AskReason = { "type": "askOnce" } | { "type": "askAlways" } | { "type": "rule", rule: Rule, } | { "type": "repeated", times: number, wouldAllow: DecidedBy, } | { "type": "exposed", wouldAllow: DecidedBy, } | { "type": "toolChanged", wouldAllow: DecidedBy | null, };

export type ApprovalRequest = { "kind": "execution", 
/**
 * The full resolved arguments, exactly what would run.
 */
arguments: JsonValue, 
/**
 * A diff or command preview, when the tool offers one.
 */
preview: ApprovalPreview | null, 
/**
 * The policy that asked.
 */
policy: ExecutionPolicy, 
/**
 * Why the user is asked (the UI words it in the user's language).
 */
reason: AskReason, 
/**
 * What a rule pattern for this tool matches, so the card can say what it allows.
 */
ruleSubject: RuleSubjectKind, 
/**
 * A rule pattern to offer for "always allow" (e.g. `git status *`), `None` when no
 * pattern narrower than "every call" can cover this call.
 */
suggestedPattern: string | null, 
/**
 * The sandbox the call will run under, for tools that run under one (F-46).
 */
sandbox?: SandboxReport, 
/**
 * The provenance gate's note (F-83): what the model had read, the spans of the
 * arguments that came from it, what to endorse.
 */
guard?: GuardNote, 
/**
 * The MCP tool changed (or its server was replaced) since the user's grants were made
 * (issue 36): what changed, to read before answering and to accept.
 */
toolChange?: ToolChange, 
/**
 * The tool may destroy or overwrite what it touches (an MCP `destructiveHint`, or the
 * user's own setting): "always allow" for it is a warned choice.
 */
destructive?: boolean, } | { "kind": "result", 
/**
 * Exactly the text the model would receive.
 */
textForModel: string, 
/**
 * The full formatted output.
 */
fullOutput: string, status: CallStatus, 
/**
 * Images the tool returned (F-45): shown to the reviewer, never sent to the model.
 */
images?: Array<Attachment>, };

export type PendingApproval = { id: ApprovalId, chat: ChatId, 
/**
 * The chat's call number.
 */
seq: number, callId: string, tool: string, group: string, request: ApprovalRequest, createdAt: number, };

export type RuleScopeChoice = "thisChat" | "allChats";

export type ExecutionDecision = { "type": "allowOnce" } | { "type": "allowForChat" } | { "type": "alwaysAllow", scope: RuleScopeChoice, grant: RuleGrant, } | { "type": "editAndAllow", arguments: JsonValue, } | { "type": "deny", reason: string | null, } | { "type": "denyAndStop", reason: string | null, } | { "type": "endorseAndAllow", sources: Array<TrustKey>, };

export type ResultDecision = { "type": "approve" } | { "type": "editAndApprove", text: string, } | { "type": "reject", reason: string | null, };

export type Decision = { "kind": "execution", "decision": ExecutionDecision } | { "kind": "result", "decision": ResultDecision };

export type ElicitationKind = { "mode": "form", schema: JsonValue, } | { "mode": "url", url: string, host: string, };

export type PendingElicitation = { id: ApprovalId, chat: ChatId, 
/**
 * The call of the server's tool during which it asks.
 */
seq: number, 
/**
 * The server (and tool group) that asks.
 */
server: string, message: string, kind: ElicitationKind, createdAt: number, };

export type ElicitationAnswer = { "action": "accept", content: JsonValue | null, } | { "action": "decline" } | { "action": "cancel" };

export type ElicitationOutcome = "accepted" | "declined" | "cancelled" | "withdrawn";

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
guard: GuardMark, };

export type ToolEvent = { "type": "beforeCall", chat: ChatId, seq: number, callId: string, requestedName: string, rawArgs: string, } | { "type": "approvalRequested", approval: PendingApproval, } | { "type": "approvalResolved", chat: ChatId, seq: number, id: ApprovalId, outcome: ApprovalOutcome, } | { "type": "started", chat: ChatId, seq: number, tool: string, args: string, } | { "type": "outputDelta", chat: ChatId, seq: number, stream: OutputStream, text: string, skipped: number, } | { "type": "progress", chat: ChatId, seq: number, progress: number, total: number | null, message: string | null, } | { "type": "finished", chat: ChatId, seq: number, summary: CallSummary, } | { "type": "elicitationRequested", elicitation: PendingElicitation, } | { "type": "elicitationResolved", chat: ChatId, seq: number, id: ApprovalId, outcome: ElicitationOutcome, } | { "type": "questionAsked", chat: ChatId, seq: number, id: ApprovalId, question: string, choices: Array<string>, } | { "type": "questionResolved", chat: ChatId, seq: number, id: ApprovalId, answered: boolean, };

export type TurnOutcome = { "type": "completed", usage: Usage, } | { "type": "stopped", usage: Usage, } | { "type": "failed", error: string, kind: FailureKind, retryable: boolean, usage: Usage, };

export type ChatEvent = { "type": "turnStarted", chat: ChatId, userMessageId: number | null, } | { "type": "roundStarted", round: number, messageId: number, } | { "type": "textDelta", messageId: number, text: string, } | { "type": "reasoningDelta", messageId: number, text: string, } | { "type": "toolCallStarted", messageId: number, index: number, id: string, name: string, } | { "type": "tool", event: ToolEvent, } | { "type": "retrying", attempt: number, maxRetries: number, delayMs: number, error: string, kind: FailureKind, messageId: number | null, } | { "type": "roundFinished", round: number, messageId: number, finish: FinishReason, usage: Usage, } | { "type": "turnFinished", outcome: TurnOutcome, };

export type Theme = "system" | "light" | "dark";

export type Language = "en" | "zh-CN";

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

export type AppSettings = { theme: Theme, language: Language, turn: TurnSettings, 
/**
 * While the window is not focused, an approval or question that starts waiting shows a
 * system notification (F-59).
 */
notify: boolean, 
/**
 * ... and asks for the window's attention (the taskbar's urgency hint) (F-59).
 */
attentionHint: boolean, };

export type ToolOverride = { enabled?: boolean, executionPolicy?: ExecutionPolicy, resultPolicy?: ResultPolicy, timeoutMs?: number, outputLimit?: number, 
/**
 * What a call of the tool may do, in place of its own declaration (F-81). For an MCP
 * tool, setting it is also the user's confirmation of what the server claims (issue 45).
 */
effects?: ToolEffects, 
/**
 * The arguments that name where a call goes (names or JSON pointers), in place of the
 * tool's own (issue 45).
 */
targets?: Array<string>, };

export type ToolSettings = { 
/**
 * Output limit for tools without their own (F-16).
 */
defaultOutputLimit: number, 
/**
 * Group toggles; a group not listed uses its own default.
 */
groups: { [key in string]: boolean }, 
/**
 * Per-tool overrides.
 */
tools: { [key in string]: ToolOverride }, 
/**
 * Per-chat variable store bounds (LRU).
 */
varMaxCount: number, varMaxBytes: number, 
/**
 * The provenance gate's trust settings (F-82).
 */
guard: GuardSettings, };

export type SettingsView = { app: AppSettings, tools: ToolSettings, };

export type ExportFormat = "markdown" | "json";

export type ModelChoice = { provider: number, model: string, };

export type ErrorKind = "busy" | "notFound" | "invalid" | "keychain" | "provider" | "storage" | "internal";

export type Missing = { "type": "chat", chat: ChatId, } | { "type": "provider", provider: number, } | { "type": "preset", preset: number, } | { "type": "message", chat: ChatId, message: number, } | { "type": "call", chat: ChatId, seq: number, } | { "type": "mcpServer", name: string, } | { "type": "tool", tool: string, };

export type Invalid = { "type": "emptyMessage" } | { "type": "emptyTitle" } | { "type": "presetWithoutName" } | { "type": "temperature", value: number, } | { "type": "maxTokens" } | { "type": "noSuchProvider", provider: number, } | { "type": "mcpNameTaken", name: string, } | { "type": "mcpNotRunning", server: string, } | { "type": "mcpToolNotUnderReview", server: string, tool: string, } | { "type": "mcpToolChangedAgain", server: string, tool: string, } | { "type": "mcpTextsChanged", server: string, } | { "type": "elicitationAnswer", reason: string, } | { "type": "mcpSignIn", server: string, reason: string, } | { "type": "mcpNotRemote", server: string, } | { "type": "mcpSignInUnderWay", server: string, } | { "type": "mcpSecretsNotReused", server: string, secrets: Array<string>, } | { "type": "sandboxOffUnconfirmed" } | { "type": "notBlocked", seq: number, } | { "type": "import", reason: string, } | { "type": "other", message: string, };

export type CommandError = { kind: ErrorKind, 
/**
 * The whole failure in English (the log, and words no catalogue has).
 */
message: string, 
/**
 * What was missing, as data: the window words it in the user's language.
 */
missing: Missing | null, 
/**
 * What was refused, as data: the window words it in the user's language.
 */
invalid: Invalid | null, };

export type ProviderKind = "openai" | "anthropic" | "demo";

export type RequestStyle = "auto" | "classic" | "reasoning";

export type ProviderOptions = { 
/**
 * OpenAI-compatible providers: which parameters requests carry.
 */
requestStyle: RequestStyle, 
/**
 * Anthropic: extended thinking with this many tokens of budget; `None` turns it off.
 */
thinkingBudget?: number, };

export type ProviderConfig = { id: number, kind: ProviderKind, name: string, baseUrl: string, defaultModel: string, 
/**
 * Whether a key for it is saved in the keychain.
 */
hasKey: boolean, toolCalling: ToolCalling, 
/**
 * Request options: parameters for reasoning models, extended thinking.
 */
options: ProviderOptions, createdAt: number, };

export type ProviderInput = { kind: ProviderKind, name: string, 
/**
 * Empty means the kind's usual address.
 */
baseUrl: string, defaultModel: string, 
/**
 * Native tool calls unless the model is served without them.
 */
toolCalling: ToolCalling, options: ProviderOptions, };

export type LocalServer = { name: string, baseUrl: string, models: Array<string>, };

export type RuleAction = "allow" | "ask" | "deny";

export type RuleScope = { "type": "chat", chat: ChatId, } | { "type": "global" };

export type Rule = { id: number, tool: string, pattern: string | null, action: RuleAction, scope: RuleScope, createdAt: number, };

export type RuleRow = { id: number, tool: string, pattern: string | null, action: string, chat: ChatId | null, createdAt: number, };

export type ApprovalRecordRow = { chat: ChatId, tool: string, argsHash: string, 
/**
 * The canonical JSON of the arguments, to show the user what the record covers.
 */
args: string, 
/**
 * The workspace folder the decision was made for (part of the key, see
 * [`tollgate_protocol::canonical::record_hash`]).
 */
workspace: string | null, allowed: boolean, createdAt: number, };

export type McpTransport = { "type": "stdio", command: string, args: Array<string>, 
/**
 * Extra environment variables. Values are secrets: they live in the keychain.
 */
env: { [key in string]: string }, cwd: string | null, } | { "type": "http", url: string, 
/**
 * Extra request headers (e.g. `Authorization`). Values are secrets: they live in the
 * keychain.
 */
headers: { [key in string]: string }, };

export type McpSandbox = { network: boolean, 
/**
 * Absolute paths of the folders the server may write in.
 */
folders: Array<string>, 
/**
 * With the network off, the hosts the server may still reach through Tollgate's proxy.
 */
hosts?: Array<string>, };

export type McpServerConfig = { 
/**
 * Also the name of its tool group.
 */
name: string, enabled: boolean, transport: McpTransport, timeoutSecs: number, 
/**
 * The execution policy of every tool of this server; `None` derives it from the tool's
 * hints (read-only tools ask once, others ask every time).
 */
executionPolicy: ExecutionPolicy | null, resultPolicy: ResultPolicy | null, 
/**
 * Run this local server under the sandbox (F-46); `None`: without it. Imported servers
 * start without it: the user knows best which folders a server they already use needs.
 */
sandbox?: McpSandbox, 
/**
 * For a remote server whose authorization server does not let Tollgate register itself:
 * the id of a client the user registered there (issue 36). Not a secret.
 */
oauthClientId?: string, };

export type McpStatus = { "state": "disabled" } | { "state": "connecting" } | { "state": "ready" } | { "state": "failed", error: string, } | { "state": "needsSignIn", expired: boolean, };

export type McpToolSummary = { 
/**
 * The name the model sees.
 */
name: string, 
/**
 * The name on the server.
 */
remoteName: string, description: string, readOnly: boolean, 
/**
 * The server's `destructiveHint` (or its default): "always allow" is a warned choice.
 */
destructive: boolean, 
/**
 * Set while the tool is under review (issue 36): what changed, to accept.
 */
change: ToolChange | null, };

export type McpServerState = { name: string, status: McpStatus, 
/**
 * The server's own name and version, once connected.
 */
serverName: string | null, serverVersion: string | null, 
/**
 * The MCP protocol version the session speaks.
 */
protocolVersion: string | null, 
/**
 * What the server says about using it; also sent to the model with its tools.
 */
instructions: string | null, tools: Array<McpToolSummary>, 
/**
 * How many resources and prompts it offers.
 */
resources: number, prompts: number, 
/**
 * Where its first-sight review stands (issue 45): until confirmed, what it says counts as
 * untrusted in every chat that offers its tools.
 */
review: ServerReviewState, };

export type McpResourceView = { server: string, uri: string, name: string, title: string | null, description: string | null, mimeType: string | null, };

export type McpPromptArgument = { name: string, description: string | null, required: boolean, };

export type McpPromptView = { server: string, name: string, title: string | null, description: string | null, arguments: Array<McpPromptArgument>, };

export type FilledPrompt = { text: string, attachments: Array<Attachment>, 
/**
 * Where the text came from, for the message that sends it (F-80).
 */
sources?: Array<Source>, };

export type OAuthRecord = { 
/**
 * The authorization server that issued the token.
 */
issuer: string, 
/**
 * The MCP server's URL the token is for (the RFC 8707 resource).
 */
resource: string, scopes: Array<string>, 
/**
 * When the user signed in (ms since the epoch).
 */
signedInAt: number, 
/**
 * When the access token expires (ms since the epoch), if the server said; a refresh
 * token, where there is one, renews it without the user.
 */
expiresAt: number | null, };

export type McpServerView = { config: McpServerConfig, state: McpServerState, 
/**
 * The user's sign-in to this remote server (issue 36); the tokens stay in the keychain.
 */
signIn: OAuthRecord | null, 
/**
 * A sign-in is waiting for the browser.
 */
signingIn: boolean, };

export type CoveredCall = { chat: ChatId, seq: number, 
/**
 * The call's arguments in one line, as the tool-chain log shows them.
 */
args: string, startedAt: number, 
/**
 * Who let it run (or refused it) then.
 */
decidedBy: DecidedBy, };

export type RuleCoverage = { 
/**
 * How many past calls of the tool were examined (the latest ones).
 */
examined: number, 
/**
 * How many of them the rule covers.
 */
coveredCount: number, 
/**
 * The latest covered calls (at most [`COVERAGE_LISTED`]).
 */
covered: Array<CoveredCall>, };

/** The most live output one event carries (`tools::live_output`); the window keeps as many characters of a running call's output. */
export const LIVE_TAIL_BYTES = 16384;

/** How many messages the window reads first when it opens a chat (`service::chats`), back to the start of their turn. */
export const HISTORY_FIRST_PAGE = 60;

/** How many messages each later page of a chat's history reads. */
export const HISTORY_PAGE = 250;

/** The words that make a name a secret's (`tollgate_secrets::names`): one list for the engine and the window (ui/src/secretNames.ts splits names the same way). */
export const SECRET_NAME_WORDS = ["token", "secret", "password", "passwd", "passphrase", "passcode", "pwd", "pin", "key", "apikey", "accesskey", "privatekey", "credential", "credentials", "auth", "oauth", "authorization", "session", "sessionid", "cookie", "bearer", "otp"] as const;

/** The shortest listed word a longer word may end in and still count as it. */
export const SECRET_SUFFIX_MIN = 5;

/** The schemes of links in answers that open outside the app (`tollgate_names::open`); the opener's capability file allows these and no others. */
export const LINK_SCHEMES = ["https", "http", "mailto"] as const;
