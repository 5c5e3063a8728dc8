/** Types shared between the UI and the Tauri commands in `api.ts`. */

/** When a tool call may run (F-01). `deny` hides the tool from the model. */
export type ExecutionPolicy = "auto" | "ask-once" | "ask-always" | "deny";

/** Whether the user reviews a tool's result before the model sees it (F-02). */
export type ResultPolicy = "never" | "on-error" | "always";

export type ChatId = number;

export interface ToolInfo {
  name: string;
  description: string;
  enabled?: boolean;
  /** Effective policies: the user's override, else the tool's default. */
  executionPolicy: ExecutionPolicy;
  resultPolicy: ResultPolicy;
  /** The tool's own defaults (older backends may not send them). */
  defaultExecutionPolicy?: ExecutionPolicy;
  defaultResultPolicy?: ResultPolicy;
  /** Safe to run in parallel, no side effects. */
  readOnly: boolean;
  timeoutMs?: number;
}

export interface ToolGroupInfo {
  name: string;
  title: string;
  description: string;
  enabled: boolean;
  tools: ToolInfo[];
}

export interface ChatRow {
  id: ChatId;
  title: string;
  providerId: string | null;
  model: string | null;
  systemPrompt: string | null;
  workspace: string | null;
  toolOverrides: { groups: Record<string, boolean>; tools: Record<string, boolean> };
  createdAt: number;
  updatedAt: number;
}

export interface NewChat {
  title?: string;
  providerId?: string;
  model?: string;
  systemPrompt?: string;
  workspace?: string;
}

export interface SearchHit {
  chat: ChatId;
  title: string;
  snippet: string;
}

export type MessageRole = "user" | "assistant" | "tool";
export type MessageStatus = "streaming" | "complete" | "stopped" | "error" | "interrupted";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: unknown;
}

export interface ToolResultPayload {
  callId: string;
  name: string;
  content: string;
  isError: boolean;
}

export interface MessageRow {
  id: number;
  chat: ChatId;
  role: MessageRole;
  content: string;
  status: MessageStatus;
  payload: null | { toolCalls?: ToolCallRequest[]; results?: ToolResultPayload[] };
  usage: Usage | null;
  createdAt: number;
}

export type CallStatus =
  | "success"
  | "error"
  | "invalid_args"
  | "not_found"
  | "execution_rejected"
  | "result_rejected"
  | "cancelled"
  | "timed_out"
  | "running";

export type DecidedBy = "auto" | "user" | "rule" | "record" | "policy" | "none";

export interface RecordedCall {
  chat: ChatId;
  messageId: number | null;
  round: number;
  seq: number;
  callId: string;
  requestedName: string;
  tool: string | null;
  group: string | null;
  rawArgs: string;
  resolvedArgs: string | null;
  policy: string | null;
  decision: string | null;
  decidedBy: string;
  status: string;
  resultText: string | null;
  isError: boolean;
  truncated: boolean;
  resultVar: string | null;
  argsVar: string | null;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
}

export interface ChatHistory {
  messages: MessageRow[];
  calls: RecordedCall[];
  running: boolean;
}

export type ApprovalPreview =
  | { type: "diff"; path: string; diff: string }
  | { type: "command"; command: string; cwd: string };

export interface ExecutionRequest {
  kind: "execution";
  arguments: unknown;
  preview: ApprovalPreview | null;
  policy: string;
  reason: string;
  suggestedPattern: string | null;
}

export interface ResultRequest {
  kind: "result";
  textForModel: string;
  fullOutput: string;
  status: string;
}

export interface PendingApproval {
  id: string;
  chat: ChatId;
  seq: number;
  callId: string;
  tool: string;
  group: string | null;
  createdAt: number;
  request: ExecutionRequest | ResultRequest;
}

export type ExecutionDecision =
  | { type: "allowOnce" }
  | { type: "allowForChat" }
  | { type: "alwaysAllow"; scope: "thisChat" | "allChats"; pattern: string | null }
  | { type: "editAndAllow"; arguments: unknown }
  | { type: "deny"; reason: string | null }
  | { type: "denyAndStop"; reason: string | null };

export type ResultDecision =
  | { type: "approve" }
  | { type: "editAndApprove"; text: string }
  | { type: "reject"; reason: string | null };

export type Decision =
  | { kind: "execution"; decision: ExecutionDecision }
  | { kind: "result"; decision: ResultDecision };

export interface CallSummary {
  tool: string | null;
  status: string;
  decision: string | null;
  decidedBy: string;
  durationMs: number;
  preview: string;
  content: string;
  truncated: boolean;
  resultVar: string | null;
  argsVar: string | null;
}

export type ToolEvent =
  | { type: "beforeCall"; chat: ChatId; seq: number; callId: string; requestedName: string; rawArgs: string }
  | { type: "approvalRequested"; approval: PendingApproval }
  | {
      type: "approvalResolved";
      chat: ChatId;
      seq: number;
      id: string;
      outcome: { type: "decided"; decision: unknown } | { type: "cancelled" };
    }
  | { type: "started"; chat: ChatId; seq: number; tool: string; args: unknown }
  | { type: "outputDelta"; chat: ChatId; seq: number; stream: "stdout" | "stderr" | "log"; text: string }
  | { type: "finished"; chat: ChatId; seq: number; summary: CallSummary }
  | { type: "questionAsked"; chat: ChatId; seq: number; id: string; question: string; choices: string[] };

export type TurnOutcome =
  | { type: "completed"; usage: Usage }
  | { type: "stopped"; usage: Usage }
  | { type: "failed"; error: string; retryable: boolean; usage: Usage };

export type ChatEvent =
  | { type: "turnStarted"; chat: ChatId; userMessageId: number }
  | { type: "roundStarted"; round: number; messageId: number }
  | { type: "textDelta"; messageId: number; text: string }
  | { type: "toolCallStarted"; messageId: number; index: number; id: string; name: string }
  | { type: "tool"; event: ToolEvent }
  | { type: "retrying"; attempt: number; delayMs: number; error: string }
  | { type: "roundFinished"; round: number; messageId: number; finish: string; usage: Usage }
  | { type: "turnFinished"; outcome: TurnOutcome };

export type Theme = "system" | "light" | "dark";
export type Language = "en" | "zh-CN";

export interface AppSettings {
  theme: Theme;
  language: Language;
  turn: {
    maxRounds: number;
    doomLoopThreshold: number;
    maxParallel: number;
    maxTokens: number;
    temperature: number;
    retry: { maxRetries: number; baseDelayMs: number; maxDelayMs: number };
    saveIntervalMs: number;
  };
}

export interface ToolOverride {
  enabled?: boolean;
  executionPolicy?: ExecutionPolicy;
  resultPolicy?: ResultPolicy;
  timeoutMs?: number;
  outputLimit?: number;
}

export interface ToolSettings {
  defaultOutputLimit: number;
  groups: Record<string, boolean>;
  tools: Record<string, ToolOverride>;
  varMaxCount: number;
  varMaxBytes: number;
}

export interface Settings {
  app: AppSettings;
  tools: ToolSettings;
}

export type ProviderKind = "openai" | "anthropic" | "demo";

export interface Provider {
  id: string;
  kind: ProviderKind;
  name: string;
  baseUrl: string;
  defaultModel: string;
  hasKey: boolean;
  createdAt: number;
}

export interface NewProvider {
  kind: ProviderKind;
  name: string;
  baseUrl: string;
  defaultModel: string;
}

export interface Rule {
  id: number | string;
  tool: string;
  pattern: string | null;
  action: "allow" | "ask" | "deny";
  scope: { type: "chat"; chat: ChatId } | { type: "global" };
  createdAt: number;
}

export interface ApprovalRecord {
  chat: ChatId;
  tool: string;
  argsHash: string;
  args: unknown;
  allowed: boolean;
  createdAt: number;
}

// ---- MCP servers (F-45) ----

/** How to reach a server. Secret values (env, headers) come back blank: only their names show. */
export type McpTransport =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string | null }
  | { type: "http"; url: string; headers: Record<string, string> };

export interface McpServerConfig {
  name: string;
  enabled: boolean;
  transport: McpTransport;
  timeoutSecs: number;
  /** null: from each tool's hints (read-only tools ask once, others every time). */
  executionPolicy: ExecutionPolicy | null;
  resultPolicy: ResultPolicy | null;
}

export type McpStatus =
  | { state: "disabled" }
  | { state: "connecting" }
  | { state: "ready" }
  | { state: "failed"; error: string };

export interface McpToolSummary {
  name: string;
  remoteName: string;
  description: string;
  readOnly: boolean;
}

export interface McpServerState {
  name: string;
  status: McpStatus;
  serverName: string | null;
  serverVersion: string | null;
  tools: McpToolSummary[];
}

export interface McpServerView {
  config: McpServerConfig;
  state: McpServerState;
}
