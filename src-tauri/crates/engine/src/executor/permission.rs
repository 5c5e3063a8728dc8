//! The permission stage (F-01, F-03, F-04, F-05), decided in a fixed, readable order:
//! policy `deny` → the most specific rule → an ask-once record → the policy itself. The doom-loop
//! check can force a question where a policy, rule or record would allow.
//!
//! A permission is a [`Grant`]: the arguments that will run and everything the decision rested
//! on (the hash of the arguments as shown or checked, the rule subject, the workspace, who
//! decided). Right before the tool runs — after the call waited its turn — [`ToolExecutor::recheck`]
//! compares the grant with the world as it is then: arguments that differ from the approved
//! ones, a workspace or symlink that changed, or a rule or record that was revoked meanwhile
//! mean the call does not run on the old grant.

use super::call::{CallCtx, Outcome, Trace};
use super::ToolExecutor;
use crate::canonical::{args_hash, canonical_json, record_hash};
use crate::policy::{CallStatus, DecidedBy, ExecutionChoice, ExecutionPolicy};
use crate::protocol::RuleAction;
use crate::protocol::{ApprovalRequest, Decision, ExecutionDecision, RuleGrant};
use crate::protocol::{AskReason, Rule, SandboxReport};
use crate::protocol::{GuardMark, GuardNote, Source};
use crate::provenance::{guard_note, Exposure, GuardInputs, Trust};
use crate::rules::{suggest_pattern, RuleSubject};
use crate::store::{now_ms, ApprovalRecordRow};
use crate::tools::{Granted, RegisteredTool};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// What the permission stage decided before asking anyone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    Allow { by: DecidedBy },
    Deny { by: DecidedBy, message: String },
    Ask { reason: AskReason },
}

/// The fixed decision order, as a pure function so it can be tested on its own. `repeats`: the
/// model made this exact call this many times in a row (F-23); `guarded`: the provenance gate
/// holds the call (F-83). Either way, whatever would allow it asks; denials still deny.
pub(super) fn verdict(
    policy: ExecutionPolicy,
    rule: Option<&Rule>,
    record: Option<bool>,
    repeats: Option<u32>,
    guarded: bool,
) -> Verdict {
    let allow = |by: DecidedBy| match (repeats, guarded) {
        (Some(times), _) => Verdict::Ask {
            reason: AskReason::Repeated {
                times,
                would_allow: by,
            },
        },
        (None, true) => Verdict::Ask {
            reason: AskReason::Exposed { would_allow: by },
        },
        (None, false) => Verdict::Allow { by },
    };
    if policy == ExecutionPolicy::Deny {
        return Verdict::Deny {
            by: DecidedBy::Policy,
            message: "The user's settings deny this tool.".into(),
        };
    }
    if let Some(rule) = rule {
        return match rule.action {
            RuleAction::Deny => Verdict::Deny {
                by: DecidedBy::Rule,
                message: format!(
                    "A rule set by the user denies this call ({}).",
                    rule.describe()
                ),
            },
            RuleAction::Allow => allow(DecidedBy::Rule),
            RuleAction::Ask => Verdict::Ask {
                reason: AskReason::Rule {
                    rule: Box::new(rule.clone()),
                },
            },
        };
    }
    match record {
        Some(true) => return allow(DecidedBy::Record),
        Some(false) => {
            return Verdict::Deny {
                by: DecidedBy::Record,
                message: "The user denied this exact call earlier in this chat.".into(),
            }
        }
        None => {}
    }
    match policy {
        ExecutionPolicy::Auto => allow(DecidedBy::Auto),
        ExecutionPolicy::AskOnce => Verdict::Ask {
            reason: AskReason::AskOnce,
        },
        ExecutionPolicy::AskAlways => Verdict::Ask {
            reason: AskReason::AskAlways,
        },
        ExecutionPolicy::Deny => Verdict::Deny {
            by: DecidedBy::Policy,
            message: "The user's settings deny this tool.".into(),
        },
    }
}

/// Everything the decision order reads, gathered in one place so that the permission stage,
/// the scheduler's preflight and the pre-run re-check read the same things the same way.
pub(super) struct PermissionInputs {
    pub policy: ExecutionPolicy,
    /// The ask-once record key: arguments plus workspace.
    pub record_key: String,
    pub subject: RuleSubject,
    pub rule: Option<Rule>,
    pub record: Option<bool>,
    pub workspace: Option<PathBuf>,
    /// The provenance gate's note: present when the gate holds the call (F-83).
    pub guard: Option<GuardNote>,
    /// What would have allowed the call had the tool not changed (issue 36): a rule or record
    /// set aside while the tool is under review.
    pub set_aside: Option<DecidedBy>,
}

/// What the gate reads about a call besides its arguments (F-83, F-84): what the model had
/// read, and the variables a `$VAR_REF` expanded into the arguments.
#[derive(Clone, Copy, Default)]
pub(super) struct GuardView<'a> {
    pub exposure: Option<&'a Exposure>,
    pub expanded: &'a [(Arc<[Source]>, Arc<str>)],
}

/// What the permission stage granted, and what the grant rests on.
pub(super) struct Grant {
    /// The arguments that will run (the user's edit, if they edited).
    pub args: Value,
    /// The hash of the arguments as approved: those on the card the user answered, or those
    /// the policy, rule or record was checked against.
    pub approved_hash: String,
    pub by: DecidedBy,
    pub subject: RuleSubject,
    pub workspace: Option<PathBuf>,
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

/// The arguments shown on an execution card.
fn shown_arguments(request: &ApprovalRequest) -> Option<&Value> {
    match request {
        ApprovalRequest::Execution { arguments, .. } => Some(arguments),
        ApprovalRequest::Result { .. } => None,
    }
}

impl ToolExecutor {
    /// Reads the policy, rule, record, workspace and the gate's note that decide a call of
    /// `entry` with `args`.
    pub(super) fn permission_inputs(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        view: GuardView<'_>,
    ) -> PermissionInputs {
        let spec = entry.tool.spec();
        let policy = self.execution_policy(spec);
        let targets = self.targets(spec);
        let unconfirmed = self.effects_unconfirmed(spec);
        let effects = self.effects(spec);
        let guard = {
            let settings = self.deps.settings.read();
            let overrides = self.overrides.read();
            let trust = Trust {
                settings: &settings,
                endorsed: &overrides.endorsed,
            };
            guard_note(&GuardInputs {
                trust: &trust,
                effects,
                exposure: view.exposure,
                expanded: view.expanded,
                args,
                targets: &targets,
                unconfirmed,
            })
        };
        let workspace = self.workspace();
        let record_key = record_hash(args, workspace.as_deref());
        let subject = entry.tool.rule_subject(args, workspace.as_deref());
        let mut rule = self.deps.rules.evaluate(self.chat, &spec.name, &subject);
        let mut record = match policy {
            ExecutionPolicy::AskOnce | ExecutionPolicy::AskAlways => self
                .records
                .lock()
                .get(&(spec.name.clone(), record_key.clone()))
                .copied(),
            ExecutionPolicy::Auto | ExecutionPolicy::Deny => None,
        };
        // A tool under review (issue 36): what allows stands aside; what denies or asks stays.
        let mut set_aside = None;
        if spec.review.is_some() {
            if rule.as_ref().is_some_and(|r| r.action == RuleAction::Allow) {
                rule = None;
                set_aside = Some(DecidedBy::Rule);
            }
            if record == Some(true) {
                record = None;
                set_aside = set_aside.or(Some(DecidedBy::Record));
            }
            if set_aside.is_none()
                && self.deps.settings.read().execution_policy(&spec.name)
                    == Some(ExecutionPolicy::Auto)
            {
                set_aside = Some(DecidedBy::Auto);
            }
        }
        PermissionInputs {
            policy,
            record_key,
            subject,
            rule,
            record,
            workspace,
            guard,
            set_aside,
        }
    }

    /// Whether a grant `by` a rule, a record or an `auto` policy for a tool that can change under
    /// it (an MCP tool) waits for the tool's source to list it again first: once per chat and
    /// registry (issue 45).
    fn grant_needs_listing(&self, entry: &RegisteredTool, by: DecidedBy) -> bool {
        let spec = entry.tool.spec();
        let standing = matches!(by, DecidedBy::Rule | DecidedBy::Record | DecidedBy::Auto);
        standing
            && spec.revision.as_ref().is_some_and(|revision| {
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

    /// Whether `rel` in `workspace` is in one of the hidden paths (issue 33).
    fn is_hidden(&self, workspace: Option<&std::path::Path>, rel: &str) -> bool {
        let Some(ws) = workspace else {
            return false;
        };
        let real = crate::tools::sandbox::paths::resolve(&ws.join(rel));
        crate::tools::sandbox::paths::hidden_by(&real, &self.deps.hidden).is_some()
    }

    /// Re-validates arguments edited by the user. They run as the user wrote them: never
    /// expanded (the card showed them already expanded; expanding again would run what no one
    /// saw, issue 33).
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
        let mut inputs = self.permission_inputs(entry, &args, view);
        let verdict = match (
            verdict(
                inputs.policy,
                inputs.rule.as_ref(),
                inputs.record,
                ctx.origin.repeats,
                inputs.guard.is_some(),
            ),
            ctx.origin.unsandboxed_rerun.as_ref(),
        ) {
            // The user's click on "run again without the sandbox" is the decision.
            (Verdict::Allow { .. } | Verdict::Ask { .. }, Some(_)) => Verdict::Allow {
                by: DecidedBy::User,
            },
            (verdict, _) => verdict,
        };
        // A standing grant made against an earlier definition runs only on the one in force
        // now, checked with the source once per chat and connection (issue 45).
        let mut silent_change = None;
        let verdict = match verdict {
            Verdict::Allow { by } if self.grant_needs_listing(entry, by) => {
                match entry.tool.still_as_granted().await {
                    Ok(Granted::Same) => {
                        self.mark_listed(entry);
                        Verdict::Allow { by }
                    }
                    Ok(Granted::Changed(change)) => {
                        silent_change = Some(change);
                        Verdict::Ask {
                            reason: AskReason::ToolChanged {
                                would_allow: Some(by),
                            },
                        }
                    }
                    Err(e) => {
                        trace.decided_by = Some(DecidedBy::None);
                        return Err(Outcome::fail(
                            CallStatus::Error,
                            format!("Tollgate could not check that {name} is still the tool the user allowed, so it did not run it: {e}"),
                        ));
                    }
                }
            }
            verdict => verdict,
        };
        let reason = match verdict {
            Verdict::Allow { by } => {
                trace.decided_by = Some(by);
                trace.decision = Some(ExecutionChoice::Allow);
                return Ok(Grant {
                    approved_hash: args_hash(&args),
                    args,
                    by,
                    subject: inputs.subject,
                    workspace: inputs.workspace,
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
            Verdict::Ask { reason } => reason,
        };
        let tool_change =
            silent_change.or_else(|| entry.tool.spec().review.as_deref().cloned().map(Box::new));
        // The policy a changed tool asks by is its review's: the card says so.
        let reason = match (&tool_change, reason) {
            (Some(_), AskReason::AskAlways | AskReason::AskOnce) => AskReason::ToolChanged {
                would_allow: inputs.set_aside,
            },
            (_, reason) => reason,
        };

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
                AskReason::AskOnce
                | AskReason::AskAlways
                | AskReason::Rule { .. }
                | AskReason::ToolChanged { .. } => None,
            };
            trace.guard = if matches!(reason, AskReason::Exposed { .. }) {
                GuardMark::Escalated
            } else {
                GuardMark::Noted
            };
            Box::new(note)
        });
        let request = ApprovalRequest::Execution {
            preview,
            sandbox,
            arguments: args.clone(),
            policy: inputs.policy,
            reason,
            rule_subject: inputs.subject.kind(),
            suggested_pattern: suggest_pattern(&inputs.subject),
            guard,
            tool_change,
            destructive: self.effects(entry.tool.spec()).irreversible,
        };
        let approval = self.pending_approval(entry, ctx.seq, &ctx.req.call_id, request);
        let Some((decision, shown)) = self.wait_for_decision(approval, ctx.cancel).await else {
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
        // The grant is bound to the arguments on the card the user answered.
        let approved_hash = shown_arguments(&shown.request)
            .map(args_hash)
            .unwrap_or_default();
        let grant = |args: Value, approved_hash: String| Grant {
            args,
            approved_hash,
            by: DecidedBy::User,
            subject: inputs.subject.clone(),
            workspace: inputs.workspace.clone(),
        };
        match decision {
            ExecutionDecision::AllowOnce => Ok(grant(args, approved_hash)),
            ExecutionDecision::EndorseAndAllow { sources } => {
                // `decide` accepted only what the card offered.
                if let Err(e) = self.endorse(&sources).await {
                    tracing::error!("endorsement in chat {} not saved: {e}", self.chat);
                }
                trace.guard = GuardMark::Endorsed;
                Ok(grant(args, approved_hash))
            }
            ExecutionDecision::AllowForChat => {
                self.remember(name, &args, &inputs, true).await;
                Ok(grant(args, approved_hash))
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
                Ok(grant(args, approved_hash))
            }
            ExecutionDecision::EditAndAllow { arguments } => match self.check_edited_arguments(name, &arguments) {
                Ok(edited) => {
                    // What runs is what the user wrote; the subject is re-read for the re-check.
                    let hash = args_hash(&edited);
                    let subject = entry.tool.rule_subject(&edited, inputs.workspace.as_deref());
                    Ok(Grant {
                        subject,
                        ..grant(edited, hash)
                    })
                }
                Err(message) => Err(Outcome::fail(
                    CallStatus::InvalidArgs,
                    format!("The arguments edited by the user are invalid, so the call was not run: {message}"),
                )),
            },
            ExecutionDecision::Deny { reason } => {
                if inputs.policy == ExecutionPolicy::AskOnce {
                    self.remember(name, &args, &inputs, false).await;
                }
                Err(Outcome::fail(CallStatus::ExecutionRejected, denied_message(reason, false)))
            }
            ExecutionDecision::DenyAndStop { reason } => {
                if inputs.policy == ExecutionPolicy::AskOnce {
                    self.remember(name, &args, &inputs, false).await;
                }
                let mut outcome = Outcome::fail(CallStatus::ExecutionRejected, denied_message(reason, true));
                outcome.stop_turn = true;
                Err(outcome)
            }
        }
    }

    /// Compares a grant with the world right before the tool runs (F-03): the arguments about
    /// to run must be the approved ones, the workspace and what the call points at (a path
    /// through today's symlinks, a command) must be as they were, and an automatic grant must
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
        // Defensive: nothing changes `grant.args` after the decision today, so this holds by
        // construction; it keeps holding if a later stage ever rewrites arguments. The checks
        // that can fail on their own are the ones below: workspace, subject, rules, records.
        if args_hash(&grant.args) != grant.approved_hash {
            return refuse("The arguments about to run differ from the ones that were approved");
        }
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
        match verdict(
            now.policy,
            now.rule.as_ref(),
            now.record,
            None,
            now.guard.is_some(),
        ) {
            Verdict::Allow { .. } => Recheck::Proceed,
            Verdict::Deny { message, .. } => refuse(&format!(
                "Since the call was approved, this changed: {}",
                message.trim_end_matches('.')
            )),
            Verdict::Ask { .. } => match grant.by {
                DecidedBy::User => Recheck::Proceed,
                DecidedBy::Auto | DecidedBy::Rule | DecidedBy::Record => Recheck::DecideAgain,
                DecidedBy::Policy | DecidedBy::None => {
                    refuse("The call has no decision that allows it")
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ChatId;
    use crate::protocol::RuleScope;

    fn rule(action: RuleAction) -> Rule {
        Rule {
            id: 1,
            tool: "t".into(),
            pattern: None,
            action,
            scope: RuleScope::Chat { chat: ChatId(1) },
            created_at: 0,
        }
    }

    #[test]
    fn the_decision_order_is_policy_rule_record_policy() {
        use ExecutionPolicy::*;
        assert!(matches!(
            verdict(
                Deny,
                Some(&rule(RuleAction::Allow)),
                Some(true),
                None,
                false
            ),
            Verdict::Deny {
                by: DecidedBy::Policy,
                ..
            }
        ));
        assert!(matches!(
            verdict(
                AskAlways,
                Some(&rule(RuleAction::Allow)),
                Some(false),
                None,
                false
            ),
            Verdict::Allow {
                by: DecidedBy::Rule
            }
        ));
        assert!(matches!(
            verdict(Auto, Some(&rule(RuleAction::Deny)), None, None, false),
            Verdict::Deny {
                by: DecidedBy::Rule,
                ..
            }
        ));
        assert_eq!(
            verdict(Auto, Some(&rule(RuleAction::Ask)), None, None, false),
            Verdict::Ask {
                reason: AskReason::Rule {
                    rule: Box::new(rule(RuleAction::Ask))
                }
            }
        );
        assert!(matches!(
            verdict(AskOnce, None, Some(true), None, false),
            Verdict::Allow {
                by: DecidedBy::Record
            }
        ));
        assert!(matches!(
            verdict(AskOnce, None, Some(false), None, false),
            Verdict::Deny {
                by: DecidedBy::Record,
                ..
            }
        ));
        assert!(matches!(
            verdict(Auto, None, None, None, false),
            Verdict::Allow {
                by: DecidedBy::Auto
            }
        ));
        assert_eq!(
            verdict(AskOnce, None, None, None, false),
            Verdict::Ask {
                reason: AskReason::AskOnce
            }
        );
        assert_eq!(
            verdict(AskAlways, None, None, None, false),
            Verdict::Ask {
                reason: AskReason::AskAlways
            }
        );
    }

    #[test]
    fn the_gate_turns_every_silent_allow_into_a_question_but_keeps_denials() {
        use ExecutionPolicy::*;
        let exposed = |by| Verdict::Ask {
            reason: AskReason::Exposed { would_allow: by },
        };
        assert_eq!(
            verdict(Auto, None, None, None, true),
            exposed(DecidedBy::Auto)
        );
        assert_eq!(
            verdict(AskOnce, None, Some(true), None, true),
            exposed(DecidedBy::Record)
        );
        assert_eq!(
            verdict(AskAlways, Some(&rule(RuleAction::Allow)), None, None, true),
            exposed(DecidedBy::Rule)
        );
        assert!(matches!(
            verdict(Auto, Some(&rule(RuleAction::Deny)), None, None, true),
            Verdict::Deny { .. }
        ));
        assert!(matches!(
            verdict(Deny, None, None, None, true),
            Verdict::Deny { .. }
        ));
        assert!(matches!(
            verdict(AskOnce, None, Some(false), None, true),
            Verdict::Deny { .. }
        ));
        assert_eq!(
            verdict(AskAlways, None, None, None, true),
            Verdict::Ask {
                reason: AskReason::AskAlways
            }
        );
    }

    #[test]
    fn force_ask_turns_every_allow_into_a_question_but_keeps_denials() {
        use ExecutionPolicy::*;
        let why = Some(3);
        let repeated = |by| Verdict::Ask {
            reason: AskReason::Repeated {
                times: 3,
                would_allow: by,
            },
        };
        assert_eq!(
            verdict(Auto, None, None, why, false),
            repeated(DecidedBy::Auto)
        );
        assert_eq!(
            verdict(AskOnce, None, Some(true), why, false),
            repeated(DecidedBy::Record)
        );
        assert_eq!(
            verdict(AskAlways, Some(&rule(RuleAction::Allow)), None, why, false),
            repeated(DecidedBy::Rule)
        );
        assert!(matches!(
            verdict(Auto, Some(&rule(RuleAction::Deny)), None, why, false),
            Verdict::Deny { .. }
        ));
    }
}
