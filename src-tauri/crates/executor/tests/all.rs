//! The executor's integration tests, one binary: the pipeline of one call end to end, approvals,
//! result review, the file tools through the gate and robustness, on a real SQLite file through
//! the harness in `tollgate-test-support`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

mod common;
mod suite;
