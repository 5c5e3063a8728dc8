/**
 * The types the UI shares with the Tauri commands. They are generated from the Rust types
 * (`bindings.ts`, by ts-rs) and re-exported under their generated names, so one grep finds a
 * type on both sides of the boundary; this module only adds the few types that exist only in
 * the UI.
 */
import type { ApprovalRequest, AssistantPayload, RecordStatus, ToolPayload } from "./bindings";

export type {
  AppSettings,
  Attachment,
  FilledPrompt,
  McpPromptArgument,
  McpPromptView,
  McpResourceView,
  AttachmentKind,
  ApprovalRecordRow,
  AssistantToolCall,
  ApprovalId,
  ApprovalPreview,
  ApprovalRequest,
  AskReason,
  CallDecision,
  CallStatus,
  CallSummary,
  ChatEvent,
  ChatHistory,
  ChatId,
  ChatRevision,
  ChatParams,
  ChatCursor,
  ChatRow,
  ChatSandbox,
  SandboxLevel,
  SandboxMode,
  SandboxReport,
  SandboxSupport,
  SandboxGap,
  ChatToolOverrides,
  CommandError,
  DecidedBy,
  Decision,
  ExecutionChoice,
  ExecutionDecision,
  ExecutionPolicy,
  ErrorKind,
  ExportFormat,
  ModelChoice,
  GroupView,
  JsonValue,
  Language,
  LocalServer,
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
  Preset,
  PresetInput,
  ProviderConfig,
  ProviderInput,
  ProviderKind,
  ProviderOptions,
  RecordedCall,
  RecordStatus,
  RequestStyle,
  ResultChoice,
  ResultDecision,
  ResultPolicy,
  RetryNotice,
  Role,
  Rule,
  RuleAction,
  RuleGrant,
  RuleScopeChoice,
  RuleSubjectKind,
  SearchHit,
  SettingsView,
  Theme,
  ToolEvent,
  ToolCalling,
  ToolOverride,
  ToolSettings,
  ToolView,
  TurnOutcome,
  TurnSettings,
  Usage,
} from "./bindings";

/** What an assistant or tool message carries besides its text. */
export type MessagePayload = Partial<AssistantPayload & ToolPayload>;
export type ExecutionRequest = Extract<ApprovalRequest, { kind: "execution" }>;
export type ResultRequest = Extract<ApprovalRequest, { kind: "result" }>;
/**
 * A call's status in the UI: what its record says (running or how it ended, the generated
 * `RecordStatus`), or a stage before it runs that only the live events show.
 */
export type UiCallStatus = RecordStatus | "pending" | "awaiting_approval" | "awaiting_result_review";
