//! The protocol: every type that crosses between the engine's layers or into the UI — approval
//! requests and decisions, previews, events, tool definitions and views, rule and provider
//! vocabulary, tool settings.
//!
//! It sits just above the vocabulary of [`crate::ids`], [`crate::canonical`] and
//! [`crate::policy`] and below everything else (see `docs/ARCHITECTURE.md`), so the layers that
//! speak to each other — the store, the tools, the providers, the executor, the chat loop, the
//! service and the app — meet here instead of importing each other. Nothing in this module
//! imports a module above it; `tests/suite/layers.rs` checks that for the whole crate.
//!
//! Types that belong to one store table (`ChatRow`, `MessageRow`, …) stay with the table: the
//! store is the lowest layer above this one, so every layer that needs them may use them.

pub mod approvals;
pub mod attachments;
pub mod elicitation;
pub mod errors;
pub mod events;
pub mod provenance;
pub mod providers;
pub mod rules;
pub mod sandbox;
pub mod server_review;
pub mod tool_review;
pub mod tool_settings;
pub mod tools;

pub use approvals::*;
pub use attachments::*;
pub use elicitation::*;
pub use errors::*;
pub use events::*;
pub use provenance::*;
pub use providers::*;
pub use rules::*;
pub use sandbox::*;
pub use server_review::*;
pub use tool_review::*;
pub use tool_settings::*;
pub use tools::*;
