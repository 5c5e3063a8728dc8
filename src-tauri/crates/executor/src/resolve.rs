//! Which tool a call names: a name repaired against the chat's enabled tools, or a tool its
//! policy denies, said as such.

use super::call::Outcome;
use crate::tool_executor::ToolExecutor;
use tollgate_protocol::policy::CallStatus;
use tollgate_tools::names::{closest_names, repair_name, NameMatch};
use tollgate_tools::RegisteredTool;

impl ToolExecutor {
    pub(super) fn resolve_tool<'r>(
        &self,
        registry: &'r tollgate_tools::Registry,
        requested: &str,
    ) -> Result<&'r RegisteredTool, Outcome> {
        let enabled = self.toolbox().enabled_tool_names();
        let found = match repair_name(requested, enabled.iter().map(String::as_str)) {
            NameMatch::Exact(n) | NameMatch::Repaired(n) => registry.tool(&n),
            NameMatch::Unknown => None,
        };
        if let Some(entry) = found {
            return Ok(entry);
        }
        // Known but denied by policy: say so rather than "unknown".
        if let NameMatch::Exact(n) | NameMatch::Repaired(n) =
            repair_name(requested, registry.tool_names())
        {
            if let Some(entry) = registry.tool(&n) {
                if super::decision::denies(self.policies().execution_policy(entry.tool.spec())) {
                    return Ok(entry);
                }
                return Err(Outcome::fail(
                    CallStatus::NotFound,
                    format!(
                        "The tool \"{n}\" is not enabled in this chat. Enabled tools: {}.",
                        list_or_none(&enabled)
                    ),
                ));
            }
        }
        let closest = closest_names(requested, enabled.iter().map(String::as_str), 3);
        let hint = if closest.is_empty() {
            String::new()
        } else {
            format!(
                " Did you mean {}?",
                closest
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        };
        Err(Outcome::fail(
            CallStatus::NotFound,
            format!(
                "There is no tool called \"{requested}\".{hint} Enabled tools: {}.",
                list_or_none(&enabled)
            ),
        ))
    }
}

impl ToolExecutor {
    /// The tool a server's view named (F-96): one of that server's tools its views may
    /// call, and that this chat offers. Any other — another server's, a built-in tool, one kept
    /// from views, one the chat turned off — is refused without running; a tool the settings
    /// deny is returned, for the Resolve stage to deny as such.
    pub(super) fn resolve_view_tool<'r>(
        &self,
        registry: &'r tollgate_tools::Registry,
        server: &str,
        requested: &str,
    ) -> Result<&'r RegisteredTool, Outcome> {
        let Some(entry) = registry.view_tool(server, requested) else {
            return Err(Outcome::fail(
                CallStatus::NotFound,
                format!(
                    "The view of the MCP server \"{server}\" may not call \"{requested}\": a view calls only its own server's tools that the server lets its views call."
                ),
            ));
        };
        let denied = super::decision::denies(self.policies().execution_policy(entry.tool.spec()));
        if denied || self.toolbox().visible(registry, entry) {
            Ok(entry)
        } else {
            Err(Outcome::fail(
                CallStatus::NotFound,
                format!(
                    "The tool \"{requested}\" is not offered in this chat (turned off, or its ways out are off): its server's view cannot call it here."
                ),
            ))
        }
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
