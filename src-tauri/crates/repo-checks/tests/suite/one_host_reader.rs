//! A web address's host is read in one place (`crates/names/src/url_host.rs`, SECURITY.md "One
//! door per promise"): where a page came from, the host a target names, a plan step's envelope
//! and a server's page all ask `tollgate_names`, so a trailing dot, a case or a `www.` cannot be
//! read one way by the guard and another by the plan. A production file elsewhere that takes a
//! host out of a parsed address (`.host_str()`) or drops a `www.` by hand is a second reader;
//! the files listed below read a host for a reason that is not a comparison of targets.

use std::path::Path;

use super::layers::{files_under, repo_root};

/// Files that may read a host themselves, and why.
const OWN_READERS: &[(&str, &str)] = &[
    (
        "src-tauri/crates/app/src/navigation.rs",
        "the window's own origin, compared with Tauri's fixed one",
    ),
    (
        "src-tauri/crates/sandbox/src/proxy.rs",
        "forwards the authority the proxy checked, byte for byte",
    ),
];

/// Whether `line` (code, no comment) reads a host by hand.
fn reads_a_host(line: &str) -> bool {
    line.contains(".host_str()") || line.contains("strip_prefix(\"www.\")")
}

/// The production lines of `text`: before its test module, comments dropped.
fn production_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| !l.trim_start().starts_with("#[cfg(test)]"))
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or_default()))
}

#[test]
fn only_the_names_crate_reads_a_host() {
    let root = repo_root();
    let mut files = Vec::new();
    files_under(
        &root.join("src-tauri/crates"),
        &[
            "target",
            "tests",
            "benches",
            "fuzz",
            "names",
            "test-support",
            "mock-llm",
            "repo-checks",
            "scale",
        ],
        &mut files,
    );
    let mut read = 0;
    let mut found = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        if !rel.ends_with(".rs") || rel.ends_with("_tests.rs") || !rel.contains("/src/") {
            continue;
        }
        read += 1;
        if OWN_READERS.iter().any(|(file, _)| *file == rel) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in production_lines(&text) {
            if reads_a_host(line) {
                found.push(format!("{rel}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(read > 100, "only {read} files read: is the path right?");
    assert!(
        found.is_empty(),
        "read a host with tollgate_names (url_host, target_url, host_of, site):\n{}",
        found.join("\n")
    );
    for (file, _) in OWN_READERS {
        assert!(Path::new(&root.join(file)).is_file(), "{file} is gone");
    }
}

#[test]
fn the_check_sees_a_host_read_by_hand() {
    for reads in [
        "let host = url.host_str()?.trim_end_matches('.');",
        "host.strip_prefix(\"www.\").unwrap_or(host)",
    ] {
        assert!(reads_a_host(reads), "{reads}");
    }
    assert!(!reads_a_host("let host = tollgate_names::url_host(&url)?;"));
}
