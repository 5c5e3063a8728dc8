//! What the window may call, read from the capability files the app is built with: every
//! permission is one this test names, and none reads the clipboard, opens files or runs programs
//! (SECURITY.md: "The window reads the clipboard"). The end-to-end `webdriver.rs` tries the read
//! from the page itself.

use serde_json::Value;
use std::path::Path;

/// The permissions the window is granted, by identifier, and why.
const GRANTED: [&str; 4] = [
    // Tollgate's own events (turn progress, approvals).
    "core:event:default",
    // The folder picker for a chat's workspace (open only; saving goes through Rust).
    "dialog:allow-open",
    // The Copy buttons.
    "clipboard-manager:allow-write-text",
    // Web and mail links, scoped below.
    "opener:allow-open-url",
];

fn capability_files() -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../capabilities");
    let mut files: Vec<Value> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    assert!(
        !files.is_empty(),
        "no capability files in {}",
        dir.display()
    );
    files.sort_by_key(|f| f["identifier"].to_string());
    files
}

fn identifier(permission: &Value) -> &str {
    permission
        .as_str()
        .or_else(|| permission["identifier"].as_str())
        .unwrap()
}

#[test]
fn the_window_is_granted_only_what_it_needs_and_never_a_clipboard_read() {
    for file in capability_files() {
        for permission in file["permissions"].as_array().unwrap() {
            let id = identifier(permission);
            assert!(GRANTED.contains(&id), "{id} is granted but not named here");
            assert!(
                !(id.starts_with("clipboard-manager:")
                    && id != "clipboard-manager:allow-write-text"),
                "{id} reaches more of the clipboard than writing text"
            );
            assert!(!id.starts_with("shell:") && !id.starts_with("fs:"), "{id}");
        }
    }
}

#[test]
fn links_open_only_on_the_web_and_in_mail() {
    let mut scopes = Vec::new();
    for file in capability_files() {
        for permission in file["permissions"].as_array().unwrap() {
            if identifier(permission) == "opener:allow-open-url" {
                for allowed in permission["allow"].as_array().unwrap() {
                    scopes.push(allowed["url"].as_str().unwrap().to_string());
                }
            }
        }
    }
    assert_eq!(scopes, ["https://*", "http://*", "mailto:*"]);
}
