// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
export * from "./generated/common";
export * from "./generated/sandbox";
export * from "./generated/gate";
export * from "./generated/tools";
export * from "./generated/chat";
export * from "./generated/mcp";
export * from "./generated/settings";

/** The most live output one event carries (`tools::live_output`); the window keeps as many characters of a running call's output. */
export const LIVE_TAIL_BYTES = 16384;

/** How many messages the window reads first when it opens a chat (`service::chats`), back to the start of their turn. */
export const HISTORY_FIRST_PAGE = 60;

/** How many messages each later page of a chat's history reads. */
export const HISTORY_PAGE = 250;

/** The words that make a name a secret's (`tollgate_secrets::names`): one list for the engine and the window (ui/src/secretNames.ts splits names the same way). */
export const SECRET_NAME_WORDS = ["token", "secret", "password", "passwd", "passphrase", "passcode", "pwd", "pin", "key", "apikey", "accesskey", "privatekey", "credential", "credentials", "auth", "oauth", "authorization", "session", "sessionid", "cookie", "bearer", "otp"] as const;

/** The shortest listed word a longer word may end in and still count as it. */
export const SECRET_SUFFIX_MIN = 5;

/** The schemes of links in answers that open outside the app (`tollgate_names::open`); the opener's capability file allows these and no others. */
export const LINK_SCHEMES = ["https", "http", "mailto"] as const;
