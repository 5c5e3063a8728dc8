//! Following the calls that go on after their turn as their server's tasks (F-99): each chat's
//! executor hands its calls over here, and at start every chat with such a call is opened so its
//! tasks are followed again. A late result takes the place, in the chat's tool message, of what
//! the model was told meanwhile, so the next turn reads it (and the chat's exposure counts it).

use super::Tollgate;
use crate::executor::{LateResult, ToolExecutor};
use crate::ids::ChatId;
use std::sync::{Arc, Weak};
use tokio::sync::mpsc::UnboundedReceiver;

/// Opens every chat of `app` with a call going on as a task, so its task is followed again.
pub(super) fn resume_call_tasks(app: Weak<Tollgate>) {
    tokio::spawn(async move {
        let Some(app) = app.upgrade() else { return };
        let chats = match app.store.calls().chats_with_call_tasks().await {
            Ok(chats) => chats,
            Err(e) => {
                tracing::error!("the calls going on as tasks could not be read: {e}");
                return;
            }
        };
        for chat in chats {
            if let Err(e) = app.executor(chat).await {
                tracing::warn!("the tasks of chat {chat} are not followed: {e}");
            }
        }
    });
}

/// Follows each call `exec` hands over, as long as the executor lives.
pub(super) fn follow_handovers(
    app: Weak<Tollgate>,
    exec: &Arc<ToolExecutor>,
    mut handed: UnboundedReceiver<u64>,
) {
    let exec: Weak<ToolExecutor> = Arc::downgrade(exec);
    tokio::spawn(async move {
        while let Some(seq) = handed.recv().await {
            let Some(exec) = exec.upgrade() else { break };
            let app = app.clone();
            tokio::spawn(async move {
                if let Some(late) = exec.under_way().resume(seq).await {
                    if let Some(app) = app.upgrade() {
                        put_in_place(&app, exec.chat(), &late).await;
                    }
                }
            });
        }
    });
}

/// The late result in place of what the model was told in the chat's tool message. A turn still
/// running writes its round's tool message only when every call of the round has ended: the
/// result waits for the turn to end.
async fn put_in_place(app: &Tollgate, chat: ChatId, late: &LateResult) {
    let Some(message) = late.message_id else {
        return;
    };
    loop {
        let mut ended = app.turn_ended.subscribe();
        // Asked before the rewrite: a turn removes itself only once its tool message is written
        // (and the store runs its calls in order), so a turn running now that has not written
        // it yet will have when it ends.
        let was_running = app.is_running(chat);
        let result = late.result.clone();
        let rewrite = move |payload: Option<serde_json::Value>| {
            crate::chat::history::with_result_in_place(payload.as_ref(), &result)
        };
        match app
            .store
            .messages()
            .rewrite_tool_payload(chat, message, rewrite)
            .await
        {
            Ok(true) => return,
            Ok(false) if was_running => {
                if ended.changed().await.is_err() {
                    return;
                }
            }
            Ok(false) => {
                tracing::info!(
                    "call c{} ended after its turn, but its turn's tool message is gone",
                    late.result.seq
                );
                return;
            }
            Err(e) => {
                tracing::error!(
                    "the late result of call c{} was not put in the chat: {e}",
                    late.result.seq
                );
                return;
            }
        }
    }
}
