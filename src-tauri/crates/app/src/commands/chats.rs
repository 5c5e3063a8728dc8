//! Chats: list, create, rename, delete, search, workspace, provider and model, history, export
//! to a file.

use crate::state::AppState;
use tauri::State;
use tollgate_engine::service::{ChatHistory, ChatRevision, ExportFormat};
use tollgate_engine::ChatId;
use tollgate_protocol::{CommandError, ErrorKind};
use tollgate_store::{ChatCursor, ChatParams, ChatRow, NewChat, SearchHit};

/// A page of the sidebar's chats, newest first: `limit` after `after` (the top when absent).
#[tauri::command]
pub async fn list_chats(
    state: State<'_, AppState>,
    after: Option<ChatCursor>,
    limit: u32,
) -> Result<Vec<ChatRow>, CommandError> {
    Ok(state.app.list_chats_page(after, limit).await?)
}

/// One chat, `None` once deleted: the chat on screen when no loaded page holds it.
#[tauri::command]
pub async fn get_chat(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<Option<ChatRow>, CommandError> {
    Ok(state.app.chat(chat).await?)
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
    Ok(state.app.chats().delete_chat(chat).await?)
}

/// Stops one running call from its card; the turn goes on. Whether it was running.
#[tauri::command]
pub async fn stop_call(
    state: State<'_, AppState>,
    chat: ChatId,
    seq: u64,
) -> Result<bool, CommandError> {
    Ok(state.app.chats().stop_call(chat, seq).await)
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

/// A chat's messages and recorded tool calls, to rebuild the timeline on open: the last `limit`
/// messages of the branch on screen (`before` null) or of the ancestors of message `before`,
/// back to the start of their turn; a null `limit` reads them all.
#[tauri::command]
pub async fn chat_history(
    state: State<'_, AppState>,
    chat: ChatId,
    before: Option<i64>,
    limit: Option<u32>,
) -> Result<ChatHistory, CommandError> {
    let limit = limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
    Ok(state.app.chats().chat_history(chat, before, limit).await?)
}

/// The chat's revision and whether a turn runs: whether a window that holds the chat must read it again.
#[tauri::command]
pub async fn chat_revision(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<ChatRevision, CommandError> {
    Ok(state.app.chat_revision(chat).await?)
}

/// The chat's provider (`null`: the first configured one) and model (empty: the provider's default).
#[tauri::command]
pub async fn set_chat_model(
    state: State<'_, AppState>,
    chat: ChatId,
    provider_id: Option<i64>,
    model: String,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .chats()
        .set_chat_model(chat, provider_id, &model)
        .await?)
}

/// The chat's system prompt, temperature and longest answer (F-58); the next turn uses them.
#[tauri::command]
pub async fn set_chat_prompt(
    state: State<'_, AppState>,
    chat: ChatId,
    system_prompt: String,
    params: ChatParams,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .set_chat_prompt(chat, &system_prompt, params)
        .await?)
}

/// Saves the chat as Markdown or JSON where the user picks in the native save dialog (F-55), and
/// returns the file's path; `null` if the dialog was cancelled. The path comes from the dialog,
/// never from the window, so the window has no way to write a file of its choosing.
#[tauri::command]
pub async fn save_chat_export<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    chat: ChatId,
    format: ExportFormat,
) -> Result<Option<String>, CommandError> {
    let target = state.app.chats().export_target(chat, format).await?;
    let Some(path) = crate::dialogs::save_file(&app, &target, format).await? else {
        return Ok(None);
    };
    state
        .app
        .chats()
        .export_chat_to(chat, format, &path)
        .await?;
    Ok(Some(path.display().to_string()))
}

/// The largest export file Tollgate imports (a ChatGPT export of years of use fits).
const IMPORT_LIMIT: u64 = 1 << 30;

/// Asks for an export file with the native open dialog and imports its chats (F-62); returns
/// them, newest first (none if the dialog was cancelled). As with export, the path comes from
/// the dialog, never from the window.
#[tauri::command]
pub async fn import_chats<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<ChatRow>, CommandError> {
    let Some(path) = crate::dialogs::open_import_file(&app).await? else {
        return Ok(Vec::new());
    };
    let unreadable = |e: std::io::Error| {
        CommandError::new(
            ErrorKind::Invalid,
            format!("{} cannot be read: {e}", path.display()),
        )
    };
    let size = tokio::fs::metadata(&path).await.map_err(unreadable)?.len();
    if size > IMPORT_LIMIT {
        return Err(CommandError::new(
            ErrorKind::Invalid,
            format!(
                "{} is {} MB; Tollgate imports files up to {} MB.",
                path.display(),
                size >> 20,
                IMPORT_LIMIT >> 20
            ),
        ));
    }
    let bytes = tokio::fs::read(&path).await.map_err(unreadable)?;
    Ok(state.app.chats().import_chats(&bytes).await?)
}
