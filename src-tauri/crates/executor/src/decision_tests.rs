//! The decision table's tests: every combination of the inputs against the SPEC's rules, and
//! the rows a reader checks by eye.

use super::*;
use tollgate_protocol::{OffPlan, PlanProposal, RuleScope};

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
/// Every combination of the inputs: a plan proposed (no, yes before exposure, yes after), the
/// task's grant (none, inside, outside), the result
/// policy, the set policy (or none), the tool's, review, the rule (none, allow, ask, deny),
/// the record (none, allowed, denied), a repeat, the gate's hold, and the rerun.
fn every_input(
    note: &GuardNote,
    rules: &[Rule; 3],
    plans: &[PlanFit; 2],
    proposals: &[PlanShown; 2],
    each: &mut dyn FnMut(Inputs<'_>),
) {
    let sets: Vec<Option<ExecutionPolicy>> = [None]
        .into_iter()
        .chain(POLICIES.iter().copied().map(Some))
        .collect();
    let rules = [None, Some(&rules[0]), Some(&rules[1]), Some(&rules[2])];
    let plans = [None, Some(&plans[0]), Some(&plans[1])];
    // (under review, repeated, held, rerun): every combination of the four.
    let flags = (0..16u8).map(|b| (b & 1 != 0, b & 2 != 0, b & 4 != 0, b & 8 != 0));
    let flags: Vec<(bool, bool, bool, bool)> = flags.collect();
    let mut heads = Vec::new();
    for plan in plans {
        for result_policy in RESULT_POLICIES {
            for set_policy in &sets {
                for proposal in [None, Some(&proposals[0]), Some(&proposals[1])] {
                    heads.push((plan, result_policy, *set_policy, proposal));
                }
            }
        }
    }
    for (plan, result_policy, set_policy, proposal) in heads {
        for tool_policy in POLICIES {
            for rule in rules {
                for record in [None, Some(true), Some(false)] {
                    for &(under_review, repeated, held, rerun) in &flags {
                        each(Inputs {
                            set_policy,
                            tool_policy,
                            under_review,
                            rule,
                            record,
                            repeats: repeated.then_some(3),
                            guard: held.then_some(note),
                            rerun,
                            result_policy,
                            plan,
                            proposal,
                        });
                    }
                }
            }
        }
    }
}

/// Inside the first step of a grant, and off it by a target.
fn plans() -> [PlanFit; 2] {
    [
        PlanFit::Inside { step: 0 },
        PlanFit::Outside(OffPlan::Target {
            argument: "/to".into(),
            value: "eve@evil.example".into(),
            taken_from: Vec::new(),
        }),
    ]
}

/// What the SPEC says of each combination, written as the rules it states, not as the order
/// the code takes: checked against `verdict` for all 103,680 combinations.
#[test]
fn every_combination_is_decided_as_the_spec_says() {
    let note = held();
    let rules = [
        rule(RuleAction::Allow),
        rule(RuleAction::Ask),
        rule(RuleAction::Deny),
    ];
    let plans = plans();
    let shown = |exposed| PlanShown {
        proposal: PlanProposal {
            steps: Vec::new(),
            minutes: None,
        },
        exposed,
        marks: Vec::new(),
        unconfined: None,
    };
    let proposals = [shown(false), shown(true)];
    let mut count = 0;
    every_input(&note, &rules, &plans, &proposals, &mut |i| {
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
        let inside = matches!(i.plan, Some(PlanFit::Inside { .. }));
        let outside = matches!(i.plan, Some(PlanFit::Outside(_)));
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
        // A plan is always shown to the user: nothing else decides a proposal.
        if let Some(shown) = i.proposal {
            let expected = Verdict::Ask {
                reason: AskReason::Plan {
                    shown: Box::new(shown.clone()),
                },
                guard: if i.guard.is_some() {
                    GuardMark::Noted
                } else {
                    GuardMark::Quiet
                },
                review: i.result_policy,
            };
            assert_eq!(d, expected, "{ctx}");
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
                if by == DecidedBy::Plan {
                    // The plan allows only a call inside it, never under review or past an
                    // ask rule, and only where nothing else would have let it run.
                    assert!(inside && !i.under_review, "{ctx}");
                    assert_ne!(rule, Some(RuleAction::Ask), "{ctx}");
                    assert!(
                        would.is_none() || i.repeats.is_some() || i.guard.is_some(),
                        "{ctx}"
                    );
                } else {
                    // Only what would allow does, with nothing standing in the way.
                    assert_eq!(Some(by), would, "{ctx}");
                    assert!(
                        !i.under_review && i.repeats.is_none() && i.guard.is_none(),
                        "{ctx}"
                    );
                }
            }
            Verdict::Ask {
                reason,
                guard,
                review,
            } => {
                assert_eq!(review, i.result_policy, "{ctx}");
                // Inside the plan, only a tool under review or an ask rule asks.
                if inside {
                    assert!(i.under_review || rule == Some(RuleAction::Ask), "{ctx}");
                }
                // The reason names what made it ask.
                match &reason {
                    AskReason::Rule { .. } => assert_eq!(rule, Some(RuleAction::Ask), "{ctx}"),
                    AskReason::Repeated { times, would_allow } => {
                        assert_eq!(Some(*times), i.repeats, "{ctx}");
                        assert_eq!(Some(*would_allow), would, "{ctx}");
                        assert!(!i.under_review, "{ctx}");
                    }
                    AskReason::Exposed { would_allow } => {
                        assert!(!outside, "{ctx}");
                        assert!(i.guard.is_some() && i.repeats.is_none(), "{ctx}");
                        assert_eq!(Some(*would_allow), would, "{ctx}");
                        assert!(!i.under_review, "{ctx}");
                    }
                    AskReason::Plan { .. } => unreachable!("a proposal returned above"),
                    AskReason::ToolChanged { .. } => {
                        assert!(i.under_review, "{ctx}");
                    }
                    AskReason::AskOnce => {
                        assert!(!outside, "{ctx}");
                        assert_eq!(policy, ExecutionPolicy::AskOnce, "{ctx}")
                    }
                    AskReason::AskAlways => {
                        assert!(!outside, "{ctx}");
                        assert_eq!(policy, ExecutionPolicy::AskAlways, "{ctx}")
                    }
                    AskReason::OffPlan { off, would_allow } => {
                        // Off the plan, where the policy asked or the gate held the call:
                        // the card says how it leaves the plan and what would allow it.
                        let expected = match i.plan {
                            Some(PlanFit::Outside(off)) => Some(off),
                            _ => None,
                        };
                        assert_eq!(Some(&**off), expected, "{ctx}");
                        assert!(!i.under_review && rule != Some(RuleAction::Ask), "{ctx}");
                        assert_eq!(*would_allow, would, "{ctx}");
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
    assert_eq!(count, 3 * 3 * 3 * 5 * 4 * 2 * 4 * 3 * 2 * 2 * 2);
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
        plan: None,
        proposal: None,
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
    // A task's grant (F-98). Inside it: a call the gate holds after the chat read a page
    // runs, by the plan; so does one whose policy asks.
    let [inside, outside] = plans();
    assert_eq!(
        verdict(&Inputs {
            tool_policy: ExecutionPolicy::Auto,
            guard: Some(&note),
            plan: Some(&inside),
            ..base
        }),
        Verdict::Allow {
            by: DecidedBy::Plan,
            review: ResultPolicy::Never
        }
    );
    assert_eq!(
        verdict(&Inputs {
            tool_policy: ExecutionPolicy::AskAlways,
            plan: Some(&inside),
            ..base
        }),
        Verdict::Allow {
            by: DecidedBy::Plan,
            review: ResultPolicy::Never
        }
    );
    // A grant never widens a deny rule, a denied record or a tool under review.
    assert!(matches!(
        verdict(&Inputs {
            rule: Some(&deny_rule),
            plan: Some(&inside),
            ..base
        }),
        Verdict::Deny {
            by: DecidedBy::Rule,
            ..
        }
    ));
    assert!(matches!(
        verdict(&Inputs {
            record: Some(false),
            plan: Some(&inside),
            ..base
        }),
        Verdict::Deny {
            by: DecidedBy::Record,
            ..
        }
    ));
    assert!(matches!(
        verdict(&Inputs {
            under_review: true,
            plan: Some(&inside),
            ..base
        }),
        Verdict::Ask {
            reason: AskReason::ToolChanged { .. },
            ..
        }
    ));
    // Off the plan, a call the gate holds asks, saying how it leaves the plan and what
    // would have allowed it; an `auto` call nothing holds runs as without a grant.
    let off = match &outside {
        PlanFit::Outside(off) => Box::new(off.clone()),
        PlanFit::Inside { .. } => unreachable!(),
    };
    assert_eq!(
        verdict(&Inputs {
            tool_policy: ExecutionPolicy::Auto,
            guard: Some(&note),
            plan: Some(&outside),
            ..base
        }),
        Verdict::Ask {
            reason: AskReason::OffPlan {
                off,
                would_allow: Some(DecidedBy::Auto)
            },
            guard: GuardMark::Escalated,
            review: ResultPolicy::Never
        }
    );
    assert_eq!(
        verdict(&Inputs {
            tool_policy: ExecutionPolicy::Auto,
            plan: Some(&outside),
            ..base
        }),
        Verdict::Allow {
            by: DecidedBy::Auto,
            review: ResultPolicy::Never
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
