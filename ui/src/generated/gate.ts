// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// The gate: policies, decisions, approvals, a task's plan and grant, rules, records, the provenance guard, a changed tool's review and what a review flags.
import type { ApprovalId, ChatId, JsonValue } from "./common";
import type { SandboxMode, SandboxReport } from "./sandbox";

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

export type FindingKind = "hiddenText" | "addressedToModel" | "shadowing" | "asksForSecrets" | "longerThanItsSchema" | "asksForContext";

export type FlaggedParameter = { 
/**
 * Where its value sits in the arguments, as property names from the top (`["context"]`,
 * `["meta", "history"]`).
 */
path: Array<string>, 
/**
 * What the review found in it: asking for the model's context, for secrets, text addressed
 * to the model, hidden characters.
 */
kind: FindingKind, 
/**
 * The words that flagged it, for the card to quote.
 */
excerpt: string, };

export type ExecutionPolicy = "auto" | "ask-once" | "ask-always" | "deny";

export type ResultPolicy = "never" | "on-error" | "always";

export type CallStatus = "success" | "error" | "invalid_args" | "not_found" | "execution_rejected" | "result_rejected" | "cancelled" | "timed_out" | "in_background";

export type DecidedBy = "auto" | "user" | "rule" | "record" | "plan" | "policy" | "none";

export type ExecutionChoice = "allow" | "allowOnce" | "allowForChat" | "alwaysAllow" | "editAndAllow" | "deny" | "denyAndStop" | "endorseAndAllow";

export type ResultChoice = "approve" | "editAndApprove" | "reject";

export type CallDecision = { execution: ExecutionChoice | null, result: ResultChoice | null, };

export type RecordStatus = "running" | "success" | "error" | "invalid_args" | "not_found" | "execution_rejected" | "result_rejected" | "cancelled" | "timed_out" | "in_background";

export type RuleGrant = { "type": "matching", pattern: string, } | { "type": "everyCall" };

export type RuleSubjectKind = "command" | "path" | "url" | "args";

export type Source = { "type": "web", url: string, host: string, } | { "type": "file", folder: string, path: string, } | { "type": "command", folder: string, } | { "type": "mcpTool", server: string, tool: string, } | { "type": "mcpResource", server: string, uri: string, } | { "type": "mcpPrompt", server: string, name: string, } | { "type": "attachment", name: string, } | { "type": "import", title: string, } | { "type": "mcpServer", server: string, } | { "type": "network", folder: string, hosts: Array<string>, } | { "type": "mcpView", server: string, };

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
 * account), as JSON pointers, whose value was copied from untrusted content (SPEC §12):
 * the content chose the destination.
 */
chosenTargets?: Array<string>, 
/**
 * What the call may do is only the server's claim (its annotations), not yet confirmed by
 * the user (SPEC §12): the gate judges it as a call that may change or send anything.
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
 * … by the task's plan the user approved on its card (F-98).
 */
byPlan: number, 
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

export type ApprovalPreview = { "type": "diff", path: string, diff: string, } | { "type": "command", command: string, cwd: string, } | { "type": "largeWrite", path: string, bytesBefore: number, bytesAfter: number, };

export type PlanStep = { 
/**
 * What the step does, in the model's plain words (shown on the card).
 */
purpose: string, 
/**
 * The tool it calls, by the name the chat offers.
 */
tool: string, 
/**
 * How many calls the step may make (at least 1).
 */
maxCalls: number, 
/**
 * What the step's calls may point at, in the rule vocabulary of the tool (F-08): command
 * words (`git status *`), a path glob (`reports/*.md`), a URL wildcard. `None`: any.
 */
pattern?: string, 
/**
 * The targets its calls may reach — recipients, accounts, hosts and URLs — as the plan
 * writes them, compared as values (F-97): a call whose target arguments name anything
 * else is off the plan. Empty: the step reaches no target.
 */
targets: Array<string>, 
/**
 * Tools whose results may name more of its targets, which the user accepts on the card
 * ("the address the address book gives for Alice"): a target a result of one of them
 * named while the grant was in force is granted as if the plan named it. Empty: only
 * the targets written above.
 */
from?: Array<string>, };

export type PlanProposal = { steps: Array<PlanStep>, minutes?: number, };

export type PlanTargetMark = { 
/**
 * The step (0-based) and the target as the plan writes it.
 */
step: number, target: string, 
/**
 * The user's own words named it.
 */
byUser: boolean, 
/**
 * The untrusted sources that named it (none: no content the chat read did).
 */
sources: Array<Source>, };

export type PlanShown = { proposal: PlanProposal, exposed: boolean, 
/**
 * One per target of every step, in order.
 */
marks: Array<PlanTargetMark>, 
/**
 * Set when a step runs commands and this chat's sandbox cannot hold them to the plan's
 * hosts and files (off, none on this system, or without namespaces): how commands run, so
 * the card says before approval that those steps will still ask.
 */
unconfined?: SandboxMode, };

export type GrantSpan = { "type": "turn" } | { "type": "until", endsAtMs: number, };

export type TaskGrant = { steps: Array<PlanStep>, span: GrantSpan, };

export type TaskState = { grant: TaskGrant, 
/**
 * One list per step, in the order of the steps.
 */
calls: Array<Array<number>>, };

export type OffPlan = { "type": "tool" } | { "type": "usedUp", maxCalls: number, } | { "type": "pattern", subject: string, } | { "type": "target", argument: string, value: string, 
/**
 * Where the value was taken from: untrusted content the chat read that named it, and
 * the results a `$VAR_REF` passed it on from (a value passed on is not the model's
 * own choice). Empty: nothing the chat read named it.
 */
takenFrom?: Array<Source>, } | { "type": "unconfined", mode: SandboxMode, };

export type AskReason = { "type": "askOnce" } | { "type": "askAlways" } | { "type": "rule", rule: Rule, } | { "type": "repeated", times: number, wouldAllow: DecidedBy, } | { "type": "exposed", wouldAllow: DecidedBy, } | { "type": "toolChanged", wouldAllow: DecidedBy | null, } | { "type": "offPlan", off: OffPlan, wouldAllow: DecidedBy | null, } | { "type": "plan", shown: PlanShown, };

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
 * (SPEC §11): what changed, to read before answering and to accept.
 */
toolChange?: ToolChange, 
/**
 * The tool may destroy or overwrite what it touches (an MCP `destructiveHint`, or the
 * user's own setting): "always allow" for it is a warned choice.
 */
destructive?: boolean, 
/**
 * The arguments of this call given for parameters the server's review flagged
 * (F-97), to mark on the card.
 */
flagged?: Array<FlaggedParameter>, } | { "kind": "result", 
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
