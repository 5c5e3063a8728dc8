//! A task's grant held against a call (F-98). The user approved, on one card, what a task may
//! do: which tools, how often, what their calls may point at (in the rule vocabulary, F-08) and
//! which targets they may reach (compared as values, F-97). [`ActiveGrant::fit`] says where a
//! call stands — inside a step and its bounds, or off the plan and how — and the one decision
//! function weighs that beside everything else (`decision::verdict`). Pure: no I/O, no clock.

use crate::rules::{winning_rule, RuleSubject};
use serde_json::Value;
use tollgate_names::HostPattern;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::{
    ChatSandbox, Rule, RuleAction, RuleScope, SandboxLevel, TaskGrant, TaskState,
};
use tollgate_protocol::{OffPlan, PlanFit, PlanProposal, PlanShown, PlanStep, PlanTargetMark};
use tollgate_provenance::target_values::{
    address_line_values, granted_by, primary_values, values_in_text, values_of_argument,
};
use tollgate_provenance::target_values::{TargetValue, Targets};
use tollgate_provenance::targets::covers;
use tollgate_provenance::{distinct, each_string, Exposure, Trust};

/// A grant in force: the plan the user kept, each step's targets read once as values, and the
/// calls each step has made.
#[derive(Debug, Clone)]
pub struct ActiveGrant {
    grant: TaskGrant,
    /// Per step, the values its targets name (the first, most specific reading of each).
    granted: Vec<Vec<TargetValue>>,
    /// Per step, the calls it has made (their numbers in the chat's tool-chain log).
    calls: Vec<Vec<u64>>,
    /// The targets the results of the tools steps name as sources (`from`) have named since
    /// the grant was made, by tool.
    learned: Vec<(String, Targets)>,
}

impl ActiveGrant {
    /// Holds `grant` from now, no call made yet.
    pub fn new(grant: TaskGrant) -> Self {
        let granted = grant
            .steps
            .iter()
            .map(|step| {
                // Every value each target names first-hand: each address of a list, a name
                // of several words whole — not the domain beside a mailbox.
                step.targets
                    .iter()
                    .flat_map(|t| primary_values(t))
                    .collect()
            })
            .collect();
        let calls = vec![Vec::new(); grant.steps.len()];
        Self {
            grant,
            granted,
            calls,
            learned: Vec::new(),
        }
    }

    /// Notes what a result of `tool` named, when a step names the tool as a source of its
    /// targets (`from`): those targets are granted to that step from now.
    pub fn note_result(&mut self, tool: &str, text: &str) {
        if !self
            .grant
            .steps
            .iter()
            .any(|s| s.from.iter().any(|f| f == tool))
        {
            return;
        }
        let mut values = values_in_text(text);
        values.extend(phrases(text));
        match self.learned.iter_mut().find(|(t, _)| t == tool) {
            Some((_, known)) => known.extend(values),
            None => self.learned.push((tool.to_string(), values)),
        }
    }

    /// What the tools `step` names as sources have named so far.
    fn learned_for(&self, step: &PlanStep) -> Vec<&TargetValue> {
        self.learned
            .iter()
            .filter(|(tool, _)| step.from.contains(tool))
            .flat_map(|(_, values)| values.iter())
            .collect()
    }

    /// The plan the user kept.
    pub fn grant(&self) -> &TaskGrant {
        &self.grant
    }

    /// The grant and the calls each step has made, as the window shows them.
    pub fn state(&self) -> TaskState {
        TaskState {
            grant: self.grant.clone(),
            calls: self.calls.clone(),
        }
    }

    /// Whether `step` has made all the calls it may.
    fn used_up(&self, step: usize) -> bool {
        let max = self.grant.steps.get(step).map_or(0, |s| s.max_calls);
        self.calls
            .get(step)
            .is_none_or(|made| u32::try_from(made.len()).unwrap_or(u32::MAX) >= max)
    }

    /// Takes one of `step`'s calls for call `seq`, which the plan allows: `false` when none is
    /// left (two calls of one round may have been judged inside before either took its call).
    pub fn take_call(&mut self, step: usize, seq: u64) -> bool {
        if self.used_up(step) {
            return false;
        }
        match self.calls.get_mut(step) {
            Some(made) => {
                made.push(seq);
                true
            }
            None => false,
        }
    }

    /// What a command run inside `step` may do ([`Envelope`]).
    pub fn envelope(&self, step: usize) -> Envelope {
        let step = self.grant.steps.get(step);
        Envelope {
            hosts: distinct(
                step.into_iter()
                    .flat_map(|s| s.targets.iter())
                    .filter_map(|t| envelope_host(t)),
            ),
            writes: step.is_some_and(|s| s.pattern.is_some()),
        }
    }

    /// Where a call of `tool` with `args` stands: inside the first step that calls the tool, has
    /// calls left, covers what the call points at (`subject`, as an allow rule of the step's
    /// pattern would) and grants every target its target arguments (`targets`: JSON pointers)
    /// name; otherwise off the plan, said for the first step that calls the tool.
    pub fn fit(
        &self,
        chat: ChatId,
        tool: &str,
        args: &Value,
        targets: &[String],
        subject: &RuleSubject,
    ) -> PlanFit {
        let mut off = None;
        // What the call's target arguments name, read once for every step.
        let mut named: Option<Vec<Named>> = None;
        for (k, step) in self.grant.steps.iter().enumerate() {
            if step.tool != tool {
                continue;
            }
            let step_off = if self.used_up(k) {
                Some(OffPlan::UsedUp {
                    max_calls: step.max_calls,
                })
            } else if !pattern_covers(step, chat, subject) {
                Some(OffPlan::Pattern {
                    subject: subject_text(subject),
                })
            } else {
                let named = named.get_or_insert_with(|| named_targets(args, targets));
                let learned = self.learned_for(step);
                target_off(&self.granted[k], &learned, named)
            };
            match step_off {
                None => return PlanFit::Inside { step: k },
                Some(why) => {
                    off.get_or_insert(why);
                }
            }
        }
        PlanFit::Outside(off.unwrap_or(OffPlan::Tool))
    }
}

/// What a command a plan step runs may do (F-98): the sandbox the chat set, narrowed by the
/// same grant the user approved, so one approval sets both. It reaches only the hosts the step
/// names (none: no network at all), and writes in the workspace only when the step names the
/// command it runs (a pattern): a step that allows any command lets it read, not write. An
/// injection can thus fill in a command's data, but cannot make it reach a host or change a
/// file the plan did not name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// The hosts the step's targets name (`docs.example.com`, `10.0.0.5`).
    pub hosts: Vec<String>,
    /// Whether the step names its command (a pattern), so that it may write where the chat's
    /// sandbox lets commands write.
    pub writes: bool,
}

/// The names of several words a result names (`Alice Archer`, a contact a lookup answered):
/// every run of two to four words on one of its lines, as one value each, read as an
/// argument's name is read.
fn phrases(text: &str) -> Vec<TargetValue> {
    let normal = tollgate_provenance::target_values::normalise(text);
    let mut out = Vec::new();
    for line in normal.lines() {
        let words: Vec<&str> = line
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        for n in 2..=4 {
            out.extend(words.windows(n).map(|w| TargetValue::Name(w.join(" "))));
        }
    }
    out
}

/// The host a plan step's target lets a command reach, with the port it names: a web address
/// (`http://10.0.0.5:8080/x` gives `10.0.0.5:8080`), a host with or without a port; none for a
/// mailbox, a name or a number, or an address two parsers read differently.
fn envelope_host(target: &str) -> Option<String> {
    let target = target.trim();
    if target.contains("://") {
        let url = tollgate_names::target_url(target)?;
        return Some(HostPattern::entry(
            &tollgate_names::host_of(&url)?,
            url.port(),
        ));
    }
    if target.contains(['@', '/', '*']) || target.contains(char::is_whitespace) {
        return None;
    }
    let listed = HostPattern::parse(target);
    let named = values_of_argument(listed.name());
    (listed.address().is_some() || matches!(named.as_slice(), [TargetValue::Host(_)]))
        .then(|| HostPattern::entry(listed.name(), listed.port()))
}

impl Envelope {
    /// Narrows `chat` to this envelope; never widens it. A chat that reaches only some hosts
    /// keeps those of them the step names; a chat with the network on reaches the step's hosts
    /// only, each on the port the step names (none named: the web's ports); a chat whose
    /// sandbox is read-only or off keeps its level for writing (the plan does not let such a
    /// chat's commands run on their own: `TaskGrants::plan_fit`).
    pub fn narrow(&self, chat: &mut ChatSandbox) {
        chat.hosts = if chat.network {
            self.hosts.clone()
        } else {
            // Each listed entry read the one way every host list is read, keeping the step's
            // hosts it covers, on a port both allow: `*.example.com:8443` and a step naming
            // `docs.example.com` give `docs.example.com:8443`.
            distinct(chat.hosts.iter().flat_map(|entry| {
                let listed = HostPattern::parse(entry);
                self.hosts.iter().filter_map(move |step_entry| {
                    let step = HostPattern::parse(step_entry);
                    if !listed.covers(step.name()) {
                        return None;
                    }
                    let port = match (step.port(), listed.port()) {
                        (Some(p), _) if listed.allows_port(p) => Some(p),
                        (Some(_), _) => return None,
                        (None, listed) => listed,
                    };
                    Some(HostPattern::entry(step.name(), port))
                })
            }))
        };
        chat.network = false;
        if !self.writes && chat.level == SandboxLevel::WorkspaceOnly {
            chat.level = SandboxLevel::ReadOnly;
        }
    }
}

/// A proposed plan as its card shows it: whether the chat had read untrusted content before
/// it, and for every target of every step whether the user's own words named it and which
/// untrusted sources did (the same reading of values the gate uses, F-97).
pub fn shown(proposal: PlanProposal, exposure: Option<&Exposure>, trust: &Trust<'_>) -> PlanShown {
    let exposed = exposure.is_some_and(|e| e.sources().iter().any(|s| trust.untrusted(s)));
    let mut marks = Vec::new();
    for (k, step) in proposal.steps.iter().enumerate() {
        for target in &step.targets {
            let values = values_of_argument(target);
            // The user wrote the target itself — every value it names first-hand, a name of
            // several words whole — not merely the domain it sits at or one word of it.
            let primary = primary_values(target);
            let by_user =
                exposure.is_some_and(|e| !primary.is_empty() && primary.iter().all(|v| e.typed(v)));
            let sources = exposure
                .map(|e| {
                    distinct(
                        values
                            .iter()
                            .flat_map(|v| e.naming(v))
                            .flatten()
                            .filter(|s| trust.untrusted(s))
                            .cloned(),
                    )
                })
                .unwrap_or_default();
            marks.push(PlanTargetMark {
                step: u32::try_from(k).unwrap_or(u32::MAX),
                target: target.clone(),
                by_user,
                sources,
            });
        }
    }
    PlanShown {
        proposal,
        exposed,
        marks,
        unconfined: None,
    }
}

/// Whether the step's pattern covers what the call points at, exactly as an allow rule of that
/// pattern would (a path that leaves the workspace never is; a command must be one plain
/// command). No pattern: anything.
fn pattern_covers(step: &PlanStep, chat: ChatId, subject: &RuleSubject) -> bool {
    let Some(pattern) = &step.pattern else {
        return true;
    };
    let rule = Rule {
        id: 0,
        tool: step.tool.clone(),
        pattern: Some(pattern.clone()),
        action: RuleAction::Allow,
        scope: RuleScope::Chat { chat },
        created_at: 0,
    };
    winning_rule(&[rule], chat, &step.tool, subject).is_some()
}

/// What a call points at, in words for its card.
fn subject_text(subject: &RuleSubject) -> String {
    match subject {
        RuleSubject::Command(s)
        | RuleSubject::Path(s)
        | RuleSubject::Outside(s)
        | RuleSubject::Url(s)
        | RuleSubject::Args(s) => s.clone(),
    }
}

/// A target argument of a call: where it is, what it says, and the values it names.
struct Named {
    pointer: String,
    text: String,
    values: Vec<TargetValue>,
}

/// The target arguments of `args` and what each names: those the tool's targets name
/// (`targets`: JSON pointers), and — whatever it is called, an `attendees` list as much as a
/// `to` — every argument whose value is an address line naming a mailbox, a web address or a
/// bank account. A grant compares values, not the names of arguments: an argument the
/// tool never declared cannot carry a target past the plan.
fn named_targets(args: &Value, targets: &[String]) -> Vec<Named> {
    let mut out = Vec::new();
    let mut pointer = String::new();
    each_string(args, &mut pointer, &mut |p, text| {
        let values = if targets.iter().any(|t| covers(t, p)) {
            values_of_argument(text)
        } else if let Some(values) = address_line_values(text) {
            values
        } else if ends_in_a_mailbox(text) {
            values_of_argument(text)
        } else {
            return;
        };
        out.push(Named {
            pointer: p.to_string(),
            text: text.to_string(),
            values,
        });
    });
    out
}

/// Whether `text` ends in an address between angle brackets (`Mallory <ab@ev.io>`, RFC 5322's
/// name-addr, whatever the name before it): an address line, though its first words are a
/// name ([`address_line_values`] reads the rest).
fn ends_in_a_mailbox(text: &str) -> bool {
    text.trim_end()
        .strip_suffix('>')
        .and_then(|t| t.rsplit_once('<'))
        .is_some_and(|(_, inner)| address_line_values(inner).is_some())
}

/// The first target argument that names a value neither `granted` (what the step names) nor
/// `learned` (what its sources named) covers.
fn target_off(
    granted: &[TargetValue],
    learned: &[&TargetValue],
    named: &[Named],
) -> Option<OffPlan> {
    named
        .iter()
        .find(|n| {
            !n.values.iter().all(|v| {
                granted.iter().any(|g| granted_by(v, g)) || learned.iter().any(|g| granted_by(v, g))
            })
        })
        .map(|n| OffPlan::Target {
            argument: n.pointer.clone(),
            value: n.text.clone(),
            taken_from: Vec::new(),
        })
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
