// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
import type { Channel } from "@tauri-apps/api/core";
import type { AppSettings, ApprovalRecordRow, Attachment, Autonomy, ChatCursor, ChatEvent, ChatHistory, ChatId, ChatParams, ChatRevision, ChatRow, ChatSandbox, Decision, ElicitationAnswer, ExportFormat, ExposureView, FilledPrompt, GroupView, LocalServer, McpPromptView, McpResourceView, McpServerConfig, McpServerView, ModelChoice, NewChat, OAuthRecord, PendingApproval, Preset, PresetInput, ProviderConfig, ProviderInput, Rule, RuleCoverage, RuleScope, SandboxSupport, SearchHit, ServerReview, SettingsView, Source, ToolEffects, ToolSettings, TrustKey, WrittenFile } from "./bindings";

/** Every command the app defines (src-tauri/crates/app/src/commands): its arguments as the UI sends them, and what it resolves to. A failure rejects with a `CommandError`. */
export interface Commands {
  ui_ready: { args: { pageMs: number }; result: void };
  log_folder: { args: Record<string, never>; result: string | null };
  open_log_folder: { args: Record<string, never>; result: void };
  list_chats: { args: { after: ChatCursor | null; limit: number }; result: ChatRow[] };
  get_chat: { args: { chat: ChatId }; result: ChatRow | null };
  create_chat: { args: { chat: NewChat }; result: ChatRow };
  rename_chat: { args: { chat: ChatId; title: string }; result: void };
  delete_chat: { args: { chat: ChatId }; result: void };
  search_chats: { args: { query: string }; result: SearchHit[] };
  set_chat_workspace: { args: { chat: ChatId; workspace: string | null }; result: void };
  set_chat_model: { args: { chat: ChatId; providerId: number | null; model: string }; result: void };
  chat_history: { args: { chat: ChatId; before: number | null; limit: number | null }; result: ChatHistory };
  chat_revision: { args: { chat: ChatId }; result: ChatRevision };
  set_chat_prompt: { args: { chat: ChatId; systemPrompt: string; params: ChatParams }; result: void };
  save_chat_export: { args: { chat: ChatId; format: ExportFormat }; result: string | null };
  import_chats: { args: Record<string, never>; result: ChatRow[] };
  send_message: { args: { chat: ChatId; text: string; attachments: Attachment[]; sources: Source[]; onEvent: Channel<ChatEvent> }; result: void };
  retry_turn: { args: { chat: ChatId; onEvent: Channel<ChatEvent> }; result: void };
  edit_message: { args: { chat: ChatId; message: number; text: string; onEvent: Channel<ChatEvent> }; result: void };
  regenerate_answer: { args: { chat: ChatId; message: number; model: ModelChoice | null; onEvent: Channel<ChatEvent> }; result: void };
  rerun_unsandboxed: { args: { chat: ChatId; seq: number; text: string; onEvent: Channel<ChatEvent> }; result: void };
  show_branch: { args: { chat: ChatId; message: number }; result: void };
  stop_turn: { args: { chat: ChatId }; result: boolean };
  decide: { args: { chat: ChatId; id: string; decision: Decision }; result: void };
  answer_question: { args: { chat: ChatId; id: string; answer: string }; result: void };
  answer_elicitation: { args: { chat: ChatId; id: string; answer: ElicitationAnswer }; result: void };
  pending_approvals: { args: { chat: ChatId }; result: PendingApproval[] };
  waiting_counts: { args: Record<string, never>; result: Record<string, number> };
  get_settings: { args: Record<string, never>; result: SettingsView };
  set_app_settings: { args: { settings: AppSettings }; result: void };
  set_tool_settings: { args: { settings: ToolSettings }; result: void };
  list_tool_groups: { args: Record<string, never>; result: GroupView[] };
  chat_tool_groups: { args: { chat: ChatId }; result: GroupView[] };
  set_chat_group_enabled: { args: { chat: ChatId; group: string; enabled: boolean | null }; result: void };
  set_chat_tool_enabled: { args: { chat: ChatId; tool: string; enabled: boolean | null }; result: void };
  set_chat_sandbox: { args: { chat: ChatId; sandbox: ChatSandbox; confirmedOff: boolean }; result: void };
  sandbox_support: { args: Record<string, never>; result: SandboxSupport };
  sandbox_hidden_paths: { args: Record<string, never>; result: string[] };
  list_presets: { args: Record<string, never>; result: Preset[] };
  save_preset: { args: { id: number | null; preset: PresetInput }; result: Preset };
  delete_preset: { args: { id: number }; result: boolean };
  create_chat_from_preset: { args: { preset: number }; result: ChatRow };
  list_providers: { args: Record<string, never>; result: ProviderConfig[] };
  add_provider: { args: { provider: ProviderInput }; result: ProviderConfig };
  update_provider: { args: { id: number; provider: ProviderInput }; result: ProviderConfig };
  detect_local_servers: { args: Record<string, never>; result: LocalServer[] };
  save_provider_key: { args: { id: number; key: string }; result: void };
  remove_provider: { args: { id: number }; result: boolean };
  list_models: { args: { id: number }; result: string[] };
  list_rules: { args: Record<string, never>; result: Rule[] };
  revoke_rule: { args: { id: number }; result: boolean };
  list_records: { args: { chat: ChatId }; result: ApprovalRecordRow[] };
  revoke_record: { args: { chat: ChatId; tool: string; argsHash: string }; result: boolean };
  chat_exposure: { args: { chat: ChatId }; result: ExposureView };
  set_ways_out_off: { args: { chat: ChatId; off: boolean }; result: void };
  endorse_source: { args: { chat: ChatId; source: TrustKey }; result: void };
  unendorse_source: { args: { chat: ChatId; source: TrustKey }; result: void };
  autonomy: { args: { chat: ChatId | null }; result: Autonomy };
  written_files: { args: Record<string, never>; result: WrittenFile[] };
  trust_written_file: { args: { workspace: string; path: string }; result: void };
  rule_coverage: { args: { tool: string; pattern: string | null; scope: RuleScope }; result: RuleCoverage };
  list_mcp_servers: { args: Record<string, never>; result: McpServerView[] };
  save_mcp_server: { args: { config: McpServerConfig; previous: string | null }; result: void };
  import_mcp_servers: { args: { json: string }; result: string[] };
  remove_mcp_server: { args: { name: string }; result: void };
  restart_mcp_server: { args: { name: string }; result: void };
  accept_mcp_tool_change: { args: { server: string; tool: string; fingerprint: string }; result: void };
  mcp_server_review: { args: { server: string }; result: ServerReview };
  confirm_mcp_server: { args: { server: string; fingerprint: string; effects: Record<string, ToolEffects> }; result: void };
  sign_in_mcp_server: { args: { name: string }; result: OAuthRecord };
  cancel_mcp_sign_in: { args: { name: string }; result: boolean };
  sign_out_mcp_server: { args: { name: string }; result: void };
  list_mcp_resources: { args: Record<string, never>; result: McpResourceView[] };
  list_mcp_prompts: { args: Record<string, never>; result: McpPromptView[] };
  read_mcp_resource: { args: { server: string; uri: string }; result: Attachment[] };
  get_mcp_prompt: { args: { server: string; name: string; arguments: Record<string, string> }; result: FilledPrompt };
}

export type CommandName = keyof Commands;
