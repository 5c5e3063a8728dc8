//! The tools a chat offers the model: groups and tools toggled per chat, what is visible and the
//! definitions and offer each request carries (F-03, F-04, F-82).

use super::facets::Toolbox;
use crate::decision;
use crate::tool_executor::group_enabled;
use crate::tool_executor::group_views;
use crate::tool_executor::offered_tools;
use crate::tool_executor::set_toggle;
use crate::tool_executor::tool_toggled_on;
use crate::tool_executor::ExecutorError;
use tollgate_protocol::{GroupView, ToolDefinition};
use tollgate_provenance::{Offered, RequestLedger};
use tollgate_tools::{RegisteredTool, Registry};

impl Toolbox<'_> {
    pub(crate) fn group_enabled_in(&self, registry: &Registry, name: &str) -> bool {
        let has_workspace = self.exec.workspace.read().is_some();
        group_enabled(
            registry,
            &self.exec.deps.settings.read(),
            &self.exec.overrides.read(),
            has_workspace,
            name,
        )
    }

    /// Whether a group is enabled in this chat (chat override, else settings, else default).
    pub fn is_group_enabled(&self, name: &str) -> bool {
        self.group_enabled_in(&self.exec.registry(), name)
    }

    pub(crate) fn tool_toggled_on(&self, name: &str) -> bool {
        tool_toggled_on(
            &self.exec.deps.settings.read(),
            &self.exec.overrides.read(),
            name,
        )
    }

    /// Whether the model may see and call the tool: its group is enabled, it is toggled on, and
    /// its policy is not `deny`.
    pub(crate) fn visible(&self, registry: &Registry, tool: &RegisteredTool) -> bool {
        let spec = tool.tool.spec();
        self.group_enabled_in(registry, &tool.group)
            && self.tool_toggled_on(&spec.name)
            && !decision::denies(self.exec.policies().execution_policy(spec))
            && !(self.exec.guard().ways_out_off() && self.exec.policies().effects(spec).sends_out)
            && !(self.exec.guard().ways_out_off() && spec.sandboxed && !self.network_can_be_cut())
    }

    /// Whether this system's sandbox can take the network from the chat's commands (SPEC §12):
    /// the chat's level confines them and the probe found namespaces, which close TCP, UDP and
    /// DNS alike (Landlock alone closes TCP only: UDP and DNS still leave). Unknown (the probe has not finished) counts as no, so "ways out off" never
    /// leaves a command tool that could still send.
    pub(crate) fn network_can_be_cut(&self) -> bool {
        let chat = self.exec.sandbox();
        chat.level.confines()
            && tollgate_tools::supervisor::known_support().is_some_and(|support| {
                support.available() && !support.gaps(false).iter().any(|g| g.leaves_network())
            })
    }

    /// The names of the tools the model may call, in registry order.
    pub fn enabled_tool_names(&self) -> Vec<String> {
        let registry = self.exec.registry();
        registry
            .groups()
            .iter()
            .flat_map(|g| g.tools.iter())
            .filter_map(|t| registry.tool(&t.spec().name))
            .filter(|t| self.visible(&registry, t))
            .map(|t| t.tool.spec().name.clone())
            .collect()
    }

    /// The tool definitions for the next request (denied and disabled tools are left out).
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.offered_tools()
            .into_iter()
            .map(|o| o.definition)
            .collect()
    }

    /// The tools offered in the next request, each with who wrote its definition (its group's
    /// `said_by`): the request ledger's tools (`tollgate_provenance::ledger`).
    pub fn offered_tools(&self) -> Vec<Offered> {
        offered_tools(&self.exec.registry(), &self.enabled_tool_names())
    }

    /// What the chat offers the model outside the conversation, as the next request carries
    /// it with a model that calls tools natively: the system prompt's tool section and the
    /// tools, each piece with who wrote it. The exposure of a chat outside a turn (its header,
    /// a view's call) reads this; a turn reads each round's own request.
    pub fn offer(&self) -> RequestLedger {
        RequestLedger {
            system: self.exec.system_prompt_ledger(),
            tools: self.offered_tools(),
        }
    }

    /// Sets this chat's own toggle for a group (`None` clears it). Persisted.
    pub async fn set_group_enabled(
        &self,
        group: &str,
        enabled: Option<bool>,
    ) -> Result<(), ExecutorError> {
        if self.exec.registry().group(group).is_none() {
            return Err(ExecutorError::NoSuchGroup(group.to_string()));
        }
        self.exec
            .update_overrides(|o| set_toggle(&mut o.groups, group, enabled))
            .await
    }

    /// Sets this chat's own toggle for a tool (`None` clears it). Persisted.
    pub async fn set_tool_enabled(
        &self,
        tool: &str,
        enabled: Option<bool>,
    ) -> Result<(), ExecutorError> {
        if self.exec.registry().tool(tool).is_none() {
            return Err(ExecutorError::NoSuchTool(tool.to_string()));
        }
        self.exec
            .update_overrides(|o| set_toggle(&mut o.tools, tool, enabled))
            .await
    }

    /// Every group with its tools as this chat sees them.
    pub fn group_views(&self) -> Vec<GroupView> {
        let has_workspace = self.exec.workspace.read().is_some();
        group_views(
            &self.exec.registry(),
            &self.exec.deps.settings.read(),
            &self.exec.overrides.read(),
            has_workspace,
        )
    }
}
