//! What decides a call, in one place (F-01, F-03, F-04, F-05, F-23, F-83, SPEC §11, SPEC §12).
//!
//! Everything the permission stage weighs — the policy the user set and the tool's own, a tool
//! under review (announced, or found changed when its source listed it just before this
//! decision), the rule that matched, an ask-once record, a repeated call, the provenance gate's
//! hold and the user's "run again without the sandbox" — is one typed [`Inputs`], and [`verdict`]
//! is the one pure function from it to a [`Verdict`]. The order, top to bottom:
//!
//! 1. a `deny` policy denies;
//! 2. the user's click on "run again without the sandbox" allows (it is the decision);
//! 3. the most specific rule: `deny` denies, `ask` asks, `allow` allows — unless the tool is
//!    under review (an allow stands aside);
//! 4. an ask-once record (only where the policy asks): a denial denies, an allow allows — unless
//!    the tool is under review;
//! 5. the policy: `auto` allows (unless under review), `ask-once` and `ask-always` ask — a tool
//!    under review asks as a changed tool, naming what would have allowed it;
//! 6. whatever would allow asks instead when the model repeats the call or the gate holds it;
//!    both are recorded, and a hold that changed the outcome counts as escalated;
//! 7. a call that runs (allowed, or once the user allows it) carries whether its result waits
//!    for the user before the model sees it (F-02): the result policy in force.
//!
//! A call that proposes a task's plan (F-98) always asks, unless a `deny` policy denies it: no
//! rule, record, policy or grant approves a plan the user has not seen.
//!
//! A task's grant (F-98), when one is in force, is one more input: a call inside it and its
//! bounds runs where the policy would ask, the gate would hold it or the model repeats it (by
//! `Plan`); it never runs where a `deny` policy, a deny or ask rule or a denied record stops it,
//! nor for a tool under review. A call outside it is decided as without a grant, and where the
//! policy asks or the gate holds it, its card says how it leaves the plan (`OffPlan`).
//!
//! A tool that can change under a grant (an MCP tool) is listed by its source before it is
//! decided (once per chat and connection), so every grant — standing or a click — is for the
//! definition in force; nothing here waits for a listing.

use crate::rules::RuleMatch;
use tollgate_protocol::policy::{DecidedBy, ExecutionPolicy, ResultPolicy};
use tollgate_protocol::{AskReason, GuardMark, GuardNote, PlanFit, PlanShown, Rule, RuleAction};

/// Everything that decides a call, read once by the executor (`permission_inputs`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Inputs<'a> {
    /// The policy the user set for the tool, if any.
    pub set_policy: Option<ExecutionPolicy>,
    /// The tool's own policy (for an MCP tool, its server's setting).
    pub tool_policy: ExecutionPolicy,
    /// The tool changed since the user allowed it (SPEC §11): what allows stands aside.
    pub under_review: bool,
    /// The most specific rule that matched the call, if any.
    pub rule: Option<&'a Rule>,
    /// The ask-once record of the same call in this chat and workspace: allowed or denied.
    pub record: Option<bool>,
    /// The model made this exact call this many times in a row (F-23).
    pub repeats: Option<u32>,
    /// The provenance gate's note, when the gate holds the call (F-83).
    pub guard: Option<&'a GuardNote>,
    /// The user asked to run the call again without the sandbox: that click is the decision.
    pub rerun: bool,
    /// The result policy in force: the user's, else the tool's.
    pub result_policy: ResultPolicy,
    /// Where the call stands against the task's grant, when one is in force (F-98).
    pub plan: Option<&'a PlanFit>,
    /// The call proposes a task's plan (F-98), as its card will show it: a plan is always
    /// shown to the user.
    pub proposal: Option<&'a PlanShown>,
}

/// What the permission stage does with a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// It runs; `review`: whether its result waits for the user.
    Allow { by: DecidedBy, review: ResultPolicy },
    /// It does not run; `message` says why, for the model.
    Deny { by: DecidedBy, message: String },
    /// The user is asked. `guard` is what the gate's hold counts as in the autonomy figures;
    /// `review`: whether its result waits for the user, if the user lets it run.
    Ask {
        reason: AskReason,
        guard: GuardMark,
        review: ResultPolicy,
    },
}

impl Verdict {
    /// The user is asked before the call runs.
    pub fn asks_first(&self) -> bool {
        matches!(self, Verdict::Ask { .. })
    }

    /// Some result of the call (a success or an error) would wait for the user.
    pub fn reviews_any_result(&self) -> bool {
        match self {
            Verdict::Allow { review, .. } | Verdict::Ask { review, .. } => {
                *review != ResultPolicy::Never
            }
            Verdict::Deny { .. } => false,
        }
    }
}

/// The policy in force: a user's `deny` always; under review (the only place that rule is
/// written) the tool asks every time unless its own policy denies it; otherwise the user's,
/// else the tool's.
pub(super) fn effective_policy(
    set: Option<ExecutionPolicy>,
    tool: ExecutionPolicy,
    under_review: bool,
) -> ExecutionPolicy {
    match (set, under_review) {
        (Some(ExecutionPolicy::Deny), _) => ExecutionPolicy::Deny,
        (_, true) if denies(tool) => ExecutionPolicy::Deny,
        (_, true) => ExecutionPolicy::AskAlways,
        (set, false) => set.unwrap_or(tool),
    }
}

const POLICY_DENIES: &str = "The user's settings deny this tool.";

/// Whether the policy in force denies every call of the tool: then the model is not offered
/// it, a call that names it is answered "denied" rather than "unknown", and the pipeline ends
/// such a call before reading its arguments — step 1 of the order, the same test `verdict` makes.
pub(super) fn denies(policy: ExecutionPolicy) -> bool {
    matches!(policy, ExecutionPolicy::Deny)
}

/// Whether the user's "deny" on a card is kept for the chat (an ask-once record, which step 4
/// reads): only where the policy asks once.
pub(super) fn remembers_denial(policy: ExecutionPolicy) -> bool {
    matches!(policy, ExecutionPolicy::AskOnce)
}

/// The decision order of the module doc, as one pure function.
pub(super) fn verdict(i: &Inputs<'_>) -> Verdict {
    let policy = effective_policy(i.set_policy, i.tool_policy, i.under_review);
    if denies(policy) {
        return Verdict::Deny {
            by: DecidedBy::Policy,
            message: POLICY_DENIES.into(),
        };
    }
    if let Some(shown) = i.proposal {
        return ask(
            i,
            AskReason::Plan {
                shown: Box::new(shown.clone()),
            },
            None,
        );
    }
    if i.rerun {
        return Verdict::Allow {
            by: DecidedBy::User,
            review: i.result_policy,
        };
    }
    // What a standing grant would allow by; under review it stands aside and is named.
    let mut set_aside = None;
    if let Some(rule) = i.rule {
        match rule.action {
            RuleAction::Deny => {
                return Verdict::Deny {
                    by: DecidedBy::Rule,
                    message: format!(
                        "A rule set by the user denies this call ({}).",
                        rule.describe()
                    ),
                }
            }
            RuleAction::Ask => {
                return ask(
                    i,
                    AskReason::Rule {
                        rule: Box::new(rule.clone()),
                    },
                    None,
                )
            }
            RuleAction::Allow if !i.under_review => return allow(i, DecidedBy::Rule),
            RuleAction::Allow => set_aside = Some(DecidedBy::Rule),
        }
    }
    let record = match policy {
        ExecutionPolicy::AskOnce | ExecutionPolicy::AskAlways => i.record,
        ExecutionPolicy::Auto | ExecutionPolicy::Deny => None,
    };
    match record {
        Some(false) => {
            return Verdict::Deny {
                by: DecidedBy::Record,
                message: "The user denied this exact call earlier in this chat.".into(),
            }
        }
        Some(true) if !i.under_review => return allow(i, DecidedBy::Record),
        Some(true) => set_aside = set_aside.or(Some(DecidedBy::Record)),
        None => {}
    }
    if i.under_review {
        // The user's `auto` stands aside too, and the card names it.
        if i.set_policy == Some(ExecutionPolicy::Auto) {
            set_aside = set_aside.or(Some(DecidedBy::Auto));
        }
        return ask(
            i,
            AskReason::ToolChanged {
                would_allow: set_aside,
            },
            None,
        );
    }
    match policy {
        ExecutionPolicy::Auto => allow(i, DecidedBy::Auto),
        ExecutionPolicy::AskOnce | ExecutionPolicy::AskAlways if inside_plan(i) => Verdict::Allow {
            by: DecidedBy::Plan,
            review: i.result_policy,
        },
        ExecutionPolicy::AskOnce => ask(i, AskReason::AskOnce, None),
        ExecutionPolicy::AskAlways => ask(i, AskReason::AskAlways, None),
        ExecutionPolicy::Deny => Verdict::Deny {
            by: DecidedBy::Policy,
            message: POLICY_DENIES.into(),
        },
    }
}

/// Whether the call is inside the task's grant and its bounds.
fn inside_plan(i: &Inputs<'_>) -> bool {
    matches!(i.plan, Some(PlanFit::Inside { .. }))
}

/// What would allow `by` does: a repeat or the gate's hold asks instead (both are recorded: the
/// reason names the repeat, the hold counts as escalated) — unless the call is inside the task's
/// grant, whose targets were fixed before anything untrusted was read: then the plan allows it.
fn allow(i: &Inputs<'_>, by: DecidedBy) -> Verdict {
    if inside_plan(i) && (i.repeats.is_some() || i.guard.is_some()) {
        return Verdict::Allow {
            by: DecidedBy::Plan,
            review: i.result_policy,
        };
    }
    if let Some(times) = i.repeats {
        return ask(
            i,
            AskReason::Repeated {
                times,
                would_allow: by,
            },
            Some(by),
        );
    }
    if i.guard.is_some() {
        return ask(i, AskReason::Exposed { would_allow: by }, Some(by));
    }
    Verdict::Allow {
        by,
        review: i.result_policy,
    }
}

/// Asks for `reason`. `would_allow`: what would have let the call run; with the gate holding
/// it, the hold is what made it ask (escalated), otherwise its note only rides along. Off a plan
/// in force, the policy's or the hold's reason becomes how the call leaves the plan.
fn ask(i: &Inputs<'_>, reason: AskReason, would_allow: Option<DecidedBy>) -> Verdict {
    let reason = match (i.plan, reason) {
        (Some(PlanFit::Outside(off)), AskReason::AskOnce | AskReason::AskAlways) => {
            AskReason::OffPlan {
                off: Box::new(off.clone()),
                would_allow: None,
            }
        }
        (Some(PlanFit::Outside(off)), AskReason::Exposed { would_allow }) => AskReason::OffPlan {
            off: Box::new(off.clone()),
            would_allow: Some(would_allow),
        },
        (_, reason) => reason,
    };
    let guard = match (i.guard.is_some(), would_allow) {
        (false, _) => GuardMark::Quiet,
        (true, Some(_)) => GuardMark::Escalated,
        (true, None) => GuardMark::Noted,
    };
    Verdict::Ask {
        reason,
        guard,
        review: i.result_policy,
    }
}

#[cfg(test)]
#[path = "decision_tests.rs"]
mod tests;
