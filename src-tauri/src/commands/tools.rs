//! Tool groups and tools, app-wide (settings) and per chat (the tools popover, F-54).

use crate::state::{message, AppState};
use tauri::State;
use tollgate_engine::executor::group_views;
use tollgate_engine::protocol::ChatToolOverrides;
use tollgate_engine::protocol::GroupView;
use tollgate_engine::ChatId;

/// Every tool group with its tools, policies and app-wide toggles.
#[tauri::command]
pub fn list_tool_groups(state: State<'_, AppState>) -> Vec<GroupView> {
    let app = &state.app;
    // The app-wide view shows every group's default, as in a chat with a workspace.
    group_views(
        &app.registry(),
        &app.settings.read(),
        &ChatToolOverrides::default(),
        true,
    )
}

/// The groups as one chat sees them (its own toggles applied).
#[tauri::command]
pub async fn chat_tool_groups(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<Vec<GroupView>, String> {
    Ok(state
        .app
        .executor(chat)
        .await
        .map_err(message)?
        .group_views())
}

#[tauri::command]
pub async fn set_chat_group_enabled(
    state: State<'_, AppState>,
    chat: ChatId,
    group: String,
    enabled: Option<bool>,
) -> Result<(), String> {
    let exec = state.app.executor(chat).await.map_err(message)?;
    exec.set_group_enabled(&group, enabled)
        .await
        .map_err(message)
}

#[tauri::command]
pub async fn set_chat_tool_enabled(
    state: State<'_, AppState>,
    chat: ChatId,
    tool: String,
    enabled: Option<bool>,
) -> Result<(), String> {
    let exec = state.app.executor(chat).await.map_err(message)?;
    exec.set_tool_enabled(&tool, enabled).await.map_err(message)
}
