//! The chat loop's integration tests, one binary: whole turns against a real local server that
//! speaks the providers' streaming wire formats, with the real executor and a real SQLite file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

mod suite;
