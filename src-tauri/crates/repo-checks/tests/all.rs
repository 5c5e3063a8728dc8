//! One test binary for the repository's checks (see the crate's `lib.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

mod suite;
