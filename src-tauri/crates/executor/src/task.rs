//! The task's grant a chat holds (F-98): set when the user approves a plan, read by every
//! call's decision, counted down by the calls it allows, and ended with the turn, by the user,
//! or when its time box passes. Nothing else grants by plan.

use super::permission::PermissionInputs;
use super::plan::{ActiveGrant, Envelope};
use super::ToolExecutor;
use crate::protocol::{GrantSpan, PlanFit, TaskGrant};
use crate::store::now_ms;
use crate::tools::RegisteredTool;
use serde_json::Value;

impl ToolExecutor {
    /// Holds `grant` for this chat's calls from now: the plan the user approved.
    pub fn grant_task(&self, grant: TaskGrant) {
        *self.task.lock() = Some(ActiveGrant::new(grant));
    }

    /// Holds the plan a `propose_plan` call runs with (what the user kept on its card): its
    /// steps, for the turn or its time box from now.
    pub(super) fn grant_proposed(&self, args: &Value) {
        let Ok(kept) = crate::tools::plan_tool::proposal_of(args) else {
            return;
        };
        let span = match kept.minutes {
            None => GrantSpan::Turn,
            Some(m) => GrantSpan::Until {
                ends_at_ms: now_ms().saturating_add(i64::from(m) * 60_000),
            },
        };
        self.grant_task(TaskGrant {
            steps: kept.steps,
            span,
        });
    }

    /// Ends the grant in force, if any (the turn ended, or the user stopped it).
    pub fn end_task(&self) {
        *self.task.lock() = None;
    }

    /// The grant in force and the calls each of its steps has made; `None` when there is none
    /// (or its time box has passed, which ends it).
    pub fn task_grant(&self) -> Option<(TaskGrant, Vec<u32>)> {
        in_force(&mut self.task.lock()).map(|t| (t.grant().clone(), t.used().to_vec()))
    }

    /// Whether a grant is in force (its time box, if any, not yet passed).
    pub(super) fn has_task(&self) -> bool {
        in_force(&mut self.task.lock()).is_some()
    }

    /// Where a call stands against the grant in force (`None`: no grant).
    pub(super) fn plan_fit(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        inputs: &PermissionInputs,
    ) -> Option<PlanFit> {
        let mut task = self.task.lock();
        let task = in_force(&mut task)?;
        let spec = entry.tool.spec();
        let targets = self.targets(spec);
        Some(task.fit(self.chat, &spec.name, args, &targets, &inputs.subject))
    }

    /// What a command run inside `step` of the grant in force may do (F-98).
    pub(super) fn plan_envelope(&self, step: usize) -> Option<Envelope> {
        in_force(&mut self.task.lock()).map(|t| t.envelope(step))
    }

    /// Notes what a result of `tool` named, for the steps that name the tool as a source of
    /// their targets (F-98).
    pub(super) fn note_task_result(&self, tool: &str, text: &str) {
        if let Some(task) = in_force(&mut self.task.lock()) {
            task.note_result(tool, text);
        }
    }

    /// Takes a call of the step the call is inside: `false` when the step has none left.
    pub(super) fn take_plan_call(&self, fit: Option<&PlanFit>) -> bool {
        match (fit, in_force(&mut self.task.lock())) {
            (Some(PlanFit::Inside { step }), Some(task)) => task.take_call(*step),
            _ => false,
        }
    }
}

/// The grant in force: a grant whose time box has passed is ended here, the one place every
/// reader of the grant goes through.
fn in_force(task: &mut Option<ActiveGrant>) -> Option<&mut ActiveGrant> {
    let expired = task.as_ref().is_some_and(|t| match t.grant().span {
        GrantSpan::Turn => false,
        GrantSpan::Until { ends_at_ms } => now_ms() >= ends_at_ms,
    });
    if expired {
        *task = None;
    }
    task.as_mut()
}
