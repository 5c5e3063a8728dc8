//! Model Context Protocol servers (F-45), through the official `rmcp` client. Each configured
//! server becomes a tool group named after it; its tools pass through the same gate as the
//! built-in ones.
//!
//! A crate of its own: the client (connections, OAuth sign-in, elicitation, progress), the
//! catalog of prompts and resources, and the first-sight review of what a server says. It builds
//! on `tollgate-tools` (an MCP tool is a [`tollgate_tools::Tool`]) and must never depend on the
//! engine: the executor runs its tools like any other.

mod addressed;
pub mod apps;
pub mod catalog;
pub mod config;
mod connection;
pub mod elicitation;
pub mod inline_secrets;
mod kept_question;
mod manager;
pub mod oauth;
pub mod pages;
pub mod progress;
mod result;
pub mod review;
pub mod sampling;
pub mod scan;
#[cfg(test)]
mod scan_corpus;
mod slot;
mod tool;

pub use catalog::{FilledPrompt, McpPromptArgument, McpPromptView, McpResourceView};
pub use config::{import_json, McpConfigError, McpSandbox, McpServerConfig, McpTransport};
pub use connection::{
    probing_lifecycle, Asks, CallOptions, ListChanged, McpConnection, McpError, ServerIdentity,
    Session,
};
pub use manager::{
    McpLaunch, McpManager, McpReviewError, McpServerState, McpStatus, McpToolSummary,
};
pub use result::{render_result, Rendered, MAX_RESULT_IMAGES, MAX_RESULT_LINKS};
pub use review::{ReviewBook, REVIEW_SETTINGS_KEY};
pub use sampling::{SampleRequest, Sampled, Sampler};
pub use slot::{CallGuard, ServerSlot};
pub use tool::{tool_name, McpTool};
