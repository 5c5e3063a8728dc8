//! Tollgate's protocol: every type that crosses between the engine's layers or into the UI —
//! identifiers ([`ids`]), policies and decisions ([`policy`]), approval requests and decisions,
//! previews, events, tool definitions and views, rule, provider and provenance vocabulary, tool
//! settings — with the TypeScript bindings the UI is generated from (ts-rs), and the canonical
//! form of arguments that records and rules hash ([`canonical`]), and the parsing of what a model
//! writes as a call's arguments or as tool calls in text ([`parse`]). The layers that speak to each
//! other — the store, the tools, the providers, the executor, the chat loop, the service and the
//! app — meet here instead of importing each other.
//!
//! It is the ground floor: it depends on no crate of Tollgate's and on no runtime (no async
//! runtime, no locks, no randomness): it has no I/O, no database, no network. Everything else —
//! the sandbox and the keychain included — is built on it. Types that belong to one store
//! table (`ChatRow`, `MessageRow`, …) stay with the table; runtime pieces (the event router,
//! shared settings, making ids) live where they run.

pub mod canonical;
pub mod ids;
pub mod parse;
pub mod policy;

pub mod approvals;
pub mod attachments;
pub mod elicitation;
pub mod errors;
pub mod events;
pub mod plan;
pub mod provenance;
pub mod providers;
pub mod rules;
pub mod sandbox;
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
pub use plan::*;
pub use provenance::*;
pub use providers::*;
pub use rules::*;
pub use sandbox::*;
pub use server_review::*;
pub use tool_review::*;
pub use tool_settings::*;
pub use tools::*;
pub use views::*;
