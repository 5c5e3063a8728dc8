//! The permission stage's card (F-01, F-04, F-97): what a call the decision asks about shows
//! the user, and what the user's answer grants. [`super::permission`] gathers what decides a
//! call and takes the verdict; on an ask it builds the card here ([`request`]), waits for the
//! answer and applies it here ([`answer`]).

use super::call::{Outcome, Trace};
use super::grant::{Grant, PermissionInputs};
use crate::rules::{suggest_pattern, RuleSubject};
use crate::tool_executor::ToolExecutor;
use serde_json::Value;
use tollgate_protocol::policy::{CallStatus, ResultPolicy};
use tollgate_protocol::{ApprovalRequest, AskReason, ExecutionDecision, FlaggedParameter};
use tollgate_protocol::{GuardMark, RuleAction, RuleGrant, SandboxReport, ToolChange};
use tollgate_tools::RegisteredTool;

/// Why the card asks: the verdict's reason and the gate's mark, and the tool's change when it
/// changed since the user allowed it.
pub(super) struct Asked {
    pub reason: AskReason,
    pub mark: GuardMark,
    pub tool_change: Option<Box<ToolChange>>,
}

/// The card for a call of `entry` with `args` the decision asks about: the preview (never of a
/// secret path), the sandbox it would run in, the gate's note with what it would allow, the
/// change of the tool, and the flagged parameters the arguments fill.
pub(super) async fn request(
    exec: &ToolExecutor,
    entry: &RegisteredTool,
    args: &Value,
    inputs: &mut PermissionInputs,
    asked: Asked,
    trace: &mut Trace,
) -> ApprovalRequest {
    let Asked {
        reason,
        mark,
        tool_change,
    } = asked;
    let spec = entry.tool.spec();
    let sandbox = if spec.sandboxed {
        let support = tollgate_tools::supervisor::sandbox_support().await;
        Some(Box::new(SandboxReport::planned(&exec.sandbox(), &support)))
    } else {
        None
    };
    // No preview reads a secret path (its content would reach the card).
    let preview = match &inputs.subject {
        RuleSubject::Path(rel) if exec.is_hidden(inputs.workspace.as_deref(), rel) => None,
        _ => entry
            .tool
            .approval_preview(args, inputs.workspace.as_deref()),
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
    ApprovalRequest::Execution {
        preview,
        sandbox,
        arguments: args.clone(),
        policy: inputs.policy(),
        reason,
        rule_subject: inputs.subject.kind(),
        suggested_pattern: suggest_pattern(&inputs.subject),
        guard,
        tool_change,
        destructive: exec.policies().effects(spec).irreversible,
        flagged: flagged_in(&spec.flagged, args),
    }
}

/// What the user's answer on the card grants: the arguments on the card (or the user's edit of
/// them) with what the answer remembers — an endorsement, a record for the chat, a rule — or
/// the denial the model is told of.
pub(super) async fn answer(
    exec: &ToolExecutor,
    entry: &RegisteredTool,
    args: Value,
    inputs: &PermissionInputs,
    review: ResultPolicy,
    decision: ExecutionDecision,
    trace: &mut Trace,
) -> Result<Grant, Outcome> {
    let name = entry.tool.spec().name.as_str();
    // The grant is bound to the arguments on the card the user answered (`args`, put on the
    // card), or to the user's own edit of them.
    let grant = |args: Value| {
        Grant::by_user(
            args,
            inputs.subject.clone(),
            inputs.workspace.clone(),
            review,
        )
    };
    match decision {
        ExecutionDecision::AllowOnce => Ok(grant(args)),
        ExecutionDecision::EndorseAndAllow { sources } => {
            // `decide` accepted only what the card offered.
            if let Err(e) = exec.guard().endorse(&sources).await {
                tracing::error!("endorsement in chat {} not saved: {e}", exec.chat);
            }
            trace.guard = GuardMark::Endorsed;
            Ok(grant(args))
        }
        ExecutionDecision::AllowForChat => {
            exec.remember(name, &args, inputs, true).await;
            Ok(grant(args))
        }
        ExecutionDecision::AlwaysAllow { scope, grant: rule } => {
            let pattern = match rule {
                RuleGrant::Matching { pattern } => Some(pattern),
                RuleGrant::EveryCall => None,
            };
            if let Err(e) = exec
                .deps
                .rules
                .add(name, pattern, RuleAction::Allow, scope.to_scope(exec.chat))
                .await
            {
                tracing::error!("rule for {name} not saved: {e}");
            }
            Ok(grant(args))
        }
        ExecutionDecision::EditAndAllow { arguments } => {
            match exec.check_edited_arguments(name, &arguments) {
                // What runs is what the user wrote; the subject is re-read for the re-check.
                Ok(edited) => {
                    let subject = entry.tool.rule_subject(&edited, inputs.workspace.as_deref());
                    Ok(Grant::by_user(
                        edited,
                        subject,
                        inputs.workspace.clone(),
                        review,
                    ))
                }
                Err(message) => Err(Outcome::fail(
                    CallStatus::InvalidArgs,
                    format!("The arguments edited by the user are invalid, so the call was not run: {message}"),
                )),
            }
        }
        ExecutionDecision::Deny { reason } => {
            if super::decision::remembers_denial(inputs.policy()) {
                exec.remember(name, &args, inputs, false).await;
            }
            Err(Outcome::fail(
                CallStatus::ExecutionRejected,
                denied_message(reason, false),
            ))
        }
        ExecutionDecision::DenyAndStop { reason } => {
            if super::decision::remembers_denial(inputs.policy()) {
                exec.remember(name, &args, inputs, false).await;
            }
            let mut outcome =
                Outcome::fail(CallStatus::ExecutionRejected, denied_message(reason, true));
            outcome.stop_turn = true;
            Err(outcome)
        }
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
