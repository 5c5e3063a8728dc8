//! Turns: send a message, retry after an error, stop. Events stream over a per-turn channel.

use crate::state::AppState;
use tauri::ipc::Channel;
use tauri::State;
use tollgate_engine::chat::attachments::Attachment;
use tollgate_engine::chat::{coalesce, ChatEvent, TurnInput, UserInput};
use tollgate_engine::service::ModelChoice;
use tollgate_engine::ChatId;
use tollgate_protocol::{CommandError, Source};

/// The turn's events to the window, streamed text gathered a frame at a time
/// (`chat::coalesce`): one message to the webview per frame, not per token.
fn forward(channel: Channel<ChatEvent>) -> Box<dyn Fn(ChatEvent) + Send + Sync> {
    Box::new(coalesce::coalesced(
        move |event| {
            if let Err(e) = channel.send(event) {
                tracing::warn!("a chat event could not reach the window: {e}");
            }
        },
        coalesce::FRAME,
    ))
}

/// Sends a message with its attached files (F-57), starting a turn. An empty message, or a
/// file that is too big or not what it claims, is refused before anything is stored.
#[tauri::command]
pub async fn send_message(
    state: State<'_, AppState>,
    chat: ChatId,
    text: String,
    attachments: Vec<Attachment>,
    sources: Vec<Source>,
    on_event: Channel<ChatEvent>,
) -> Result<(), CommandError> {
    let input = UserInput {
        text,
        attachments,
        sources,
    };
    Ok(state
        .app
        .send(chat, TurnInput::Message(input), forward(on_event))
        .await?)
}

#[tauri::command]
pub async fn retry_turn(
    state: State<'_, AppState>,
    chat: ChatId,
    on_event: Channel<ChatEvent>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .send(chat, TurnInput::Retry, forward(on_event))
        .await?)
}

/// Sends `text` as a new version of user message `message` (F-56); the earlier version stays
/// as a branch.
#[tauri::command]
pub async fn edit_message(
    state: State<'_, AppState>,
    chat: ChatId,
    message: i64,
    text: String,
    on_event: Channel<ChatEvent>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .edit_message(chat, message, text, forward(on_event))
        .await?)
}

/// Answers again the turn `message` belongs to, with the chat's model or `model` (F-56).
#[tauri::command]
pub async fn regenerate_answer(
    state: State<'_, AppState>,
    chat: ChatId,
    message: i64,
    model: Option<ModelChoice>,
    on_event: Channel<ChatEvent>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .regenerate(chat, message, model, forward(on_event))
        .await?)
}

/// Runs blocked call `c<seq>` again without the sandbox, because the user clicked so (F-46);
/// `text` is their message saying so. Then the model answers.
#[tauri::command]
pub async fn rerun_unsandboxed(
    state: State<'_, AppState>,
    chat: ChatId,
    seq: u64,
    text: String,
    on_event: Channel<ChatEvent>,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .rerun_unsandboxed(chat, seq, text, forward(on_event))
        .await?)
}

/// Shows the branch through `message` (F-56).
#[tauri::command]
pub async fn show_branch(
    state: State<'_, AppState>,
    chat: ChatId,
    message: i64,
) -> Result<(), CommandError> {
    Ok(state.app.show_branch(chat, message).await?)
}

#[tauri::command]
pub fn stop_turn(state: State<'_, AppState>, chat: ChatId) -> bool {
    state.app.stop(chat)
}

/// Ends the chat's task grant (F-98, the Stop on the plan in the chat's header); the turn goes
/// on, asking call by call. Returns whether a grant was in force.
#[tauri::command]
pub async fn stop_task(state: State<'_, AppState>, chat: ChatId) -> Result<bool, CommandError> {
    Ok(state.app.stop_task(chat).await)
}
