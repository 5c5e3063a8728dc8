//! Export that saves (F-55): the chat's Export menu opens the native save dialog — in the chat's
//! workspace, with the chat's title as the file name — and Rust writes the file the user chose;
//! both formats are read back from disk. Cancelling writes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::time::Duration;
use tollgate_e2e::steps::SERIAL;
use tollgate_e2e::webdriver::Session;
use tollgate_e2e::{answer_native_dialog, capture_screen};
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(30);
const ANSWER: &str = "An old silent pond, a frog jumps into the pond: splash! Silence again.";

async fn export(s: &Session, item: &str) {
    s.click_text(".chat-header button", "Export").await.unwrap();
    s.click_text("[role=menu] .menu-item", item).await.unwrap();
}

#[tokio::test]
async fn export_asks_where_to_save_and_writes_both_formats() {
    let _serial = SERIAL.lock().await;
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-export")
        .await
        .unwrap();
    let workspace = tempfile::tempdir().unwrap();
    mock.push(openai::text(ANSWER));
    s.click("button.new-chat").await.unwrap();
    s.set_workspace(workspace.path()).await.unwrap();
    s.send("a haiku please").await.unwrap();
    s.wait_for_text(ANSWER, WAIT).await.unwrap();

    // Markdown: the dialog offers "<title>.md" in the workspace; Enter saves it there.
    export(&s, "Markdown").await;
    capture_screen("dialog-export-save").unwrap();
    answer_native_dialog("Export chat as Markdown", &["Return"], WAIT).unwrap();
    let md_path = workspace.path().join("a haiku please.md");
    let status = s
        .wait_text("[data-role=export-status]", WAIT)
        .await
        .unwrap();
    assert_eq!(status, format!("Saved to {}", md_path.display()));
    let md = std::fs::read_to_string(&md_path).unwrap();
    assert!(md.starts_with("# a haiku please\n"), "{md}");
    assert!(md.contains("## You\n\na haiku please"), "{md}");
    assert!(md.contains(&format!("## Assistant\n\n{ANSWER}")), "{md}");

    // JSON, the same way.
    export(&s, "JSON").await;
    answer_native_dialog("Export chat as JSON", &["Return"], WAIT).unwrap();
    let json_path = workspace.path().join("a haiku please.json");
    s.wait_for_text(&format!("Saved to {}", json_path.display()), WAIT)
        .await
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(json["format"], "tollgate-chat");
    assert_eq!(json["messages"][0]["content"], "a haiku please");
    assert_eq!(json["messages"][1]["content"], ANSWER);
    s.screenshot("flow-export-saved").await.unwrap();

    // Escape cancels: nothing is written, nothing is said to have been saved.
    std::fs::remove_file(&md_path).unwrap();
    export(&s, "Markdown").await;
    answer_native_dialog("Export chat as Markdown", &["Escape"], WAIT).unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!md_path.exists());
    assert!(!s.body_text().await.unwrap().contains("not saved"));
    s.close().await;
}
