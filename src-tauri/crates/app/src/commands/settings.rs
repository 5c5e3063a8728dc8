//! Settings (F-53): general and tool settings.

use crate::state::AppState;
use tauri::State;
use tollgate_engine::service::{AppSettings, SettingsView};
use tollgate_protocol::{CommandError, ToolSettings};

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> SettingsView {
    state.app.gate().settings_view()
}

#[tauri::command]
pub async fn set_app_settings(
    state: State<'_, AppState>,
    settings: AppSettings,
) -> Result<(), CommandError> {
    Ok(state.app.preferences().set_app_settings(settings).await?)
}

#[tauri::command]
pub async fn set_tool_settings(
    state: State<'_, AppState>,
    settings: ToolSettings,
) -> Result<ToolSettings, CommandError> {
    Ok(state.app.preferences().set_tool_settings(settings).await?)
}
