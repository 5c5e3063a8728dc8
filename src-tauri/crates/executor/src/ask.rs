//! Asking the user: publishing a [`PendingApproval`] to the hub and the UI, and waiting for the
//! decision (or for Stop). The permission stage asks before a call runs, the result-approval
//! stage after.

use super::ToolExecutor;
use crate::protocol::{ApprovalOutcome, ApprovalRequest, Decision, PendingApproval, ToolEvent};
use crate::store::now_ms;
use crate::tools::RegisteredTool;
use tokio_util::sync::CancellationToken;

impl ToolExecutor {
    pub(super) fn pending_approval(
        &self,
        entry: &RegisteredTool,
        seq: u64,
        call_id: &str,
        request: ApprovalRequest,
    ) -> PendingApproval {
        PendingApproval {
            id: crate::tools::new_approval_id(),
            chat: self.chat,
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
        let rx = self.deps.hub.register(approval.clone());
        self.deps
            .sink
            .emit(ToolEvent::ApprovalRequested { approval });
        let decision = tokio::select! {
            d = rx => d.ok(),
            () = cancel.cancelled() => None,
        };
        if decision.is_none() {
            self.deps.hub.cancel(&id);
        }
        self.deps.sink.emit(ToolEvent::ApprovalResolved {
            chat: self.chat,
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
