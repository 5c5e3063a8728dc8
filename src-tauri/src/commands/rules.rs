//! Rules and ask-once records (F-03, F-04): list and revoke.

use crate::state::{message, AppState};
use tauri::State;
use tollgate_engine::rules::Rule;
use tollgate_engine::store::ApprovalRecordRow;
use tollgate_engine::ChatId;

#[tauri::command]
pub fn list_rules(state: State<'_, AppState>) -> Vec<Rule> {
    state.app.rules.list()
}

#[tauri::command]
pub async fn revoke_rule(state: State<'_, AppState>, id: i64) -> Result<bool, String> {
    state.app.rules.remove(id).await.map_err(message)
}

#[tauri::command]
pub async fn list_records(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<Vec<ApprovalRecordRow>, String> {
    state
        .app
        .store
        .approval_records(chat)
        .await
        .map_err(message)
}

#[tauri::command]
pub async fn revoke_record(
    state: State<'_, AppState>,
    chat: ChatId,
    tool: String,
    args_hash: String,
) -> Result<bool, String> {
    let exec = state.app.executor(chat).await.map_err(message)?;
    exec.revoke_record(&tool, &args_hash).await.map_err(message)
}
