//! MCP Apps views (SEP-1865, F-96): what crosses to the window about a view a server ships
//! with its tool. The view runs in a sandboxed frame of its own origin; everything it asks for
//! comes back through the commands that take these types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A call's view: the server that shipped it and the `ui://` resource it is read from.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpViewLink {
    pub server: String,
    pub uri: String,
}

/// A view ready to load: the address its frame loads (served once, under `csp`), and what the
/// host tells it after the handshake.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpViewDocument {
    /// `tollgate-view://localhost/<token>`: unguessable, and served to one load only.
    pub url: String,
    pub server: String,
    /// The tool's name on its server (the view's `hostContext.toolInfo`).
    pub tool: String,
    /// The Content-Security-Policy the document is served under: built from the domains the
    /// resource declares, and nothing else.
    pub csp: String,
    /// The outside addresses the resource declared (to connect to or load from), shown on the
    /// view's frame so the user knows where it may reach.
    pub domains: Vec<String>,
    /// The resource asks for a border and background (`None`: the host decides).
    pub prefers_border: Option<bool>,
    /// The arguments the call runs with (`ui/notifications/tool-input`).
    pub tool_input: Value,
    /// How the call ended; `None` while it still runs (the view shows from the moment the gate
    /// let the call run, and is told the end when it comes: [`McpViewOutcome`]).
    pub outcome: Option<McpViewOutcome>,
}

/// How a view's call ended, as the view is told it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum McpViewOutcome {
    /// The call's result as the server returned it (`ui/notifications/tool-result`).
    Result { result: Value },
    /// The call has no result for the view: it failed, was stopped, or its result was withheld
    /// or edited (`ui/notifications/tool-cancelled`, with this reason).
    Cancelled { reason: String },
}
