//! The sandbox of shell commands (F-46) through the app, for real, on this machine's kernel:
//! `app`: the whole way through the app with the mock model — what the model is told, the
//! cards, reruns, the file tools, only these hosts, a chat's variables. Each attack an approved
//! command could make, run under the supervisor alone, is the sandbox crate's own test
//! (`crates/sandbox/tests/attacks.rs`).
#![cfg(target_os = "linux")]

pub(super) mod app;

/// The sandbox tests' shared helpers (`tollgate-test-support`), for `app`.
pub(super) use tollgate_test_support::{commit, git};

/// A folder for a test's files that a sandboxed command sees where it is.
pub(super) fn test_root() -> tempfile::TempDir {
    tollgate_test_support::test_root(env!("CARGO_TARGET_TMPDIR"))
}
