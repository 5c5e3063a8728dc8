//! Tools as the provider and the settings see them: definitions sent to a model, views for the UI.

use crate::policy::{ExecutionPolicy, ResultPolicy};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool definition as sent to a provider (F-20).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// A tool as the settings and per-chat popover show it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolView {
    pub name: String,
    pub description: String,
    pub enabled: bool,
    /// The effective policies (the user's override, else the tool's default).
    pub execution_policy: ExecutionPolicy,
    pub result_policy: ResultPolicy,
    /// The tool's own defaults, for "Default (…)" in the settings.
    pub default_execution_policy: ExecutionPolicy,
    pub default_result_policy: ResultPolicy,
    pub read_only: bool,
    pub timeout_ms: u64,
    /// What a call may do (F-81): the user's override, else the tool's own declaration.
    pub effects: super::ToolEffects,
    /// The tool's own declaration, for "As the tool says" in the settings.
    pub default_effects: super::ToolEffects,
    /// The effects are only what an MCP server claims: the user has not confirmed them, so
    /// the provenance gate does not take them at their word (SPEC §12).
    pub effects_claimed: bool,
    /// The arguments that name where a call goes (JSON pointers): the user's, else the tool's.
    pub targets: Vec<String>,
    /// The tool's own targets, for "As the tool says".
    pub default_targets: Vec<String>,
}

/// A group as the settings and per-chat popover show it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupView {
    pub name: String,
    pub title: String,
    pub description: String,
    pub enabled: bool,
    pub tools: Vec<ToolView>,
}
