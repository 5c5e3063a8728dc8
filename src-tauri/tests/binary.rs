//! The app's binary itself (`src/main.rs`): before it opens any window it takes the roles its
//! shell commands need, the supervisor and the sandbox probe among them. Run as a real child
//! process, with no display: a binary that went on to start the window would never answer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use tollgate_tools::supervisor;

#[tokio::test]
async fn the_apps_binary_answers_the_sandbox_probe_without_opening_a_window() {
    supervisor::configure(env!("CARGO_BIN_EXE_tollgate").into());
    let support = supervisor::sandbox_support().await;
    // The probe ran to its end in the binary: what it found is remembered. A binary that
    // ignored the probe's argument (and started the app instead) leaves nothing known.
    assert_eq!(supervisor::known_support(), Some(support));
}
