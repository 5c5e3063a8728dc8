//! Settings (F-53): general and tool settings.

use crate::state::{message, AppState};
use serde::Serialize;
use tauri::State;
use tollgate_engine::protocol::ToolSettings;
use tollgate_engine::service::AppSettings;

#[derive(ts_rs::TS, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub app: AppSettings,
    pub tools: ToolSettings,
}

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> Settings {
    Settings {
        app: state.app.app_settings(),
        tools: state.app.tool_settings(),
    }
}

#[tauri::command]
pub async fn set_app_settings(
    state: State<'_, AppState>,
    settings: AppSettings,
) -> Result<(), String> {
    state.app.set_app_settings(settings).await.map_err(message)
}

#[tauri::command]
pub async fn set_tool_settings(
    state: State<'_, AppState>,
    settings: ToolSettings,
) -> Result<(), String> {
    state.app.set_tool_settings(settings).await.map_err(message)
}
