//! What decides a call and what the decision grants (F-01, F-03, F-98): the inputs the one
//! decision reads ([`PermissionInputs`]), what the gate reads besides the arguments
//! ([`GuardView`]), the [`Grant`] a call runs on, and what the pre-run re-check found
//! ([`Recheck`]). The permission stage (`permission.rs`), its card (`card.rs`), a round's lanes
//! and the task's plan read and make them; none of them owns them.

use super::call::Outcome;
use super::decision::{effective_policy, Inputs};
use super::plan::Envelope;
use crate::rules::RuleSubject;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use tollgate_protocol::policy::{DecidedBy, ExecutionPolicy, ResultPolicy};
use tollgate_protocol::{GuardNote, PlanFit, PlanShown, Rule, Source};
use tollgate_provenance::Exposure;

/// Everything the decision order reads, gathered in one place so that the permission stage,
/// a round's choice of lane and the pre-run re-check read the same things the same way.
pub(crate) struct PermissionInputs {
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
pub(crate) struct GuardView<'a> {
    pub exposure: Option<&'a Exposure>,
    pub expanded: &'a [(Arc<[Source]>, Arc<str>)],
}

impl GuardView<'_> {
    /// Everything the model had read when it made the call, with what its arguments expanded:
    /// what it writes into a variable came from there (F-80).
    pub fn read_sources(&self) -> Arc<[Source]> {
        let read: &[Source] = self.exposure.map(Exposure::sources).unwrap_or_default();
        let expanded = self.expanded.iter().flat_map(|(s, _)| s.iter());
        Arc::from(tollgate_provenance::distinct(
            read.iter().chain(expanded).cloned(),
        ))
    }
}

/// What the permission stage granted, and what the grant rests on. Its arguments are set when
/// it is made and only read after, so what runs is what was approved by construction.
pub(crate) struct Grant {
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
    /// The user's grant on a card: `args` as the card showed them (or as the user edited them),
    /// resting on what the card was decided on.
    pub(crate) fn by_user(
        args: Value,
        subject: RuleSubject,
        workspace: Option<PathBuf>,
        review: ResultPolicy,
    ) -> Self {
        Self::decided(args, DecidedBy::User, subject, workspace, review, None)
    }

    /// A grant made `by` whoever decided: a policy, rule, record or plan without asking, or the
    /// user (with no plan step's envelope: [`Self::by_user`]).
    pub(crate) fn decided(
        args: Value,
        by: DecidedBy,
        subject: RuleSubject,
        workspace: Option<PathBuf>,
        review: ResultPolicy,
        envelope: Option<Envelope>,
    ) -> Self {
        Self {
            args,
            by,
            subject,
            workspace,
            review,
            envelope,
        }
    }

    /// The arguments that will run.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// Who decided it.
    pub fn by(&self) -> DecidedBy {
        self.by
    }

    /// What the rule subject was when it was granted.
    pub fn subject(&self) -> &RuleSubject {
        &self.subject
    }

    /// The workspace it was granted in.
    pub fn workspace(&self) -> Option<&std::path::Path> {
        self.workspace.as_deref()
    }

    /// The arguments that will run, whether the result waits for the user, and the plan
    /// step's envelope when the task's plan allowed the call.
    pub fn into_run(self) -> (Value, ResultPolicy, Option<Envelope>) {
        (self.args, self.review, self.envelope)
    }
}

/// What the pre-run re-check found.
pub(crate) enum Recheck {
    /// Nothing the grant rested on changed.
    Proceed,
    /// An automatic grant (policy, rule or record) no longer holds: decide again.
    DecideAgain,
    /// The call must not run.
    Refuse(Outcome),
}
