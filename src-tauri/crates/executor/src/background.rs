//! Calls that go on after their turn as their server's task (F-99). A task that outlasts the
//! turn's wait is handed over: the call's task is kept with its row (so a restart follows it
//! again), the model is told the call goes on, and the one who follows the chat's calls (the
//! service, through [`UnderWay::take_handovers`]) resumes it with [`UnderWay::resume`]. The
//! late result passes the same stages as any result: Format, Truncate, Result approval (as the
//! call's grant said), Store, Record. Stop on the call's card ends the task on its server.

use super::call::{CallCtx, CallOrigin, Outcome, ToolCallRequest, ToolCallResult, Trace};
use super::execute::{
    ended, stopped_meanwhile, stopped_on_card, stopped_with_turn, tool_context, ExecFailure,
    Running,
};
use super::facets::{Stages, UnderWay};
use super::grant::GuardView;
use super::pipeline::expanded_sources;
use futures::FutureExt;
use serde_json::Value;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::policy::{CallStatus, ResultPolicy};
use tollgate_store::{now_ms, CallTask, RecordedCall};
use tollgate_tools::{RegisteredTool, Registry, ToolErrorKind};

/// A result that arrived after its turn: the call's result, and the assistant message whose
/// call it answers (where the model was told the call goes on).
#[derive(Debug, Clone)]
pub struct LateResult {
    pub message_id: Option<i64>,
    pub result: ToolCallResult,
}

/// What the model is told of a call handed over. The server's task id is not in it: it is the
/// server's text, and the model has no use for it.
fn runs_on_message(name: &str) -> String {
    format!(
        "The call to \"{name}\" goes on as a task on its server: it has not finished yet. Its result will take the place of this message when it ends, and the user sees it on the call's card. Do not make the call again; go on with what does not need its result, or tell the user it is running."
    )
}

/// How following a task with its tool came out.
enum Followed {
    /// The task's end, as the tool's run would have come to it.
    Ran(Result<Value, ExecFailure>),
    /// The tool's source is not running (a server stopped or not back yet): the call waits for
    /// the registry to change and follows the task again.
    Unavailable,
}

impl Stages<'_> {
    /// Hand over (after Execute): a call whose tool says it goes on as its server's task is
    /// kept with that task before the model is told (a restart follows it again), with the
    /// review the grant asked for its result and what its result and arguments carry from what
    /// the model had read; its call ends here as `in_background`. A view's call is followed to
    /// its end here instead (the view waits for its result), as is a task that could not be
    /// kept. Any other run passes on as it is.
    pub(super) async fn hand_over_stage(
        &self,
        entry: &RegisteredTool,
        review: ResultPolicy,
        call: &CallCtx<'_>,
        args: &Value,
        view: GuardView<'_>,
        ran: Result<Value, ExecFailure>,
    ) -> Result<Result<Value, ExecFailure>, Outcome> {
        let Some(task) = ran
            .as_ref()
            .ok()
            .and_then(|d| entry.tool.background_task(d))
        else {
            return Ok(ran);
        };
        let name = &entry.tool.spec().name;
        if call.origin.view.is_none() {
            let kept = self
                .exec
                .deps
                .store
                .calls()
                .record_call_task(CallTask {
                    chat: self.exec.chat,
                    seq: call.seq,
                    task_id: task.clone(),
                    review,
                    result_from: self.exec.sources().derived_sources(args, view),
                    args_from: expanded_sources(view.expanded).to_vec(),
                })
                .await;
            match kept {
                // Handed over to its follower once its row says so (`ToolExecutor::execute`).
                Ok(()) => {
                    return Err(Outcome::fail(
                        CallStatus::InBackground,
                        runs_on_message(name),
                    ))
                }
                Err(e) => tracing::warn!(
                    "the task of call c{} could not be kept, so it is followed in its turn: {e}",
                    call.seq
                ),
            }
        }
        // Followed here, stoppable on the call's card as the run was.
        let token = call.cancel.child_token();
        let _running = Running::new(self.exec, call.seq, &token);
        let here = CallCtx {
            cancel: &token,
            ..*call
        };
        Ok(match self.follow_task(entry, &task, &here).await {
            // The turn was stopped, not the call on its card.
            Followed::Ran(Err(ExecFailure {
                status: CallStatus::Cancelled,
                ..
            })) if call.cancel.is_cancelled() => Err(ExecFailure {
                status: CallStatus::Cancelled,
                message: stopped_with_turn(name),
            }),
            Followed::Ran(ran) => ran,
            Followed::Unavailable => Err(ExecFailure {
                status: CallStatus::Error,
                message: format!("The server of \"{name}\" stopped while its task ran."),
            }),
        })
    }

    /// The stages of a late result: wait for the call's tool (its server may not be ready yet,
    /// or may stop and start again meanwhile), follow its task to the end, then Format (with
    /// what the result carries from the call's turn), Truncate, Result approval and Store.
    async fn follow_stages(
        &self,
        call: &CallCtx<'_>,
        row: &RecordedCall,
        task: &CallTask,
        trace: &mut Trace,
    ) -> Result<Outcome, Outcome> {
        let name = row.tool.as_deref().unwrap_or(&row.requested_name);
        let args: Value = row
            .resolved_args
            .as_deref()
            .and_then(|a| serde_json::from_str(a).ok())
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        let view = GuardView {
            exposure: None,
            expanded: &[],
        };
        let (registry, ran) = loop {
            let changed = self.exec.handovers.registry_changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let registry = self.tool_ready(name, call.cancel).await?;
            match self
                .follow_task(entry_of(&registry, name)?, &task.task_id, call)
                .await
            {
                Followed::Ran(ran) => break (registry, ran),
                Followed::Unavailable => changed_or_stopped(changed, call.cancel, name).await?,
            }
        };
        let entry = entry_of(&registry, name)?;
        let prior = self.before_run(entry, &args, view).await;
        let mut formatted = self
            .format_stage(entry, &args, ran, prior, view, trace)
            .await?;
        formatted.carry(&task.result_from);
        let status = formatted.status;
        let shown = self.truncate_stage(entry, &args, call.seq, &formatted.text);
        let reviewed = self
            .result_approval_stage(entry, task.review, call, formatted, shown, trace)
            .await?;
        let expanded = vec![(Arc::from(task.args_from.as_slice()), Arc::from(""))];
        Ok(self.store_stage(entry, &args, call.seq, status, reviewed, &expanded))
    }

    /// The registry once it holds `name` (its server ready again after a restart), unless the
    /// call is stopped first.
    async fn tool_ready(
        &self,
        name: &str,
        cancel: &CancellationToken,
    ) -> Result<Arc<Registry>, Outcome> {
        loop {
            let changed = self.exec.handovers.registry_changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let registry = self.exec.registry();
            if registry.tool(name).is_some() {
                return Ok(registry);
            }
            changed_or_stopped(changed, cancel, name).await?;
        }
    }

    /// Follows the call's task with its tool, until it ends, its source is found not running,
    /// or the call is stopped on its card.
    async fn follow_task(
        &self,
        entry: &RegisteredTool,
        task: &str,
        call: &CallCtx<'_>,
    ) -> Followed {
        let name = &entry.tool.spec().name;
        let clock = tollgate_tools::clock::CallClock::new();
        let ctx = tool_context(
            self.exec,
            call,
            self.exec.workspace(),
            self.exec.sandbox_plan(),
            call.cancel,
            &clock,
            Arc::from([]),
        );
        let run = AssertUnwindSafe(entry.tool.resume(task, ctx)).catch_unwind();
        // A task has no time limit of its own: its server answers each reading in time.
        let ran = tokio::select! {
            biased;
            () = call.cancel.cancelled() => None,
            r = run => Some(Ok(r)).filter(|r| !stopped_meanwhile(r, call.cancel)),
        };
        match ran {
            None => Followed::Ran(Err(ExecFailure {
                status: CallStatus::Cancelled,
                message: stopped_on_card(name),
            })),
            Some(Ok(Ok(Err(e)))) if e.kind == ToolErrorKind::Unavailable => Followed::Unavailable,
            Some(r) => Followed::Ran(ended(name, Duration::ZERO, r)),
        }
    }
}

/// Waits for the registry to change (`changed`, armed before the registry was read), unless the
/// call of tool `name` is stopped on its card first.
async fn changed_or_stopped(
    changed: std::pin::Pin<&mut tokio::sync::futures::Notified<'_>>,
    cancel: &CancellationToken,
    name: &str,
) -> Result<(), Outcome> {
    tokio::select! {
        () = changed => Ok(()),
        () = cancel.cancelled() => Err(Outcome::fail(CallStatus::Cancelled, stopped_on_card(name))),
    }
}

/// The tool `name` of `registry`, which [`Stages::tool_ready`] found there.
fn entry_of<'r>(registry: &'r Registry, name: &str) -> Result<&'r RegisteredTool, Outcome> {
    registry.tool(name).ok_or_else(|| {
        Outcome::fail(
            CallStatus::NotFound,
            format!("The tool \"{name}\" is gone; its task's result cannot be read."),
        )
    })
}

/// What the stages knew of a call when it was handed over, read back from its row: the last
/// stages overwrite the whole row, so they write it again as it was.
fn trace_of(row: &RecordedCall) -> Trace {
    Trace {
        tool: row.tool.clone(),
        group: row.group.clone(),
        resolved_args: row
            .resolved_args
            .as_deref()
            .and_then(|a| serde_json::from_str(a).ok()),
        policy: row.policy,
        decision: row.decision.execution,
        decided_by: Some(row.decided_by),
        result_decision: None,
        sandbox: row.sandbox.clone(),
        effects: row.effects,
        guard: row.guard,
        in_plan: false,
    }
}

/// When the call started, as this process's clock reads it (its duration spans the restart).
fn started(row: &RecordedCall) -> Instant {
    let ago = u64::try_from(now_ms().saturating_sub(row.started_at)).unwrap_or(0);
    Instant::now()
        .checked_sub(Duration::from_millis(ago))
        .unwrap_or_else(Instant::now)
}

impl UnderWay<'_> {
    /// Stops call `seq` while its tool runs, or while it goes on as its server's task (the
    /// card's Stop): returns whether it was running. The turn goes on.
    pub fn stop(&self, seq: u64) -> bool {
        match self.exec.running.lock().get(&seq) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// The calls handed over in this chat, as they are (and, first, those a restart left going
    /// on): taken once, by the one who follows them.
    pub fn take_handovers(&self) -> Option<UnboundedReceiver<u64>> {
        self.exec.handovers.rx.lock().take()
    }

    /// Stops every call of the chat that still runs, the ones going on as tasks included (each
    /// task's server is told): the chat is going away.
    pub fn stop_all(&self) {
        self.exec.handovers.ended.cancel();
        for token in self.exec.running.lock().values() {
            token.cancel();
        }
    }

    /// Follows call `seq`'s task to its end and records its result as the call's; `None` when
    /// the call does not go on as a task (its result came already). The call can be stopped on
    /// its card meanwhile, which ends the task on its server.
    pub async fn resume(&self, seq: u64) -> Option<LateResult> {
        let exec = self.exec;
        // Stopped with the chat from the first moment, and on its card as soon as the card
        // offers Stop (its hand-over was announced): registered before anything is read.
        let cancel = exec.handovers.ended.child_token();
        if cancel.is_cancelled() {
            return None;
        }
        let running = Running::new(exec, seq, &cancel);
        let calls = exec.deps.store.calls();
        let (task, row) = match (
            calls.call_task(exec.chat, seq).await,
            calls.recorded_call(exec.chat, seq).await,
        ) {
            (Ok(Some(task)), Ok(Some(row))) => (task, row),
            // Its result came already, or the chat is gone.
            (Ok(None), _) | (_, Ok(None)) => return None,
            (Err(e), _) | (_, Err(e)) => {
                tracing::warn!("call c{seq}'s task is not followed until the next start: {e}");
                return None;
            }
        };
        let req = ToolCallRequest::new(
            row.call_id.clone(),
            row.requested_name.clone(),
            RawArguments::Text(row.raw_args.clone()),
        );
        let origin = CallOrigin {
            message_id: row.message_id,
            round: row.round,
            ..CallOrigin::default()
        };
        let call = CallCtx {
            req: &req,
            seq,
            origin: &origin,
            cancel: &cancel,
        };
        let mut trace = trace_of(&row);
        let outcome = match exec
            .stages()
            .follow_stages(&call, &row, &task, &mut trace)
            .await
        {
            Ok(outcome) | Err(outcome) => outcome,
        };
        drop(running);
        let result = exec
            .stages()
            .finish_call(req, seq, started(&row), trace, outcome);
        if let Err(e) = calls.end_call_task(exec.chat, seq).await {
            tracing::warn!("the task of call c{seq} was not marked as ended: {e}");
        }
        Some(LateResult {
            message_id: row.message_id,
            result,
        })
    }
}
