//! The permission stage (F-01, F-03, F-04, F-05), decided in a fixed, readable order:
//! policy `deny` → the most specific rule → an ask-once record → the policy itself. The doom-loop
//! check can force a question where a policy, rule or record would allow.

use super::pipeline::{CallOrigin, Outcome, Trace};
use super::ToolExecutor;
use crate::approvals::{ApprovalRequest, Decision, ExecutionDecision};
use crate::canonical::{args_hash, canonical_json};
use crate::policy::{CallStatus, DecidedBy, ExecutionPolicy};
use crate::rules::{command_segments, Rule, RuleAction, RuleSubject};
use crate::store::{now_ms, ApprovalRecordRow};
use crate::tools::RegisteredTool;
use crate::vars::reference::resolve_value;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// What the permission stage decided before asking anyone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    Allow { by: DecidedBy },
    Deny { by: DecidedBy, message: String },
    Ask { reason: String },
}

/// The fixed decision order, as a pure function so it can be tested on its own.
pub(super) fn verdict(
    policy: ExecutionPolicy,
    rule: Option<&Rule>,
    record: Option<bool>,
    force_ask: Option<&str>,
) -> Verdict {
    let allow = |by: DecidedBy, what: &str| match force_ask {
        Some(why) => Verdict::Ask {
            reason: format!("{why} ({what} would allow it)"),
        },
        None => Verdict::Allow { by },
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
            RuleAction::Allow => allow(DecidedBy::Rule, "a rule"),
            RuleAction::Ask => Verdict::Ask {
                reason: format!("A rule asks for approval: {}.", rule.describe()),
            },
        };
    }
    match record {
        Some(true) => return allow(DecidedBy::Record, "an earlier approval in this chat"),
        Some(false) => {
            return Verdict::Deny {
                by: DecidedBy::Record,
                message: "The user denied this exact call earlier in this chat.".into(),
            }
        }
        None => {}
    }
    match policy {
        ExecutionPolicy::Auto => allow(DecidedBy::Auto, "the tool's policy"),
        ExecutionPolicy::AskOnce => Verdict::Ask {
            reason: "This tool asks once for each distinct set of arguments in a chat.".into(),
        },
        ExecutionPolicy::AskAlways => Verdict::Ask {
            reason: "This tool asks before every call.".into(),
        },
        ExecutionPolicy::Deny => Verdict::Deny {
            by: DecidedBy::Policy,
            message: "The user's settings deny this tool.".into(),
        },
    }
}

/// A rule pattern to offer for "always allow", from what rules match against.
fn suggest_pattern(subject: &RuleSubject) -> Option<String> {
    match subject {
        RuleSubject::Command(cmd) => {
            let (segments, substitution) = command_segments(cmd);
            match (segments.as_slice(), substitution) {
                ([one], false) => {
                    let words: Vec<&str> = one.split_whitespace().take(2).collect();
                    (!words.is_empty()).then(|| format!("{} *", words.join(" ")))
                }
                _ => None,
            }
        }
        RuleSubject::Path(p) => Some(p.clone()),
        RuleSubject::Args(_) => None,
    }
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
    /// Re-resolves and re-validates arguments edited by the user.
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
        let resolved = resolve_value(edited, &*self.vars)
            .map_err(|e| e.to_string())?
            .unwrap_or_else(|| edited.clone());
        entry.validator.validate(tool, &resolved)?;
        Ok(resolved)
    }

    async fn remember(&self, tool: &str, args: &Value, hash: &str, allowed: bool) {
        let row = ApprovalRecordRow {
            chat: self.chat,
            tool: tool.to_string(),
            args_hash: hash.to_string(),
            args: canonical_json(args),
            allowed,
            created_at: now_ms(),
        };
        match self.deps.store.put_approval_record(row).await {
            Ok(()) => {
                self.records
                    .lock()
                    .insert((tool.to_string(), hash.to_string()), allowed);
            }
            Err(e) => tracing::error!("ask-once record for {tool} not saved: {e}"),
        }
    }

    /// Decides whether the call may run. Returns the arguments that will run (the user may have
    /// edited them) and the hash they were approved under.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn permission(
        &self,
        entry: &RegisteredTool,
        args: Value,
        seq: u64,
        call_id: &str,
        origin: &CallOrigin,
        cancel: &CancellationToken,
        trace: &mut Trace,
    ) -> Result<(Value, String), Outcome> {
        let spec = entry.tool.spec();
        let name = spec.name.as_str();
        let policy = self.execution_policy(spec);
        let hash = args_hash(&args);
        let subject = entry.tool.rule_subject(&args);
        let rule = self.deps.rules.evaluate(self.chat, name, &subject);
        let record = match policy {
            ExecutionPolicy::AskOnce | ExecutionPolicy::AskAlways => self
                .records
                .lock()
                .get(&(name.to_string(), hash.clone()))
                .copied(),
            ExecutionPolicy::Auto | ExecutionPolicy::Deny => None,
        };
        let reason = match verdict(policy, rule.as_ref(), record, origin.force_ask.as_deref()) {
            Verdict::Allow { by } => {
                trace.decided_by = Some(by);
                trace.decision = Some("allow");
                return Ok((args, hash));
            }
            Verdict::Deny { by, message } => {
                trace.decided_by = Some(by);
                trace.decision = Some("deny");
                return Err(Outcome::fail(
                    CallStatus::ExecutionRejected,
                    format!("{message} Do not repeat the same call; adapt your approach or ask the user."),
                ));
            }
            Verdict::Ask { reason } => reason,
        };

        let request = ApprovalRequest::Execution {
            preview: entry
                .tool
                .approval_preview(&args, self.workspace().as_deref()),
            arguments: args.clone(),
            policy,
            reason,
            suggested_pattern: suggest_pattern(&subject),
        };
        let approval = self.pending_approval(entry, seq, call_id, request);
        let decision = self.wait_for_decision(approval, cancel).await;
        let Some(Decision::Execution(decision)) = decision else {
            trace.decided_by = Some(DecidedBy::None);
            return Err(Outcome::fail(
                CallStatus::Cancelled,
                "The call was cancelled before the user decided.",
            ));
        };
        trace.decided_by = Some(DecidedBy::User);
        trace.decision = Some(decision.label());
        match decision {
            ExecutionDecision::AllowOnce => Ok((args, hash)),
            ExecutionDecision::AllowForChat => {
                self.remember(name, &args, &hash, true).await;
                Ok((args, hash))
            }
            ExecutionDecision::AlwaysAllow { scope, pattern } => {
                if let Err(e) = self
                    .deps
                    .rules
                    .add(name, pattern, RuleAction::Allow, scope.to_scope(self.chat))
                    .await
                {
                    tracing::error!("rule for {name} not saved: {e}");
                }
                Ok((args, hash))
            }
            ExecutionDecision::EditAndAllow { arguments } => match self.check_edited_arguments(name, &arguments) {
                Ok(edited) => {
                    let edited_hash = args_hash(&edited);
                    Ok((edited, edited_hash))
                }
                Err(message) => Err(Outcome::fail(
                    CallStatus::InvalidArgs,
                    format!("The arguments edited by the user are invalid, so the call was not run: {message}"),
                )),
            },
            ExecutionDecision::Deny { reason } => {
                if policy == ExecutionPolicy::AskOnce {
                    self.remember(name, &args, &hash, false).await;
                }
                Err(Outcome::fail(CallStatus::ExecutionRejected, denied_message(reason, false)))
            }
            ExecutionDecision::DenyAndStop { reason } => {
                if policy == ExecutionPolicy::AskOnce {
                    self.remember(name, &args, &hash, false).await;
                }
                let mut outcome = Outcome::fail(CallStatus::ExecutionRejected, denied_message(reason, true));
                outcome.stop_turn = true;
                Err(outcome)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ChatId;
    use crate::rules::RuleScope;

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
            verdict(Deny, Some(&rule(RuleAction::Allow)), Some(true), None),
            Verdict::Deny {
                by: DecidedBy::Policy,
                ..
            }
        ));
        assert!(matches!(
            verdict(AskAlways, Some(&rule(RuleAction::Allow)), Some(false), None),
            Verdict::Allow {
                by: DecidedBy::Rule
            }
        ));
        assert!(matches!(
            verdict(Auto, Some(&rule(RuleAction::Deny)), None, None),
            Verdict::Deny {
                by: DecidedBy::Rule,
                ..
            }
        ));
        assert!(matches!(
            verdict(Auto, Some(&rule(RuleAction::Ask)), None, None),
            Verdict::Ask { .. }
        ));
        assert!(matches!(
            verdict(AskOnce, None, Some(true), None),
            Verdict::Allow {
                by: DecidedBy::Record
            }
        ));
        assert!(matches!(
            verdict(AskOnce, None, Some(false), None),
            Verdict::Deny {
                by: DecidedBy::Record,
                ..
            }
        ));
        assert!(matches!(
            verdict(Auto, None, None, None),
            Verdict::Allow {
                by: DecidedBy::Auto
            }
        ));
        assert!(matches!(
            verdict(AskOnce, None, None, None),
            Verdict::Ask { .. }
        ));
        assert!(matches!(
            verdict(AskAlways, None, None, None),
            Verdict::Ask { .. }
        ));
    }

    #[test]
    fn force_ask_turns_every_allow_into_a_question_but_keeps_denials() {
        use ExecutionPolicy::*;
        let why = Some("Same call 3 times in a row");
        assert!(matches!(
            verdict(Auto, None, None, why),
            Verdict::Ask { .. }
        ));
        assert!(matches!(
            verdict(AskOnce, None, Some(true), why),
            Verdict::Ask { .. }
        ));
        assert!(matches!(
            verdict(AskAlways, Some(&rule(RuleAction::Allow)), None, why),
            Verdict::Ask { .. }
        ));
        assert!(matches!(
            verdict(Auto, Some(&rule(RuleAction::Deny)), None, why),
            Verdict::Deny { .. }
        ));
    }

    #[test]
    fn rule_suggestions_follow_the_subject() {
        assert_eq!(
            suggest_pattern(&RuleSubject::Command("git status -s".into())),
            Some("git status *".into())
        );
        assert_eq!(
            suggest_pattern(&RuleSubject::Command("ls && rm x".into())),
            None
        );
        assert_eq!(
            suggest_pattern(&RuleSubject::Path("src/a.rs".into())),
            Some("src/a.rs".into())
        );
        assert_eq!(suggest_pattern(&RuleSubject::Args("{}".into())), None);
    }
}
