mod connection;
mod eras;
mod manager;
mod tasks;

use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_mcp::McpServerConfig;
use tollgate_test_support::mcp_servers::{everything_js, probe_script};

/// The everything server over stdio, as `name`.
pub(crate) fn everything(name: &str) -> McpServerConfig {
    McpServerConfig::stdio(name, "node", &[&everything_js(), "stdio"])
}

/// The probe server as `name`, writing what it notices to `marker`.
pub(crate) fn probe(name: &str, marker: &std::path::Path) -> McpServerConfig {
    McpServerConfig::stdio(name, "node", &[&probe_script()])
        .with_env("PROBE_MARKER", marker.display().to_string())
}

/// How a test calls a tool: within `timeout`, stopped by `cancel`, with no one to show its
/// progress to.
pub(crate) fn options(timeout: Duration, cancel: &CancellationToken) -> tollgate_mcp::CallOptions {
    tollgate_mcp::CallOptions::unobserved(timeout, cancel.clone())
}

/// `value` as a tool call's arguments.
pub(crate) fn args(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// A call registered with `slot`'s server as call `seq` of `chat` (its questions go there;
/// `workspace`, the chat's folder), and the options it is made with: within 30 s, stopped by
/// `cancel`. The call counts as running until the guard is dropped.
pub(crate) fn on_card(
    slot: &std::sync::Arc<tollgate_mcp::ServerSlot>,
    chat: tollgate_protocol::ids::ChatId,
    seq: u64,
    cancel: &CancellationToken,
    workspace: Option<std::path::PathBuf>,
) -> (tollgate_mcp::CallGuard, tollgate_mcp::CallOptions) {
    let clock = tollgate_tools::clock::CallClock::new();
    let running = slot.begin_call_in(chat, seq, cancel, &clock, workspace);
    let options = tollgate_mcp::CallOptions {
        clock,
        asked_in: Some(running.call().clone()),
        ..options(Duration::from_secs(30), cancel)
    };
    (running, options)
}
