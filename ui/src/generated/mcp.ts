// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// MCP servers: their settings and state, first-sight reviews, tool changes, questions.
import type { ApprovalId, ChatId, JsonValue } from "./common";
import type { Attachment, ExecutionPolicy, FindingKind, ResultPolicy, Source, ToolChange, ToolEffects } from "./gate";

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

export type SampledRole = "user" | "assistant";

export type SampledText = { role: SampledRole, text: string, };

export type LentModel = { model: string, system: string | null, messages: Array<SampledText>, answer: string, 
/**
 * When the answer went back (Unix milliseconds).
 */
at: number, 
/**
 * What the request cost at the provider, as it reported it.
 */
inputTokens: number, outputTokens: number, };

export type ElicitationKind = { "mode": "form", schema: JsonValue, } | { "mode": "url", url: string, host: string, } | { "mode": "sampling", system: string | null, messages: Array<SampledText>, maxTokens: number, 
/**
 * The model that would answer, as the chat's header names it ("model · provider").
 */
model: string, };

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

export type AskedQuestion = { 
/**
 * The question's id while it waited: one question, however often it is told.
 */
id: ApprovalId, message: string, kind: ElicitationKind, outcome: ElicitationOutcome, 
/**
 * Why it ended so, where the outcome alone does not say (the model was let answer, but no
 * answer went back).
 */
note: string | null, 
/**
 * The form as it went back to the server (with any secret Tollgate keeps withheld); none
 * for a page, a request for the model, or a question not answered.
 */
answer: JsonValue | null, 
/**
 * When the question ended (Unix milliseconds).
 */
at: number, };

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
 * the id of a client the user registered there (SPEC §11). Not a secret.
 */
oauthClientId?: string, 
/**
 * The secret of that client, where the authorization server gave one (sent with HTTP Basic
 * or in the token request, as the server's metadata says; F-96). A secret: it lives
 * in the keychain, and the settings and the window see `""` for "one is stored".
 */
oauthClientSecret?: string, 
/**
 * The https address of a Client ID Metadata Document that describes Tollgate (SEP-991),
 * published by whoever runs Tollgate for its users: where the authorization server says
 * it reads such documents, the address is Tollgate's client id there, and Tollgate does
 * not register itself. Not a secret.
 */
oauthClientMetadataUrl?: string, 
/**
 * Show the views this server ships with its tools (MCP Apps, F-96). Off: no view is
 * rendered and no view of it may call a tool.
 */
views: boolean, 
/**
 * Let this server see the folder of the chat that calls it (MCP roots, F-99): its
 * `roots/list`, or a round's request for roots, is answered with that chat's workspace
 * folder. Off (the default): it is told of no folder, and Tollgate does not say it has
 * roots.
 */
shareWorkspace: boolean, 
/**
 * Let this server ask the chat's model to answer its own text (MCP sampling, F-99). Each
 * request is still put to the user on the card of the call it belongs to, and the model is
 * sent the server's text alone, nothing of the chat. Off (the default): every request is
 * declined with why, and Tollgate does not say it takes them.
 */
shareModel: boolean, };

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
 * Kept for the server's view (`_meta.ui.visibility` without `"model"`, F-95): listed
 * here, never offered to the model.
 */
viewOnly: boolean, 
/**
 * Set while the tool is under review (SPEC §11): what changed, to accept.
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
 * Where its first-sight review stands (SPEC §12): until confirmed, what it says counts as
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
 * The user's sign-in to this remote server (SPEC §11); the tokens stay in the keychain.
 */
signIn: OAuthRecord | null, 
/**
 * A sign-in is waiting for the browser.
 */
signingIn: boolean, };

export type McpViewDocument = { 
/**
 * `tollgate-view://localhost/<token>`: unguessable, and served to one load only.
 */
url: string, server: string, 
/**
 * The tool's name on its server (the view's `hostContext.toolInfo`).
 */
tool: string, 
/**
 * The Content-Security-Policy the document is served under: built from the domains the
 * resource declares, and nothing else.
 */
csp: string, 
/**
 * The outside addresses the resource declared (to connect to or load from), shown on the
 * view's frame so the user knows where it may reach.
 */
domains: Array<string>, 
/**
 * The resource asks for a border and background (`None`: the host decides).
 */
prefersBorder: boolean | null, 
/**
 * The arguments the call runs with (`ui/notifications/tool-input`).
 */
toolInput: JsonValue, 
/**
 * How the call ended; `None` while it still runs (the view shows from the moment the gate
 * let the call run, and is told the end when it comes: [`McpViewOutcome`]).
 */
outcome: McpViewOutcome | null, };

export type McpViewOutcome = { "type": "result", result: JsonValue, } | { "type": "cancelled", reason: string, };
