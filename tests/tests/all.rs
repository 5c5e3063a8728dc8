//! The end-to-end tests in one binary (one link instead of one per file): every suite is a module
//! under `suite/`. `tests/speed.sh` and `.ci/install-test.sh` run its ignored modules by name.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

mod suite;
