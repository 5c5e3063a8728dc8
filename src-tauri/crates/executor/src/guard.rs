//! What a chat was exposed to and what it trusts: endorsed sources, the ways out and the
//! exposure its header shows (F-82, F-83).

use super::facets::Guard;
use crate::tool_executor::ExecutorError;
use tollgate_protocol::{ExposureView, GuardNote, Source, TrustKey, WayOut};
use tollgate_provenance::{Exposure, Trust};

impl Guard<'_> {
    /// The sources the user endorsed for this chat (F-83).
    pub fn endorsed(&self) -> Vec<TrustKey> {
        self.exec.overrides.read().endorsed.clone()
    }

    /// Trusts `sources` for the rest of this chat (persisted): their content no longer holds
    /// calls at the gate.
    pub async fn endorse(&self, sources: &[TrustKey]) -> Result<(), ExecutorError> {
        self.exec
            .update_overrides(|o| {
                for s in sources {
                    if !o.endorsed.contains(s) {
                        o.endorsed.push(s.clone());
                    }
                }
            })
            .await
    }

    /// Takes back an endorsement of this chat (persisted).
    pub async fn unendorse(&self, source: &TrustKey) -> Result<(), ExecutorError> {
        self.exec
            .update_overrides(|o| o.endorsed.retain(|s| s != source))
            .await
    }

    /// Whether the user turned the ways out off for this chat (F-82).
    pub fn ways_out_off(&self) -> bool {
        self.exec.overrides.read().ways_out_off
    }

    /// Turns the ways out off (or on again) for this chat (persisted): tools that send out are
    /// hidden from the model and refused, and commands get no network.
    pub async fn set_ways_out_off(&self, off: bool) -> Result<(), ExecutorError> {
        self.exec.update_overrides(|o| o.ways_out_off = off).await
    }

    /// The ways out enabled in this chat (F-82): tools the model may call that send out, and
    /// the commands' network.
    pub fn ways_out(&self) -> Vec<WayOut> {
        let registry = self.exec.registry();
        let mut out: Vec<WayOut> = self
            .exec
            .toolbox()
            .enabled_tool_names()
            .into_iter()
            .filter(|name| {
                registry
                    .tool(name)
                    .is_some_and(|t| self.exec.policies().effects(t.tool.spec()).sends_out)
            })
            .map(|tool| WayOut::Tool { tool })
            .collect();
        let commands = self
            .exec
            .toolbox()
            .enabled_tool_names()
            .iter()
            .filter_map(|n| registry.tool(n))
            .any(|t| t.tool.spec().sandboxed);
        let plan = self.exec.sandbox_plan();
        let network =
            plan.chat.network || !plan.chat.hosts.is_empty() || !plan.chat.level.confines();
        if commands && network {
            out.push(WayOut::CommandNetwork);
        }
        out
    }

    /// The chat's exposure as its header shows it (F-82), from the exposure of the branch the
    /// model sees.
    pub fn exposure_view(&self, exposure: &Exposure) -> ExposureView {
        let settings = self.exec.deps.settings.read().clone();
        let endorsed = self.endorsed();
        let trust = Trust {
            settings: &settings,
            endorsed: &endorsed,
        };
        let newest_first = || exposure.sources().iter().rev();
        let untrusted: Vec<Source> = newest_first()
            .filter(|s| trust.untrusted(s))
            .cloned()
            .collect();
        let private: Vec<Source> = newest_first()
            .filter(|s| trust.private(s))
            .cloned()
            .collect();
        let count = |v: &Vec<Source>| u32::try_from(v.len()).unwrap_or(u32::MAX);
        ExposureView {
            guard: settings.guard.enabled,
            untrusted_count: count(&untrusted),
            private_count: count(&private),
            untrusted: untrusted.into_iter().take(GuardNote::MAX_SOURCES).collect(),
            private: private.into_iter().take(GuardNote::MAX_SOURCES).collect(),
            endorsed,
            ways_out: self.ways_out(),
            ways_out_off: self.ways_out_off(),
        }
    }
}
