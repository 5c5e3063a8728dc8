//! MCP Apps views (F-96): prepare a call's view for its frame, and what the view asks the
//! host for — a call to its own server's tools (through the chat's gate) and a read of its
//! server's resources. The frame itself has no way to these commands: the window's own code
//! calls them for it, after checking what it asked.

use crate::state::AppState;
use serde_json::Value;
use tauri::State;
use tollgate_engine::ChatId;
use tollgate_protocol::{CommandError, McpViewDocument, McpViewOutcome};

/// Prepares call `seq`'s view: the address its frame loads once, and what the host tells it.
#[tauri::command]
pub async fn open_mcp_view(
    state: State<'_, AppState>,
    chat: ChatId,
    seq: u64,
) -> Result<McpViewDocument, CommandError> {
    Ok(state.app.mcp_views().open_view(chat, seq).await?)
}

/// How call `seq` ended, for its view shown while it ran; `None` while it still runs.
#[tauri::command]
pub async fn mcp_view_outcome(
    state: State<'_, AppState>,
    chat: ChatId,
    seq: u64,
) -> Result<Option<McpViewOutcome>, CommandError> {
    Ok(state.app.mcp_views().view_outcome(chat, seq).await?)
}

/// Shows views again after the window paused them (it stopped responding, or its page ended,
/// while views were shown): the user read why and asked.
#[tauri::command]
pub fn resume_mcp_views(state: State<'_, AppState>) {
    state.app.mcp_views().resume_views();
}

/// A `tools/call` from call `seq`'s view, run through the chat's gate; the `CallToolResult`.
#[tauri::command]
pub async fn mcp_view_call_tool(
    state: State<'_, AppState>,
    chat: ChatId,
    seq: u64,
    name: String,
    arguments: Value,
) -> Result<Value, CommandError> {
    Ok(state
        .app
        .mcp_views()
        .view_call_tool(chat, seq, name, arguments)
        .await?)
}

/// A `resources/read` from call `seq`'s view, from its own server.
#[tauri::command]
pub async fn mcp_view_read_resource(
    state: State<'_, AppState>,
    chat: ChatId,
    seq: u64,
    uri: String,
) -> Result<Value, CommandError> {
    Ok(state
        .app
        .mcp_views()
        .view_read_resource(chat, seq, uri)
        .await?)
}
