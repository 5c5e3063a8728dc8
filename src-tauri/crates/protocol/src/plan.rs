//! A task's plan and the grant the user makes of it (F-98): what a task may do, approved once
//! on one card before the model reads anything untrusted, then enforced by the gate. A call
//! inside the grant runs without a card; a call outside it is decided as without a grant, and
//! its card says how it leaves the plan. A grant never widens what a deny policy, a rule or a
//! denied record forbids, and never covers a tool under review.

use serde::{Deserialize, Serialize};

/// One step of a plan: a tool the task may call, how often, and what it may touch.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanStep {
    /// What the step does, in the model's plain words (shown on the card).
    pub purpose: String,
    /// The tool it calls, by the name the chat offers.
    pub tool: String,
    /// How many calls the step may make (at least 1).
    pub max_calls: u32,
    /// What the step's calls may point at, in the rule vocabulary of the tool (F-08): command
    /// words (`git status *`), a path glob (`reports/*.md`), a URL wildcard. `None`: any.
    #[ts(optional, as = "Option<String>")]
    pub pattern: Option<String>,
    /// The targets its calls may reach — recipients, accounts, hosts and URLs — as the plan
    /// writes them, compared as values (F-97): a call whose target arguments name anything
    /// else is off the plan. Empty: the step reaches no target.
    pub targets: Vec<String>,
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
    Target { argument: String, value: String },
}

/// Where a call stands against the grant in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanFit {
    /// Inside step `step` (0-based) and its bounds.
    Inside { step: usize },
    /// Off the plan, and how.
    Outside(OffPlan),
}
