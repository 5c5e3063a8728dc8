//! Asking the user: publishing a [`PendingApproval`] to the hub and the UI, and waiting for the
//! decision (or for Stop). The permission stage asks before a call runs, the result-approval
//! stage after.

use super::facets::Asks;
use crate::approvals::ApprovalError;
use crate::rules::check_pattern;
use crate::tool_executor::ExecutorError;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::ids::ApprovalId;
use tollgate_protocol::{ApprovalOutcome, ApprovalRequest, Decision, PendingApproval, ToolEvent};
use tollgate_protocol::{AskReason, ExecutionDecision, RuleGrant};
use tollgate_store::now_ms;
use tollgate_store::ApprovalRecordRow;
use tollgate_tools::RegisteredTool;

impl Asks<'_> {
    /// Delivers the user's decision for one of this chat's approvals. Edited arguments are
    /// checked here, so an invalid edit is refused and the approval keeps waiting.
    pub fn answer_approval(
        &self,
        id: &ApprovalId,
        decision: Decision,
    ) -> Result<(), ApprovalError> {
        let pending = self.exec.deps.hub.get(self.exec.chat, id)?;
        if let ApprovalRequest::Execution {
            reason: AskReason::Plan { shown },
            ..
        } = &pending.request
        {
            return match &decision {
                Decision::Execution(
                    ExecutionDecision::AllowOnce
                    | ExecutionDecision::Deny { .. }
                    | ExecutionDecision::DenyAndStop { .. },
                ) => self.exec.deps.hub.resolve(self.exec.chat, id, decision),
                Decision::Execution(ExecutionDecision::EditAndAllow { arguments }) => {
                    let kept = tollgate_tools::plan_tool::proposal_of(arguments)
                        .map_err(ApprovalError::InvalidEdit)?;
                    if !kept.narrows(&shown.proposal) {
                        return Err(ApprovalError::NotThePlanShown);
                    }
                    self.exec.deps.hub.resolve(self.exec.chat, id, decision)
                }
                _ => Err(ApprovalError::NotThePlanShown),
            };
        }
        match (&decision, &pending.request) {
            (Decision::Execution(ExecutionDecision::EditAndAllow { arguments }), _) => {
                self.exec
                    .check_edited_arguments(&pending.tool, arguments)
                    .map_err(ApprovalError::InvalidEdit)?;
            }
            (
                Decision::Execution(ExecutionDecision::AlwaysAllow {
                    grant: RuleGrant::Matching { pattern },
                    ..
                }),
                ApprovalRequest::Execution { rule_subject, .. },
            ) => {
                check_pattern(*rule_subject, pattern)
                    .map_err(|e| ApprovalError::InvalidPattern(e.to_string()))?;
            }
            (
                Decision::Execution(ExecutionDecision::EndorseAndAllow { sources }),
                ApprovalRequest::Execution { guard, .. },
            ) => {
                let offered = guard.as_ref().map(|g| g.endorsable.as_slice());
                let all_offered =
                    offered.is_some_and(|offered| sources.iter().all(|s| offered.contains(s)));
                if sources.is_empty() || !all_offered {
                    return Err(ApprovalError::NotEndorsable);
                }
            }
            _ => {}
        }
        self.exec.deps.hub.resolve(self.exec.chat, id, decision)
    }

    /// The approvals waiting in this chat.
    pub fn pending(&self) -> Vec<PendingApproval> {
        self.exec.deps.hub.pending_in(self.exec.chat)
    }

    /// This chat's ask-once records.
    pub async fn records(&self) -> Result<Vec<ApprovalRecordRow>, ExecutorError> {
        Ok(self
            .exec
            .deps
            .store
            .gate_records()
            .approval_records(self.exec.chat)
            .await?)
    }

    /// Revokes an ask-once record; returns whether it existed.
    pub async fn revoke_record(&self, tool: &str, args_hash: &str) -> Result<bool, ExecutorError> {
        let existed = self
            .exec
            .deps
            .store
            .gate_records()
            .delete_approval_record(self.exec.chat, tool.to_string(), args_hash.to_string())
            .await?;
        self.exec
            .records
            .lock()
            .remove(&(tool.to_string(), args_hash.to_string()));
        Ok(existed)
    }

    pub(super) fn pending_approval(
        &self,
        entry: &RegisteredTool,
        seq: u64,
        call_id: &str,
        request: ApprovalRequest,
    ) -> PendingApproval {
        PendingApproval {
            id: tollgate_tools::new_approval_id(),
            chat: self.exec.chat,
            seq,
            call_id: call_id.to_string(),
            tool: entry.tool.spec().name.clone(),
            group: entry.group.clone(),
            request,
            created_at: now_ms(),
        }
    }

    /// Publishes `approval` and waits for the user's decision, or `None` if cancelled. The
    /// decision comes back with the approval the user answered.
    pub(super) async fn wait_for_decision(
        &self,
        approval: PendingApproval,
        cancel: &CancellationToken,
    ) -> Option<(Decision, PendingApproval)> {
        let id = approval.id.clone();
        let seq = approval.seq;
        let rx = self.exec.deps.hub.register(approval.clone());
        self.exec
            .deps
            .sink
            .emit(ToolEvent::ApprovalRequested { approval });
        let decision = tokio::select! {
            d = rx => d.ok(),
            () = cancel.cancelled() => None,
        };
        if decision.is_none() {
            self.exec.deps.hub.cancel(&id);
        }
        self.exec.deps.sink.emit(ToolEvent::ApprovalResolved {
            chat: self.exec.chat,
            seq,
            id,
            outcome: match &decision {
                Some((d, _)) => ApprovalOutcome::Decided {
                    decision: d.clone(),
                },
                None => ApprovalOutcome::Cancelled,
            },
        });
        decision
    }
}
