//! Execute (F-01, stage 6): running a tool with the chat's sandbox (narrowed to a plan step's
//! envelope), its workspace, its timeout (the time the user spends answering the tool's
//! questions not counted), Stop, and a panic caught; what the run came to, as the call's value
//! or the failure the model is told of.

use super::call::CallCtx;
use super::grant::GuardView;
use super::plan::Envelope;
use crate::panics::panic_message;
use crate::tool_executor::ToolExecutor;
use futures::FutureExt;
use serde_json::Value;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::parse::preview;
use tollgate_protocol::policy::CallStatus;
use tollgate_protocol::ToolEvent;
use tollgate_tools::{RegisteredTool, ToolContext, LIMIT_ARG};

/// Why running the tool produced no data.
pub(super) struct ExecFailure {
    pub status: CallStatus,
    pub message: String,
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 && s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

impl ToolExecutor {
    /// Runs the tool of `entry` with `args` as granted: what it returned, or why it did not.
    pub(super) async fn run_tool(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        envelope: Option<&Envelope>,
        call: &CallCtx<'_>,
        view: GuardView<'_>,
    ) -> Result<Value, ExecFailure> {
        let (seq, cancel) = (call.seq, call.cancel);
        let mut sandbox = self.sandbox_plan();
        if let Some(envelope) = envelope {
            envelope.narrow(&mut sandbox.chat);
        }
        let mut workspace = self.workspace();
        if let Some(rerun) = &call.origin.unsandboxed_rerun {
            sandbox.chat.level = tollgate_protocol::SandboxLevel::Off;
            // Where the blocked call ran, not where the chat points now (F-46).
            if let Some(ws) = &rerun.workspace {
                workspace = Some(ws.clone());
            }
        }
        let spec = entry.tool.spec();
        let name = &spec.name;
        let timeout = self
            .deps
            .settings
            .read()
            .timeout(name)
            .unwrap_or(spec.timeout);
        let token = cancel.child_token();
        let clock = tollgate_tools::clock::CallClock::new();
        let mut exec_args = args.clone();
        if let Value::Object(map) = &mut exec_args {
            map.remove(LIMIT_ARG);
        }
        let ctx = tool_context(
            self,
            call,
            workspace,
            sandbox,
            &token,
            &clock,
            view.read_sources(),
        );
        // The gate let the call run: its view (if its server ships one) shows from now, so the
        // record holds what it needs before the call ends (the arguments as the call's end
        // records them too: a view shown now and one shown later are told the same).
        let view = spec.view.as_deref().cloned();
        if let Some(link) = &view {
            self.deps.store.views().record_call_view_start(
                self.chat,
                seq,
                name.clone(),
                args.to_string(),
                link.clone(),
            );
        }
        self.deps.sink.emit(ToolEvent::Started {
            chat: self.chat,
            seq,
            tool: name.clone(),
            args: entry
                .tool
                .compress_args(&exec_args)
                .unwrap_or_else(|| preview(&exec_args.to_string(), 200)),
            view,
        });
        let run = AssertUnwindSafe(entry.tool.execute(exec_args, ctx)).catch_unwind();
        // The call can be stopped on its own card while it runs (its token, not the turn's).
        let _running = Running::new(self, seq, &token);
        let result = tokio::select! {
            biased;
            () = token.cancelled() => None,
            // The time the user takes to answer the tool's questions does not count.
            r = clock.limit(timeout, run) => Some(r).filter(|r| !stopped_meanwhile(r, &token)),
        };
        let Some(result) = result else {
            token.cancel();
            let message = if cancel.is_cancelled() {
                stopped_with_turn(name)
            } else {
                stopped_on_card(name)
            };
            return Err(ExecFailure {
                status: CallStatus::Cancelled,
                message,
            });
        };
        if result.is_err() {
            token.cancel();
        }
        ended(name, timeout, result)
    }
}

/// Whether a run that ended did so because its Stop fired meanwhile: a failure that comes with
/// the Stop is the Stop's. The two race on a runtime with more than one thread: the Stop can
/// land after the gate looked at it and before it looked at the run, which then ends with the
/// tool's own words for being stopped ("stopped by the user"), not the gate's.
pub(super) fn stopped_meanwhile(run: &RunEnd, stop: &CancellationToken) -> bool {
    stop.is_cancelled() && !matches!(run, Ok(Ok(Ok(_))))
}

/// What the model is told of a call stopped with its turn (the turn's Stop).
pub(super) fn stopped_with_turn(name: &str) -> String {
    format!("The call to \"{name}\" was stopped by the user before it finished.")
}

/// What the model is told of a call the user stopped on its own card.
pub(super) fn stopped_on_card(name: &str) -> String {
    format!("The user stopped the call to \"{name}\" before it finished. Do not make it again unless the user asks.")
}

/// What the tool of `call` in `exec`'s chat is given to run with: the chat, the call, its
/// folder and sandbox, its Stop and clock, and what the model had read.
pub(super) fn tool_context(
    exec: &ToolExecutor,
    call: &CallCtx<'_>,
    workspace: Option<std::path::PathBuf>,
    sandbox: tollgate_tools::sandbox::SandboxPlan,
    cancel: &CancellationToken,
    clock: &Arc<tollgate_tools::clock::CallClock>,
    read: Arc<[tollgate_protocol::Source]>,
) -> ToolContext {
    ToolContext {
        chat: exec.chat,
        seq: call.seq,
        call_id: call.req.call_id.clone(),
        workspace,
        cancel: cancel.clone(),
        clock: Arc::clone(clock),
        vars: Arc::clone(&exec.vars),
        sandbox,
        sink: Arc::clone(&exec.deps.sink),
        read,
    }
}

/// A call's tool running, stoppable on its own card until this is dropped.
pub(super) struct Running<'a> {
    exec: &'a ToolExecutor,
    seq: u64,
}

impl<'a> Running<'a> {
    pub(super) fn new(exec: &'a ToolExecutor, seq: u64, token: &CancellationToken) -> Self {
        exec.running.lock().insert(seq, token.clone());
        Self { exec, seq }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.exec.running.lock().remove(&self.seq);
    }
}

/// How a tool's run ended: within its time or not, then without a panic or with one, then with
/// the tool's value or its error.
pub(super) type RunEnd = Result<
    Result<Result<Value, tollgate_tools::ToolError>, Box<dyn std::any::Any + Send>>,
    tollgate_tools::clock::TimedOut,
>;

/// What a tool's run came to, as the call's value or the failure the model is told of: it timed
/// out, it panicked, or it failed with its own error and suggestion.
pub(super) fn ended(name: &str, timeout: Duration, result: RunEnd) -> Result<Value, ExecFailure> {
    match result {
        Err(_) => Err(ExecFailure {
            status: CallStatus::TimedOut,
            message: format!(
                "The tool \"{name}\" did not finish within {} and was stopped. Try a smaller request, or ask the user to raise its timeout in settings.",
                seconds(timeout)
            ),
        }),
        Ok(Err(panic)) => Err(ExecFailure {
            status: CallStatus::Error,
            message: format!(
                "The tool \"{name}\" crashed: {}. This is a bug in the tool, not in your arguments; try another approach.",
                panic_message(&*panic)
            ),
        }),
        Ok(Ok(Err(e))) => {
            let mut message = format!("Error from tool \"{name}\": {}", e.message);
            if let Some(s) = e.suggestion_text() {
                message.push_str(&format!("\nSuggestion: {s}"));
            }
            Err(ExecFailure {
                status: CallStatus::Error,
                message,
            })
        }
        Ok(Ok(Ok(data))) => Ok(data),
    }
}
