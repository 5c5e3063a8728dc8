//! What the crates' tests share, so each crate's tests live with the crate (`cargo test -p X`
//! runs everything about X) without copying their helpers: running git as the user would, a
//! folder for a test's files that a sandboxed command sees where it is, and waiting for a state
//! ([`wait`]). For tests only. Without features it depends on no crate of Tollgate's; with
//! `executor` it adds the executor's harness ([`executor`]), for the crates at and above it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::path::Path;

#[cfg(feature = "executor")]
pub mod executor;
pub mod mcp_servers;
pub mod wait;

/// Runs `git args` in `dir` as the user would, outside any sandbox, and answers what it
/// printed; the test fails when git does.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Commits what is staged in `dir` as a test user.
pub fn commit(dir: &Path, message: &str) {
    git(
        dir,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.org",
            "commit",
            "-qm",
            message,
        ],
    );
}

/// A folder for a test's files that a sandboxed command sees where it is: not under `/tmp` or
/// `/run`, which are private inside the sandbox — `target_tmp` (the calling test's
/// `env!("CARGO_TARGET_TMPDIR")`), or `/var/tmp` when the checkout itself is under `/tmp` (a
/// fresh clone in a temp folder).
pub fn test_root(target_tmp: &str) -> tempfile::TempDir {
    let target = Path::new(target_tmp);
    let base = if target.starts_with("/tmp") || target.starts_with("/run") {
        Path::new("/var/tmp")
    } else {
        target
    };
    tempfile::tempdir_in(base).unwrap()
}
