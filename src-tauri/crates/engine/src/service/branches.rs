//! Edit, regenerate and move between versions (F-56). Every version of a message is kept in the
//! chat's message tree; these start a turn on a new branch or show another one.

use super::{ServiceError, Tollgate};
use crate::chat::{ChatEvent, TurnInput, UserInput};
use crate::ids::ChatId;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A provider and model for one turn (regenerating with another model), leaving the chat's own
/// choice as it is. A blank `model` is the provider's default.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    pub provider: i64,
    pub model: String,
}

impl Tollgate {
    /// Sends `text` as a new version of the user message `message`, with that message's files:
    /// a branch beside it, from the same point in the conversation. The earlier version and its
    /// answers stay. The new version keeps the sources of what the old one was made from (an
    /// MCP prompt filled in, a view's message, an imported message, F-80): editing a few words
    /// of a server's text does not make it the user's.
    pub async fn edit_message(
        self: &Arc<Self>,
        chat: ChatId,
        message: i64,
        text: String,
        on_event: Box<dyn Fn(ChatEvent) + Send + Sync>,
    ) -> Result<(), ServiceError> {
        self.not_running(chat)?;
        let (parent, made_of) = self.store.branches().edit_point(chat, message).await?;
        let message = UserInput {
            text,
            attachments: made_of.attachments,
            sources: made_of.sources,
        };
        self.start(chat, TurnInput::Edit { parent, message }, None, on_event)
            .await
    }

    /// Answers again the user message that `message` (an answer of its turn) replied to, with
    /// the chat's model or `model`; the new answer is a branch beside the earlier ones.
    pub async fn regenerate(
        self: &Arc<Self>,
        chat: ChatId,
        message: i64,
        model: Option<ModelChoice>,
        on_event: Box<dyn Fn(ChatEvent) + Send + Sync>,
    ) -> Result<(), ServiceError> {
        self.not_running(chat)?;
        let question = self.store.branches().turn_start(chat, message).await?;
        self.start(chat, TurnInput::Regenerate { question }, model, on_event)
            .await
    }

    /// Shows the branch through `message` (a version picked with ‹ ›, or a search hit): it
    /// continues along that version's newest replies. Refused while a turn runs in the chat.
    pub async fn show_branch(&self, chat: ChatId, message: i64) -> Result<(), ServiceError> {
        self.not_running(chat)?;
        Ok(self.store.branches().show_branch(chat, message).await?)
    }
}
