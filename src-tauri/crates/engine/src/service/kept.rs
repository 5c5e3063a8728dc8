//! What passed between a call's MCP server and the user or the chat's model during the call
//! (F-99), kept with the call: on its row, so its card shows it after a restart and the chat's
//! export has it, and on its card in the window at once.

use super::Router;
use crate::mcp::elicitation::KeepsQuestions;
use crate::protocol::ids::ChatId;
use crate::protocol::{AskedQuestion, EventSink, LentModel, ToolEvent};
use crate::store::Store;
use std::sync::Arc;

/// Keeps each question a server asked and each answer the chat's model gave it with the call.
pub(super) struct CallKeeper {
    pub(super) store: Store,
    pub(super) router: Arc<Router>,
}

impl CallKeeper {
    /// What the chat's model was sent for the call's server and what went back.
    pub(super) fn lent(&self, chat: ChatId, seq: u64, lent: LentModel) {
        self.store.calls().record_lent(chat, seq, lent.clone());
        self.router.emit(ToolEvent::ModelLent { chat, seq, lent });
    }
}

impl KeepsQuestions for CallKeeper {
    fn keep(&self, chat: ChatId, seq: u64, asked: AskedQuestion) {
        self.store.calls().record_asked(chat, seq, asked.clone());
        self.router
            .emit(ToolEvent::ServerAsked { chat, seq, asked });
    }
}
