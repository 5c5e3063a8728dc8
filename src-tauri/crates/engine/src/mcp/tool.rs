//! An MCP server's tools as Tollgate tools: each passes through the same gate as the built-in
//! ones. Names get the server as prefix (`<server>__<tool>`), `readOnlyHint` makes a tool
//! read-only (and ask-once by default; everything else asks every time), and results are turned
//! into text the model can read.

use super::config::McpServerConfig;
use super::slot::ServerSlot;
use crate::policy::ExecutionPolicy;
use crate::tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolSpec};
use async_trait::async_trait;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents, Tool as McpToolInfo};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// A tool of an MCP server.
pub struct McpTool {
    spec: ToolSpec,
    /// The tool's name on the server.
    remote: String,
    server: Arc<ServerSlot>,
}

/// `<server>__<tool>`, limited to the characters and length tool names may have.
pub fn tool_name(server: &str, remote: &str) -> String {
    let clean: String = remote
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = format!("{server}__{clean}");
    if name.len() <= 64 {
        return name;
    }
    let hash = hex::encode(&Sha256::digest(remote.as_bytes())[..3]);
    format!("{}_{hash}", &name[..57])
}

/// Whether the server marks the tool read-only (`readOnlyHint`); unmarked tools are not.
pub fn read_only_hint(info: &McpToolInfo) -> bool {
    info.annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false)
}

/// The argument schema, or an open object schema if the server's does not compile.
fn usable_schema(info: &McpToolInfo) -> (Value, bool) {
    let mut schema = Value::Object((*info.input_schema).clone());
    if let Value::Object(map) = &mut schema {
        map.entry("type").or_insert_with(|| json!("object"));
    }
    let with_limit = crate::tools::registry_schema(&schema);
    if crate::tools::schema_compiles(&with_limit) {
        (schema, true)
    } else {
        (
            json!({"type": "object", "additionalProperties": true}),
            false,
        )
    }
}

impl McpTool {
    /// Wraps one tool of `config`'s server.
    pub fn new(config: &McpServerConfig, info: &McpToolInfo, server: Arc<ServerSlot>) -> Self {
        let read_only = read_only_hint(info);
        let (parameters, schema_ok) = usable_schema(info);
        let mut description = info
            .description
            .as_deref()
            .map(str::to_string)
            .or_else(|| info.title.clone())
            .unwrap_or_default();
        if !schema_ok {
            description.push_str(" (The server's argument schema was invalid; check arguments against the description.)");
        }
        let default_policy = if read_only {
            ExecutionPolicy::AskOnce
        } else {
            ExecutionPolicy::AskAlways
        };
        let mut spec = ToolSpec::new(
            tool_name(&config.name, &info.name),
            description.trim(),
            parameters,
        )
        .policy(config.execution_policy.unwrap_or(default_policy))
        .timeout(Duration::from_secs(config.timeout_secs));
        if let Some(p) = config.result_policy {
            spec = spec.result_policy(p);
        }
        if read_only {
            spec = spec.read_only();
        }
        Self {
            spec,
            remote: info.name.to_string(),
            server,
        }
    }

    /// The tool's name on its server.
    pub fn remote_name(&self) -> &str {
        &self.remote
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let server = self.server.name();
        let Some(conn) = self.server.connection() else {
            return Err(ToolError::new(
                ToolErrorKind::Unavailable,
                format!("the MCP server \"{server}\" is not running"),
            )
            .with_suggestion("Tell the user; they can restart it in Settings → MCP servers."));
        };
        let arguments = match args {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        // The executor enforces the tool's timeout as well; this one also tells the server.
        let result = conn
            .call(&self.remote, arguments, self.spec.timeout, &ctx.cancel)
            .await;
        match result {
            Ok(result) => {
                let text = render_result(&result);
                if result.is_error == Some(true) {
                    Err(ToolError::other(if text.trim().is_empty() {
                        "the tool reported an error without a message".to_string()
                    } else {
                        text
                    }))
                } else {
                    Ok(Value::String(text))
                }
            }
            Err(super::McpError::Closed) => Err(ToolError::new(
                ToolErrorKind::Unavailable,
                format!("the MCP server \"{server}\" stopped during the call"),
            )
            .with_suggestion("Tell the user; they can restart it in Settings → MCP servers.")),
            Err(super::McpError::Cancelled) => Err(ToolError::other("stopped by the user")),
            Err(e) => Err(ToolError::new(ToolErrorKind::Unavailable, e.to_string())),
        }
    }

    fn compress_args(&self, args: &Value) -> Option<String> {
        let s = args.to_string();
        Some(if s.chars().count() > 120 {
            format!("{}…", s.chars().take(120).collect::<String>())
        } else {
            s
        })
    }
}

/// A call's content as text: text blocks as they are, resources with their URI, binary content
/// as a short note (the model cannot read base64 usefully), structured content when nothing else
/// was given.
pub fn render_result(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::Image(img) => parts.push(format!(
                "[image {} of about {} bytes, not shown]",
                img.mime_type,
                img.data.len() / 4 * 3
            )),
            ContentBlock::Audio(a) => parts.push(format!(
                "[audio {} of about {} bytes, not shown]",
                a.mime_type,
                a.data.len() / 4 * 3
            )),
            ContentBlock::Resource(res) => match &res.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    parts.push(format!("[resource {uri}]\n{text}"));
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => parts.push(format!(
                    "[binary resource {uri} ({}, about {} bytes), not shown]",
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    blob.len() / 4 * 3
                )),
                #[allow(unreachable_patterns)]
                _ => parts.push("[resource of an unknown kind]".into()),
            },
            ContentBlock::ResourceLink(link) => {
                parts.push(format!("[resource link: {} <{}>]", link.name, link.uri));
            }
            #[allow(unreachable_patterns)]
            _ => parts.push("[content of an unknown kind]".into()),
        }
    }
    if let Some(structured) = &result.structured_content {
        if parts.is_empty() {
            parts.push(
                serde_json::to_string_pretty(structured).unwrap_or_else(|_| structured.to_string()),
            );
        }
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn names_are_prefixed_cleaned_and_bounded() {
        assert_eq!(tool_name("everything", "get-sum"), "everything__get-sum");
        assert_eq!(tool_name("fs", "read.file v2"), "fs__read_file_v2");
        let long = tool_name("server", &"x".repeat(100));
        assert_eq!(long.len(), 64);
        assert_ne!(long, tool_name("server", &"x".repeat(101)));
    }

    #[test]
    fn results_become_text() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b"}
            ]
        }))
        .unwrap();
        assert_eq!(
            render_result(&result),
            "hello\n[image image/png of about 3 bytes, not shown]\n[resource file:///a.txt]\ninside\n[resource link: b <file:///b>]"
        );
        let structured: CallToolResult =
            serde_json::from_value(json!({"content": [], "structuredContent": {"sum": 3}}))
                .unwrap();
        assert_eq!(render_result(&structured), "{\n  \"sum\": 3\n}");
    }
}
