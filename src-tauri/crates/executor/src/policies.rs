//! What the user set for a tool: its execution and result policies, what a call of it may do and
//! where it goes (F-01, F-02, F-81, SPEC §12).

use super::facets::Policies;
use crate::decision;
use tollgate_protocol::policy::{ExecutionPolicy, ResultPolicy};
use tollgate_protocol::ToolEffects;
use tollgate_tools::ToolSpec;

impl Policies<'_> {
    /// The effective execution policy of a tool (F-01): the user's override, else the default.
    /// A tool under review (SPEC §11) keeps only a "deny" of the user's: any other policy was
    /// set for the tool as it was.
    pub fn execution_policy(&self, spec: &ToolSpec) -> ExecutionPolicy {
        let set = self.exec.deps.settings.read().execution_policy(&spec.name);
        decision::effective_policy(set, spec.execution_policy, spec.review.is_some())
    }

    /// What a call of the tool may do (F-81): the user's override, else its declaration. A
    /// tool under review (SPEC §11) may do what either says.
    pub fn effects(&self, spec: &ToolSpec) -> ToolEffects {
        let set = self.exec.deps.settings.read().effects(&spec.name);
        match (set, &spec.review) {
            (Some(set), Some(_)) => set.union(spec.effects),
            (set, _) => set.unwrap_or(spec.effects),
        }
    }

    /// Whether what a call of the tool may do is only a server's claim (SPEC §12): an MCP
    /// tool whose effects the user has not confirmed (set in Settings → Tools, or in the
    /// server's first-sight review).
    pub fn effects_unconfirmed(&self, spec: &ToolSpec) -> bool {
        matches!(spec.content, tollgate_tools::ContentKind::Mcp { .. })
            && self.exec.deps.settings.read().effects(&spec.name).is_none()
    }

    /// The arguments that name where a call of the tool goes (SPEC §12): the user's, else the
    /// tool's own.
    pub fn targets(&self, spec: &ToolSpec) -> Vec<String> {
        match self.exec.deps.settings.read().targets(&spec.name) {
            Some(set) => tollgate_provenance::targets::declared(set),
            None => spec.targets.to_vec(),
        }
    }

    /// The effective result policy of a tool (F-02).
    pub fn result_policy(&self, spec: &ToolSpec) -> ResultPolicy {
        self.exec
            .deps
            .settings
            .read()
            .result_policy(&spec.name)
            .unwrap_or(spec.result_policy)
    }
}
