//! The chat loop (SPEC §4), the top of the house: one turn is request → streamed answer → tool
//! calls through the gate → results back → next round, until the model answers without tools,
//! the round limit is reached, the user stops, or the provider fails.
//!
//! What a turn is made of and what it says ([`Turn`], [`TurnInput`], [`ChatEvent`],
//! [`TurnOutcome`], the stored history) lives in the engine's `chat` module; this crate is the
//! loop that runs one. The service never names it: it is opened with a
//! [`tollgate_engine::chat::StartTurn`], and the app's binary and the tests pass [`start_turn`].
//! So the loop, where most changes happen, sits above the service and the app's commands, and a
//! change to it rebuilds this crate and the binary only. It must never depend on Tauri or the
//! app.

pub mod text_calls;
mod turn;

use futures::FutureExt;
use std::panic::AssertUnwindSafe;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tollgate_engine::chat::{ChatEvent, Turn, TurnHandle, TurnInput, TurnOutcome, TurnSettings};
use tollgate_protocol::Usage;

/// Starts a turn on the Tokio runtime (a [`tollgate_engine::chat::StartTurn`]: what the service is
/// opened with).
pub fn start_turn(turn: Turn, input: TurnInput) -> TurnHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    let task = tokio::spawn(supervised(turn, input, tx, token));
    TurnHandle::new(rx, cancel, task)
}

/// Runs the turn so that it always ends visibly: if its task panics (a bug in stream handling,
/// history or scheduling), the panic is logged, text left streaming is marked interrupted, and
/// the window gets a failed turn with the reason and Retry instead of "Working…" forever.
async fn supervised(
    turn: Turn,
    input: TurnInput,
    tx: mpsc::UnboundedSender<ChatEvent>,
    cancel: CancellationToken,
) -> TurnOutcome {
    let chat = turn.exec.chat();
    let store = turn.store.clone();
    let events = tx.clone();
    match AssertUnwindSafe(turn::run(turn, input, tx, cancel))
        .catch_unwind()
        .await
    {
        Ok(outcome) => outcome,
        Err(panic) => {
            let reason = tollgate_executor::panics::panic_message(&*panic);
            tracing::error!("the turn in chat {chat} panicked: {reason}");
            if let Err(e) = store.messages().interrupt_streaming(chat).await {
                tracing::error!("the interrupted answer in chat {chat} was not marked: {e}");
            }
            let outcome = TurnOutcome::Failed {
                error: format!(
                    "The turn stopped because of an internal error ({reason}). What was written so far is kept; press Retry to try again."
                ),
                kind: tollgate_protocol::FailureKind::Internal,
                retryable: true,
                usage: Usage::default(),
            };
            let _ = events.send(ChatEvent::TurnFinished {
                outcome: outcome.clone(),
            });
            outcome
        }
    }
}

/// How long a stream may stay silent.
fn idle_timeout(settings: &TurnSettings) -> Duration {
    Duration::from_millis(settings.idle_timeout_ms.max(10))
}

/// Saved streamed text at least this often.
fn save_interval(settings: &TurnSettings) -> Duration {
    Duration::from_millis(settings.save_interval_ms.max(10))
}
