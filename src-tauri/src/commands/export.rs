//! Export a chat (F-55) as Markdown or JSON text; the UI saves it where the user picks.

use crate::state::{message, AppState};
use serde::Deserialize;
use tauri::State;
use tollgate_engine::ChatId;

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Markdown,
    Json,
}

#[tauri::command]
pub async fn export_chat(
    state: State<'_, AppState>,
    chat: ChatId,
    format: ExportFormat,
) -> Result<String, String> {
    let store = &state.app.store;
    match format {
        ExportFormat::Markdown => tollgate_engine::chat::export::markdown(store, chat)
            .await
            .map_err(message),
        ExportFormat::Json => {
            let v = tollgate_engine::chat::export::json(store, chat)
                .await
                .map_err(message)?;
            serde_json::to_string_pretty(&v).map_err(message)
        }
    }
}
