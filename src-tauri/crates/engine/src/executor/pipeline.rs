//! The pipeline of one call (SPEC §3): Parse → Resolve → Validate → Permission → Execute →
//! Format → Result approval → Store & truncate → Record → Return.
//!
//! Every stage that fails ends the call with a result for the model (never an error value, never
//! empty content), an event for the UI and a row in the database.

use super::permission::{CallCtx, Recheck};
use super::ToolExecutor;
use crate::approvals::{ApprovalRequest, Decision, PendingApproval, ResultDecision};
use crate::events::{ApprovalOutcome, CallSummary, ToolEvent};
use crate::ids::ApprovalId;
use crate::names::{closest_names, repair_name, NameMatch};
use crate::parse::{parse_arguments, preview, RawArguments};
use crate::policy::{CallDecision, CallStatus, DecidedBy, ExecutionChoice, ResultChoice};
use crate::store::{now_ms, CallFinish, CallStart};
use crate::tools::{default_format, RegisteredTool, ToolContext, LIMIT_ARG};
use crate::vars::reference::resolve_value;
use crate::vars::truncate::truncate_head_tail;
use crate::vars::VarKind;
use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A call as the provider delivered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRequest {
    /// The provider's id for the call (echoed back in the result).
    pub call_id: String,
    /// The tool name as the model wrote it.
    pub name: String,
    pub arguments: RawArguments,
}

/// Where in the conversation a call happens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallOrigin {
    pub message_id: Option<i64>,
    pub round: u32,
    /// Ask the user even if a policy, rule or record would allow (the doom-loop check, F-23).
    pub force_ask: Option<String>,
    /// Run only after the calls before this one in its group are done (F-21).
    #[serde(skip)]
    pub turnstile: Option<super::Turnstile>,
}

/// What the permission stage is expected to do with a call, for scheduling (F-21). Computed
/// without side effects; the pipeline still decides for real.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preflight {
    /// The tool is read-only (safe to run beside other read-only calls).
    pub read_only: bool,
    /// The user will be asked (before running or about the result).
    pub asks: bool,
}

/// What the model gets back (F-18 turns it into the provider's native form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    pub call_id: String,
    pub seq: u64,
    pub tool: Option<String>,
    pub status: CallStatus,
    /// The text for the model; never empty.
    pub content: String,
    pub is_error: bool,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    /// The user chose "deny and stop": the turn must end after this round.
    pub stop_turn: bool,
}

/// What the stages learned, for the record.
#[derive(Default)]
pub(super) struct Trace {
    pub tool: Option<String>,
    pub group: Option<String>,
    pub resolved_args: Option<Value>,
    pub policy: Option<crate::policy::ExecutionPolicy>,
    pub decision: Option<ExecutionChoice>,
    pub decided_by: Option<DecidedBy>,
    pub result_decision: Option<ResultChoice>,
}

/// How the stages ended.
pub(super) struct Outcome {
    pub status: CallStatus,
    pub content: String,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    pub stop_turn: bool,
    pub preview: Option<String>,
}

impl Outcome {
    pub(super) fn fail(status: CallStatus, content: impl Into<String>) -> Self {
        Self {
            status,
            content: content.into(),
            truncated: false,
            result_var: None,
            args_var: None,
            stop_turn: false,
            preview: None,
        }
    }
}

/// Why running the tool produced no data.
struct ExecFailure {
    status: CallStatus,
    message: String,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
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
    /// Runs one call through the whole pipeline. Never fails: every failure is a result.
    pub async fn execute(
        &self,
        req: ToolCallRequest,
        origin: CallOrigin,
        cancel: &CancellationToken,
    ) -> ToolCallResult {
        let (seq, started) = self.begin_call(&req, &origin);
        let mut trace = Trace::default();
        let outcome = self
            .run_stages(&req, seq, &origin, cancel, &mut trace)
            .await;
        if let Some(turnstile) = &origin.turnstile {
            turnstile.done();
        }
        self.finish_call(req, seq, started, trace, outcome)
    }

    /// Records a call that will not run (e.g. past the round limit, F-22) and returns its result.
    pub fn skip(&self, req: ToolCallRequest, origin: &CallOrigin, message: &str) -> ToolCallResult {
        let (seq, started) = self.begin_call(&req, origin);
        self.finish_call(
            req,
            seq,
            started,
            Trace::default(),
            Outcome::fail(CallStatus::Cancelled, message),
        )
    }

    /// Numbers the call, writes its starting row and announces it.
    fn begin_call(&self, req: &ToolCallRequest, origin: &CallOrigin) -> (u64, Instant) {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let raw_args = req.arguments.raw_text();
        self.deps.store.record_call_start(CallStart {
            chat: self.chat,
            message_id: origin.message_id,
            round: origin.round,
            seq,
            call_id: req.call_id.clone(),
            requested_name: req.name.clone(),
            raw_args: raw_args.clone(),
            started_at: now_ms(),
        });
        self.deps.sink.emit(ToolEvent::BeforeCall {
            chat: self.chat,
            seq,
            call_id: req.call_id.clone(),
            requested_name: req.name.clone(),
            raw_args,
        });
        (seq, Instant::now())
    }

    /// Completes the call's row, announces the end and builds the result for the model.
    fn finish_call(
        &self,
        req: ToolCallRequest,
        seq: u64,
        started: Instant,
        trace: Trace,
        mut outcome: Outcome,
    ) -> ToolCallResult {
        if outcome.content.trim().is_empty() {
            outcome.content = format!(
                "The call ended with status {} and no message.",
                outcome.status
            );
        }
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let decided_by = trace.decided_by.unwrap_or(DecidedBy::None);
        let decision = CallDecision {
            execution: trace.decision,
            result: trace.result_decision,
        };
        self.deps.store.record_call_finish(CallFinish {
            chat: self.chat,
            seq,
            tool: trace.tool.clone(),
            group: trace.group.clone(),
            resolved_args: trace.resolved_args.as_ref().map(Value::to_string),
            policy: trace.policy,
            decision,
            decided_by,
            status: outcome.status,
            result_text: outcome.content.clone(),
            truncated: outcome.truncated,
            result_var: outcome.result_var.clone(),
            args_var: outcome.args_var.clone(),
            ended_at: now_ms(),
            duration_ms: i64::try_from(duration_ms).unwrap_or(i64::MAX),
        });
        self.deps.sink.emit(ToolEvent::Finished {
            chat: self.chat,
            seq,
            summary: CallSummary {
                tool: trace.tool.clone(),
                status: outcome.status,
                decision,
                decided_by,
                duration_ms,
                preview: outcome.preview.take().unwrap_or_else(|| {
                    preview(outcome.content.lines().next().unwrap_or_default(), 160)
                }),
                content: outcome.content.clone(),
                truncated: outcome.truncated,
                result_var: outcome.result_var.clone(),
                args_var: outcome.args_var.clone(),
            },
        });
        ToolCallResult {
            call_id: req.call_id,
            seq,
            tool: trace.tool,
            status: outcome.status,
            is_error: outcome.status.is_error(),
            content: outcome.content,
            truncated: outcome.truncated,
            result_var: outcome.result_var,
            args_var: outcome.args_var,
            stop_turn: outcome.stop_turn,
        }
    }

    async fn run_stages(
        &self,
        req: &ToolCallRequest,
        seq: u64,
        origin: &CallOrigin,
        cancel: &CancellationToken,
        trace: &mut Trace,
    ) -> Outcome {
        // Parse.
        let args = match parse_arguments(&req.arguments) {
            Ok(v) => v,
            Err(e) => {
                return Outcome::fail(
                    CallStatus::InvalidArgs,
                    format!(
                        "Could not read the arguments of the call to \"{}\". {e}",
                        req.name
                    ),
                )
            }
        };

        // Resolve the tool.
        let registry = self.registry();
        let entry = match self.resolve_tool(&registry, &req.name) {
            Ok(entry) => entry,
            Err(outcome) => return outcome,
        };
        let spec = entry.tool.spec();
        let name = spec.name.clone();
        trace.tool = Some(name.clone());
        trace.group = Some(entry.group.clone());
        let policy = self.execution_policy(spec);
        trace.policy = Some(policy);
        if policy == crate::policy::ExecutionPolicy::Deny {
            trace.decided_by = Some(DecidedBy::Policy);
            trace.decision = Some(ExecutionChoice::Deny);
            return Outcome::fail(
                CallStatus::ExecutionRejected,
                format!("The user's settings deny the tool \"{name}\"; it cannot be used. Continue without it or ask the user."),
            );
        }

        // Resolve variable references.
        let args = match resolve_value(&args, &*self.vars) {
            Ok(Some(resolved)) => resolved,
            Ok(None) => args,
            Err(e) => {
                return Outcome::fail(
                    CallStatus::InvalidArgs,
                    format!(
                    "Could not resolve a variable reference in the arguments of \"{name}\": {e}"
                ),
                )
            }
        };
        // Bound what the model can make the gate store and show (see `limits`).
        if let Err(message) = super::limits::check_argument_size(&args) {
            return Outcome::fail(
                CallStatus::InvalidArgs,
                format!("The call to \"{name}\" was not run: {message}."),
            );
        }
        trace.resolved_args = Some(args.clone());

        // Validate.
        if let Err(message) = entry.validator.validate(&name, &args) {
            return Outcome::fail(CallStatus::InvalidArgs, message);
        }

        // Permission.
        let ctx = CallCtx {
            seq,
            call_id: &req.call_id,
            origin,
            cancel,
        };
        let mut grant = match self.permission(entry, args, &ctx, trace).await {
            Ok(grant) => grant,
            Err(outcome) => return outcome,
        };
        trace.resolved_args = Some(grant.args.clone());

        // Wait for this call's turn when it is part of an approval group, then re-check the
        // grant against the world as it is now (F-03): a rule revoked, a record removed, a
        // workspace switched or a symlink swapped while the call waited must not let it run.
        if let Some(turnstile) = &origin.turnstile {
            if !turnstile.wait_turn(cancel).await {
                return Outcome::fail(
                    CallStatus::Cancelled,
                    "The call was stopped by the user before it ran.",
                );
            }
        }
        let mut decided_again = false;
        loop {
            match self.recheck(entry, &grant) {
                Recheck::Proceed => break,
                Recheck::Refuse(outcome) => return outcome,
                Recheck::DecideAgain if !decided_again => {
                    decided_again = true;
                    grant = match self.permission(entry, grant.args, &ctx, trace).await {
                        Ok(grant) => grant,
                        Err(outcome) => return outcome,
                    };
                    trace.resolved_args = Some(grant.args.clone());
                }
                Recheck::DecideAgain => {
                    return Outcome::fail(
                        CallStatus::ExecutionRejected,
                        "The permission for this call kept changing while it waited, so it was not run. Make the call again if it is still needed.",
                    )
                }
            }
        }
        let args = grant.args;

        // Execute.
        let data = self.run_tool(entry, &args, seq, &req.call_id, cancel).await;

        // Format.
        let (status, formatted) = match data {
            Ok(data) => {
                let text = entry
                    .tool
                    .format_for_llm(&data, &args)
                    .unwrap_or_else(|| default_format(&data));
                let text = if text.trim().is_empty() {
                    format!("The tool \"{name}\" finished successfully and returned no output.")
                } else {
                    text
                };
                (CallStatus::Success, text)
            }
            Err(ExecFailure {
                status: CallStatus::Error,
                message,
            }) => (CallStatus::Error, message),
            Err(ExecFailure { status, message }) => return Outcome::fail(status, message),
        };

        // Truncate (computed now so the reviewer sees exactly what the model would get).
        let limit = self.output_limit(entry, &args);
        let result_var = spec.stores_result.then(|| format!("{name}_c{seq}_result"));
        let args_var = spec.stores_result.then(|| format!("{name}_c{seq}_args"));
        let (mut shown, mut truncated) =
            self.shorten(entry, &formatted, &args, limit, result_var.as_deref());

        // Result approval.
        let mut stored = formatted;
        if self.result_policy(spec).needs_review(status.is_error()) {
            let request = ApprovalRequest::Result {
                text_for_model: shown.clone(),
                full_output: stored.clone(),
                status,
            };
            let approval = self.pending_approval(entry, seq, &req.call_id, request);
            match self
                .wait_for_decision(approval, cancel)
                .await
                .map(|(d, _)| d)
            {
                Some(Decision::Result(ResultDecision::Approve)) => {
                    trace.result_decision = Some(ResultChoice::Approve)
                }
                Some(Decision::Result(ResultDecision::EditAndApprove { text })) => {
                    trace.result_decision = Some(ResultChoice::EditAndApprove);
                    shown = text.clone();
                    stored = text;
                    truncated = false;
                }
                Some(Decision::Result(ResultDecision::Reject { reason })) => {
                    trace.result_decision = Some(ResultChoice::Reject);
                    let mut msg =
                        "The user withheld the result of this call; its output is not available."
                            .to_string();
                    if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
                        msg.push_str(&format!(" Reason: {r}"));
                    }
                    return Outcome::fail(CallStatus::ResultRejected, msg);
                }
                Some(Decision::Execution(_)) | None => {
                    return Outcome::fail(
                        CallStatus::Cancelled,
                        "The call was cancelled while its result waited for review.",
                    )
                }
            }
        }

        // Store the full result and the arguments as variables.
        let mut stored_vars = (None, None);
        if let (Some(rv), Some(av)) = (&result_var, &args_var) {
            let full: Arc<str> = Arc::from(stored);
            match self.vars.set(rv, Arc::clone(&full), VarKind::ToolResult) {
                Ok(()) => {
                    let pretty =
                        serde_json::to_string_pretty(&args).unwrap_or_else(|_| args.to_string());
                    let args_ok = self
                        .vars
                        .set(av, Arc::from(pretty), VarKind::ToolArgs)
                        .is_ok();
                    stored_vars = (Some(rv.clone()), args_ok.then(|| av.clone()));
                }
                Err(e) => {
                    tracing::warn!("result of {name} c{seq} not stored: {e}");
                    if truncated {
                        // The notice must not point at a variable that does not exist.
                        (shown, truncated) = self.shorten(entry, &full, &args, limit, None);
                    }
                }
            }
        }

        Outcome {
            status,
            preview: entry.tool.compress_result(&shown),
            content: shown,
            truncated,
            result_var: stored_vars.0,
            args_var: stored_vars.1,
            stop_turn: false,
        }
    }

    /// Predicts, without side effects, whether a call is read-only and whether it will ask.
    pub fn preflight(&self, req: &ToolCallRequest, force_ask: bool) -> Preflight {
        let Ok(args) = parse_arguments(&req.arguments) else {
            return Preflight {
                read_only: true,
                asks: false,
            };
        };
        let registry = self.registry();
        let Ok(entry) = self.resolve_tool(&registry, &req.name) else {
            return Preflight {
                read_only: true,
                asks: false,
            };
        };
        let spec = entry.tool.spec();
        let inputs = self.permission_inputs(entry, &args);
        let force = force_ask.then_some("preflight");
        let asks_first = matches!(
            super::permission::verdict(inputs.policy, inputs.rule.as_ref(), inputs.record, force),
            super::permission::Verdict::Ask { .. }
        );
        let reviews = self.result_policy(spec) != crate::policy::ResultPolicy::Never;
        Preflight {
            read_only: spec.read_only,
            asks: asks_first || reviews,
        }
    }

    fn resolve_tool<'r>(
        &self,
        registry: &'r crate::tools::Registry,
        requested: &str,
    ) -> Result<&'r RegisteredTool, Outcome> {
        let enabled = self.enabled_tool_names();
        let found = match repair_name(requested, enabled.iter().map(String::as_str)) {
            NameMatch::Exact(n) | NameMatch::Repaired(n) => registry.tool(&n),
            NameMatch::Unknown => None,
        };
        if let Some(entry) = found {
            return Ok(entry);
        }
        // Known but denied by policy: say so rather than "unknown".
        if let NameMatch::Exact(n) | NameMatch::Repaired(n) =
            repair_name(requested, registry.tool_names())
        {
            if let Some(entry) = registry.tool(&n) {
                if self.execution_policy(entry.tool.spec()) == crate::policy::ExecutionPolicy::Deny
                {
                    return Ok(entry);
                }
                return Err(Outcome::fail(
                    CallStatus::NotFound,
                    format!(
                        "The tool \"{n}\" is not enabled in this chat. Enabled tools: {}.",
                        list_or_none(&enabled)
                    ),
                ));
            }
        }
        let closest = closest_names(requested, enabled.iter().map(String::as_str), 3);
        let hint = if closest.is_empty() {
            String::new()
        } else {
            format!(
                " Did you mean {}?",
                closest
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        };
        Err(Outcome::fail(
            CallStatus::NotFound,
            format!(
                "There is no tool called \"{requested}\".{hint} Enabled tools: {}.",
                list_or_none(&enabled)
            ),
        ))
    }

    /// F-16: the call's own `limit` > the user's setting > the tool's default > the global
    /// default. `0` or a negative value means no truncation.
    fn output_limit(&self, entry: &RegisteredTool, args: &Value) -> usize {
        if let Some(n) = args.get(LIMIT_ARG).and_then(Value::as_i64) {
            return usize::try_from(n).unwrap_or(0);
        }
        let settings = self.deps.settings.read();
        settings
            .output_limit(&entry.tool.spec().name)
            .or(entry.tool.spec().output_limit)
            .unwrap_or(settings.default_output_limit)
    }

    fn shorten(
        &self,
        entry: &RegisteredTool,
        text: &str,
        args: &Value,
        limit: usize,
        var: Option<&str>,
    ) -> (String, bool) {
        if limit == 0 || text.len() <= limit {
            return (text.to_string(), false);
        }
        if let Some(custom) = entry.tool.truncate_for_llm(text, args, limit, var) {
            let truncated = custom != text;
            return (custom, truncated);
        }
        let t = truncate_head_tail(text, limit, var);
        (t.text, t.truncated)
    }

    async fn run_tool(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        seq: u64,
        call_id: &str,
        cancel: &CancellationToken,
    ) -> Result<Value, ExecFailure> {
        let spec = entry.tool.spec();
        let name = &spec.name;
        let timeout = self
            .deps
            .settings
            .read()
            .timeout(name)
            .unwrap_or(spec.timeout);
        let token = cancel.child_token();
        let mut exec_args = args.clone();
        if let Value::Object(map) = &mut exec_args {
            map.remove(LIMIT_ARG);
        }
        let ctx = ToolContext {
            chat: self.chat,
            seq,
            call_id: call_id.to_string(),
            workspace: self.workspace(),
            cancel: token.clone(),
            vars: Arc::clone(&self.vars),
            sink: Arc::clone(&self.deps.sink),
        };
        self.deps.sink.emit(ToolEvent::Started {
            chat: self.chat,
            seq,
            tool: name.clone(),
            args: entry
                .tool
                .compress_args(&exec_args)
                .unwrap_or_else(|| preview(&exec_args.to_string(), 200)),
        });
        let run = AssertUnwindSafe(entry.tool.execute(exec_args, ctx)).catch_unwind();
        let result = tokio::select! {
            biased;
            () = cancel.cancelled() => {
                token.cancel();
                return Err(ExecFailure {
                    status: CallStatus::Cancelled,
                    message: format!("The call to \"{name}\" was stopped by the user before it finished."),
                });
            }
            r = tokio::time::timeout(timeout, run) => r,
        };
        match result {
            Err(_) => {
                token.cancel();
                Err(ExecFailure {
                    status: CallStatus::TimedOut,
                    message: format!(
                        "The tool \"{name}\" did not finish within {} and was stopped. Try a smaller request, or ask the user to raise its timeout in settings.",
                        seconds(timeout)
                    ),
                })
            }
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
                Err(ExecFailure { status: CallStatus::Error, message })
            }
            Ok(Ok(Ok(data))) => Ok(data),
        }
    }

    pub(super) fn pending_approval(
        &self,
        entry: &RegisteredTool,
        seq: u64,
        call_id: &str,
        request: ApprovalRequest,
    ) -> PendingApproval {
        PendingApproval {
            id: ApprovalId::random(),
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

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
