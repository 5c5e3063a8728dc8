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
    /// answers stay.
    pub async fn edit_message(
        self: &Arc<Self>,
        chat: ChatId,
        message: i64,
        text: String,
        on_event: Box<dyn Fn(ChatEvent) + Send + Sync>,
    ) -> Result<(), ServiceError> {
        self.not_running(chat)?;
        let (parent, attachments) = self.store.edit_point(chat, message).await?;
        // The new version keeps the files of the one it replaces; its text is the user's own.
        let message = UserInput {
            text,
            attachments,
            sources: Vec::new(),
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
        let question = self.store.turn_start(chat, message).await?;
        self.start(chat, TurnInput::Regenerate { question }, model, on_event)
            .await
    }

    /// Shows the branch through `message` (a version picked with ‹ ›, or a search hit): it
    /// continues along that version's newest replies. Refused while a turn runs in the chat.
    pub async fn show_branch(&self, chat: ChatId, message: i64) -> Result<(), ServiceError> {
        self.not_running(chat)?;
        Ok(self.store.show_branch(chat, message).await?)
    }
}
