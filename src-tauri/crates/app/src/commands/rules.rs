//! Rules and ask-once records (F-03, F-04): list and revoke.

use crate::state::AppState;
use tauri::State;
use tollgate_engine::ChatId;
use tollgate_protocol::{CommandError, Rule};
use tollgate_store::ApprovalRecordRow;

#[tauri::command]
pub fn list_rules(state: State<'_, AppState>) -> Vec<Rule> {
    state.app.gate().list_rules()
}

#[tauri::command]
pub async fn revoke_rule(state: State<'_, AppState>, id: i64) -> Result<bool, CommandError> {
    Ok(state.app.gate().revoke_rule(id).await?)
}

#[tauri::command]
pub async fn list_records(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<Vec<ApprovalRecordRow>, CommandError> {
    Ok(state.app.gate().list_records(chat).await?)
}

#[tauri::command]
pub async fn revoke_record(
    state: State<'_, AppState>,
    chat: ChatId,
    tool: String,
    args_hash: String,
) -> Result<bool, CommandError> {
    Ok(state
        .app
        .gate()
        .revoke_record(chat, &tool, &args_hash)
        .await?)
}
