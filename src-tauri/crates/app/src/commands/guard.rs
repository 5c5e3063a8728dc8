//! The provenance gate (F-82…F-85): a chat's exposure, its ways out, endorsements, the autonomy
//! figures, the rule preview, and the files written from untrusted content.

use crate::state::AppState;
use tauri::State;
use tollgate_engine::service::RuleCoverage;
use tollgate_engine::ChatId;
use tollgate_protocol::{Autonomy, CommandError, ExposureView, RuleScope, TrustKey, WrittenFile};

#[tauri::command]
pub async fn chat_exposure(
    state: State<'_, AppState>,
    chat: ChatId,
) -> Result<ExposureView, CommandError> {
    Ok(state.app.gate().chat_exposure(chat).await?)
}

#[tauri::command]
pub async fn set_ways_out_off(
    state: State<'_, AppState>,
    chat: ChatId,
    off: bool,
) -> Result<(), CommandError> {
    Ok(state.app.gate().set_ways_out_off(chat, off).await?)
}

#[tauri::command]
pub async fn endorse_source(
    state: State<'_, AppState>,
    chat: ChatId,
    source: TrustKey,
) -> Result<(), CommandError> {
    Ok(state.app.gate().endorse(chat, source).await?)
}

#[tauri::command]
pub async fn unendorse_source(
    state: State<'_, AppState>,
    chat: ChatId,
    source: TrustKey,
) -> Result<(), CommandError> {
    Ok(state.app.gate().unendorse(chat, source).await?)
}

#[tauri::command]
pub async fn autonomy(
    state: State<'_, AppState>,
    chat: Option<ChatId>,
) -> Result<Autonomy, CommandError> {
    Ok(state.app.gate().autonomy(chat).await?)
}

#[tauri::command]
pub async fn written_files(state: State<'_, AppState>) -> Result<Vec<WrittenFile>, CommandError> {
    Ok(state.app.gate().written_files().await?)
}

#[tauri::command]
pub async fn trust_written_file(
    state: State<'_, AppState>,
    workspace: String,
    path: String,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .gate()
        .trust_written_file(&workspace, &path)
        .await?)
}

#[tauri::command]
pub async fn rule_coverage(
    state: State<'_, AppState>,
    tool: String,
    pattern: Option<String>,
    scope: RuleScope,
) -> Result<RuleCoverage, CommandError> {
    Ok(state
        .app
        .gate()
        .rule_coverage(&tool, pattern, scope)
        .await?)
}
