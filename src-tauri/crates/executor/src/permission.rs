//! The permission stage (F-01, F-03, F-04, F-05): it reads what decides a call
//! ([`PermissionInputs`]), hands it to the one decision function ([`super::decision::verdict`]),
//! lists a tool again when a standing grant waits for it, and asks the user when the decision
//! says so.
//!
//! A permission is a [`Grant`]: the arguments that will run (those on the card the user
//! answered, or those the policy, rule or record was checked against: set once, when the grant
//! is made, and never changed), everything the decision rested on (the rule subject, the
//! workspace, who decided) and whether the result waits for the user. Right before the tool
//! runs — after the call waited its turn — [`ToolExecutor::recheck`] compares the grant with the
//! world as it is then: a workspace or symlink that changed, or a rule or record that was
//! revoked meanwhile mean the call does not run on the old grant.

use super::call::{CallCtx, Outcome, Trace};
use super::decision::{verdict, Verdict};
use super::grant::{Grant, GuardView, PermissionInputs, Recheck};
use crate::tool_executor::ToolExecutor;
use serde_json::Value;
use std::sync::Arc;
use tollgate_protocol::canonical::{canonical_json, record_hash};
use tollgate_protocol::policy::{CallStatus, DecidedBy, ExecutionChoice, ResultPolicy};
use tollgate_protocol::{Decision, ExecutionDecision, PlanFit, Source, ToolChange};
use tollgate_provenance::{guard_note, GuardInputs};
use tollgate_store::{now_ms, ApprovalRecordRow};
use tollgate_tools::{Granted, RegisteredTool};

impl ToolExecutor {
    /// Reads the policies, rule, record, workspace and the gate's note that decide a call of
    /// `entry` with `args`.
    pub(super) fn permission_inputs(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        view: GuardView<'_>,
    ) -> PermissionInputs {
        let spec = entry.tool.spec();
        let set_policy = self.deps.settings.read().execution_policy(&spec.name);
        let under_review = spec.review.is_some();
        let targets = self.policies().targets(spec);
        let unconfirmed = self.policies().effects_unconfirmed(spec);
        let effects = self.policies().effects(spec);
        let proposal = spec
            .proposes_plan
            .then(|| tollgate_tools::plan_tool::proposal_of(args).ok())
            .flatten();
        let (mut shown, guard) = self.sources().with_trust(|trust| {
            let shown = proposal.map(|p| super::plan::shown(p, view.exposure, trust));
            let guard = guard_note(&GuardInputs {
                trust,
                effects,
                exposure: view.exposure,
                expanded: view.expanded,
                args,
                targets: &targets,
                unconfirmed,
            });
            (shown, guard)
        });
        // The card says before approval that steps running commands will still ask, where
        // the chat's sandbox cannot hold them to the plan.
        if let Some(shown) = &mut shown {
            let registry = self.registry();
            let runs_commands = shown.proposal.steps.iter().any(|step| {
                registry
                    .tool(&step.tool)
                    .is_some_and(|t| t.tool.spec().sandboxed)
            });
            shown.unconfined = runs_commands
                .then(|| self.task().commands_unconfined())
                .flatten();
        }
        let workspace = self.workspace();
        let record_key = record_hash(args, workspace.as_deref());
        let subject = entry.tool.rule_subject(args, workspace.as_deref());
        let rule = self.deps.rules.evaluate(self.chat, &spec.name, &subject);
        let record = self
            .records
            .lock()
            .get(&(spec.name.clone(), record_key.clone()))
            .copied();
        let mut inputs = PermissionInputs {
            set_policy,
            tool_policy: spec.execution_policy,
            under_review,
            record_key,
            subject,
            rule,
            record,
            workspace,
            guard,
            result_policy: self.policies().result_policy(spec),
            plan: None,
            proposal: shown,
        };
        inputs.plan = self.task().plan_fit(entry, args, &inputs, view);
        inputs
    }

    /// Whether a tool that can change under the user (an MCP tool) is listed by its source
    /// before it is decided: once per chat and registry (SPEC §12, F-97), or every time where
    /// the source's listing has a lifetime (F-99: it answers from the listing while fresh).
    fn needs_listing(&self, entry: &RegisteredTool) -> bool {
        let spec = entry.tool.spec();
        spec.revision.as_ref().is_some_and(|revision| {
            entry.tool.listing_expires()
                || !self
                    .verified
                    .lock()
                    .contains(&(spec.name.clone(), Arc::clone(revision)))
        })
    }

    /// The tool's source listed it as it was granted, in this chat and registry.
    fn mark_listed(&self, entry: &RegisteredTool) {
        let spec = entry.tool.spec();
        if let Some(revision) = &spec.revision {
            self.verified
                .lock()
                .insert((spec.name.clone(), Arc::clone(revision)));
        }
    }

    /// Whether `rel` in `workspace` is in one of the hidden paths (F-46).
    pub(super) fn is_hidden(&self, workspace: Option<&std::path::Path>, rel: &str) -> bool {
        let Some(ws) = workspace else {
            return false;
        };
        let real = tollgate_tools::sandbox::paths::resolve(&ws.join(rel));
        tollgate_tools::sandbox::paths::hidden_by(&real, &self.deps.hidden).is_some()
    }

    /// Re-validates arguments edited by the user. They run as the user wrote them: never
    /// expanded (the card showed them already expanded; expanding again would run what no one
    /// saw, F-46).
    pub(super) fn check_edited_arguments(
        &self,
        tool: &str,
        edited: &Value,
    ) -> Result<Value, String> {
        if !edited.is_object() {
            return Err("the arguments must be a JSON object".into());
        }
        let registry = self.registry();
        let entry = registry
            .tool(tool)
            .ok_or_else(|| format!("the tool \"{tool}\" no longer exists"))?;
        super::limits::check_argument_size(edited)?;
        entry.validator.validate(tool, edited)?;
        Ok(edited.clone())
    }

    pub(super) async fn remember(
        &self,
        tool: &str,
        args: &Value,
        inputs: &PermissionInputs,
        allowed: bool,
    ) {
        let row = ApprovalRecordRow {
            chat: self.chat,
            tool: tool.to_string(),
            args_hash: inputs.record_key.clone(),
            args: canonical_json(args),
            workspace: inputs
                .workspace
                .as_ref()
                .map(|w| w.to_string_lossy().into_owned()),
            allowed,
            created_at: now_ms(),
        };
        match self
            .deps
            .store
            .gate_records()
            .put_approval_record(row)
            .await
        {
            Ok(()) => {
                self.records
                    .lock()
                    .insert((tool.to_string(), inputs.record_key.clone()), allowed);
            }
            Err(e) => tracing::error!("ask-once record for {tool} not saved: {e}"),
        }
    }

    /// Decides whether the call may run, in four steps: gather what decides it ([`gather`]),
    /// the verdict on that, and on an ask the card ([`ask`]) and the user's answer applied
    /// ([`apply_answer`]).
    pub(super) async fn permission(
        &self,
        entry: &RegisteredTool,
        args: Value,
        ctx: &CallCtx<'_>,
        view: GuardView<'_>,
        trace: &mut Trace,
    ) -> Result<Grant, Outcome> {
        let gathered = gather(self, entry, &args, ctx, view, trace).await?;
        match gathered.decision {
            Verdict::Allow { by, review } => {
                Ok(allowed(self, args, by, review, gathered.inputs, trace))
            }
            Verdict::Deny { by, message } => Err(denied(by, &message, trace)),
            Verdict::Ask {
                reason,
                guard,
                review,
            } => {
                let tool_change = gathered
                    .silent_change
                    .or_else(|| entry.tool.spec().review.as_deref().cloned().map(Box::new));
                let asked = super::card::Asked {
                    reason,
                    mark: guard,
                    tool_change,
                };
                let mut inputs = gathered.inputs;
                let decision = ask(self, entry, &args, &mut inputs, asked, ctx, trace).await?;
                apply_answer(
                    self, entry, args, &inputs, review, decision, ctx, view, trace,
                )
                .await
            }
        }
    }

    /// Compares a grant with the world right before the tool runs (F-03): the workspace and
    /// what the call points at (a path through today's symlinks, a command) must be as they
    /// were, and an automatic grant must
    /// still follow from today's policy, rules and records. A user's own allow stands unless a
    /// deny (policy or rule) appeared meanwhile.
    pub(super) fn recheck(
        &self,
        entry: &RegisteredTool,
        grant: &Grant,
        view: GuardView<'_>,
    ) -> Recheck {
        let refuse = |why: &str| {
            Recheck::Refuse(Outcome::fail(
                CallStatus::ExecutionRejected,
                format!(
                    "{why}, so the call was not run. Make the call again if it is still needed."
                ),
            ))
        };
        // The server changed the tool while the call waited: the grant was for the old one.
        let current = self.registry();
        let revision_now = current
            .tool(&entry.tool.spec().name)
            .map(|e| e.tool.spec().revision.clone());
        if revision_now.is_some_and(|r| r != entry.tool.spec().revision) {
            return refuse("The MCP server changed this tool after the call was approved");
        }
        let now = self.permission_inputs(entry, grant.args(), view);
        if now.workspace.as_deref() != grant.workspace() {
            return refuse("The chat's workspace folder changed after the call was approved");
        }
        if &now.subject != grant.subject() {
            return refuse("What the call points at changed after it was approved (a path now leads somewhere else)");
        }
        match verdict(&now.decision(None, false)) {
            Verdict::Allow { .. } => Recheck::Proceed,
            Verdict::Deny { message, .. } => refuse(&format!(
                "Since the call was approved, this changed: {}",
                message.trim_end_matches('.')
            )),
            Verdict::Ask { .. } => match grant.by() {
                DecidedBy::User => Recheck::Proceed,
                DecidedBy::Auto | DecidedBy::Rule | DecidedBy::Record => Recheck::DecideAgain,
                // The plan counted this call when it allowed it (so it may look used up now):
                // it stands while the grant is in force.
                DecidedBy::Plan if self.task().has_task() => Recheck::Proceed,
                DecidedBy::Plan => Recheck::DecideAgain,
                DecidedBy::Policy | DecidedBy::None => {
                    refuse("The call has no decision that allows it")
                }
            },
        }
    }
}

/// What the permission stage gathered for a call before it is shown or run: what decides it,
/// the verdict on that, and the tool's definition now when listing it found it changed.
struct Gathered {
    inputs: PermissionInputs,
    decision: Verdict,
    silent_change: Option<Box<ToolChange>>,
}

/// Reads what decides a call of `entry` with `args` and the verdict on it: the sandbox's support
/// probed where a plan or its commands need it, the tool listed again when a standing grant
/// waits for it, and a plan's call taken when the plan allows it.
async fn gather(
    exec: &ToolExecutor,
    entry: &RegisteredTool,
    args: &Value,
    ctx: &CallCtx<'_>,
    view: GuardView<'_>,
    trace: &mut Trace,
) -> Result<Gathered, Outcome> {
    let spec = entry.tool.spec();
    let name = spec.name.as_str();
    // Whether the sandbox can hold a plan's commands is known before a command is judged
    // against a plan, or a plan is shown (the probe runs once).
    if (spec.sandboxed && exec.task().has_task()) || spec.proposes_plan {
        tollgate_tools::supervisor::sandbox_support().await;
    }
    let mut inputs = exec.permission_inputs(entry, args, view);
    let rerun = ctx.origin.unsandboxed_rerun.is_some();
    // Whatever would let it run — a rule or record made earlier, `auto`, or the user's click
    // on a card — is for the definition in force now: a tool that can change under a grant
    // is listed by its source once per chat and connection before it is decided, and one
    // found changed without notice is decided as the tool under review it now is (SPEC §12).
    // A call the order denies anyway is not listed.
    let mut silent_change = None;
    let mut decision = verdict(&inputs.decision(ctx.origin.repeats, rerun));
    let denied = matches!(decision, Verdict::Deny { .. });
    if !denied && !rerun && exec.needs_listing(entry) {
        match entry.tool.still_as_granted().await {
            Ok(Granted::Same) => exec.mark_listed(entry),
            Ok(Granted::Changed(change)) => {
                silent_change = Some(change);
                inputs.under_review = true;
                decision = verdict(&inputs.decision(ctx.origin.repeats, rerun));
            }
            Err(e) => {
                trace.decided_by = Some(DecidedBy::None);
                let mut outcome = Outcome::fail(
                    CallStatus::Error,
                    format!("Tollgate could not check that {name} is still the tool the user allowed, so it did not run it: {e}"),
                );
                // The error quotes what the server said: it reaches the model as the
                // server's text, with its source (F-80), like any result of the server.
                if let tollgate_tools::ContentKind::Mcp { server } = &spec.content {
                    outcome.sources = Box::new([Source::McpServer {
                        server: server.clone(),
                    }]);
                }
                return Err(outcome);
            }
        }
    }
    // A call the plan allows takes one of its step's calls now; if a call of the same
    // round took the last one meanwhile, it is decided as the plan stands after that.
    while let (Verdict::Allow { .. }, Some(PlanFit::Inside { .. })) = (&decision, &inputs.plan) {
        if exec.task().take_plan_call(inputs.plan.as_ref(), ctx.seq) {
            trace.in_plan = true;
            break;
        }
        inputs.plan = exec.task().plan_fit(entry, args, &inputs, view);
        decision = verdict(&inputs.decision(ctx.origin.repeats, rerun));
    }
    Ok(Gathered {
        inputs,
        decision,
        silent_change,
    })
}

/// The grant of a call the order allows without asking: by policy, rule, record or the task's
/// plan (which bounds the call to its step's envelope).
fn allowed(
    exec: &ToolExecutor,
    args: Value,
    by: DecidedBy,
    review: ResultPolicy,
    inputs: PermissionInputs,
    trace: &mut Trace,
) -> Grant {
    trace.decided_by = Some(by);
    trace.decision = Some(ExecutionChoice::Allow);
    let envelope = match (by, &inputs.plan) {
        (DecidedBy::Plan, Some(PlanFit::Inside { step })) => exec.task().plan_envelope(*step),
        _ => None,
    };
    Grant::decided(args, by, inputs.subject, inputs.workspace, review, envelope)
}

/// The result of a call the order denies: the reason, and what the model should do instead.
fn denied(by: DecidedBy, message: &str, trace: &mut Trace) -> Outcome {
    trace.decided_by = Some(by);
    trace.decision = Some(ExecutionChoice::Deny);
    Outcome::fail(
        CallStatus::ExecutionRejected,
        format!("{message} Do not repeat the same call; adapt your approach or ask the user."),
    )
}

/// Shows the call's card and waits for the user's answer; a call cancelled before the user
/// decided ends here.
async fn ask(
    exec: &ToolExecutor,
    entry: &RegisteredTool,
    args: &Value,
    inputs: &mut PermissionInputs,
    asked: super::card::Asked,
    ctx: &CallCtx<'_>,
    trace: &mut Trace,
) -> Result<ExecutionDecision, Outcome> {
    let request = super::card::request(exec, entry, args, inputs, asked, trace).await;
    let approval = exec
        .asks()
        .pending_approval(entry, ctx.seq, &ctx.req.call_id, request);
    let Some((Decision::Execution(decision), _)) =
        exec.asks().wait_for_decision(approval, ctx.cancel).await
    else {
        trace.decided_by = Some(DecidedBy::None);
        return Err(Outcome::fail(
            CallStatus::Cancelled,
            "The call was cancelled before the user decided.",
        ));
    };
    trace.decided_by = Some(DecidedBy::User);
    trace.decision = Some(decision.choice());
    Ok(decision)
}

/// Applies the user's answer ([`super::card::answer`]): a plan the user approved becomes the
/// chat's grant, and a call the plan allots uses up its step's call.
#[allow(clippy::too_many_arguments)]
async fn apply_answer(
    exec: &ToolExecutor,
    entry: &RegisteredTool,
    args: Value,
    inputs: &PermissionInputs,
    review: ResultPolicy,
    decision: ExecutionDecision,
    ctx: &CallCtx<'_>,
    view: GuardView<'_>,
    trace: &mut Trace,
) -> Result<Grant, Outcome> {
    let granted = super::card::answer(exec, entry, args, inputs, review, decision, trace).await;
    // A plan the user approved (as shown, or narrowed on the card) is the chat's grant
    // from now: what the call runs with is what the user kept.
    if let (Some(_), Ok(g)) = (&inputs.proposal, &granted) {
        exec.task().grant_proposed(g.args());
    }
    // A call the plan allots, allowed on its card (an ask rule, a hold, a sandbox that
    // cannot hold it), still uses up its step's call: the plan allotted it to the task, and
    // it is not left for another.
    if let Ok(g) = &granted {
        let step = exec.task().plan_step_of(entry, g.args(), inputs, view);
        if exec.task().take_plan_call(step.as_ref(), ctx.seq) {
            trace.in_plan = true;
        }
    }
    granted
}
