//! The pipeline of one call (SPEC §3). [`ToolExecutor::execute`] numbers and announces the call,
//! runs the stages, then records and returns the result. The stages, in order (each returns what
//! the next needs, or the call's [`Outcome`] when the call ends there):
//!
//! 1. Parse — [`parse_stage`]
//! 2. Resolve the tool — `resolve_tool` (a view's call: `resolve_view_tool`), `admit_stage`;
//!    variable references — `resolve_refs_stage`
//! 3. Validate — [`validate_stage`]
//! 4. Permission — `permission` (in `permission.rs`, with its fixed decision order)
//! 5. Wait for its turn and re-check the grant — `wait_and_recheck_stage`
//! 6. Execute — `run_tool` (in `execute.rs`); a call that goes on as its server's task after
//!    its turn is handed over here — `hand_over_stage` (in `background.rs`); then Format —
//!    `format_stage`
//! 7. Truncate — `truncate_stage`
//! 8. Result approval — `result_approval_stage`
//! 9. Store the result as variables — `store_stage`
//! 10. Record and Return — `finish_call`
//!
//! Every stage that fails ends the call with a result for the model (never an error value, never
//! empty content), an event for the UI and a row in the database.

use super::call::{CallCtx, CallOrigin, Outcome, ToolCallRequest, ToolCallResult, Trace};
use super::execute::ExecFailure;
use super::facets::Stages;
use super::grant::{Grant, GuardView, Recheck};
use crate::tool_executor::ToolExecutor;
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::parse::preview;
use tollgate_protocol::policy::{CallDecision, CallStatus, DecidedBy, ExecutionChoice};
use tollgate_protocol::policy::{ResultChoice, ResultPolicy};
use tollgate_protocol::{ApprovalRequest, Attachment, Decision, ResultDecision};
use tollgate_protocol::{CallSummary, Source, ToolEvent};
use tollgate_provenance::distinct;
use tollgate_store::{now_ms, CallFinish, CallStart};
use tollgate_tools::vars::reference::resolve_value;
use tollgate_tools::vars::{NotingLookup, VarKind};
use tollgate_tools::{default_format, RegisteredTool};

/// What the model will be shown of a result, and whether it was shortened.
pub(super) struct Shown {
    text: String,
    truncated: bool,
    /// The limit it was shortened to (`0`: none).
    limit: usize,
}

/// What is known of a call's result before its tool runs ([`Stages::before_run`]).
pub(super) struct BeforeRun {
    sources: Vec<Source>,
    files: Option<tollgate_tools::changed_files::Files>,
}

/// A result as the tool gave it: its status, its full text, the images shown with it and where
/// its content came from.
pub(super) struct Formatted {
    pub(super) status: CallStatus,
    pub(super) text: String,
    images: Vec<Attachment>,
    sources: Vec<Source>,
    /// The result as its source returned it, for a view (F-96).
    raw: Option<Value>,
}

impl Formatted {
    /// Adds what the result carries from elsewhere (a late result: what its call's turn had
    /// read, F-99), each source once.
    pub(super) fn carry(&mut self, sources: &[Source]) {
        for s in sources {
            if !self.sources.contains(s) {
                self.sources.push(s.clone());
            }
        }
    }
}

/// A result after review: the full text to store, what the model sees, the images the user
/// sees with it, and where it came from.
pub(super) struct Reviewed {
    stored: String,
    shown: Shown,
    images: Vec<Attachment>,
    sources: Vec<Source>,
    raw: Option<Value>,
}

/// The variables a call's full result and arguments are stored as (F-16), when its tool stores
/// them: `<tool>_c<seq>_result` and `<tool>_c<seq>_args`. The truncation notice names the first.
fn call_vars(entry: &RegisteredTool, seq: u64) -> Option<(String, String)> {
    let spec = entry.tool.spec();
    spec.stores_result.then(|| {
        (
            format!("{}_c{seq}_result", spec.name),
            format!("{}_c{seq}_args", spec.name),
        )
    })
}

/// Parse: the arguments as the model wrote them, repaired where that is unambiguous (F-10).
fn parse_stage(req: &ToolCallRequest) -> Result<Value, Outcome> {
    req.args().cloned().map_err(|e| {
        Outcome::fail(
            CallStatus::InvalidArgs,
            format!(
                "Could not read the arguments of the call to \"{}\". {e}",
                req.name
            ),
        )
    })
}

/// Validate: the arguments against the tool's JSON Schema (F-12).
fn validate_stage(entry: &RegisteredTool, args: &Value) -> Result<(), Outcome> {
    entry
        .validator
        .validate(&entry.tool.spec().name, args)
        .map_err(|message| Outcome::fail(CallStatus::InvalidArgs, message))
}

impl ToolExecutor {
    /// Runs one call through the whole pipeline. Never fails: every failure is a result.
    pub async fn execute(
        &self,
        req: ToolCallRequest,
        origin: CallOrigin,
        cancel: &CancellationToken,
    ) -> ToolCallResult {
        let (seq, started) = self.stages().begin_call(&req, &origin);
        let mut trace = Trace::default();
        let call = CallCtx {
            req: &req,
            seq,
            origin: &origin,
            cancel,
        };
        let outcome = match self.stages().run_stages(&call, &mut trace).await {
            Ok(outcome) | Err(outcome) => outcome,
        };
        if let Some(turnstile) = &origin.turnstile {
            turnstile.done();
        }
        let result = self.stages().finish_call(req, seq, started, trace, outcome);
        // Followed from here (F-99): its row is finished as handed over, and its tool no longer
        // runs under the turn (its card's Stop is the follower's from now).
        if result.status == CallStatus::InBackground {
            self.handovers.hand_over(seq);
        }
        result
    }

    /// Records a call that will not run (e.g. past the round limit, F-22) and returns its result.
    pub fn skip(&self, req: ToolCallRequest, origin: &CallOrigin, message: &str) -> ToolCallResult {
        let (seq, started) = self.stages().begin_call(&req, origin);
        self.stages().finish_call(
            req,
            seq,
            started,
            Trace::default(),
            Outcome::fail(CallStatus::Cancelled, message),
        )
    }
}

/// The variables a call's arguments expanded that came from somewhere, with their values.
pub(super) type Expanded = Vec<(Arc<[Source]>, Arc<str>)>;

/// Every source the expansions brought in.
pub(super) fn expanded_sources(expanded: &[(Arc<[Source]>, Arc<str>)]) -> Arc<[Source]> {
    Arc::from(distinct(
        expanded.iter().flat_map(|(s, _)| s.iter()).cloned(),
    ))
}

impl Stages<'_> {
    /// Numbers the call, writes its starting row and announces it.
    fn begin_call(&self, req: &ToolCallRequest, origin: &CallOrigin) -> (u64, Instant) {
        let seq = self.exec.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let raw_args = req.arguments().raw_text();
        self.exec.deps.store.calls().record_call_start(CallStart {
            chat: self.exec.chat,
            message_id: origin.message_id,
            round: origin.round,
            seq,
            call_id: req.call_id.clone(),
            requested_name: req.name.clone(),
            raw_args: raw_args.clone(),
            started_at: now_ms(),
            view_of: origin.view.as_ref().map(|v| v.of_seq),
        });
        self.exec.deps.sink.emit(ToolEvent::BeforeCall {
            chat: self.exec.chat,
            seq,
            call_id: req.call_id.clone(),
            requested_name: req.name.clone(),
            raw_args,
            view_of: origin.view.as_ref().map(|v| v.of_seq),
        });
        (seq, Instant::now())
    }

    /// Completes the call's row, announces the end and builds the result for the model.
    pub(super) fn finish_call(
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
        self.exec.deps.store.calls().record_call_finish(CallFinish {
            chat: self.exec.chat,
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
            result_var: outcome.result_var.as_deref().map(String::from),
            args_var: outcome.args_var.as_deref().map(String::from),
            result_images: outcome.images.to_vec(),
            sandbox: trace.sandbox.clone(),
            sources: outcome.sources.to_vec(),
            effects: trace.effects,
            guard: trace.guard,
            ended_at: now_ms(),
            duration_ms: i64::try_from(duration_ms).unwrap_or(i64::MAX),
            view: outcome
                .for_view
                .as_deref()
                .and_then(super::call::ForView::record),
        });
        self.exec.deps.sink.emit(ToolEvent::Finished {
            chat: self.exec.chat,
            seq,
            summary: CallSummary {
                tool: trace.tool.clone(),
                status: outcome.status,
                decision,
                decided_by,
                duration_ms,
                preview: outcome.preview.take().map(String::from).unwrap_or_else(|| {
                    preview(outcome.content.lines().next().unwrap_or_default(), 160)
                }),
                content: outcome.content.clone(),
                truncated: outcome.truncated,
                result_var: outcome.result_var.as_deref().map(String::from),
                args_var: outcome.args_var.as_deref().map(String::from),
                images: std::mem::take(&mut outcome.images).into_vec(),
                sandbox: trace.sandbox,
                sources: outcome.sources.to_vec(),
                guard: trace.guard,
                view: outcome
                    .for_view
                    .as_deref()
                    .and_then(|v| v.link.as_deref().cloned()),
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
            result_var: outcome.result_var.map(String::from),
            args_var: outcome.args_var.map(String::from),
            stop_turn: outcome.stop_turn,
            sources: outcome.sources.into_vec(),
            raw: outcome.for_view.and_then(|v| v.raw),
        }
    }

    /// The stages in order; each returns the value the next one needs, or the call's
    /// [`Outcome`] when the call ends there.
    async fn run_stages(&self, call: &CallCtx<'_>, trace: &mut Trace) -> Result<Outcome, Outcome> {
        let args = parse_stage(call.req)?;
        let registry = self.exec.registry();
        let entry = match &call.origin.view {
            None => self.exec.resolve_tool(&registry, &call.req.name)?,
            Some(v) => self
                .exec
                .resolve_view_tool(&registry, &v.server, &call.req.name)?,
        };
        let entry = self.admit_stage(entry, trace)?;
        // A rerun repeats arguments that were expanded once already: expanding them again
        // would run what no card showed (F-46).
        let (args, expanded) = match call.origin.unsandboxed_rerun {
            Some(_) => (self.bounded_stage(entry, args)?, Vec::new()),
            None => self.resolve_refs_stage(entry, args)?,
        };
        trace.resolved_args = Some(args.clone());
        validate_stage(entry, &args)?;
        let view = GuardView {
            exposure: call.origin.exposure.as_ref().map(|e| &*e.0),
            expanded: &expanded,
        };
        let grant = self.exec.permission(entry, args, call, view, trace).await?;
        trace.resolved_args = Some(grant.args().clone());
        let grant = self
            .wait_and_recheck_stage(entry, grant, call, view, trace)
            .await?;
        let (args, review, envelope) = grant.into_run();
        let prior = self.before_run(entry, &args, view).await;
        let ran = self
            .exec
            .run_tool(entry, &args, envelope.as_ref(), call, view)
            .await;
        let ran = match self
            .hand_over_stage(entry, review, call, &args, view, ran)
            .await
        {
            Ok(ran) => ran,
            Err(handed_over) => return Ok(handed_over),
        };
        let formatted = self
            .format_stage(entry, &args, ran, prior, view, trace)
            .await?;
        let status = formatted.status;
        let shown = self.truncate_stage(entry, &args, call.seq, &formatted.text);
        let reviewed = self
            .result_approval_stage(entry, review, call, formatted, shown, trace)
            .await?;
        // What a result names grants targets to the steps that name its tool as a source
        // (`from`, F-98) only when it is the plan's own lookup: a call the plan took, made by
        // the model (not a view), that succeeded, as the model is shown it after review — and
        // not keyed on what untrusted content named (its result is that content's choice).
        let learns = status == CallStatus::Success
            && trace.in_plan
            && call.origin.view.is_none()
            && self.exec.sources().derived_sources(&args, view).is_empty();
        if learns {
            self.exec
                .task()
                .note_task_result(&entry.tool.spec().name, &reviewed.shown.text);
        }
        Ok(self.store_stage(entry, &args, call.seq, status, reviewed, &expanded))
    }

    /// Resolve, once the tool is found (the one the model named, repaired when unambiguous, or
    /// the one a view named): its group and policy. A tool the user's settings deny ends here.
    fn admit_stage<'r>(
        &self,
        entry: &'r RegisteredTool,
        trace: &mut Trace,
    ) -> Result<&'r RegisteredTool, Outcome> {
        let spec = entry.tool.spec();
        let name = spec.name.clone();
        trace.tool = Some(name.clone());
        trace.group = Some(entry.group.clone());
        trace.effects = Some(self.exec.policies().effects(spec));
        let policy = self.exec.policies().execution_policy(spec);
        trace.policy = Some(policy);
        if super::decision::denies(policy) {
            trace.decided_by = Some(DecidedBy::Policy);
            trace.decision = Some(ExecutionChoice::Deny);
            return Err(Outcome::fail(
                CallStatus::ExecutionRejected,
                format!("The user's settings deny the tool \"{name}\"; it cannot be used. Continue without it or ask the user."),
            ));
        }
        Ok(entry)
    }

    /// Resolve `$VAR_REF{{…}}` references, then bound what the model can make the gate store
    /// and show (see `limits`). Returns the arguments and the variables expanded into them that
    /// came from somewhere (for the gate, F-84).
    fn resolve_refs_stage(
        &self,
        entry: &RegisteredTool,
        args: Value,
    ) -> Result<(Value, Expanded), Outcome> {
        let name = &entry.tool.spec().name;
        let lookup = NotingLookup::new(&self.exec.vars);
        let resolved = resolve_value(&args, &lookup);
        let expanded = lookup.expanded();
        let args = match resolved {
            Ok(Some(resolved)) => resolved,
            Ok(None) => args,
            Err(e) => {
                return Err(Outcome::fail(
                    CallStatus::InvalidArgs,
                    format!(
                    "Could not resolve a variable reference in the arguments of \"{name}\": {e}"
                ),
                ))
            }
        };
        Ok((self.bounded_stage(entry, args)?, expanded))
    }

    /// Bound what the model can make the gate store and show (see `limits`).
    fn bounded_stage(&self, entry: &RegisteredTool, args: Value) -> Result<Value, Outcome> {
        let name = &entry.tool.spec().name;
        super::limits::check_argument_size(&args).map_err(|message| {
            Outcome::fail(
                CallStatus::InvalidArgs,
                format!("The call to \"{name}\" was not run: {message}."),
            )
        })?;
        Ok(args)
    }

    /// Wait for this call's turn when it is part of an approval group, then re-check the grant
    /// against the world as it is now (F-03): a rule revoked, a record removed, a workspace
    /// switched or a symlink swapped while the call waited must not let it run. Returns the
    /// grant the call runs on.
    async fn wait_and_recheck_stage(
        &self,
        entry: &RegisteredTool,
        mut grant: Grant,
        call: &CallCtx<'_>,
        view: GuardView<'_>,
        trace: &mut Trace,
    ) -> Result<Grant, Outcome> {
        if let Some(turnstile) = &call.origin.turnstile {
            if !turnstile.wait_turn(call.cancel).await {
                return Err(Outcome::fail(
                    CallStatus::Cancelled,
                    "The call was stopped by the user before it ran.",
                ));
            }
        }
        let mut decided_again = false;
        loop {
            match self.exec.recheck(entry, &grant, view) {
                Recheck::Proceed => return Ok(grant),
                Recheck::Refuse(outcome) => return Err(outcome),
                Recheck::DecideAgain if !decided_again => {
                    decided_again = true;
                    let (args, _, _) = grant.into_run();
                    grant = self.exec.permission(entry, args, call, view, trace).await?;
                    trace.resolved_args = Some(grant.args().clone());
                }
                Recheck::DecideAgain => {
                    return Err(Outcome::fail(
                        CallStatus::ExecutionRejected,
                        "The permission for this call kept changing while it waited, so it was not run. Make the call again if it is still needed.",
                    ))
                }
            }
        }
    }

    /// What is known of a call's result before its tool runs: its own sources, and the
    /// workspace's files before a command.
    pub(super) async fn before_run(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        view: GuardView<'_>,
    ) -> BeforeRun {
        BeforeRun {
            sources: self.exec.sources().result_sources(entry, args),
            files: self.exec.sources().files_before_command(entry, view).await,
        }
    }

    /// Format: what the tool's run came to, as the result the model will be shown (never
    /// empty), the images to show the user and where it came from.
    pub(super) async fn format_stage(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        ran: Result<Value, ExecFailure>,
        prior: BeforeRun,
        view: GuardView<'_>,
        trace: &mut Trace,
    ) -> Result<Formatted, Outcome> {
        let name = &entry.tool.spec().name;
        let BeforeRun { sources, files } = prior;
        // Tollgate's own secrets (provider keys, MCP secrets) leave no result: an approved
        // `ps aux` or `env` shows `[redacted]` where they were (F-46).
        let known = tollgate_secrets::redact_known_owned;
        match ran {
            Ok(data) => {
                trace.sandbox = entry.tool.sandbox_report(&data).map(|mut report| {
                    report.blocked = report.blocked.into_iter().map(known).collect();
                    report
                });
                let text = known(
                    entry
                        .tool
                        .format_for_llm(&data, args)
                        .unwrap_or_else(|| default_format(&data)),
                );
                let text = if text.trim().is_empty() {
                    format!("The tool \"{name}\" finished successfully and returned no output.")
                } else {
                    text
                };
                let ran = super::sources::Ran {
                    sources,
                    text: &text,
                    report: trace.sandbox.as_ref(),
                    before: files,
                };
                let sources = self
                    .exec
                    .sources()
                    .result_provenance(entry, args, ran, view)
                    .await;
                Ok(Formatted {
                    status: CallStatus::Success,
                    text,
                    images: entry.tool.images(&data),
                    sources,
                    raw: entry.tool.raw_result(&data),
                })
            }
            Err(ExecFailure {
                status: CallStatus::Error,
                message,
            }) => Ok(Formatted {
                status: CallStatus::Error,
                text: known(message),
                images: Vec::new(),
                // A tool's error message can carry what the source said.
                sources,
                raw: None,
            }),
            Err(ExecFailure { status, message }) => Err(Outcome::fail(status, known(message))),
        }
    }

    /// Truncate, computed before the result approval so the reviewer sees exactly what the
    /// model would get.
    pub(super) fn truncate_stage(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        seq: u64,
        formatted: &str,
    ) -> Shown {
        let limit = self.output_limit(entry, args);
        let result_var = call_vars(entry, seq).map(|(result, _)| result);
        let (text, truncated) = self.shorten(entry, formatted, args, limit, result_var.as_deref());
        Shown {
            text,
            truncated,
            limit,
        }
    }

    /// Result approval (F-06): when the decision said the result waits (`review`), the user
    /// approves, edits or withholds what the model will see. A withheld result keeps nothing,
    /// images included.
    pub(super) async fn result_approval_stage(
        &self,
        entry: &RegisteredTool,
        review: ResultPolicy,
        call: &CallCtx<'_>,
        formatted: Formatted,
        shown: Shown,
        trace: &mut Trace,
    ) -> Result<Reviewed, Outcome> {
        let Formatted {
            status,
            text,
            images,
            sources,
            raw,
        } = formatted;
        let reviewed = Reviewed {
            stored: text,
            shown,
            images,
            sources,
            raw,
        };
        if !review.needs_review(status.is_error()) {
            return Ok(reviewed);
        }
        let request = ApprovalRequest::Result {
            text_for_model: reviewed.shown.text.clone(),
            full_output: reviewed.stored.clone(),
            status,
            images: reviewed.images.clone(),
        };
        let approval =
            self.exec
                .asks()
                .pending_approval(entry, call.seq, &call.req.call_id, request);
        match self
            .exec
            .asks()
            .wait_for_decision(approval, call.cancel)
            .await
            .map(|(d, _)| d)
        {
            Some(Decision::Result(ResultDecision::Approve)) => {
                trace.result_decision = Some(ResultChoice::Approve);
                Ok(reviewed)
            }
            Some(Decision::Result(ResultDecision::EditAndApprove { text })) => {
                trace.result_decision = Some(ResultChoice::EditAndApprove);
                Ok(Reviewed {
                    stored: text.clone(),
                    shown: Shown {
                        text,
                        truncated: false,
                        limit: reviewed.shown.limit,
                    },
                    images: reviewed.images,
                    sources: reviewed.sources,
                    // The user rewrote what the result says: the server's own is not shown.
                    raw: None,
                })
            }
            Some(Decision::Result(ResultDecision::Reject { reason })) => {
                trace.result_decision = Some(ResultChoice::Reject);
                let mut msg =
                    "The user withheld the result of this call; its output is not available."
                        .to_string();
                if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
                    msg.push_str(&format!(" Reason: {r}"));
                }
                Err(Outcome::fail(CallStatus::ResultRejected, msg))
            }
            Some(Decision::Execution(_)) | None => Err(Outcome::fail(
                CallStatus::Cancelled,
                "The call was cancelled while its result waited for review.",
            )),
        }
    }

    /// Store & truncate (F-15, F-16): the full result and the arguments become variables; the
    /// model's text points at the result variable when it was shortened.
    pub(super) fn store_stage(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        seq: u64,
        status: CallStatus,
        reviewed: Reviewed,
        expanded: &Expanded,
    ) -> Outcome {
        let spec = entry.tool.spec();
        let name = &spec.name;
        let Reviewed {
            stored,
            shown,
            images,
            sources,
            raw,
        } = reviewed;
        let Shown {
            mut text,
            mut truncated,
            limit,
        } = shown;
        let mut stored_vars = (None, None);
        if let Some((rv, av)) = call_vars(entry, seq) {
            let full: Arc<str> = Arc::from(stored);
            let labelled: Arc<[Source]> = Arc::from(sources.as_slice());
            match self
                .exec
                .vars
                .set_from(&rv, Arc::clone(&full), VarKind::ToolResult, labelled)
            {
                Ok(()) => {
                    let pretty =
                        serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string());
                    // The arguments hold what their expansions brought in.
                    let from = expanded_sources(expanded);
                    let args_ok = self
                        .exec
                        .vars
                        .set_from(&av, Arc::from(pretty), VarKind::ToolArgs, from)
                        .is_ok();
                    stored_vars = (Some(rv), args_ok.then_some(av));
                }
                Err(e) => {
                    tracing::warn!("result of {name} c{seq} not stored: {e}");
                    if truncated {
                        // The notice must not point at a variable that does not exist.
                        (text, truncated) = self.shorten(entry, &full, args, limit, None);
                    }
                }
            }
        }
        Outcome {
            status,
            preview: entry
                .tool
                .compress_result(&text)
                .map(String::into_boxed_str),
            content: text,
            truncated,
            result_var: stored_vars.0.map(String::into_boxed_str),
            args_var: stored_vars.1.map(String::into_boxed_str),
            stop_turn: false,
            images: images.into_boxed_slice(),
            sources: sources.into_boxed_slice(),
            for_view: super::call::ForView::of(raw, spec.view.clone()),
        }
    }
}
