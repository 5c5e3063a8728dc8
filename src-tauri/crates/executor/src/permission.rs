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
use super::decision::{effective_policy, verdict, Inputs, Verdict};
use super::plan::Envelope;
use super::ToolExecutor;
use crate::canonical::{canonical_json, record_hash};
use crate::policy::{CallStatus, DecidedBy, ExecutionChoice, ExecutionPolicy, ResultPolicy};
use crate::protocol::RuleAction;
use crate::protocol::{ApprovalRequest, Decision, ExecutionDecision, RuleGrant};
use crate::protocol::{AskReason, FlaggedParameter, Rule, SandboxReport};
use crate::protocol::{GuardMark, GuardNote, PlanFit, PlanShown, Source};
use crate::provenance::{guard_note, Exposure, GuardInputs};
use crate::rules::{suggest_pattern, RuleSubject};
use crate::store::{now_ms, ApprovalRecordRow};
use crate::tools::{Granted, RegisteredTool};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything the decision order reads, gathered in one place so that the permission stage,
/// a round's choice of lane and the pre-run re-check read the same things the same way.
pub(super) struct PermissionInputs {
    /// The policy the user set, and the tool's own.
    pub set_policy: Option<ExecutionPolicy>,
    pub tool_policy: ExecutionPolicy,
    /// The tool changed since the user allowed it (SPEC §11), or its source listed it changed
    /// just now without saying so (SPEC §12).
    pub under_review: bool,
    /// The ask-once record key: arguments plus workspace.
    pub record_key: String,
    pub subject: RuleSubject,
    pub rule: Option<Rule>,
    pub record: Option<bool>,
    pub workspace: Option<PathBuf>,
    /// The provenance gate's note: present when the gate holds the call (F-83).
    pub guard: Option<GuardNote>,
    /// The result policy in force: the user's, else the tool's.
    pub result_policy: ResultPolicy,
    /// Where the call stands against the task's grant, when one is in force (F-98).
    pub plan: Option<PlanFit>,
    /// The plan the call proposes, if its tool proposes plans (F-98), as its card shows it.
    pub proposal: Option<PlanShown>,
}

impl PermissionInputs {
    /// The policy in force ([`effective_policy`]).
    pub fn policy(&self) -> ExecutionPolicy {
        effective_policy(self.set_policy, self.tool_policy, self.under_review)
    }

    /// The decision's inputs: these, with the call's repeats and the rerun click.
    pub fn decision(&self, repeats: Option<u32>, rerun: bool) -> Inputs<'_> {
        Inputs {
            set_policy: self.set_policy,
            tool_policy: self.tool_policy,
            under_review: self.under_review,
            rule: self.rule.as_ref(),
            record: self.record,
            repeats,
            guard: self.guard.as_ref(),
            rerun,
            result_policy: self.result_policy,
            plan: self.plan.as_ref(),
            proposal: self.proposal.as_ref(),
        }
    }
}

/// What the gate reads about a call besides its arguments (F-83, F-84): what the model had
/// read, and the variables a `$VAR_REF` expanded into the arguments.
#[derive(Clone, Copy, Default)]
pub(super) struct GuardView<'a> {
    pub exposure: Option<&'a Exposure>,
    pub expanded: &'a [(Arc<[Source]>, Arc<str>)],
}

/// What the permission stage granted, and what the grant rests on. Its arguments are set when
/// it is made and only read after, so what runs is what was approved by construction.
pub(super) struct Grant {
    /// The arguments that will run (the user's edit, if they edited).
    args: Value,
    by: DecidedBy,
    subject: RuleSubject,
    workspace: Option<PathBuf>,
    /// Whether the result waits for the user (step 7 of the decision order).
    review: ResultPolicy,
    /// A call the task's plan allowed runs within what its step names (F-98).
    envelope: Option<Envelope>,
}

impl Grant {
    /// The arguments that will run.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// The arguments that will run, whether the result waits for the user, and the plan
    /// step's envelope when the task's plan allowed the call.
    pub fn into_run(self) -> (Value, ResultPolicy, Option<Envelope>) {
        (self.args, self.review, self.envelope)
    }
}

/// What the pre-run re-check found.
pub(super) enum Recheck {
    /// Nothing the grant rested on changed.
    Proceed,
    /// An automatic grant (policy, rule or record) no longer holds: decide again.
    DecideAgain,
    /// The call must not run.
    Refuse(Outcome),
}

fn denied_message(reason: Option<String>, stop: bool) -> String {
    let mut msg = if stop {
        "The user denied this call and stopped the turn.".to_string()
    } else {
        "The user denied this call.".to_string()
    };
    if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
        msg.push_str(&format!(" Reason: {}", r.trim()));
    }
    if !stop {
        msg.push_str(" Do not repeat the same call; adapt your approach or ask the user.");
    }
    msg
}

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
        let targets = self.targets(spec);
        let unconfirmed = self.effects_unconfirmed(spec);
        let effects = self.effects(spec);
        let proposal = spec
            .proposes_plan
            .then(|| crate::tools::plan_tool::proposal_of(args).ok())
            .flatten();
        let (mut shown, guard) = self.with_trust(|trust| {
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
            shown.unconfined = runs_commands.then(|| self.commands_unconfined()).flatten();
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
            result_policy: self.result_policy(spec),
            plan: None,
            proposal: shown,
        };
        inputs.plan = self.plan_fit(entry, args, &inputs, view);
        inputs
    }

    /// Whether a tool that can change under the user (an MCP tool) is listed by its source
    /// before it is decided: once per chat and registry (SPEC §12, F-97).
    fn needs_listing(&self, entry: &RegisteredTool) -> bool {
        let spec = entry.tool.spec();
        spec.revision.as_ref().is_some_and(|revision| {
            !self
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
    fn is_hidden(&self, workspace: Option<&std::path::Path>, rel: &str) -> bool {
        let Some(ws) = workspace else {
            return false;
        };
        let real = crate::tools::sandbox::paths::resolve(&ws.join(rel));
        crate::tools::sandbox::paths::hidden_by(&real, &self.deps.hidden).is_some()
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

    async fn remember(&self, tool: &str, args: &Value, inputs: &PermissionInputs, allowed: bool) {
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
        match self.deps.store.put_approval_record(row).await {
            Ok(()) => {
                self.records
                    .lock()
                    .insert((tool.to_string(), inputs.record_key.clone()), allowed);
            }
            Err(e) => tracing::error!("ask-once record for {tool} not saved: {e}"),
        }
    }

    /// Decides whether the call may run, asking the user when the order says so.
    pub(super) async fn permission(
        &self,
        entry: &RegisteredTool,
        args: Value,
        ctx: &CallCtx<'_>,
        view: GuardView<'_>,
        trace: &mut Trace,
    ) -> Result<Grant, Outcome> {
        let name = entry.tool.spec().name.as_str();
        // Whether the sandbox can hold a plan's commands is known before a command is judged
        // against a plan, or a plan is shown (the probe runs once).
        let spec = entry.tool.spec();
        if (spec.sandboxed && self.has_task()) || spec.proposes_plan {
            crate::tools::supervisor::sandbox_support().await;
        }
        let mut inputs = self.permission_inputs(entry, &args, view);
        let rerun = ctx.origin.unsandboxed_rerun.is_some();
        // Whatever would let it run — a rule or record made earlier, `auto`, or the user's click
        // on a card — is for the definition in force now: a tool that can change under a grant
        // is listed by its source once per chat and connection before it is decided, and one
        // found changed without notice is decided as the tool under review it now is (SPEC §12,
        // 55). A call the order denies anyway is not listed.
        let mut silent_change = None;
        let mut decision = verdict(&inputs.decision(ctx.origin.repeats, rerun));
        let denied = matches!(decision, Verdict::Deny { .. });
        if !denied && !rerun && self.needs_listing(entry) {
            match entry.tool.still_as_granted().await {
                Ok(Granted::Same) => self.mark_listed(entry),
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
                    if let crate::tools::ContentKind::Mcp { server } = &entry.tool.spec().content {
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
        while let (Verdict::Allow { .. }, Some(PlanFit::Inside { .. })) = (&decision, &inputs.plan)
        {
            if self.take_plan_call(inputs.plan.as_ref(), ctx.seq) {
                trace.in_plan = true;
                break;
            }
            inputs.plan = self.plan_fit(entry, &args, &inputs, view);
            decision = verdict(&inputs.decision(ctx.origin.repeats, rerun));
        }
        let (reason, mark, review) = match decision {
            Verdict::Allow { by, review } => {
                trace.decided_by = Some(by);
                trace.decision = Some(ExecutionChoice::Allow);
                let envelope = match (by, &inputs.plan) {
                    (DecidedBy::Plan, Some(PlanFit::Inside { step })) => self.plan_envelope(*step),
                    _ => None,
                };
                return Ok(Grant {
                    args,
                    by,
                    subject: inputs.subject,
                    workspace: inputs.workspace,
                    review,
                    envelope,
                });
            }
            Verdict::Deny { by, message } => {
                trace.decided_by = Some(by);
                trace.decision = Some(ExecutionChoice::Deny);
                return Err(Outcome::fail(
                    CallStatus::ExecutionRejected,
                    format!("{message} Do not repeat the same call; adapt your approach or ask the user."),
                ));
            }
            Verdict::Ask {
                reason,
                guard,
                review,
            } => (reason, guard, review),
        };
        let tool_change =
            silent_change.or_else(|| entry.tool.spec().review.as_deref().cloned().map(Box::new));

        let sandbox = if entry.tool.spec().sandboxed {
            let support = crate::tools::supervisor::sandbox_support().await;
            Some(Box::new(SandboxReport::planned(&self.sandbox(), &support)))
        } else {
            None
        };
        // No preview reads a secret path (its content would reach the card).
        let preview = match &inputs.subject {
            RuleSubject::Path(rel) if self.is_hidden(inputs.workspace.as_deref(), rel) => None,
            _ => entry
                .tool
                .approval_preview(&args, inputs.workspace.as_deref()),
        };
        let guard = inputs.guard.take().map(|mut note| {
            note.would_allow = match &reason {
                AskReason::Exposed { would_allow } | AskReason::Repeated { would_allow, .. } => {
                    Some(*would_allow)
                }
                AskReason::OffPlan { would_allow, .. } => *would_allow,
                AskReason::AskOnce
                | AskReason::AskAlways
                | AskReason::Rule { .. }
                | AskReason::ToolChanged { .. }
                | AskReason::Plan { .. } => None,
            };
            // A repeat and a hold together are both recorded: the reason names the repeat,
            // the mark counts the hold (SPEC §10).
            trace.guard = mark;
            Box::new(note)
        });
        let request = ApprovalRequest::Execution {
            preview,
            sandbox,
            arguments: args.clone(),
            policy: inputs.policy(),
            reason,
            rule_subject: inputs.subject.kind(),
            suggested_pattern: suggest_pattern(&inputs.subject),
            guard,
            tool_change,
            destructive: self.effects(entry.tool.spec()).irreversible,
            flagged: flagged_in(&entry.tool.spec().flagged, &args),
        };
        let approval = self.pending_approval(entry, ctx.seq, &ctx.req.call_id, request);
        let Some((decision, _)) = self.wait_for_decision(approval, ctx.cancel).await else {
            trace.decided_by = Some(DecidedBy::None);
            return Err(Outcome::fail(
                CallStatus::Cancelled,
                "The call was cancelled before the user decided.",
            ));
        };
        let Decision::Execution(decision) = decision else {
            trace.decided_by = Some(DecidedBy::None);
            return Err(Outcome::fail(
                CallStatus::Cancelled,
                "The call was cancelled before the user decided.",
            ));
        };
        trace.decided_by = Some(DecidedBy::User);
        trace.decision = Some(decision.choice());
        // The grant is bound to the arguments on the card the user answered (`args`, put on
        // the card above), or to the user's own edit of them.
        let grant = |args: Value| Grant {
            args,
            by: DecidedBy::User,
            subject: inputs.subject.clone(),
            workspace: inputs.workspace.clone(),
            review,
            envelope: None,
        };
        let granted = match decision {
            ExecutionDecision::AllowOnce => Ok(grant(args)),
            ExecutionDecision::EndorseAndAllow { sources } => {
                // `decide` accepted only what the card offered.
                if let Err(e) = self.endorse(&sources).await {
                    tracing::error!("endorsement in chat {} not saved: {e}", self.chat);
                }
                trace.guard = GuardMark::Endorsed;
                Ok(grant(args))
            }
            ExecutionDecision::AllowForChat => {
                self.remember(name, &args, &inputs, true).await;
                Ok(grant(args))
            }
            ExecutionDecision::AlwaysAllow { scope, grant: rule } => {
                let pattern = match rule {
                    RuleGrant::Matching { pattern } => Some(pattern),
                    RuleGrant::EveryCall => None,
                };
                if let Err(e) = self
                    .deps
                    .rules
                    .add(name, pattern, RuleAction::Allow, scope.to_scope(self.chat))
                    .await
                {
                    tracing::error!("rule for {name} not saved: {e}");
                }
                Ok(grant(args))
            }
            ExecutionDecision::EditAndAllow { arguments } => match self.check_edited_arguments(name, &arguments) {
                Ok(edited) => {
                    // What runs is what the user wrote; the subject is re-read for the re-check.
                    let subject = entry.tool.rule_subject(&edited, inputs.workspace.as_deref());
                    Ok(Grant {
                        subject,
                        ..grant(edited)
                    })
                }
                Err(message) => Err(Outcome::fail(
                    CallStatus::InvalidArgs,
                    format!("The arguments edited by the user are invalid, so the call was not run: {message}"),
                )),
            },
            ExecutionDecision::Deny { reason } => {
                if super::decision::remembers_denial(inputs.policy()) {
                    self.remember(name, &args, &inputs, false).await;
                }
                Err(Outcome::fail(CallStatus::ExecutionRejected, denied_message(reason, false)))
            }
            ExecutionDecision::DenyAndStop { reason } => {
                if super::decision::remembers_denial(inputs.policy()) {
                    self.remember(name, &args, &inputs, false).await;
                }
                let mut outcome = Outcome::fail(CallStatus::ExecutionRejected, denied_message(reason, true));
                outcome.stop_turn = true;
                Err(outcome)
            }
        };
        // A plan the user approved (as shown, or narrowed on the card) is the chat's grant
        // from now: what the call runs with is what the user kept.
        if let (Some(_), Ok(g)) = (&inputs.proposal, &granted) {
            self.grant_proposed(g.args());
        }
        // A call the plan allots, allowed on its card (an ask rule, a hold, a sandbox that
        // cannot hold it), still uses up its step's call: the plan allotted it to the task, and
        // it is not left for another.
        if let Ok(g) = &granted {
            let step = self.plan_step_of(entry, g.args(), &inputs, view);
            if self.take_plan_call(step.as_ref(), ctx.seq) {
                trace.in_plan = true;
            }
        }
        granted
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
        let now = self.permission_inputs(entry, &grant.args, view);
        if now.workspace != grant.workspace {
            return refuse("The chat's workspace folder changed after the call was approved");
        }
        if now.subject != grant.subject {
            return refuse("What the call points at changed after it was approved (a path now leads somewhere else)");
        }
        match verdict(&now.decision(None, false)) {
            Verdict::Allow { .. } => Recheck::Proceed,
            Verdict::Deny { message, .. } => refuse(&format!(
                "Since the call was approved, this changed: {}",
                message.trim_end_matches('.')
            )),
            Verdict::Ask { .. } => match grant.by {
                DecidedBy::User => Recheck::Proceed,
                DecidedBy::Auto | DecidedBy::Rule | DecidedBy::Record => Recheck::DecideAgain,
                // The plan counted this call when it allowed it (so it may look used up now):
                // it stands while the grant is in force.
                DecidedBy::Plan if self.has_task() => Recheck::Proceed,
                DecidedBy::Plan => Recheck::DecideAgain,
                DecidedBy::Policy | DecidedBy::None => {
                    refuse("The call has no decision that allows it")
                }
            },
        }
    }
}

/// The flagged parameters `args` gives a value for (through arrays on the way), to mark on the
/// card (F-97).
fn flagged_in(flagged: &[FlaggedParameter], args: &Value) -> Vec<FlaggedParameter> {
    fn given(value: &Value, path: &[String]) -> bool {
        match (path.split_first(), value) {
            (None, _) => true,
            (Some(_), Value::Array(items)) => items.iter().any(|item| given(item, path)),
            (Some((key, rest)), Value::Object(map)) => map.get(key).is_some_and(|v| given(v, rest)),
            (Some(_), _) => false,
        }
    }
    flagged
        .iter()
        .filter(|p| given(args, &p.path))
        .cloned()
        .collect()
}
