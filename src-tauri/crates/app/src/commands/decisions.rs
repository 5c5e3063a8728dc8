//! Decisions on approvals (F-05, F-06), answers to `ask_user` (F-24) and to MCP servers'
//! questions (SPEC §11).

use crate::state::AppState;
use std::collections::HashMap;
use tauri::State;
use tollgate_engine::{ApprovalId, ChatId, Decision, PendingApproval};
use tollgate_protocol::{CommandError, ElicitationAnswer};

#[tauri::command]
pub async fn answer_approval(
    state: State<'_, AppState>,
    chat: ChatId,
    id: String,
    decision: Decision,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .asks()
        .answer_approval(chat, &ApprovalId::from_string(id), decision)
        .await?)
}

#[tauri::command]
pub fn answer_question(
    state: State<'_, AppState>,
    chat: ChatId,
    id: String,
    answer: String,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .asks()
        .answer(chat, &ApprovalId::from_string(id), answer)?)
}

/// The user's answer to an MCP server's question (SPEC §11).
#[tauri::command]
pub fn answer_elicitation(
    state: State<'_, AppState>,
    chat: ChatId,
    id: String,
    answer: ElicitationAnswer,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .asks()
        .answer_elicitation(chat, &ApprovalId::from_string(id), answer)?)
}

#[tauri::command]
pub fn pending_approvals(state: State<'_, AppState>, chat: ChatId) -> Vec<PendingApproval> {
    state.app.asks().pending(chat)
}

/// Approvals and questions waiting per chat, for the sidebar badges (F-07).
#[tauri::command]
pub fn waiting_counts(state: State<'_, AppState>) -> HashMap<i64, usize> {
    state
        .app
        .asks()
        .waiting()
        .into_iter()
        .map(|(chat, n)| (chat.0, n))
        .collect()
}
