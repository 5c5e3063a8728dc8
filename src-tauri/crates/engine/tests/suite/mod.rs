//! The suites of `tests/all.rs`, one module per area.

mod attachments;
mod attacks;
mod branches;
mod elicitation;
mod guard;
mod history_pages;
mod injection;
mod invariants;
mod mcp;
mod oauth;
mod providers;
mod purge;
mod rounds;
mod sampling;
mod sandbox;
mod secrets;
mod service;
mod streams;
mod tasks;
mod views;
