//! The engine's integration tests in one binary (one link of the whole engine, as codex-rs
//! does): every suite is a module under `suite/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

mod common;
mod suite;
