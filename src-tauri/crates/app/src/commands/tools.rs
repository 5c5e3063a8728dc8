//! Tool groups and tools, app-wide (settings) and per chat (the tools popover, F-54).

use crate::state::AppState;
use tauri::State;
use tollgate_engine::ChatId;
use tollgate_protocol::{ChatSandbox, CommandError, GroupView, SandboxSupport};

/// Every tool group with its tools, policies and app-wide toggles.
#[tauri::command]
pub fn list_tool_groups(state: State<'_, AppState>) -> Vec<GroupView> {
    state.app.gate().tool_groups()
}

/// The groups as one chat sees them (its own toggles applied).
#[tauri::command]
pub async fn chat_tool_groups(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<Vec<GroupView>, CommandError> {
    Ok(state.app.gate().chat_tool_groups(chat).await?)
}

/// `enabled: null` follows the app-wide setting.
#[tauri::command]
pub async fn set_chat_group_enabled(
    state: State<'_, AppState>,
    chat: ChatId,
    group: String,
    enabled: Option<bool>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .gate()
        .set_chat_group_enabled(chat, &group, enabled)
        .await?)
}

/// `enabled: null` follows the app-wide setting.
#[tauri::command]
pub async fn set_chat_tool_enabled(
    state: State<'_, AppState>,
    chat: ChatId,
    tool: String,
    enabled: Option<bool>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .gate()
        .set_chat_tool_enabled(chat, &tool, enabled)
        .await?)
}

/// Sets the chat's sandbox level and network switch (F-46). `confirmedOff`: the user confirmed
/// turning the sandbox off.
#[tauri::command]
pub async fn set_chat_sandbox(
    state: State<'_, AppState>,
    chat: ChatId,
    sandbox: ChatSandbox,
    confirmed_off: bool,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .gate()
        .set_chat_sandbox(chat, sandbox, confirmed_off)
        .await?)
}

/// What this system's sandbox can enforce.
#[tauri::command]
pub async fn sandbox_support() -> SandboxSupport {
    tollgate_tools::supervisor::sandbox_support().await
}

/// The paths no sandboxed command and no file tool reads (the popover lists them).
#[tauri::command]
pub fn sandbox_hidden_paths(state: State<'_, AppState>) -> Vec<String> {
    state.app.gate().hidden_paths()
}
