//! Presets ("assistants", F-58): listed and edited in Settings, chosen when a chat starts.

use crate::state::AppState;
use tauri::State;
use tollgate_protocol::CommandError;
use tollgate_store::{ChatRow, Preset, PresetInput};

#[tauri::command]
pub async fn list_presets(state: State<'_, AppState>) -> Result<Vec<Preset>, CommandError> {
    Ok(state.app.presets().list_presets().await?)
}

/// Adds a preset (`id` null) or changes one.
#[tauri::command]
pub async fn save_preset(
    state: State<'_, AppState>,
    id: Option<i64>,
    preset: PresetInput,
) -> Result<Preset, CommandError> {
    Ok(state.app.presets().save_preset(id, preset).await?)
}

#[tauri::command]
pub async fn delete_preset(state: State<'_, AppState>, id: i64) -> Result<bool, CommandError> {
    Ok(state.app.presets().delete_preset(id).await?)
}

/// A new chat with the preset's prompt, model, parameters and tool groups.
#[tauri::command]
pub async fn create_chat_from_preset(
    state: State<'_, AppState>,
    preset: i64,
) -> Result<ChatRow, CommandError> {
    Ok(state.app.presets().create_chat_from_preset(preset).await?)
}
