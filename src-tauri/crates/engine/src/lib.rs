//! Tollgate's engine: the service the app's commands call ([`service`]) and what a turn is made
//! of and says ([`chat`]: turns, events, outcomes, history, export), over the crates below it,
//! which it re-exports under the module names the app and the tests know them by. The chat loop
//! that runs a turn is the crate above it, `tollgate-turn`, handed to [`service::Tollgate::open`]
//! as a [`chat::StartTurn`]: the loop is where most changes happen, and above the service a change
//! to it rebuilds only the loop and the app's binary. It must never depend on Tauri, the app or
//! the loop: every behaviour is tested headless. The crate table and
//! what each crate may depend on: `docs/ARCHITECTURE.md`, "Crates".
//!
//! Main entry points (the layers and the life of a call: `docs/ARCHITECTURE.md`):
//! - [`protocol`]: every type that crosses between layers or into the UI (requests, decisions,
//!   events, tool views, errors).
//! - [`executor::ToolExecutor`]: one per chat; runs the pipeline of SPEC §3 for each call.
//! - [`tools`]: the [`tools::Tool`] trait, [`tools::ToolGroup`]s, the [`tools::Registry`] and
//!   the one list of built-in groups ([`tools::builtin`]).
//! - [`approvals`]: the hub that routes the user's decisions (F-05, F-06) to waiting calls.
//! - [`vars`]: the per-chat variable store, `$VAR_REF{{…}}` resolution and truncation.
//! - [`store`]: the SQLite database (one connection owner thread, versioned migrations).
//! - [`chat`]: what a turn is made of; [`service`]: the facade the app's commands call.

pub mod chat;
pub mod heap;
pub mod router;
pub mod service;

// The crates below, under the module names the app and the tests know them by.
/// The gate: the executor, the approval hub, the rule book (`tollgate-executor`).
pub use tollgate_executor::{self as executor, approvals, panics, rules};
/// The MCP client (`tollgate-mcp`).
pub use tollgate_mcp as mcp;
/// The types that cross layers and reach the UI (`tollgate-protocol`), with the runtime pieces
/// that carry them — the event router, the channel sink, the shared tool settings — under the
/// module name the app and the tests know them by.
pub mod protocol {
    pub use crate::router::{AttentionWatcher, RouteGuard, Router};
    pub use tollgate_executor::SharedSettings;
    pub use tollgate_protocol::*;
    pub use tollgate_tools::ChannelSink;
}
pub use tollgate_protocol::{canonical, ids, parse, policy};
/// The provenance gate: pure, no I/O (`tollgate-provenance`).
pub use tollgate_provenance as provenance;
/// The model providers (`tollgate-providers`).
pub use tollgate_providers as providers;
/// Keys and redaction (`tollgate-secrets`).
pub use tollgate_secrets as secrets;
/// SQLite (`tollgate-store`).
pub use tollgate_store as store;
/// The tools, the variable store, names and image checks (`tollgate-tools`).
pub use tollgate_tools::{self as tools, images, names, vars};

pub use approvals::{ApprovalError, ApprovalHub};
pub use executor::{CallOrigin, ToolCallRequest, ToolCallResult, ToolExecutor};
pub use ids::{ApprovalId, ChatId};
pub use policy::{
    CallDecision, CallStatus, DecidedBy, ExecutionChoice, ExecutionPolicy, ResultChoice,
    ResultPolicy,
};
pub use protocol::{
    ApprovalKind, Decision, EventSink, ExecutionDecision, PendingApproval, ResultDecision,
    ToolEvent,
};
pub use store::Store;
