//! A task's plan and the grant the user makes of it (F-98): what a task may do, approved once
//! on one card before the model reads anything untrusted, then enforced by the gate. A call
//! inside the grant runs without a card; a call outside it is decided as without a grant, and
//! its card says how it leaves the plan. A grant never widens what a deny policy, a rule or a
//! denied record forbids, and never covers a tool under review.

use serde::{Deserialize, Serialize};

/// One step of a plan: a tool the task may call, how often, and what it may touch.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanStep {
    /// What the step does, in the model's plain words (shown on the card).
    pub purpose: String,
    /// The tool it calls, by the name the chat offers.
    pub tool: String,
    /// How many calls the step may make (at least 1).
    pub max_calls: u32,
    /// What the step's calls may point at, in the rule vocabulary of the tool (F-08): command
    /// words (`git status *`), a path glob (`reports/*.md`), a URL wildcard. `None`: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, as = "Option<String>")]
    pub pattern: Option<String>,
    /// The targets its calls may reach — recipients, accounts, hosts and URLs — as the plan
    /// writes them, compared as values (F-97): a call whose target arguments name anything
    /// else is off the plan. Empty: the step reaches no target.
    #[serde(default)]
    pub targets: Vec<String>,
    /// Tools whose results may name more of its targets, which the user accepts on the card
    /// ("the address the address book gives for Alice"): a target a result of one of them
    /// named while the grant was in force is granted as if the plan named it. Empty: only
    /// the targets written above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub from: Vec<String>,
}

/// How long a grant lasts.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum GrantSpan {
    /// Until the turn it was approved in ends.
    Turn,
    /// Until this moment (ms since the epoch), or the turn's end, whichever comes first.
    #[serde(rename_all = "camelCase")]
    Until { ends_at_ms: i64 },
}

/// The grant: the steps of a plan the user kept, and how long they last.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskGrant {
    pub steps: Vec<PlanStep>,
    pub span: GrantSpan,
}

/// The grant in force as the window shows it (F-98): the plan the user kept, and for each of
/// its steps the calls it has made so far (by their number in the chat's tool-chain log), so the
/// chat's header can tick the steps off and say what the grant has left.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskState {
    pub grant: TaskGrant,
    /// One list per step, in the order of the steps.
    pub calls: Vec<Vec<u64>>,
}

impl TaskState {
    /// How many calls each step has made.
    pub fn used(&self) -> Vec<u32> {
        self.calls
            .iter()
            .map(|c| u32::try_from(c.len()).unwrap_or(u32::MAX))
            .collect()
    }
}

/// A plan as the model proposes it with `propose_plan` and as the user keeps it on the card:
/// its steps, and how long it may last (`minutes`; none: the turn).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanProposal {
    pub steps: Vec<PlanStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, as = "Option<u32>")]
    pub minutes: Option<u32>,
}

impl PlanProposal {
    /// Whether this plan asks for no more than `wider`: its steps are some of `wider`'s, in
    /// order, each for the same tool, purpose and pattern with no more calls and no target
    /// `wider`'s step does not name; its time no longer. What the user keeps on the card must
    /// be such a narrowing of what was shown.
    pub fn narrows(&self, wider: &PlanProposal) -> bool {
        let time_ok = match (self.minutes, wider.minutes) {
            (_, None) => true,
            (Some(mine), Some(theirs)) => mine <= theirs,
            (None, Some(_)) => false,
        };
        let mut theirs = wider.steps.iter();
        let steps_ok = self.steps.iter().all(|mine| {
            theirs.any(|t| {
                t.tool == mine.tool
                    && t.purpose == mine.purpose
                    && t.pattern == mine.pattern
                    && mine.max_calls <= t.max_calls
                    && mine.targets.iter().all(|x| t.targets.contains(x))
                    && mine.from.iter().all(|x| t.from.contains(x))
            })
        });
        time_ok && steps_ok
    }
}

/// What the card of a proposed plan shows (F-98): the plan, whether the chat had read untrusted
/// content before it was proposed, and what Tollgate checked of each of its targets.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanShown {
    pub proposal: PlanProposal,
    pub exposed: bool,
    /// One per target of every step, in order.
    pub marks: Vec<PlanTargetMark>,
    /// Set when a step runs commands and this chat's sandbox cannot hold them to the plan's
    /// hosts and files (off, none on this system, or without namespaces): how commands run, so
    /// the card says before approval that those steps will still ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, as = "Option<crate::sandbox::SandboxMode>")]
    pub unconfined: Option<crate::sandbox::SandboxMode>,
}

/// Where a target of a proposed plan was named (F-98, compared as values, F-97): in the user's
/// own words, and by which untrusted sources the chat had read.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanTargetMark {
    /// The step (0-based) and the target as the plan writes it.
    pub step: u32,
    pub target: String,
    /// The user's own words named it.
    pub by_user: bool,
    /// The untrusted sources that named it (none: no content the chat read did).
    pub sources: Vec<crate::Source>,
}

/// How a call leaves the plan the user approved, for its card and its record.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum OffPlan {
    /// No step of the plan calls this tool.
    Tool,
    /// The steps that call this tool have made all the calls they may.
    #[serde(rename_all = "camelCase")]
    UsedUp { max_calls: u32 },
    /// The call points somewhere no step's pattern covers.
    #[serde(rename_all = "camelCase")]
    Pattern { subject: String },
    /// A target argument names a target the plan does not.
    #[serde(rename_all = "camelCase")]
    Target {
        argument: String,
        value: String,
        /// Where the value was taken from: untrusted content the chat read that named it, and
        /// the results a `$VAR_REF` passed it on from (a value passed on is not the model's
        /// own choice). Empty: nothing the chat read named it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(optional, as = "Option<Vec<crate::Source>>")]
        taken_from: Vec<crate::Source>,
    },
    /// The call runs a command the chat's sandbox cannot hold to the step's hosts and files
    /// (`mode`: off, none on this system, or without namespaces), so the plan does not let it
    /// run on its own.
    #[serde(rename_all = "camelCase")]
    Unconfined { mode: crate::sandbox::SandboxMode },
}

/// Where a call stands against the grant in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanFit {
    /// Inside step `step` (0-based) and its bounds.
    Inside { step: usize },
    /// Off the plan, and how.
    Outside(OffPlan),
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn step(tool: &str, max_calls: u32, targets: &[&str]) -> PlanStep {
        PlanStep {
            purpose: format!("use {tool}"),
            tool: tool.into(),
            max_calls,
            pattern: None,
            targets: targets.iter().map(|t| t.to_string()).collect(),
            from: Vec::new(),
        }
    }

    #[test]
    fn a_kept_plan_only_narrows_what_was_shown() {
        let shown = PlanProposal {
            steps: vec![
                step("read_file", 1, &[]),
                step("send_mail", 2, &["bob@example.com", "ann@example.com"]),
            ],
            minutes: None,
        };
        let narrower = [
            PlanProposal {
                steps: vec![step("send_mail", 1, &["bob@example.com"])],
                minutes: Some(15),
            },
            shown.clone(),
            PlanProposal {
                steps: vec![],
                minutes: None,
            },
        ];
        for kept in &narrower {
            assert!(kept.narrows(&shown), "{kept:?}");
        }
        let wider = [
            // another recipient
            PlanStep {
                targets: vec!["eve@evil.example".into()],
                ..step("send_mail", 1, &[])
            },
            // more calls
            step("send_mail", 3, &["bob@example.com"]),
            // another tool
            step("delete_file", 1, &[]),
            // a source of targets the card did not show
            PlanStep {
                from: vec!["read_file".into()],
                ..step("send_mail", 1, &[])
            },
            // a pattern changed
            PlanStep {
                pattern: Some("*".into()),
                ..step("read_file", 1, &[])
            },
        ];
        for bad in wider {
            let kept = PlanProposal {
                steps: vec![bad.clone()],
                minutes: None,
            };
            assert!(!kept.narrows(&shown), "{bad:?}");
        }
        // Steps out of order, or a time box longer than shown, are not narrowings either.
        let reordered = PlanProposal {
            steps: vec![shown.steps[1].clone(), shown.steps[0].clone()],
            minutes: None,
        };
        assert!(!reordered.narrows(&shown));
        let boxed = PlanProposal {
            minutes: Some(10),
            ..shown.clone()
        };
        assert!(!PlanProposal {
            minutes: None,
            ..boxed.clone()
        }
        .narrows(&boxed));
        assert!(!PlanProposal {
            minutes: Some(11),
            ..boxed.clone()
        }
        .narrows(&boxed));
    }

    #[test]
    fn a_proposal_reads_from_the_models_arguments_and_refuses_extra_fields() {
        let ok: PlanProposal = serde_json::from_value(serde_json::json!({
            "steps": [{"purpose": "pay", "tool": "pay_bill", "maxCalls": 1, "targets": ["DE89 3704 0044 0532 0130 00"]}],
            "minutes": 15
        }))
        .unwrap();
        assert_eq!(ok.steps[0].pattern, None);
        assert_eq!(ok.minutes, Some(15));
        let extra = serde_json::from_value::<PlanProposal>(serde_json::json!({
            "steps": [{"purpose": "pay", "tool": "pay_bill", "maxCalls": 1, "targets": [], "anyTarget": true}]
        }));
        assert!(extra.is_err());
    }
}
