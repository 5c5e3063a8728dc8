//! Turns: send a message, retry after an error, stop. Events stream over a per-turn channel.

use crate::state::AppState;
use tauri::ipc::Channel;
use tauri::State;
use tollgate_engine::chat::{ChatEvent, TurnInput};
use tollgate_engine::protocol::{CommandError, ErrorKind};
use tollgate_engine::ChatId;

fn forward(channel: Channel<ChatEvent>) -> Box<dyn Fn(ChatEvent) + Send + Sync> {
    Box::new(move |event| {
        if let Err(e) = channel.send(event) {
            tracing::warn!("a chat event could not reach the window: {e}");
        }
    })
}

#[tauri::command]
pub async fn send_message(
    state: State<'_, AppState>,
    chat: ChatId,
    text: String,
    on_event: Channel<ChatEvent>,
) -> Result<(), CommandError> {
    if text.trim().is_empty() {
        return Err(CommandError::new(
            ErrorKind::Invalid,
            "The message is empty.",
        ));
    }
    Ok(state
        .app
        .send(chat, TurnInput::Message(text), forward(on_event))
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

#[tauri::command]
pub fn stop_turn(state: State<'_, AppState>, chat: ChatId) -> bool {
    state.app.stop(chat)
}
