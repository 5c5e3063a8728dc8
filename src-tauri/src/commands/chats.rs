//! Chats: list, create, rename, delete, search, workspace, provider and model, and a chat's
//! stored history.

use crate::state::{message, AppState};
use serde::Serialize;
use tauri::State;
use tollgate_engine::store::{ChatRow, MessageRow, NewChat, RecordedCall, SearchHit};
use tollgate_engine::ChatId;

#[tauri::command]
pub async fn list_chats(state: State<'_, AppState>) -> Result<Vec<ChatRow>, String> {
    state.app.store.list_chats().await.map_err(message)
}

#[tauri::command]
pub async fn create_chat(state: State<'_, AppState>, chat: NewChat) -> Result<ChatRow, String> {
    state.app.store.create_chat(chat).await.map_err(message)
}

#[tauri::command]
pub async fn rename_chat(
    state: State<'_, AppState>,
    chat: ChatId,
    title: String,
) -> Result<(), String> {
    state
        .app
        .store
        .rename_chat(chat, title.trim().to_string())
        .await
        .map_err(message)
}

#[tauri::command]
pub async fn delete_chat(state: State<'_, AppState>, chat: ChatId) -> Result<(), String> {
    state.app.delete_chat(chat).await.map_err(message)
}

#[tauri::command]
pub async fn search_chats(
    state: State<'_, AppState>,
    query: String,
) -> Result<Vec<SearchHit>, String> {
    state.app.store.search_chats(&query).await.map_err(message)
}

#[tauri::command]
pub async fn set_chat_workspace(
    state: State<'_, AppState>,
    chat: ChatId,
    workspace: Option<String>,
) -> Result<(), String> {
    let exec = state.app.executor(chat).await.map_err(message)?;
    exec.set_workspace(workspace.filter(|w| !w.trim().is_empty()).map(Into::into))
        .await
        .map_err(message)
}

/// A chat's messages and recorded tool calls, to rebuild the timeline on open.
#[derive(ts_rs::TS, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatHistory {
    pub messages: Vec<MessageRow>,
    pub calls: Vec<RecordedCall>,
    pub running: bool,
}

#[tauri::command]
pub async fn chat_history(state: State<'_, AppState>, chat: ChatId) -> Result<ChatHistory, String> {
    let store = &state.app.store;
    Ok(ChatHistory {
        messages: store.chat_messages(chat).await.map_err(message)?,
        calls: store.chat_calls(chat).await.map_err(message)?,
        running: state.app.is_running(chat),
    })
}

/// The chat's provider (`null`: the first configured one) and model (empty: the provider's default).
#[tauri::command]
pub async fn set_chat_model(
    state: State<'_, AppState>,
    chat: ChatId,
    provider_id: Option<i64>,
    model: String,
) -> Result<(), String> {
    state
        .app
        .set_chat_model(chat, provider_id, &model)
        .await
        .map_err(message)
}
