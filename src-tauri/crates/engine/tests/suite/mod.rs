//! The suites of `tests/all.rs`, one module per area.

mod approvals;
mod attachments;
mod attacks;
mod branches;
mod chaos;
mod chat;
mod elicitation;
mod files;
mod guard;
mod history_pages;
mod injection;
mod invariants;
mod mcp;
mod oauth;
mod pipeline;
mod providers;
mod purge;
mod recovery;
mod results;
mod robustness;
mod sandbox;
mod secrets;
mod service;
mod streams;
mod views;
