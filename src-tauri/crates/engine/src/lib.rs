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

// The crates below, under the module names the engine's code uses for them. They are not
// re-exported: the app and the tests name the crate they use (`tollgate_store::Store`), so the
// engine's public face is its own service and chat loop, and what each consumer reaches is in
// its manifest.
use tollgate_executor::{self as executor, approvals, rules};
use tollgate_mcp as mcp;
/// The types that cross layers and reach the UI (`tollgate-protocol`), with the runtime pieces
/// that carry them — the event router, the channel sink, the shared tool settings — as the
/// engine's code names them.
mod protocol {
    pub use crate::router::Router;
    pub use tollgate_executor::SharedSettings;
    pub use tollgate_protocol::*;
}
use tollgate_protocol::{ids, parse, policy};
use tollgate_provenance as provenance;
use tollgate_providers as providers;
use tollgate_secrets as secrets;
use tollgate_store as store;
use tollgate_tools::{self as tools, images};

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
