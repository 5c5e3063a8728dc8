//! Tollgate's protocol: every type that crosses between the engine's layers or into the UI —
//! identifiers ([`ids`]), policies and decisions ([`policy`]), approval requests and decisions,
//! previews, events, tool definitions and views, rule, provider and provenance vocabulary, tool
//! settings — with the TypeScript bindings the UI is generated from (ts-rs), and the canonical
//! form of arguments that records and rules hash ([`canonical`]), and the parsing of what a model
//! writes as a call's arguments or as tool calls in text ([`parse`]). The layers that speak to each
//! other — the store, the tools, the providers, the executor, the chat loop, the service and the
//! app — meet here instead of importing each other.
//!
//! It depends only on the sandbox's own types (re-exported here) and must never depend on
//! another Tollgate crate: it has no I/O, no database, no network. Types that belong to one
//! store table (`ChatRow`, `MessageRow`, …) stay with the table.

pub mod canonical;
pub mod ids;
pub mod parse;
pub mod policy;

pub mod approvals;
pub mod attachments;
pub mod elicitation;
pub mod errors;
pub mod events;
pub mod provenance;
pub mod providers;
pub mod rules;
pub mod server_review;
pub mod tool_review;
pub mod tool_settings;
pub mod tools;
pub mod views;

pub use approvals::*;
pub use attachments::*;
pub use elicitation::*;
pub use errors::*;
pub use events::*;
pub use provenance::*;
pub use providers::*;
pub use rules::*;
pub use server_review::*;
/// The sandbox's own types (levels, support, reports) live with the sandbox.
pub use tollgate_sandbox::protocol::*;
pub use tool_review::*;
pub use tool_settings::*;
pub use tools::*;
pub use views::*;
