//! The suites of `tests/all.rs`, one module per area.

mod chaos;
mod chat;
mod plan;
mod recovery;
mod secrets;
