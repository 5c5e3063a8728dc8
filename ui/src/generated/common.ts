// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// Ids, JSON values and the error every command rejects with.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type ChatId = number;

export type ApprovalId = string;

export type ErrorKind = "busy" | "notFound" | "invalid" | "keychain" | "provider" | "storage" | "internal";

export type Missing = { "type": "chat", chat: ChatId, } | { "type": "provider", provider: number, } | { "type": "preset", preset: number, } | { "type": "message", chat: ChatId, message: number, } | { "type": "call", chat: ChatId, seq: number, } | { "type": "mcpServer", name: string, } | { "type": "tool", tool: string, };

export type Invalid = { "type": "emptyMessage" } | { "type": "emptyTitle" } | { "type": "presetWithoutName" } | { "type": "temperature", value: number, } | { "type": "maxTokens" } | { "type": "noSuchProvider", provider: number, } | { "type": "mcpNameTaken", name: string, } | { "type": "mcpNotRunning", server: string, } | { "type": "mcpToolNotUnderReview", server: string, tool: string, } | { "type": "mcpToolChangedAgain", server: string, tool: string, } | { "type": "mcpTextsChanged", server: string, } | { "type": "settingsChanged" } | { "type": "elicitationAnswer", reason: string, } | { "type": "mcpSignIn", server: string, reason: string, } | { "type": "mcpNotRemote", server: string, } | { "type": "mcpSignInUnderWay", server: string, } | { "type": "mcpSecretsNotReused", server: string, secrets: Array<string>, } | { "type": "mcpViewsPaused", servers: Array<string>, } | { "type": "sandboxOffUnconfirmed" } | { "type": "notBlocked", seq: number, } | { "type": "import", reason: string, } | { "type": "other", message: string, };

export type CommandError = { kind: ErrorKind, 
/**
 * The whole failure in English (the log, and words no catalogue has).
 */
message: string, 
/**
 * What was missing, as data: the window words it in the user's language.
 */
missing: Missing | null, 
/**
 * What was refused, as data: the window words it in the user's language.
 */
invalid: Invalid | null, };

export type McpViewLink = { server: string, uri: string, };
