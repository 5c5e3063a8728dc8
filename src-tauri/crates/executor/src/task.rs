//! The task's grant a chat holds (F-98): set when the user approves a plan, read by every
//! call's decision, counted down by the calls it allows, and ended with the turn, by the user,
//! or when its time box passes. Nothing else grants by plan.

use super::facets::TaskGrants;
use super::grant::{GuardView, PermissionInputs};
use super::plan::{ActiveGrant, Envelope};
use crate::tool_executor::ToolExecutor;
use parking_lot::MutexGuard;
use serde_json::Value;
use std::sync::Arc;
use tollgate_protocol::{GrantSpan, OffPlan, PlanFit, Source, TaskGrant, TaskState, ToolEvent};
use tollgate_provenance::distinct;
use tollgate_provenance::target_values::{primary_values, values_in_text};
use tollgate_store::now_ms;
use tollgate_tools::RegisteredTool;

/// A turn's hold on its chat's grant (F-98): taken when the turn starts, it ends whatever grant
/// the chat holds when it is dropped. A grant so lasts for the turn at most however the turn
/// ends — an answer, a failure, Stop, a panic that unwinds the turn, a task aborted with the
/// app — by construction rather than by a call each way out has to remember.
#[must_use = "the grant ends when this is dropped"]
pub struct GrantLifetime(Arc<ToolExecutor>);

impl Drop for GrantLifetime {
    fn drop(&mut self) {
        self.0.task().end_task();
    }
}

impl ToolExecutor {
    /// The hold a turn keeps on this chat's grant while it runs ([`GrantLifetime`]).
    pub fn grant_lifetime(self: &Arc<Self>) -> GrantLifetime {
        GrantLifetime(Arc::clone(self))
    }
}

impl TaskGrants<'_> {
    /// Holds `grant` for this chat's calls from now: the plan the user approved.
    pub fn grant_task(&self, grant: TaskGrant) {
        let active = ActiveGrant::new(grant);
        let state = active.state();
        *self.exec.task.lock() = Some(active);
        self.task_changed(Some(state));
    }

    /// Holds the plan a `propose_plan` call runs with (what the user kept on its card): its
    /// steps, for the turn or its time box from now.
    pub(super) fn grant_proposed(&self, args: &Value) {
        let Ok(kept) = tollgate_tools::plan_tool::proposal_of(args) else {
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

    /// Ends the grant in force, if any (the turn ended, or the user stopped it); returns
    /// whether there was one.
    pub fn end_task(&self) -> bool {
        let ended = self.exec.task.lock().take().is_some();
        if ended {
            self.task_changed(None);
        }
        ended
    }

    /// The grant in force and the calls each of its steps has made; `None` when there is none
    /// (or its time box has passed, which ends it).
    pub fn task_grant(&self) -> Option<TaskState> {
        self.in_force().as_ref().map(ActiveGrant::state)
    }

    /// Whether a grant is in force (its time box, if any, not yet passed).
    pub(super) fn has_task(&self) -> bool {
        self.in_force().is_some()
    }

    /// Where a call stands against the grant in force (`None`: no grant). A target off the
    /// plan says where it was taken from (`view`): the content the chat read that named it, or
    /// the results a `$VAR_REF` passed it on from.
    pub(super) fn plan_fit(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        inputs: &PermissionInputs,
        view: GuardView<'_>,
    ) -> Option<PlanFit> {
        let fit = self.plan_step_of(entry, args, inputs, view)?;
        // A command the chat's sandbox cannot hold to the step's hosts and files is not the
        // plan's to run on its own (SPEC F-98): it asks, saying why.
        if let (PlanFit::Inside { .. }, true) = (&fit, entry.tool.spec().sandboxed) {
            if let Some(mode) = self.commands_unconfined() {
                return Some(PlanFit::Outside(OffPlan::Unconfined { mode }));
            }
        }
        Some(fit)
    }

    /// How this chat's commands would run when its sandbox cannot hold a plan step's envelope
    /// (its hosts, and writes only where the step names its command): off, no sandbox on this
    /// system, or one without namespaces (Landlock alone cannot keep protected paths or a host
    /// list); `None` when it can.
    pub(super) fn commands_unconfined(&self) -> Option<tollgate_protocol::SandboxMode> {
        use tollgate_protocol::SandboxMode;
        if !self.exec.sandbox().level.confines() {
            return Some(SandboxMode::Off);
        }
        match tollgate_tools::supervisor::known_support() {
            Some(support) if support.available() && support.namespaces => None,
            Some(support) if support.available() => Some(SandboxMode::Partial),
            _ => Some(SandboxMode::Unavailable),
        }
    }

    /// Where a call stands against the plan's steps alone — its tool, bounds, pattern and
    /// targets — whatever the sandbox can hold ([`Self::plan_fit`] adds that).
    pub(super) fn plan_step_of(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        inputs: &PermissionInputs,
        view: GuardView<'_>,
    ) -> Option<PlanFit> {
        let mut fit = {
            let task = self.in_force();
            let task = task.as_ref()?;
            let spec = entry.tool.spec();
            let targets = self.exec.policies().targets(spec);
            task.fit(self.exec.chat, &spec.name, args, &targets, &inputs.subject)
        };
        if let PlanFit::Outside(OffPlan::Target {
            value, taken_from, ..
        }) = &mut fit
        {
            *taken_from = self.taken_from(value, view);
        }
        Some(fit)
    }

    /// Where `value` came from: the results a `$VAR_REF` passed it on from, then the untrusted
    /// content the chat read that named it.
    pub(crate) fn taken_from(&self, value: &str, view: GuardView<'_>) -> Vec<Source> {
        // Its first, most specific reading: a page that names only the domain of a mailbox
        // did not give the mailbox.
        let Some(value) = primary_values(value).into_iter().next() else {
            return Vec::new();
        };
        let passed = view
            .expanded
            .iter()
            .filter(|(_, text)| values_in_text(text).contains(&value))
            .flat_map(|(sources, _)| sources.iter());
        let read = view.exposure.map(|e| e.naming(&value)).unwrap_or_default();
        self.exec.sources().with_trust(|trust| {
            let read = read.into_iter().flatten().filter(|s| trust.untrusted(s));
            distinct(passed.chain(read).cloned())
        })
    }

    /// What a command run inside `step` of the grant in force may do (F-98).
    pub(super) fn plan_envelope(&self, step: usize) -> Option<Envelope> {
        self.in_force().as_ref().map(|t| t.envelope(step))
    }

    /// Notes what a result of `tool` named, for the steps that name the tool as a source of
    /// their targets (F-98).
    pub(super) fn note_task_result(&self, tool: &str, text: &str) {
        if let Some(task) = self.in_force().as_mut() {
            task.note_result(tool, text);
        }
    }

    /// Takes a call of the step call `seq` is inside: `false` when the step has none left.
    pub(super) fn take_plan_call(&self, fit: Option<&PlanFit>, seq: u64) -> bool {
        let taken = {
            let mut task = self.in_force();
            match (fit, task.as_mut()) {
                (Some(PlanFit::Inside { step }), Some(t)) => {
                    t.take_call(*step, seq).then(|| t.state())
                }
                _ => None,
            }
        };
        let took = taken.is_some();
        if took {
            self.task_changed(taken);
        }
        took
    }

    /// The grant in force: a grant whose time box has passed is ended here, the one place every
    /// reader of the grant goes through.
    pub(crate) fn in_force(&self) -> MutexGuard<'_, Option<ActiveGrant>> {
        let mut task = self.exec.task.lock();
        let expired = task.as_ref().is_some_and(|t| match t.grant().span {
            GrantSpan::Turn => false,
            GrantSpan::Until { ends_at_ms } => now_ms() >= ends_at_ms,
        });
        if expired {
            *task = None;
            // The window hears of it without waiting for the lock to be let go: the sink
            // must not block, and it never reads the grant back.
            self.task_changed(None);
        }
        task
    }

    /// Tells the window the grant changed (F-98): the header's plan strip follows it.
    pub(crate) fn task_changed(&self, task: Option<TaskState>) {
        self.exec.deps.sink.emit(ToolEvent::TaskChanged {
            chat: self.exec.chat,
            task,
        });
    }
}
