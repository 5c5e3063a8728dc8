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
pub mod canonical;
pub mod chat;
pub mod executor;
pub mod heap;
pub mod ids;
pub mod images;
pub mod mcp;
pub mod names;
pub mod panics;
pub mod parse;
pub mod policy;
pub mod protocol;
pub mod provenance;
pub mod providers;
pub mod rules;
pub mod secrets;
pub mod service;
pub mod store;
pub mod tools;
pub mod vars;

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
