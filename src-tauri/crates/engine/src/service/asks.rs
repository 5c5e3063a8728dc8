//! What waits on the user, in one place: the approvals, the model's questions and the MCP
//! servers' questions of a chat, answered and listed through one service (F-07, SPEC §11).

use super::services::UserAsks;
use super::ServiceError;
use crate::ids::{ApprovalId, ChatId};
use crate::protocol::{Decision, PendingApproval};
use crate::tools::questions::AnswerError;
use std::collections::HashMap;

impl UserAsks<'_> {
    /// Delivers a decision for one of `chat`'s approvals.
    pub async fn answer_approval(
        &self,
        chat: ChatId,
        id: &ApprovalId,
        decision: Decision,
    ) -> Result<(), ServiceError> {
        Ok(self
            .app
            .executor(chat)
            .await?
            .asks()
            .answer_approval(id, decision)?)
    }

    /// Answers an `ask_user` question of `chat`.
    pub fn answer(
        &self,
        chat: ChatId,
        id: &ApprovalId,
        answer: String,
    ) -> Result<(), ServiceError> {
        Ok(self.app.questions.answer(chat, id, answer)?)
    }

    /// The user's answer to an MCP server's question (SPEC §11). A form that does not fit the
    /// server's schema is refused and the question keeps waiting.
    pub fn answer_elicitation(
        &self,
        chat: ChatId,
        id: &ApprovalId,
        answer: crate::protocol::ElicitationAnswer,
    ) -> Result<(), ServiceError> {
        use crate::mcp::elicitation::AnswerRefused;
        self.app
            .elicitations
            .answer(chat, id, answer)
            .map_err(|e| match e {
                AnswerRefused::Unknown(id) => ServiceError::Answer(AnswerError::Unknown(id)),
                AnswerRefused::Foreign(id) => ServiceError::Answer(AnswerError::Foreign(id)),
                AnswerRefused::Invalid(reason) => {
                    ServiceError::Invalid(crate::protocol::Invalid::ElicitationAnswer { reason })
                }
            })
    }

    /// The MCP servers' questions waiting in `chat`.
    pub fn pending_elicitations(&self, chat: ChatId) -> Vec<crate::protocol::PendingElicitation> {
        self.app.elicitations.pending_in(chat)
    }

    /// The approvals waiting in `chat`.
    pub fn pending(&self, chat: ChatId) -> Vec<PendingApproval> {
        self.app.hub.pending_in(chat)
    }

    /// How many approvals and questions wait in each chat (sidebar badges, F-07).
    pub fn waiting(&self) -> HashMap<ChatId, usize> {
        let mut counts = self.app.hub.waiting_counts();
        for chat in self.app.turns.lock().keys() {
            let q = self.app.questions.waiting_in(*chat)
                + self.app.elicitations.pending_in(*chat).len();
            if q > 0 {
                *counts.entry(*chat).or_insert(0) += q;
            }
        }
        counts
    }
}
