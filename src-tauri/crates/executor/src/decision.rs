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
//! A tool that can change under a grant (an MCP tool) is listed by its source before it is
//! decided (once per chat and connection), so every grant — standing or a click — is for the
//! definition in force; nothing here waits for a listing.

use crate::policy::{DecidedBy, ExecutionPolicy, ResultPolicy};
use crate::protocol::{AskReason, GuardMark, GuardNote, Rule, RuleAction};
use crate::rules::RuleMatch;

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
        ExecutionPolicy::AskOnce => ask(i, AskReason::AskOnce, None),
        ExecutionPolicy::AskAlways => ask(i, AskReason::AskAlways, None),
        ExecutionPolicy::Deny => Verdict::Deny {
            by: DecidedBy::Policy,
            message: POLICY_DENIES.into(),
        },
    }
}

/// What would allow `by` does: a repeat or the gate's hold asks instead (both are recorded: the
/// reason names the repeat, the hold counts as escalated).
fn allow(i: &Inputs<'_>, by: DecidedBy) -> Verdict {
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
/// it, the hold is what made it ask (escalated), otherwise its note only rides along.
fn ask(i: &Inputs<'_>, reason: AskReason, would_allow: Option<DecidedBy>) -> Verdict {
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
mod tests {
    use super::*;
    use crate::protocol::RuleScope;

    /// A gate's note: what it says does not change the decision, only that there is one.
    fn held() -> GuardNote {
        GuardNote {
            effects: Default::default(),
            exposed_to: Vec::new(),
            exposed_count: 1,
            private_read: Vec::new(),
            spans: Vec::new(),
            would_allow: None,
            chosen_targets: Vec::new(),
            unconfirmed: false,
            endorsable: Vec::new(),
        }
    }

    fn rule(action: RuleAction) -> Rule {
        Rule {
            id: 1,
            tool: "t".into(),
            pattern: Some("p *".into()),
            action,
            scope: RuleScope::Global,
            created_at: 0,
        }
    }

    const POLICIES: [ExecutionPolicy; 4] = [
        ExecutionPolicy::Auto,
        ExecutionPolicy::AskOnce,
        ExecutionPolicy::AskAlways,
        ExecutionPolicy::Deny,
    ];
    const RESULT_POLICIES: [ResultPolicy; 3] = [
        ResultPolicy::Never,
        ResultPolicy::OnError,
        ResultPolicy::Always,
    ];
    /// Every combination of the inputs: the result policy, the set policy (or none), the tool's, review, the rule
    /// (none, allow, ask, deny), the record (none, allowed, denied), a repeat, the gate's hold,
    /// and the rerun.
    fn every_input(note: &GuardNote, rules: &[Rule; 3], each: &mut dyn FnMut(Inputs<'_>)) {
        let sets = [None].into_iter().chain(POLICIES.iter().copied().map(Some));
        for result_policy in RESULT_POLICIES {
            for set_policy in sets.clone() {
                for tool_policy in POLICIES {
                    for under_review in [false, true] {
                        for rule in [None, Some(&rules[0]), Some(&rules[1]), Some(&rules[2])] {
                            for record in [None, Some(true), Some(false)] {
                                for repeats in [None, Some(3)] {
                                    for guard in [None, Some(note)] {
                                        for rerun in [false, true] {
                                            each(Inputs {
                                                set_policy,
                                                tool_policy,
                                                under_review,
                                                rule,
                                                record,
                                                repeats,
                                                guard,
                                                rerun,
                                                result_policy,
                                            });
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// What the SPEC says of each combination, written as the rules it states, not as the order
    /// the code takes: checked against `verdict` for all 11,520 combinations.
    #[test]
    fn every_combination_is_decided_as_the_spec_says() {
        let note = held();
        let rules = [
            rule(RuleAction::Allow),
            rule(RuleAction::Ask),
            rule(RuleAction::Deny),
        ];
        let mut count = 0;
        every_input(&note, &rules, &mut |i| {
            count += 1;
            let d = verdict(&i);
            let policy = effective_policy(i.set_policy, i.tool_policy, i.under_review);
            let rule = i.rule.map(|r| r.action);
            let asks_policy = matches!(
                policy,
                ExecutionPolicy::AskOnce | ExecutionPolicy::AskAlways
            );
            let record = if asks_policy { i.record } else { None };
            let ctx = format!("{i:?} → {d:?}");
            // A user's deny setting denies, whatever else holds.
            if i.set_policy == Some(ExecutionPolicy::Deny) {
                assert!(
                    matches!(
                        d,
                        Verdict::Deny {
                            by: DecidedBy::Policy,
                            ..
                        }
                    ),
                    "{ctx}"
                );
                return;
            }
            // Under review the tool asks every time, unless its own policy denies it.
            if i.under_review {
                let expected = match i.tool_policy {
                    ExecutionPolicy::Deny => ExecutionPolicy::Deny,
                    _ => ExecutionPolicy::AskAlways,
                };
                assert_eq!(policy, expected, "{ctx}");
            }
            if policy == ExecutionPolicy::Deny {
                assert!(
                    matches!(
                        d,
                        Verdict::Deny {
                            by: DecidedBy::Policy,
                            ..
                        }
                    ),
                    "{ctx}"
                );
                return;
            }
            // The rerun click decides.
            if i.rerun {
                assert_eq!(
                    d,
                    Verdict::Allow {
                        by: DecidedBy::User,
                        review: i.result_policy,
                    },
                    "{ctx}"
                );
                return;
            }
            // A deny rule, then a denied record, deny.
            if rule == Some(RuleAction::Deny) {
                assert!(
                    matches!(
                        d,
                        Verdict::Deny {
                            by: DecidedBy::Rule,
                            ..
                        }
                    ),
                    "{ctx}"
                );
                return;
            }
            let rule_stands_aside = rule == Some(RuleAction::Allow) && i.under_review;
            if (rule.is_none() || rule_stands_aside) && record == Some(false) {
                assert!(
                    matches!(
                        d,
                        Verdict::Deny {
                            by: DecidedBy::Record,
                            ..
                        }
                    ),
                    "{ctx}"
                );
                return;
            }
            // Nothing else denies.
            assert!(!matches!(d, Verdict::Deny { .. }), "{ctx}");
            // What would allow, if anything: an allow rule, an allowed record, `auto`.
            let would = match (rule, record, policy) {
                (Some(RuleAction::Ask), _, _) => None,
                (Some(RuleAction::Allow), _, _) => Some(DecidedBy::Rule),
                (None, Some(true), _) => Some(DecidedBy::Record),
                (None, _, ExecutionPolicy::Auto) => Some(DecidedBy::Auto),
                _ => None,
            };
            match d {
                Verdict::Allow { by, review } => {
                    // A call that runs carries the result policy in force.
                    assert_eq!(review, i.result_policy, "{ctx}");
                    // Only what would allow does, with nothing standing in the way.
                    assert_eq!(Some(by), would, "{ctx}");
                    assert!(
                        !i.under_review && i.repeats.is_none() && i.guard.is_none(),
                        "{ctx}"
                    );
                }
                Verdict::Ask {
                    reason,
                    guard,
                    review,
                } => {
                    assert_eq!(review, i.result_policy, "{ctx}");
                    // The reason names what made it ask.
                    match &reason {
                        AskReason::Rule { .. } => assert_eq!(rule, Some(RuleAction::Ask), "{ctx}"),
                        AskReason::Repeated { times, would_allow } => {
                            assert_eq!(Some(*times), i.repeats, "{ctx}");
                            assert_eq!(Some(*would_allow), would, "{ctx}");
                            assert!(!i.under_review, "{ctx}");
                        }
                        AskReason::Exposed { would_allow } => {
                            assert!(i.guard.is_some() && i.repeats.is_none(), "{ctx}");
                            assert_eq!(Some(*would_allow), would, "{ctx}");
                            assert!(!i.under_review, "{ctx}");
                        }
                        AskReason::ToolChanged { .. } => {
                            assert!(i.under_review, "{ctx}");
                        }
                        AskReason::AskOnce => assert_eq!(policy, ExecutionPolicy::AskOnce, "{ctx}"),
                        AskReason::AskAlways => {
                            assert_eq!(policy, ExecutionPolicy::AskAlways, "{ctx}")
                        }
                    }
                    // A repeat and a hold together: both recorded, the hold counted.
                    let held_what_would_run = i.guard.is_some()
                        && would.is_some()
                        && !i.under_review
                        && rule != Some(RuleAction::Ask);
                    let expected = match (i.guard.is_some(), held_what_would_run) {
                        (false, _) => GuardMark::Quiet,
                        (true, true) if !matches!(reason, AskReason::ToolChanged { .. }) => {
                            GuardMark::Escalated
                        }
                        (true, _) => GuardMark::Noted,
                    };
                    assert_eq!(guard, expected, "{ctx}");
                }
                Verdict::Deny { .. } => unreachable!(),
            }
        });
        assert_eq!(count, 3 * 5 * 4 * 2 * 4 * 3 * 2 * 2 * 2);
    }

    /// The rows a reader checks by eye: each a case the issues named.
    #[test]
    fn the_cases_the_issues_named() {
        let note = held();
        let allow_rule = rule(RuleAction::Allow);
        let base = Inputs {
            set_policy: None,
            tool_policy: ExecutionPolicy::AskOnce,
            under_review: false,
            rule: None,
            record: None,
            repeats: None,
            guard: None,
            rerun: false,
            result_policy: ResultPolicy::Never,
        };
        // An exposed call in a loop: asked as a repeat, counted as escalated (SPEC §10).
        let looped = verdict(&Inputs {
            rule: Some(&allow_rule),
            repeats: Some(3),
            guard: Some(&note),
            ..base
        });
        assert_eq!(
            looped,
            Verdict::Ask {
                reason: AskReason::Repeated {
                    times: 3,
                    would_allow: DecidedBy::Rule
                },
                guard: GuardMark::Escalated,
                review: ResultPolicy::Never
            }
        );
        // A rule made against an earlier definition, the tool listed changed just now: it asks,
        // naming the rule that stood aside.
        assert_eq!(
            verdict(&Inputs {
                rule: Some(&allow_rule),
                under_review: true,
                ..base
            }),
            Verdict::Ask {
                reason: AskReason::ToolChanged {
                    would_allow: Some(DecidedBy::Rule)
                },
                guard: GuardMark::Quiet,
                review: ResultPolicy::Never
            }
        );
        // Under review, the user's `auto` stands aside and is named.
        assert_eq!(
            verdict(&Inputs {
                set_policy: Some(ExecutionPolicy::Auto),
                tool_policy: ExecutionPolicy::AskAlways,
                under_review: true,
                ..base
            }),
            Verdict::Ask {
                reason: AskReason::ToolChanged {
                    would_allow: Some(DecidedBy::Auto)
                },
                guard: GuardMark::Quiet,
                review: ResultPolicy::Never
            }
        );
        // The order: a deny policy beats an allow rule; an allow rule beats a denied record; a
        // deny rule beats `auto`; an ask rule asks by itself.
        let deny_rule = rule(RuleAction::Deny);
        let ask_rule = rule(RuleAction::Ask);
        assert!(matches!(
            verdict(&Inputs {
                set_policy: Some(ExecutionPolicy::Deny),
                rule: Some(&allow_rule),
                record: Some(true),
                ..base
            }),
            Verdict::Deny {
                by: DecidedBy::Policy,
                ..
            }
        ));
        assert_eq!(
            verdict(&Inputs {
                tool_policy: ExecutionPolicy::AskAlways,
                rule: Some(&allow_rule),
                record: Some(false),
                ..base
            }),
            Verdict::Allow {
                by: DecidedBy::Rule,
                review: ResultPolicy::Never
            }
        );
        assert!(matches!(
            verdict(&Inputs {
                tool_policy: ExecutionPolicy::Auto,
                rule: Some(&deny_rule),
                ..base
            }),
            Verdict::Deny {
                by: DecidedBy::Rule,
                ..
            }
        ));
        assert_eq!(
            verdict(&Inputs {
                tool_policy: ExecutionPolicy::Auto,
                rule: Some(&ask_rule),
                ..base
            }),
            Verdict::Ask {
                reason: AskReason::Rule {
                    rule: Box::new(ask_rule.clone())
                },
                guard: GuardMark::Quiet,
                review: ResultPolicy::Never
            }
        );
        // A record counts only where the policy asks: `auto` ignores a denied one.
        assert_eq!(
            verdict(&Inputs {
                tool_policy: ExecutionPolicy::Auto,
                record: Some(false),
                ..base
            }),
            Verdict::Allow {
                by: DecidedBy::Auto,
                review: ResultPolicy::Never
            }
        );
        // Whether the result waits for the user is decided with the call: an `auto` call whose
        // result policy reviews every result runs without a card and its result waits.
        assert_eq!(
            verdict(&Inputs {
                tool_policy: ExecutionPolicy::Auto,
                result_policy: ResultPolicy::Always,
                ..base
            }),
            Verdict::Allow {
                by: DecidedBy::Auto,
                review: ResultPolicy::Always
            }
        );
        // A gate's hold on a call that asks anyway is a note, not an escalation.
        assert_eq!(
            verdict(&Inputs {
                guard: Some(&note),
                ..base
            }),
            Verdict::Ask {
                reason: AskReason::AskOnce,
                guard: GuardMark::Noted,
                review: ResultPolicy::Never
            }
        );
    }
}
