//! The [`ToolExecutor`]: one per open chat (SPEC §1). It holds the chat's enabled view of the
//! registry, its ask-once records, its variables and its pending approvals, and runs every call
//! through the pipeline of SPEC §3 (see `pipeline.rs`), deciding each with the one decision
//! function (`decision.rs`).
//!
//! The gate itself, a crate of its own with what it needs beside it: the [`approvals`] hub that
//! routes the user's answers to waiting calls, the [`rules::RuleBook`] that keeps the user's
//! rules, and [`panics`] (the readable text of a crashed tool). It builds on the tools, the
//! provenance gate, the rules and the store, and must never depend on the chat loop or the
//! service above it (`tollgate-engine`), which drive it.

pub mod approvals;
pub mod panics;
pub mod rules;

mod ask;
mod background;
mod call;
mod card;
mod decision;
mod execute;
mod facets;
mod grant;
mod guard;
mod handovers;
#[cfg(test)]
mod ledger_property;
mod limits;
mod permission;
mod pipeline;
pub mod plan;
mod policies;
mod prompt;
mod resolve;
mod round;
mod sources;
mod task;
mod tool_executor;
mod toolbox;
mod turnstile;

pub use background::LateResult;
pub use call::{CallOrigin, Rerun, ToolCallRequest, ToolCallResult, ViewOrigin};
pub use facets::{Asks, Guard, Policies, Sources, Stages, TaskGrants, Toolbox, UnderWay};
pub use round::{RepeatTracker, RoundLimits};
pub use sources::line_hashes;
pub use task::GrantLifetime;
pub use tool_executor::{
    group_enabled, group_views, tool_toggled_on, ExecutorDeps, ExecutorError, SharedSettings,
    ToolExecutor,
};
pub use turnstile::Turnstile;
