/**
 * The types the UI shares with the Tauri commands. They are generated from the Rust types
 * (`bindings.ts`, by ts-rs); this module only gives some of them the names the UI uses and adds
 * the few types that exist only in the UI.
 */
import type {
  ApprovalRecordRow,
  ApprovalRequest,
  GroupView,
  ProviderConfig,
  ProviderInput,
  RecordStatus,
  Role,
  ToolPayload,
  AssistantPayload,
  ToolView,
} from "./bindings";

export type {
  AppSettings,
  AssistantToolCall,
  ApprovalId,
  ApprovalPreview,
  ApprovalRequest,
  CallDecision,
  CallStatus,
  CallSummary,
  ChatEvent,
  ChatHistory,
  ChatId,
  ChatRow,
  ChatToolOverrides,
  DecidedBy,
  Decision,
  ExecutionChoice,
  ExecutionDecision,
  ExecutionPolicy,
  JsonValue,
  Language,
  McpServerConfig,
  McpServerState,
  McpServerView,
  McpStatus,
  McpToolSummary,
  McpTransport,
  MessageRow,
  MessageStatus,
  NewChat,
  OutputStream,
  PendingApproval,
  ProviderKind,
  RecordedCall,
  RecordStatus,
  ResultChoice,
  ResultDecision,
  ResultPolicy,
  Rule,
  RuleGrant,
  RuleScopeChoice,
  RuleSubjectKind,
  SearchHit,
  Settings,
  Theme,
  ToolEvent,
  ToolCalling,
  ToolOverride,
  ToolSettings,
  TurnOutcome,
  TurnSettings,
  Usage,
} from "./bindings";

/** A tool as the settings and the tools popover show it. */
export type ToolInfo = ToolView;
/** A tool group with its tools. */
export type ToolGroupInfo = GroupView;
/** A configured provider (its key is only ever in the keychain). */
export type Provider = ProviderConfig;
/** What the user enters to add a provider. */
export type NewProvider = ProviderInput;
/** An ask-once answer remembered for a chat. */
export type ApprovalRecord = ApprovalRecordRow;
export type MessageRole = Role;
/** What an assistant or tool message carries besides its text. */
export type MessagePayload = Partial<AssistantPayload & ToolPayload>;
export type ExecutionRequest = Extract<ApprovalRequest, { kind: "execution" }>;
export type ResultRequest = Extract<ApprovalRequest, { kind: "result" }>;
/**
 * A call's status in the UI: what its record says (running or how it ended, the generated
 * `RecordStatus`), or a stage before it runs that only the live events show.
 */
export type UiCallStatus = RecordStatus | "pending" | "awaiting_approval" | "awaiting_result_review";
