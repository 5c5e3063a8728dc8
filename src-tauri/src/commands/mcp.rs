//! MCP servers (F-45): list with their state, add or change, import `mcpServers` JSON, remove,
//! restart. Secret values never come back to the UI (they are blanked in every view).

use crate::state::AppState;
use tauri::State;
use tollgate_engine::mcp::McpServerConfig;
use tollgate_engine::protocol::CommandError;
use tollgate_engine::service::McpServerView;

#[tauri::command]
pub fn list_mcp_servers(state: State<'_, AppState>) -> Vec<McpServerView> {
    state.app.mcp_servers()
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
        .save_mcp_server(config, previous.as_deref())
        .await?)
}

/// Returns the names of the imported servers.
#[tauri::command]
pub async fn import_mcp_servers(
    state: State<'_, AppState>,
    json: String,
) -> Result<Vec<String>, CommandError> {
    Ok(state.app.import_mcp_servers(&json).await?)
}

#[tauri::command]
pub async fn remove_mcp_server(
    state: State<'_, AppState>,
    name: String,
) -> Result<(), CommandError> {
    Ok(state.app.remove_mcp_server(&name).await?)
}

#[tauri::command]
pub fn restart_mcp_server(state: State<'_, AppState>, name: String) -> Result<(), CommandError> {
    Ok(state.app.restart_mcp_server(&name)?)
}
