//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, in
//! `tests/conformance`) grades Tollgate's MCP client: for each client scenario of its core,
//! draft and back-compat suites it starts its own MCP server (and, for sign-in, its own authorization server),
//! runs `tollgate-mcp-conformance` against it, and judges what its servers received.
//!
//! The scenarios Tollgate does not pass are listed, each with its reason, in
//! `tests/conformance/expected-failures.yml`; the suite fails the run when any other scenario
//! fails, and when a listed one passes (the list must shrink as the client is mended). A
//! scenario that passes with no check at all (a client that never connected) fails here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// Runs one suite of client scenarios; returns what the suite printed.
fn run_suite(suite: &str, out: &Path) -> String {
    let conformance = repo().join("tests/conformance");
    let output = Command::new(conformance.join("node"))
        .arg(conformance.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["client", "--suite", suite, "--command"])
        .arg(env!("CARGO_BIN_EXE_tollgate-mcp-conformance"))
        .arg("--expected-failures")
        .arg(conformance.join("expected-failures.yml"))
        .arg("-o")
        .arg(out)
        .current_dir(out)
        .output()
        .expect("the conformance suite starts (bash .ci/setup.sh installs it and its Node)");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "the {suite} suite failed against Tollgate's client:\n{printed}"
    );
    printed
}

/// Every scenario's `checks.json` under `dir`, with how many checks it holds.
fn check_counts(dir: &Path, out: &mut Vec<(PathBuf, usize)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            check_counts(&path, out);
        } else if path.file_name().is_some_and(|n| n == "checks.json") {
            let checks: Vec<serde_json::Value> =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            out.push((path, checks.len()));
        }
    }
}

#[test]
#[ignore = "needs the conformance suite and its Node (bash .ci/setup.sh) and a Secret Service: run .ci/test.sh (--include-ignored)"]
fn every_client_scenario_passes_or_is_listed_with_its_reason() {
    // The back-compat scenarios are refused on purpose: listed, they must fail.
    for suite in ["core", "draft", "backcompat"] {
        let out = tempfile::tempdir().unwrap();
        let printed = run_suite(suite, out.path());
        let mut counts = Vec::new();
        check_counts(out.path(), &mut counts);
        assert!(
            !counts.is_empty(),
            "the {suite} suite judged nothing:\n{printed}"
        );
        for (file, count) in counts {
            assert!(
                count > 0,
                "{} holds no check: the client never reached the server\n{printed}",
                file.display()
            );
        }
    }
}
