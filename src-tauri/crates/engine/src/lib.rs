//! Tollgate's engine: everything between "the model asked for a tool" and "the model got its
//! answer", with the user's gate in the middle.
//!
//! The engine has no Tauri dependency so that every behaviour can be tested headless. The app
//! crate wires it to a window; the chat loop (providers, rounds) drives it per turn.
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
//! - [`chat`]: the turn loop; [`service`]: the facade the app's commands call.

pub mod approvals;
/// The protocol is a crate of its own (`tollgate-protocol`); its modules keep their paths here.
pub use tollgate_protocol::{self as protocol, canonical, ids, parse, policy};
pub mod chat;
pub mod executor;
pub mod heap;
/// The MCP client is a crate of its own (`tollgate-mcp`).
pub use tollgate_mcp as mcp;
pub mod panics;
/// The provenance gate is a crate of its own (`tollgate-provenance`): pure, no I/O.
pub use tollgate_provenance as provenance;
/// The providers are a crate of their own (`tollgate-providers`).
pub use tollgate_providers as providers;
pub mod rules;
/// Keys and redaction are a crate of their own (`tollgate-secrets`).
pub use tollgate_secrets as secrets;
/// The tools, the variable store, names and image checks are a crate of their own (`tollgate-tools`).
pub use tollgate_tools::{self as tools, images, names, vars};
pub mod service;
/// The store is a crate of its own (`tollgate-store`).
pub use tollgate_store as store;

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
