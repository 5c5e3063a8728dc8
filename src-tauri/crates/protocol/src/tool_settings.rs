//! The user's tool settings (F-53): group and tool toggles, policy overrides, timeouts, limits.
//!
//! Settings are app-wide and shared by every open executor through [`SharedSettings`], so a change
//! in the settings screen applies to the next call in every chat. A chat may override group and
//! tool toggles for itself ([`ChatToolOverrides`], F-54).

use crate::policy::{ExecutionPolicy, ResultPolicy};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The settings key under which [`ToolSettings`] are stored.
pub const TOOL_SETTINGS_KEY: &str = "tools";
/// F-16: the global default output limit, in chars.
pub const DEFAULT_OUTPUT_LIMIT: usize = 8_000;

/// The user's overrides for one tool. `None` keeps the tool's own default.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolOverride {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub execution_policy: Option<ExecutionPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub result_policy: Option<ResultPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub output_limit: Option<usize>,
    /// What a call of the tool may do, in place of its own declaration (F-81). For an MCP
    /// tool, setting it is also the user's confirmation of what the server claims (SPEC §12).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub effects: Option<super::ToolEffects>,
    /// The arguments that name where a call goes (names or JSON pointers), in place of the
    /// tool's own (SPEC §12).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub targets: Option<Vec<String>>,
}

/// App-wide tool settings.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolSettings {
    /// Output limit for tools without their own (F-16).
    pub default_output_limit: usize,
    /// Group toggles; a group not listed uses its own default.
    pub groups: BTreeMap<String, bool>,
    /// Per-tool overrides.
    pub tools: BTreeMap<String, ToolOverride>,
    /// Per-chat variable store bounds (LRU).
    pub var_max_count: usize,
    pub var_max_bytes: usize,
    /// The provenance gate's trust settings (F-82).
    pub guard: super::GuardSettings,
    /// How many times the settings were saved. A save made from an older copy is refused
    /// (`Invalid::SettingsChanged`): a window that loaded the settings before a review was
    /// confirmed never writes the confirmation away with its stale copy.
    #[serde(default)]
    pub revision: u32,
}

impl Default for ToolSettings {
    fn default() -> Self {
        Self {
            default_output_limit: DEFAULT_OUTPUT_LIMIT,
            groups: BTreeMap::new(),
            tools: BTreeMap::new(),
            var_max_count: 1_000,
            var_max_bytes: 256 * 1024 * 1024,
            guard: super::GuardSettings::default(),
            revision: 0,
        }
    }
}

impl ToolSettings {
    /// The override for `tool`, if the user set any.
    pub fn tool(&self, tool: &str) -> Option<&ToolOverride> {
        self.tools.get(tool)
    }

    /// The user's execution policy for `tool`, if overridden.
    pub fn execution_policy(&self, tool: &str) -> Option<ExecutionPolicy> {
        self.tool(tool).and_then(|o| o.execution_policy)
    }

    /// The user's result policy for `tool`, if overridden.
    pub fn result_policy(&self, tool: &str) -> Option<ResultPolicy> {
        self.tool(tool).and_then(|o| o.result_policy)
    }

    /// The user's timeout for `tool`, if overridden.
    pub fn timeout(&self, tool: &str) -> Option<Duration> {
        self.tool(tool)
            .and_then(|o| o.timeout_ms)
            .map(Duration::from_millis)
    }

    /// The user's output limit for `tool`, if overridden.
    pub fn output_limit(&self, tool: &str) -> Option<usize> {
        self.tool(tool).and_then(|o| o.output_limit)
    }

    /// The user's effects for `tool`, if overridden (F-81).
    pub fn effects(&self, tool: &str) -> Option<super::ToolEffects> {
        self.tool(tool).and_then(|o| o.effects)
    }

    /// The user's target arguments for `tool`, if overridden (SPEC §12).
    pub fn targets(&self, tool: &str) -> Option<&[String]> {
        self.tool(tool).and_then(|o| o.targets.as_deref())
    }

    /// Mutable access to a tool's override, created on first use.
    pub fn tool_mut(&mut self, tool: &str) -> &mut ToolOverride {
        self.tools.entry(tool.to_string()).or_default()
    }
}

/// A chat's own group and tool toggles, layered over the app-wide settings.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatToolOverrides {
    pub groups: BTreeMap<String, bool>,
    pub tools: BTreeMap<String, bool>,
    /// The chat's sandbox level and network switch (F-46).
    pub sandbox: super::ChatSandbox,
    /// Sources the user endorsed for this chat: their content no longer exposes it (F-83).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<super::TrustKey>>")]
    pub endorsed: Vec<super::TrustKey>,
    /// The user turned the ways out off for this chat: tools that send out are hidden and
    /// commands get no network (F-82).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[ts(optional, as = "Option<bool>")]
    pub ways_out_off: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_deserialise_with_defaults_for_missing_fields() {
        let s: ToolSettings = serde_json::from_str(
            r#"{"tools":{"shell":{"executionPolicy":"deny","timeoutMs":500}}}"#,
        )
        .unwrap();
        assert_eq!(s.default_output_limit, DEFAULT_OUTPUT_LIMIT);
        assert_eq!(s.execution_policy("shell"), Some(ExecutionPolicy::Deny));
        assert_eq!(s.timeout("shell"), Some(Duration::from_millis(500)));
        assert_eq!(s.result_policy("shell"), None);
        assert_eq!(s.execution_policy("other"), None);
    }
}
