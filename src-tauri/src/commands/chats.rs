//! Chats: list, create, rename, delete, search, workspace, provider and model, history, export.

use crate::state::AppState;
use tauri::State;
use tollgate_engine::protocol::CommandError;
use tollgate_engine::service::{ChatHistory, ExportFormat};
use tollgate_engine::store::{ChatRow, NewChat, SearchHit};
use tollgate_engine::ChatId;

#[tauri::command]
pub async fn list_chats(state: State<'_, AppState>) -> Result<Vec<ChatRow>, CommandError> {
    Ok(state.app.list_chats().await?)
}

#[tauri::command]
pub async fn create_chat(
    state: State<'_, AppState>,
    chat: NewChat,
) -> Result<ChatRow, CommandError> {
    Ok(state.app.create_chat(chat).await?)
}

#[tauri::command]
pub async fn rename_chat(
    state: State<'_, AppState>,
    chat: ChatId,
    title: String,
) -> Result<(), CommandError> {
    Ok(state.app.rename_chat(chat, &title).await?)
}

#[tauri::command]
pub async fn delete_chat(state: State<'_, AppState>, chat: ChatId) -> Result<(), CommandError> {
    Ok(state.app.delete_chat(chat).await?)
}

#[tauri::command]
pub async fn search_chats(
    state: State<'_, AppState>,
    query: String,
) -> Result<Vec<SearchHit>, CommandError> {
    Ok(state.app.search_chats(&query).await?)
}

/// `null` or a blank path clears the workspace.
#[tauri::command]
pub async fn set_chat_workspace(
    state: State<'_, AppState>,
    chat: ChatId,
    workspace: Option<String>,
) -> Result<(), CommandError> {
    Ok(state.app.set_chat_workspace(chat, workspace).await?)
}

/// A chat's messages and recorded tool calls, to rebuild the timeline on open.
#[tauri::command]
pub async fn chat_history(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<ChatHistory, CommandError> {
    Ok(state.app.chat_history(chat).await?)
}

/// The chat's provider (`null`: the first configured one) and model (empty: the provider's default).
#[tauri::command]
pub async fn set_chat_model(
    state: State<'_, AppState>,
    chat: ChatId,
    provider_id: Option<i64>,
    model: String,
) -> Result<(), CommandError> {
    Ok(state.app.set_chat_model(chat, provider_id, &model).await?)
}

/// The chat as Markdown or JSON text; the UI saves it where the user picks.
#[tauri::command]
pub async fn export_chat(
    state: State<'_, AppState>,
    chat: ChatId,
    format: ExportFormat,
) -> Result<String, CommandError> {
    Ok(state.app.export_chat(chat, format).await?)
}
