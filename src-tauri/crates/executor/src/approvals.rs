//! Approvals (F-05 … F-07): a call that needs the user publishes a [`PendingApproval`] and waits
//! for a [`Decision`] delivered through the [`ApprovalHub`].
//!
//! The hub is app-wide so a decision can be routed by id alone, but every id is bound to its
//! chat: a decision sent for another chat's approval, an unknown id, or an approval that was
//! cancelled is refused with an error and changes nothing.

use std::collections::HashMap;
use thiserror::Error;
use tokio::sync::oneshot;
use tollgate_protocol::ids::{ApprovalId, ChatId};
use tollgate_protocol::{ApprovalKind, Decision, PendingApproval};
use tollgate_tools::waiting::{NotWaiting, Refused, Waiting};

/// Why a decision was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApprovalError {
    #[error("no approval with id {0} is waiting")]
    Unknown(ApprovalId),
    #[error("approval {0} belongs to another chat")]
    Foreign(ApprovalId),
    #[error("approval {0} was cancelled")]
    Cancelled(ApprovalId),
    #[error("approval {id} asks about {expected:?}, but a {got:?} decision was sent")]
    WrongKind {
        id: ApprovalId,
        expected: ApprovalKind,
        got: ApprovalKind,
    },
    #[error("the edited arguments are invalid: {0}")]
    InvalidEdit(String),
    #[error("the rule cannot be created: {0}")]
    InvalidPattern(String),
    #[error("only the sources this card names can be trusted from it")]
    NotEndorsable,
    #[error(
        "a plan is approved as shown or with parts of it removed, never widened or remembered"
    )]
    NotThePlanShown,
}

/// Every pending approval of the app: the one waiting hub (`tollgate_tools::waiting`), whose
/// answer is the decision together with the approval as the hub held it — what the user was
/// shown — so the waiter binds its grant to that.
#[derive(Default)]
pub struct ApprovalHub {
    waiting: Waiting<PendingApproval, (Decision, PendingApproval)>,
}

/// The hub's refusal, in the approval's words.
fn refused(why: NotWaiting) -> ApprovalError {
    match why {
        NotWaiting::Unknown(id) => ApprovalError::Unknown(id),
        NotWaiting::Foreign(id) => ApprovalError::Foreign(id),
        NotWaiting::Withdrawn(id) => ApprovalError::Cancelled(id),
    }
}

impl ApprovalHub {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers an approval; the receiver yields the decision and the approval as shown.
    pub fn register(
        &self,
        approval: PendingApproval,
    ) -> oneshot::Receiver<(Decision, PendingApproval)> {
        self.waiting
            .open(approval.id.clone(), approval.chat, approval)
    }

    /// The waiting approval `id` of `chat`, checked for ownership.
    pub fn get(&self, chat: ChatId, id: &ApprovalId) -> Result<PendingApproval, ApprovalError> {
        self.waiting.get(chat, id).map_err(refused)
    }

    /// Delivers a decision for `chat`'s approval `id`: one of the kind the card asks.
    pub fn resolve(
        &self,
        chat: ChatId,
        id: &ApprovalId,
        decision: Decision,
    ) -> Result<(), ApprovalError> {
        let answered = self
            .waiting
            .answer(chat, id, |approval| {
                let expected = approval.request.kind();
                if expected == decision.kind() {
                    Ok((decision, approval.clone()))
                } else {
                    Err(ApprovalError::WrongKind {
                        id: id.clone(),
                        expected,
                        got: decision.kind(),
                    })
                }
            })
            .map_err(|e| match e {
                Refused::NotWaiting(why) => refused(why),
                Refused::Check(wrong) => wrong,
            })?;
        if answered.delivered {
            Ok(())
        } else {
            Err(ApprovalError::Cancelled(id.clone()))
        }
    }

    /// Withdraws an approval (the call was cancelled); later decisions for it are refused.
    pub fn cancel(&self, id: &ApprovalId) {
        self.waiting.withdraw(id);
    }

    /// The approvals waiting in `chat`, oldest first.
    pub fn pending_in(&self, chat: ChatId) -> Vec<PendingApproval> {
        let mut out = self.waiting.items_in(chat);
        out.sort_by_key(|a| (a.created_at, a.seq));
        out
    }

    /// How many approvals wait in each chat (for sidebar badges).
    pub fn waiting_counts(&self) -> HashMap<ChatId, usize> {
        self.waiting.counts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tollgate_protocol::policy::{CallStatus, ExecutionPolicy};
    use tollgate_protocol::{
        ApprovalRequest, AskReason, ExecutionDecision, ResultDecision, RuleGrant, RuleScopeChoice,
        RuleSubjectKind,
    };

    fn approval(chat: i64, kind: ApprovalKind) -> PendingApproval {
        let request = match kind {
            ApprovalKind::Execution => ApprovalRequest::Execution {
                arguments: json!({}),
                preview: None,
                policy: ExecutionPolicy::AskAlways,
                reason: AskReason::AskAlways,
                rule_subject: RuleSubjectKind::Args,
                suggested_pattern: None,
                sandbox: None,
                guard: None,
                tool_change: None,
                destructive: false,
                flagged: Vec::new(),
            },
            ApprovalKind::Result => ApprovalRequest::Result {
                text_for_model: "t".into(),
                full_output: "t".into(),
                status: CallStatus::Success,
                images: Vec::new(),
            },
        };
        PendingApproval {
            id: tollgate_tools::new_approval_id(),
            chat: ChatId(chat),
            seq: 1,
            call_id: "c".into(),
            tool: "t".into(),
            group: "g".into(),
            request,
            created_at: 0,
        }
    }

    #[tokio::test]
    async fn decisions_reach_their_waiter_once() {
        let hub = ApprovalHub::new();
        let a = approval(1, ApprovalKind::Execution);
        let rx = hub.register(a.clone());
        assert_eq!(hub.pending_in(ChatId(1)).len(), 1);
        assert_eq!(hub.waiting_counts().get(&ChatId(1)), Some(&1));
        hub.resolve(
            ChatId(1),
            &a.id,
            Decision::Execution(ExecutionDecision::AllowOnce),
        )
        .unwrap();
        let (decision, shown) = rx.await.unwrap();
        assert_eq!(decision, Decision::Execution(ExecutionDecision::AllowOnce));
        assert_eq!(shown, a, "the waiter gets back the card the user answered");
        assert_eq!(
            hub.resolve(
                ChatId(1),
                &a.id,
                Decision::Execution(ExecutionDecision::AllowOnce)
            ),
            Err(ApprovalError::Unknown(a.id.clone()))
        );
    }

    #[test]
    fn foreign_unknown_cancelled_and_wrong_kind_are_refused() {
        let hub = ApprovalHub::new();
        let a = approval(1, ApprovalKind::Execution);
        let _rx = hub.register(a.clone());
        let allow = Decision::Execution(ExecutionDecision::AllowOnce);
        assert_eq!(
            hub.resolve(ChatId(2), &a.id, allow.clone()),
            Err(ApprovalError::Foreign(a.id.clone()))
        );
        assert!(matches!(
            hub.resolve(ChatId(1), &a.id, Decision::Result(ResultDecision::Approve)),
            Err(ApprovalError::WrongKind { .. })
        ));
        let unknown = tollgate_tools::new_approval_id();
        assert_eq!(
            hub.resolve(ChatId(1), &unknown, allow.clone()),
            Err(ApprovalError::Unknown(unknown))
        );
        hub.cancel(&a.id);
        assert_eq!(
            hub.resolve(ChatId(1), &a.id, allow),
            Err(ApprovalError::Cancelled(a.id.clone()))
        );
        assert!(hub.pending_in(ChatId(1)).is_empty());
    }

    #[test]
    fn decisions_serialise_for_the_ui() {
        let d = Decision::Execution(ExecutionDecision::AlwaysAllow {
            scope: RuleScopeChoice::ThisChat,
            grant: RuleGrant::Matching {
                pattern: "git *".into(),
            },
        });
        let s = serde_json::to_value(&d).unwrap();
        assert_eq!(
            s,
            json!({"kind": "execution", "decision": {"type": "alwaysAllow", "scope": "thisChat", "grant": {"type": "matching", "pattern": "git *"}}})
        );
        // The old shape (an optional pattern, empty meaning everything) is refused outright.
        assert!(serde_json::from_value::<Decision>(json!({"kind": "execution", "decision": {"type": "alwaysAllow", "scope": "thisChat", "pattern": null}})).is_err());
        assert_eq!(serde_json::from_value::<Decision>(s).unwrap(), d);
    }
}
