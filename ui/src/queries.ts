/**
 * The pieces of server state the views share, each with the key it is cached under and the call
 * that reads it: one place that says what a key holds, so a view that shows it and the change
 * that must refresh it name the same thing. Keys run from the general to the particular, so a
 * prefix refreshes a family (`invalidate(["providers"])` also refreshes each provider's models).
 */
import * as api from "./api";
import type { Query, QueryKey } from "./serverState";
import type {
  ApprovalRecordRow,
  Autonomy,
  ChatId,
  ExposureView,
  GroupView,
  LocalServer,
  McpPromptView,
  McpResourceView,
  McpServerView,
  Preset,
  ProviderConfig,
  Rule,
  RuleCoverage,
  RuleScope,
  SandboxSupport,
  ServerReview,
  WrittenFile,
} from "./types";

/** Everything about model providers: the list and each one's models. */
export const PROVIDERS = ["providers"] as const;
/** The configured providers. */
export const providersQuery: Query<ProviderConfig[]> = { key: PROVIDERS, load: () => api.listProviders() };
/** The models a provider offers (read from the provider itself). */
export function modelsQuery(provider: ProviderConfig["id"]): Query<string[]> {
  return { key: [...PROVIDERS, provider, "models"], load: () => api.listModels(provider) };
}
/** Model servers running on this machine, for one-click adding. */
export const localServersQuery: Query<LocalServer[]> = { key: ["localServers"], load: () => api.detectLocalServers() };

/** The chat presets (the New chat menu and Settings → Presets). */
export const PRESETS = ["presets"] as const;
export const presetsQuery: Query<Preset[]> = { key: PRESETS, load: () => api.listPresets() };

/** The tool groups as the app's settings have them. */
export const toolGroupsQuery: Query<GroupView[]> = { key: ["toolGroups"], load: () => api.listToolGroups() };

/** How many approvals and questions wait in each chat (the sidebar's badges). */
export const WAITING = ["waitingCounts"] as const;
export const waitingQuery: Query<Record<string, number>> = { key: WAITING, load: () => api.waitingCounts() };

/** Everything kept about one chat. */
export function chatKey(chat: ChatId): readonly [string, ChatId] {
  return ["chat", chat];
}
/** A chat's tool groups, with its own overrides applied. */
export function chatToolGroupsQuery(chat: ChatId): Query<GroupView[]> {
  return { key: [...chatKey(chat), "toolGroups"], load: () => api.chatToolGroups(chat) };
}
/** What a chat has read (untrusted content, private data, ways out), each version of the chat under its own key. */
export function exposureKey(chat: ChatId): QueryKey {
  return [...chatKey(chat), "exposure"];
}
export function exposureQuery(chat: ChatId, version: string): Query<ExposureView> {
  return { key: [...exposureKey(chat), version], load: () => api.chatExposure(chat) };
}

/** The standing rules. */
export const RULES = ["rules"] as const;
export const rulesQuery: Query<Rule[]> = { key: RULES, load: () => api.listRules() };
/** The ask-once answers (approval records), each chat's under its id. */
export const RECORDS = ["records"] as const;
export function recordsQuery(chat: ChatId): Query<ApprovalRecordRow[]> {
  return { key: [...RECORDS, chat], load: () => api.listRecords(chat) };
}
/** Which past calls a rule being written would have allowed. */
export function ruleCoverageQuery(chat: ChatId, tool: string, pattern: string | null, scope: RuleScope): Query<RuleCoverage> {
  const where = scope.type === "chat" ? `chat:${scope.chat}` : scope.type;
  return { key: ["ruleCoverage", chat, tool, pattern, where], load: () => api.ruleCoverage(tool, pattern, scope) };
}

/** How autonomous the agent was, in all chats (a chat's own figures are read with its strip). */
export const AUTONOMY = ["autonomy"] as const;
export const autonomyQuery: Query<Autonomy> = { key: [...AUTONOMY, "all"], load: () => api.autonomy(null) };

/** The files tools wrote from untrusted content. */
export const WRITTEN_FILES = ["writtenFiles"] as const;
export const writtenFilesQuery: Query<WrittenFile[]> = { key: WRITTEN_FILES, load: () => api.writtenFiles() };

/** What the running MCP servers are and offer: refreshed whenever a server changes (`api.onMcpChanged`). */
export const MCP = ["mcp"] as const;
/**
 * Subscribes to the backend's word that an MCP server connected, failed, restarted or changed
 * what it offers: after it, everything under `MCP` is stale. (Read lazily, so a view that only
 * passes it on never touches the backend while it renders.)
 */
export function onMcpChanged(handler: () => void): Promise<() => void> {
  return api.onMcpChanged(handler);
}
export const mcpServersQuery: Query<McpServerView[]> = { key: [...MCP, "servers"], load: () => api.listMcpServers() };
export const mcpResourcesQuery: Query<McpResourceView[]> = { key: [...MCP, "resources"], load: () => api.listMcpResources() };
export const mcpPromptsQuery: Query<McpPromptView[]> = { key: [...MCP, "prompts"], load: () => api.listMcpPrompts() };
/**
 * A server's first-sight review as of its review state. Not under `MCP`: a review being read
 * must not be read again (and re-rendered) on every server event, only when its state changes.
 */
export function mcpReviewQuery(server: string, review: string): Query<ServerReview> {
  return { key: ["mcpReview", server, review], load: () => api.mcpServerReview(server) };
}

/** What this machine's sandbox can do, and the paths it hides. */
export const sandboxSupportQuery: Query<SandboxSupport> = { key: ["sandbox", "support"], load: () => api.sandboxSupport() };
export const sandboxHiddenQuery: Query<string[]> = { key: ["sandbox", "hiddenPaths"], load: () => api.sandboxHiddenPaths() };

/** Where the log file is. */
export const logFolderQuery: Query<string | null> = { key: ["logFolder"], load: () => api.logFolder() };
