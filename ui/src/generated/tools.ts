// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// Tools, their groups and settings.
import type { ExecutionPolicy, GuardSettings, ResultPolicy, ToolEffects, TrustKey } from "./gate";
import type { ChatSandbox } from "./sandbox";

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
 * the provenance gate does not take them at their word (SPEC §12).
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

export type ToolOverride = { enabled?: boolean, executionPolicy?: ExecutionPolicy, resultPolicy?: ResultPolicy, timeoutMs?: number, outputLimit?: number, 
/**
 * What a call of the tool may do, in place of its own declaration (F-81). For an MCP
 * tool, setting it is also the user's confirmation of what the server claims (SPEC §12).
 */
effects?: ToolEffects, 
/**
 * The arguments that name where a call goes (names or JSON pointers), in place of the
 * tool's own (SPEC §12).
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
guard: GuardSettings, 
/**
 * How many times the settings were saved. A save made from an older copy is refused
 * (`Invalid::SettingsChanged`): a window that loaded the settings before a review was
 * confirmed never writes the confirmation away with its stale copy.
 */
revision: number, };
