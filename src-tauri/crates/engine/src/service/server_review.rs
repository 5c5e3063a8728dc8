//! The first-sight review of an MCP server (SPEC §12), as the window asks for it and confirms
//! it: what the server says and what its tools claim to do, on one screen; confirming makes the
//! server's texts trusted as read and each tool's effects the user's own word.

use super::services::McpServers;
use super::ServiceError;
use crate::mcp::McpReviewError;
use crate::protocol::{Invalid, Missing, ServerReview, ToolEffects};
use std::collections::BTreeMap;

impl McpServers<'_> {
    /// The first-sight review of a running server: its instructions, its tools with what they
    /// claim and what the user confirmed, and what the scan flags.
    pub fn mcp_server_review(&self, server: &str) -> Result<ServerReview, ServiceError> {
        let registry = self.app.registry.read().clone();
        let others: Vec<String> = registry
            .groups()
            .iter()
            .filter(|g| g.name != server)
            .flat_map(|g| g.tools.iter().map(|t| t.spec().name.clone()))
            .collect();
        let others: Vec<&str> = others.iter().map(String::as_str).collect();
        let settings = self.app.settings.read().clone();
        let confirmed = |tool: &str| settings.effects(tool);
        self.app
            .mcp
            .server_review(server, &others, &confirmed)
            .ok_or_else(|| {
                if self
                    .app
                    .mcp_state
                    .configs
                    .lock()
                    .iter()
                    .any(|c| c.name == server)
                {
                    ServiceError::Invalid(Invalid::McpNotRunning {
                        server: server.to_string(),
                    })
                } else {
                    ServiceError::NotFound(Missing::McpServer {
                        name: server.to_string(),
                    })
                }
            })
    }

    /// Confirms what the user read in a server's review (`fingerprint`) with the effects they
    /// settled on for its tools (`effects`, by Tollgate name; a tool left out keeps what it
    /// had). Refused when the server said something else meanwhile: the review is shown again.
    pub async fn confirm_mcp_server(
        &self,
        server: &str,
        fingerprint: &str,
        effects: BTreeMap<String, ToolEffects>,
    ) -> Result<(), ServiceError> {
        let prefix = format!("{server}__");
        if let Some(tool) = effects.keys().find(|t| !t.starts_with(&prefix)) {
            return Err(ServiceError::Invalid(Invalid::McpTextsChanged {
                server: format!("{server} (the tool {tool} is not one of its tools)"),
            }));
        }
        self.app
            .mcp
            .confirm_server(server, fingerprint)
            .map_err(|e| match e {
                McpReviewError::NotRunning(server) => {
                    ServiceError::Invalid(Invalid::McpNotRunning { server })
                }
                McpReviewError::TextsChanged(server) => {
                    ServiceError::Invalid(Invalid::McpTextsChanged { server })
                }
                McpReviewError::Accept(e) => ServiceError::Invalid(Invalid::McpTextsChanged {
                    server: format!("{server} ({e})"),
                }),
            })?;
        if !effects.is_empty() {
            let mut settings = self.app.settings.read().clone();
            for (tool, set) in effects {
                settings.tool_mut(&tool).effects = Some(set);
            }
            self.app.preferences().set_tool_settings(settings).await?;
        }
        self.app.sync_registry().await;
        self.save_review_book().await
    }
}
