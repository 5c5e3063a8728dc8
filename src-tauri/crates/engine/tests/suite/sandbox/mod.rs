//! The sandbox of shell commands (F-46, issues 15 and 33) for real, on this machine's kernel:
//! namespaces made by bubblewrap and Landlock inside them, set up by the supervisor before the
//! shell starts. `commands`: each attack an approved command could make, run under the
//! supervisor, fails in the sandbox and — so that each test tests something — succeeds with the
//! sandbox off. `app`: the whole way through the app with the mock model — what the model is
//! told, the cards, reruns, the file tools, only these hosts, a chat's variables.
#![cfg(target_os = "linux")]

pub(super) mod app;
mod commands;

use std::path::Path;

/// Runs `git args` in `dir` as the user would, outside any sandbox, and answers what it
/// printed; the test fails when git does.
pub(super) fn git(dir: &Path, args: &[&str]) -> String {
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
pub(super) fn commit(dir: &Path, message: &str) {
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
/// `/run`, which are private inside the sandbox — the target folder, or `/var/tmp` when the
/// checkout itself is under `/tmp` (a fresh clone in a temp folder).
pub(super) fn test_root() -> tempfile::TempDir {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let base = if target.starts_with("/tmp") || target.starts_with("/run") {
        Path::new("/var/tmp")
    } else {
        target
    };
    tempfile::tempdir_in(base).unwrap()
}
