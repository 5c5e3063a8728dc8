//! MCP servers (F-45): list with their state, add or change, import `mcpServers` JSON, remove,
//! restart, accept a changed tool, review and confirm a server at first sight, sign in to and out of remote ones; their resources (attached to a message) and prompts (the composer's `/`). Secret
//! values never come back to the UI (they are blanked in every view).

use crate::state::AppState;
use std::collections::BTreeMap;
use std::sync::Arc;
use tauri::State;
use tauri_plugin_opener::OpenerExt;
use tollgate_engine::service::McpServerView;
use tollgate_mcp::oauth::{Browser, OAuthRecord};
use tollgate_mcp::{FilledPrompt, McpPromptView, McpResourceView, McpServerConfig};
use tollgate_protocol::CommandError;
use tollgate_protocol::{Attachment, ServerReview, ToolEffects};

#[tauri::command]
pub fn list_mcp_servers(state: State<'_, AppState>) -> Vec<McpServerView> {
    state.app.mcp_servers().list()
}

/// Adds a server, or changes the one called `previous`. Empty secret values keep the stored ones.
#[tauri::command]
pub async fn save_mcp_server(
    state: State<'_, AppState>,
    config: McpServerConfig,
    previous: Option<String>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .mcp_servers()
        .save_mcp_server(config, previous.as_deref())
        .await?)
}

/// Returns the names of the imported servers.
#[tauri::command]
pub async fn import_mcp_servers(
    state: State<'_, AppState>,
    json: String,
) -> Result<Vec<String>, CommandError> {
    Ok(state.app.mcp_servers().import_mcp_servers(&json).await?)
}

#[tauri::command]
pub async fn remove_mcp_server(
    state: State<'_, AppState>,
    name: String,
) -> Result<(), CommandError> {
    Ok(state.app.mcp_servers().remove_mcp_server(&name).await?)
}

/// Async: restarting spawns the server's task, which needs the runtime (a command that is not
/// async runs on the main thread, outside it — the app panicked there).
#[tauri::command]
pub async fn restart_mcp_server(
    state: State<'_, AppState>,
    name: String,
) -> Result<(), CommandError> {
    Ok(state.app.mcp_servers().restart_mcp_server(&name)?)
}

/// Accepts an MCP tool as it is now, after its change was read (SPEC §11). `fingerprint` names
/// the definition the user read: a tool changed again since is not accepted.
#[tauri::command]
pub async fn accept_mcp_tool_change(
    state: State<'_, AppState>,
    server: String,
    tool: String,
    fingerprint: String,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .mcp_servers()
        .accept_mcp_tool_change(&server, &tool, &fingerprint)
        .await?)
}

/// The first-sight review of a running server (SPEC §12): its instructions, its tools and what
/// they claim, what the scan flags.
/// Async: off the main thread, so drawing the window never waits for the scan.
#[tauri::command]
pub async fn mcp_server_review(
    state: State<'_, AppState>,
    server: String,
) -> Result<ServerReview, CommandError> {
    Ok(state.app.mcp_servers().mcp_server_review(&server)?)
}

/// Confirms what the user read in a server's review (`fingerprint`) with the effects they
/// settled on per tool (SPEC §12).
#[tauri::command]
pub async fn confirm_mcp_server(
    state: State<'_, AppState>,
    server: String,
    fingerprint: String,
    effects: BTreeMap<String, ToolEffects>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .mcp_servers()
        .confirm_mcp_server(&server, &fingerprint, effects)
        .await?)
}

/// Signs in to a remote server (SPEC §11): the system browser opens at its authorization
/// server; resolves when the browser came back (or the sign-in was cancelled or timed out).
#[tauri::command]
pub async fn sign_in_mcp_server<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<OAuthRecord, CommandError> {
    let opener = app.clone();
    let browser: Browser = Arc::new(move |url: &str| {
        opener
            .opener()
            .open_url(url, None::<&str>)
            .map_err(|e| e.to_string())
    });
    Ok(state
        .app
        .mcp_servers()
        .sign_in_mcp_server(&name, browser)
        .await?)
}

/// Stops a sign-in waiting for the browser; whether one was.
#[tauri::command]
pub fn cancel_mcp_sign_in(state: State<'_, AppState>, name: String) -> bool {
    state.app.mcp_servers().cancel_mcp_sign_in(&name)
}

/// Signs out of a remote server: its tokens leave the keychain.
#[tauri::command]
pub async fn sign_out_mcp_server(
    state: State<'_, AppState>,
    name: String,
) -> Result<(), CommandError> {
    Ok(state.app.mcp_servers().sign_out_mcp_server(&name).await?)
}

#[tauri::command]
pub fn list_mcp_resources(state: State<'_, AppState>) -> Vec<McpResourceView> {
    state.app.mcp_servers().mcp_resources()
}

#[tauri::command]
pub fn list_mcp_prompts(state: State<'_, AppState>) -> Vec<McpPromptView> {
    state.app.mcp_servers().mcp_prompts()
}

/// A server's resource as attachments for the message being written.
#[tauri::command]
pub async fn read_mcp_resource(
    state: State<'_, AppState>,
    server: String,
    uri: String,
) -> Result<Vec<Attachment>, CommandError> {
    Ok(state
        .app
        .mcp_servers()
        .read_mcp_resource(&server, &uri)
        .await?)
}

/// A server's prompt filled in, for the composer (the user reads it before sending).
#[tauri::command]
pub async fn get_mcp_prompt(
    state: State<'_, AppState>,
    server: String,
    name: String,
    arguments: BTreeMap<String, String>,
) -> Result<FilledPrompt, CommandError> {
    Ok(state
        .app
        .mcp_servers()
        .get_mcp_prompt(&server, &name, arguments)
        .await?)
}
