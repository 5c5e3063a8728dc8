// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// The app's settings and the model providers.
import type { TurnSettings } from "./chat";
import type { ToolSettings } from "./tools";

export type ToolCalling = "native" | "text";

export type Theme = "system" | "light" | "dark";

export type Language = "en" | "zh-CN";

export type AppSettings = { theme: Theme, language: Language, turn: TurnSettings, 
/**
 * While the window is not focused, an approval or question that starts waiting shows a
 * system notification (F-59).
 */
notify: boolean, 
/**
 * ... and asks for the window's attention (the taskbar's urgency hint) (F-59).
 */
attentionHint: boolean, 
/**
 * Show the views MCP servers ship with their tools (MCP Apps, F-96); each server
 * has its own switch too.
 */
mcpViews: boolean, };

export type SettingsView = { app: AppSettings, tools: ToolSettings, };

export type ModelChoice = { provider: number, model: string, };

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
