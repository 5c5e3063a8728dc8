//! Model Context Protocol servers (F-45), through the official `rmcp` client. Each configured
//! server becomes a tool group named after it; its tools pass through the same gate as the
//! built-in ones.

pub mod catalog;
pub mod config;
mod connection;
pub mod inline_secrets;
mod manager;
mod slot;
mod tool;

pub use catalog::{FilledPrompt, McpPromptArgument, McpPromptView, McpResourceView};
pub use config::{import_json, McpConfigError, McpSandbox, McpServerConfig, McpTransport};
pub use connection::{ListChanged, McpConnection, McpError, ServerIdentity};
pub use manager::{McpLaunch, McpManager, McpServerState, McpStatus, McpToolSummary};
pub use slot::ServerSlot;
pub use tool::{render_result, tool_name, McpTool, Rendered, MAX_RESULT_IMAGES};
