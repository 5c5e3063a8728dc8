/**
 * The one module that talks to the Tauri backend. Every `invoke` lives here.
 */
import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { open as openDialog } from "@tauri-apps/plugin-dialog";
import { writeText } from "@tauri-apps/plugin-clipboard-manager";
import { openUrl } from "@tauri-apps/plugin-opener";
import type { CommandName, Commands } from "./commands";
import type {
  ApprovalRecordRow,
  Attachment,
  Autonomy,
  ExposureView,
  RuleCoverage,
  RuleScope,
  Source,
  TrustKey,
  FilledPrompt,
  McpPromptView,
  McpResourceView,
  McpViewDocument,
  McpViewOutcome,
  JsonValue,
  AppSettings,
  ChatEvent,
  ChatHistory,
  ChatRevision,
  ChatId,
  ChatParams,
  ChatCursor,
  ChatRow,
  ChatSandbox,
  Decision,
  ElicitationAnswer,
  ExportFormat,
  GroupView,
  ModelChoice,
  LocalServer,
  McpServerConfig,
  McpServerView,
  ServerReview,
  ToolEffects,
  NewChat,
  OAuthRecord,
  PendingApproval,
  Preset,
  PresetInput,
  ProviderConfig,
  ProviderInput,
  Rule,
  SandboxSupport,
  SearchHit,
  SettingsView,
  ToolEvent,
  ToolSettings,
  WrittenFile,
} from "./types";

declare global {
  interface Window {
    __TAURI_INTERNALS__?: { invoke?: unknown; [key: string]: unknown };
  }
}

/** Thrown when the page runs outside the Tollgate app (no Tauri runtime to call). */
export class BackendUnavailableError extends Error {
  constructor() {
    super("the Tauri runtime is not present (is this page open outside the Tollgate app?)");
    this.name = "BackendUnavailableError";
  }
}

function available(): boolean {
  return typeof window !== "undefined" && typeof window.__TAURI_INTERNALS__?.invoke === "function";
}

/**
 * Calls a command. Its name, arguments and result are typed by the generated `Commands` map
 * (`commands.ts`, from the Rust command list), so a renamed or retyped command fails the type
 * check here. A failure rejects with the backend's `CommandError` (`{ kind, message }`).
 */
async function call<K extends CommandName>(command: K, args: Commands[K]["args"]): Promise<Commands[K]["result"]> {
  if (!available()) throw new BackendUnavailableError();
  return invoke<Commands[K]["result"]>(command, args);
}

// ---- the window ----

/** Tells the backend the first frame is on screen (it logs the start-up time). */
export function uiReady(pageMs: number): Promise<void> {
  return call("ui_ready", { pageMs });
}

// ---- tools ----

/** All tool groups in the registry with their tools and effective policies. */
export function listToolGroups(): Promise<GroupView[]> {
  return call("list_tool_groups", {});
}
export function chatToolGroups(chat: ChatId): Promise<GroupView[]> {
  return call("chat_tool_groups", { chat });
}
export function setChatGroupEnabled(chat: ChatId, group: string, enabled: boolean | null): Promise<void> {
  return call("set_chat_group_enabled", { chat, group, enabled });
}
export function setChatToolEnabled(chat: ChatId, tool: string, enabled: boolean | null): Promise<void> {
  return call("set_chat_tool_enabled", { chat, tool, enabled });
}
/** Sets the chat's sandbox (F-46); turning it off needs `confirmedOff` (the user confirmed). */
export function setChatSandbox(chat: ChatId, sandbox: ChatSandbox, confirmedOff: boolean): Promise<void> {
  return call("set_chat_sandbox", { chat, sandbox, confirmedOff });
}
/** What this system's sandbox can enforce. */
export function sandboxSupport(): Promise<SandboxSupport> {
  return call("sandbox_support", {});
}
/** The paths no sandboxed command and no file tool reads (`~` for the home folder). */
export function sandboxHiddenPaths(): Promise<string[]> {
  return call("sandbox_hidden_paths", {});
}

// ---- chats ----

/** A page of chats, newest first: `limit` after `after` (from the top when null). */
export function listChats(after: ChatCursor | null, limit: number): Promise<ChatRow[]> {
  return call("list_chats", { after, limit });
}
/** One chat; null once it was deleted. */
export function getChat(chat: ChatId): Promise<ChatRow | null> {
  return call("get_chat", { chat });
}
/** The chat's provider (null: the first configured one) and model ("" : the provider's default). */
export function setChatModel(chat: ChatId, providerId: number | null, model: string): Promise<void> {
  return call("set_chat_model", { chat, providerId, model });
}
/** Creates a chat; what is not given starts empty (the provider's default model, no workspace). */
export function createChat(chat: Partial<NewChat> = {}): Promise<ChatRow> {
  return call("create_chat", { chat: { title: "", model: "", systemPrompt: "", ...chat } });
}
export function renameChat(chat: ChatId, title: string): Promise<void> {
  return call("rename_chat", { chat, title });
}
export function deleteChat(chat: ChatId): Promise<void> {
  return call("delete_chat", { chat });
}
export function searchChats(query: string): Promise<SearchHit[]> {
  return call("search_chats", { query });
}
export function setChatWorkspace(chat: ChatId, workspace: string | null): Promise<void> {
  return call("set_chat_workspace", { chat, workspace });
}
/**
 * The last `limit` messages of the chat's branch (`before` null) or of those before message
 * `before`, back to the start of their turn, with their calls; a null `limit` reads them all.
 */
export function chatHistory(chat: ChatId, before: number | null = null, limit: number | null = null): Promise<ChatHistory> {
  return call("chat_history", { chat, before, limit });
}
/** The chat's revision and whether a turn runs: whether a chat read before must be read again. */
export function chatRevision(chat: ChatId): Promise<ChatRevision> {
  return call("chat_revision", { chat });
}
export function listPresets(): Promise<Preset[]> {
  return call("list_presets", {});
}
/** Adds a preset (`id` null) or changes one. */
export function savePreset(id: number | null, preset: PresetInput): Promise<Preset> {
  return call("save_preset", { id, preset });
}
export function deletePreset(id: number): Promise<boolean> {
  return call("delete_preset", { id });
}
/** A new chat with the preset's prompt, model, parameters and tool groups. */
/** Asks for an export file with the native open dialog and imports its chats (none if cancelled), newest first. */
export function importChats(): Promise<ChatRow[]> {
  return call("import_chats", {});
}
export function createChatFromPreset(preset: number): Promise<ChatRow> {
  return call("create_chat_from_preset", { preset });
}
/** Sets the chat's own system prompt, temperature and longest answer; the next turn uses them. */
export function setChatPrompt(chat: ChatId, systemPrompt: string, params: ChatParams): Promise<void> {
  return call("set_chat_prompt", { chat, systemPrompt, params });
}
/** Saves the chat where the user picks in the native save dialog; the saved file's path, or null if cancelled. */
export function saveChatExport(chat: ChatId, format: ExportFormat): Promise<string | null> {
  return call("save_chat_export", { chat, format });
}

// ---- turns ----

function channel(onEvent: (event: ChatEvent) => void): Channel<ChatEvent> {
  const ch = new Channel<ChatEvent>();
  ch.onmessage = onEvent;
  return ch;
}

/** Starts a turn with a new user message; events arrive on `onEvent` until `turnFinished`. */
export function sendMessage(
  chat: ChatId,
  text: string,
  attachments: Attachment[],
  onEvent: (event: ChatEvent) => void,
  sources: Source[] = [],
): Promise<void> {
  if (!available()) return Promise.reject(new BackendUnavailableError());
  return call("send_message", { chat, text, attachments, sources, onEvent: channel(onEvent) });
}
/** Runs the last turn again (after a failure). */
export function retryTurn(chat: ChatId, onEvent: (event: ChatEvent) => void): Promise<void> {
  if (!available()) return Promise.reject(new BackendUnavailableError());
  return call("retry_turn", { chat, onEvent: channel(onEvent) });
}
/** Sends `text` as a new version of user message `message` (F-56); the old version stays as a branch. */
export function editMessage(chat: ChatId, message: number, text: string, onEvent: (event: ChatEvent) => void): Promise<void> {
  if (!available()) return Promise.reject(new BackendUnavailableError());
  return call("edit_message", { chat, message, text, onEvent: channel(onEvent) });
}
/** Answers the turn of `message` again, with the chat's model or `model` for this answer only. */
export function regenerateAnswer(chat: ChatId, message: number, model: ModelChoice | null, onEvent: (event: ChatEvent) => void): Promise<void> {
  if (!available()) return Promise.reject(new BackendUnavailableError());
  return call("regenerate_answer", { chat, message, model, onEvent: channel(onEvent) });
}
/** Runs blocked call `c<seq>` again without the sandbox (F-46); `text` is the user's message saying so. */
export function rerunUnsandboxed(chat: ChatId, seq: number, text: string, onEvent: (event: ChatEvent) => void): Promise<void> {
  if (!available()) return Promise.reject(new BackendUnavailableError());
  return call("rerun_unsandboxed", { chat, seq, text, onEvent: channel(onEvent) });
}
/** Shows the branch through `message` (a version picked with ‹ ›, or a search hit). */
export function showBranch(chat: ChatId, message: number): Promise<void> {
  return call("show_branch", { chat, message });
}
export function stopTurn(chat: ChatId): Promise<boolean> {
  return call("stop_turn", { chat });
}
/** Ends the chat's task grant (F-98); the turn goes on, asking call by call. */
export function stopTask(chat: ChatId): Promise<boolean> {
  return call("stop_task", { chat });
}

// ---- approvals ----

export function answerApproval(chat: ChatId, id: string, decision: Decision): Promise<void> {
  return call("answer_approval", { chat, id, decision });
}
export function answerQuestion(chat: ChatId, id: string, answer: string): Promise<void> {
  return call("answer_question", { chat, id, answer });
}
/** Answers an MCP server's question (SPEC §11); a form that does not fit the server's schema is refused. */
export function answerElicitation(chat: ChatId, id: string, answer: ElicitationAnswer): Promise<void> {
  return call("answer_elicitation", { chat, id, answer });
}
export function pendingApprovals(chat: ChatId): Promise<PendingApproval[]> {
  return call("pending_approvals", { chat });
}
export async function waitingCounts(): Promise<Record<string, number>> {
  return call("waiting_counts", {});
}

/** A clicked notification asks the window to open a chat (F-59). Resolves to an unsubscribe function. */
export async function onOpenChat(handler: (chat: ChatId) => void): Promise<() => void> {
  if (!available()) return () => {};
  return listen<ChatId>("open-chat", (e) => handler(e.payload));
}

/** App-wide gate events from chats with no turn running in view. Resolves to an unsubscribe function. */
export async function onGateEvent(handler: (event: ToolEvent) => void): Promise<() => void> {
  if (!available()) return () => {};
  return listen<ToolEvent>("gate-event", (e) => handler(e.payload));
}

// ---- settings ----

export function getSettings(): Promise<SettingsView> {
  return call("get_settings", {});
}
export function setAppSettings(settings: AppSettings): Promise<void> {
  return call("set_app_settings", { settings });
}
/** Saves tool settings read at their `revision`; answers them as saved (the next revision).
 * Refused (`settingsChanged`) when they were saved meanwhile from another copy: use
 * `saveToolSettings`, which applies the change again to the newest. */
export function setToolSettings(settings: ToolSettings): Promise<ToolSettings> {
  return call("set_tool_settings", { settings });
}

/** The folder the app writes its log file to, or null when it writes only to standard error. */
export function logFolder(): Promise<string | null> {
  return call("log_folder", {});
}
/** Opens the log folder in the system's file manager. */
export function openLogFolder(): Promise<void> {
  return call("open_log_folder", {});
}

// ---- providers ----

export function listProviders(): Promise<ProviderConfig[]> {
  return call("list_providers", {});
}
export function addProvider(provider: ProviderInput): Promise<ProviderConfig> {
  return call("add_provider", { provider });
}
export function updateProvider(id: ProviderConfig["id"], provider: ProviderInput): Promise<ProviderConfig> {
  return call("update_provider", { id, provider });
}
export function detectLocalServers(): Promise<LocalServer[]> {
  return call("detect_local_servers", {});
}
export function saveProviderKey(id: ProviderConfig["id"], key: string): Promise<void> {
  return call("save_provider_key", { id, key });
}
export function removeProvider(id: ProviderConfig["id"]): Promise<boolean> {
  return call("remove_provider", { id });
}
export function listModels(id: ProviderConfig["id"]): Promise<string[]> {
  return call("list_models", { id });
}

// ---- rules and records ----

export function listRules(): Promise<Rule[]> {
  return call("list_rules", {});
}
export function revokeRule(id: Rule["id"]): Promise<boolean> {
  return call("revoke_rule", { id });
}
export function listRecords(chat: ChatId): Promise<ApprovalRecordRow[]> {
  return call("list_records", { chat });
}
// ---- the provenance gate (F-82…F-85) ----

/** What the chat's header says about the content the model has read and the ways out. */
export function chatExposure(chat: ChatId): Promise<ExposureView> {
  return call("chat_exposure", { chat });
}
/** Turns the chat's ways out off (or on again). */
export function setWaysOutOff(chat: ChatId, off: boolean): Promise<void> {
  return call("set_ways_out_off", { chat, off });
}
/** Trusts a source for the rest of the chat. */
export function endorseSource(chat: ChatId, source: TrustKey): Promise<void> {
  return call("endorse_source", { chat, source });
}
/** Takes back an endorsement. */
export function unendorseSource(chat: ChatId, source: TrustKey): Promise<void> {
  return call("unendorse_source", { chat, source });
}
/** How consequential calls were decided, in one chat or in every chat (`null`). */
export function autonomy(chat: ChatId | null): Promise<Autonomy> {
  return call("autonomy", { chat });
}
/** The files tools wrote from untrusted content, newest first. */
export function writtenFiles(): Promise<WrittenFile[]> {
  return call("written_files", {});
}
/** Trusts a file written from untrusted content: reading it no longer counts as untrusted. */
export function trustWrittenFile(workspace: string, path: string): Promise<void> {
  return call("trust_written_file", { workspace, path });
}
/** Which past calls an "always allow" rule would have covered. */
export function ruleCoverage(tool: string, pattern: string | null, scope: RuleScope): Promise<RuleCoverage> {
  return call("rule_coverage", { tool, pattern, scope });
}

export function revokeRecord(chat: ChatId, tool: string, argsHash: string): Promise<boolean> {
  return call("revoke_record", { chat, tool, argsHash });
}

// ---- MCP servers ----

export function listMcpServers(): Promise<McpServerView[]> {
  return call("list_mcp_servers", {});
}
/** Adds a server, or changes the one called `previous`. Blank secret values keep the stored ones. */
/** Stops one running call from its card; the turn goes on. Resolves to whether it was running. */
export function stopCall(chat: ChatId, seq: number): Promise<boolean> {
  return call("stop_call", { chat, seq });
}
export function saveMcpServer(config: McpServerConfig, previous: string | null): Promise<void> {
  return call("save_mcp_server", { config, previous });
}
/** Imports `{"mcpServers": {...}}` JSON; resolves to the imported names. */
export function importMcpServers(json: string): Promise<string[]> {
  return call("import_mcp_servers", { json });
}
export function removeMcpServer(name: string): Promise<void> {
  return call("remove_mcp_server", { name });
}
export function restartMcpServer(name: string): Promise<void> {
  return call("restart_mcp_server", { name });
}
/**
 * Accepts an MCP tool as it is now, after its change was read (SPEC §11): the rules, records and
 * policy set for it apply again. `fingerprint` names what was read; a tool changed again since
 * is refused.
 */
/**
 * Signs in to a remote MCP server (SPEC §11): the system browser opens at its authorization
 * server; resolves when the browser came back, or rejects (cancelled, timed out, refused).
 */
export function signInMcpServer(name: string): Promise<OAuthRecord> {
  return call("sign_in_mcp_server", { name });
}
/** Stops a sign-in waiting for the browser; whether one was. */
export function cancelMcpSignIn(name: string): Promise<boolean> {
  return call("cancel_mcp_sign_in", { name });
}
/** Signs out of a remote server: its tokens leave the keychain. */
export function signOutMcpServer(name: string): Promise<void> {
  return call("sign_out_mcp_server", { name });
}
export function acceptMcpToolChange(server: string, tool: string, fingerprint: string): Promise<void> {
  return call("accept_mcp_tool_change", { server, tool, fingerprint });
}
/** A running server's first-sight review (SPEC §12): what it says, what its tools claim, what the scan flags. */
export function mcpServerReview(server: string): Promise<ServerReview> {
  return call("mcp_server_review", { server });
}
/** Confirms what was read in a server's review (`fingerprint`) with the effects settled on per tool. */
export function confirmMcpServer(server: string, fingerprint: string, effects: Record<string, ToolEffects>): Promise<void> {
  return call("confirm_mcp_server", { server, fingerprint, effects });
}
/** Fires whenever a server's state or tools change. Resolves to an unsubscribe function. */
/** The resources of the running MCP servers (F-45), to attach to a message. */
export function listMcpResources(): Promise<McpResourceView[]> {
  return call("list_mcp_resources", {});
}
/** The prompts of the running MCP servers (F-45), for the composer's `/`. */
export function listMcpPrompts(): Promise<McpPromptView[]> {
  return call("list_mcp_prompts", {});
}
/** A server's resource as attachments for the message being written. */
export function readMcpResource(server: string, uri: string): Promise<Attachment[]> {
  return call("read_mcp_resource", { server, uri });
}
/** Prepares the view of call `seq` (MCP Apps, F-96): the address its frame loads once, and what the view is told. */
export function openMcpView(chat: ChatId, seq: number): Promise<McpViewDocument> {
  return call("open_mcp_view", { chat, seq });
}
/** How call `seq` ended, for its view shown while it ran; `null` while it still runs. */
export function mcpViewOutcome(chat: ChatId, seq: number): Promise<McpViewOutcome | null> {
  return call("mcp_view_outcome", { chat, seq });
}
/** Shows views again after the window paused them (it stopped responding while views were shown). */
export function resumeMcpViews(): Promise<void> {
  return call("resume_mcp_views", {});
}
/** A `tools/call` from the view of call `seq`: run through the chat's gate; the `CallToolResult`. */
export function mcpViewCallTool(chat: ChatId, seq: number, name: string, args: Record<string, unknown>): Promise<unknown> {
  return call("mcp_view_call_tool", { chat, seq, name, arguments: args as JsonValue });
}
/** A `resources/read` from the view of call `seq`, from its own server. */
export function mcpViewReadResource(chat: ChatId, seq: number, uri: string): Promise<unknown> {
  return call("mcp_view_read_resource", { chat, seq, uri });
}
/** A server's prompt filled in with `args`, for the composer. */
export function getMcpPrompt(server: string, name: string, args: Record<string, string>): Promise<FilledPrompt> {
  return call("get_mcp_prompt", { server, name, arguments: args });
}
export async function onMcpChanged(handler: () => void): Promise<() => void> {
  if (!available()) return () => {};
  return listen("mcp-changed", () => handler());
}

// ---- native dialogs ----

/** The native folder picker; resolves to the chosen folder, or null if the user cancelled. */
/** Puts text on the system clipboard (the window may write the clipboard, never read it). */
export async function copyText(text: string): Promise<void> {
  if (!available()) throw new BackendUnavailableError();
  await writeText(text);
}

/** Opens a web or mail link in the system's browser or mail app (the opener plugin), never in the window. */
export async function openExternal(url: string): Promise<void> {
  if (!available()) throw new BackendUnavailableError();
  await openUrl(url);
}

export async function pickFolder(title: string, start: string | null): Promise<string | null> {
  if (!available()) throw new BackendUnavailableError();
  const chosen = await openDialog(
    start ? { directory: true, multiple: false, title, defaultPath: start } : { directory: true, multiple: false, title },
  );
  return typeof chosen === "string" ? chosen : null;
}
