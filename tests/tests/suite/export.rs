//! Export that saves (F-55): the chat's Export menu opens the native save dialog — in the chat's
//! workspace, with the chat's title as the file name — and Rust writes the file the user chose;
//! both formats are read back from disk. Cancelling writes nothing.

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;
use tollgate_e2e::{answer_native_dialog, answer_native_dialog_typing, capture_screen};
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);
const ANSWER: &str = "An old silent pond, a frog jumps into the pond: splash! Silence again.";

/// Imports `file` through the ▾ menu and the native open dialog (its location typed, Enter).
async fn import(s: &Session, file: &std::path::Path) {
    s.click("[data-role=new-from-preset]").await.unwrap();
    s.click("[data-role=import-chats]").await.unwrap();
    answer_native_dialog_typing(
        "Import chats",
        &["ctrl+l"],
        Some(&file.display().to_string()),
        &["Return"],
        WAIT,
    )
    .unwrap();
}

async fn export(s: &Session, item: &str) {
    s.click_text(".chat-header button", "Export").await.unwrap();
    s.click_text("[role=menu] .menu-item", item).await.unwrap();
}

#[tokio::test]
async fn export_asks_where_to_save_and_writes_both_formats() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-export")
        .await
        .unwrap();
    let workspace = tempfile::tempdir().unwrap();
    mock.push(openai::text(ANSWER));
    s.new_chat().await.unwrap();
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
    s.screenshots("flow-export-saved").await.unwrap();

    // Escape cancels: nothing is written, nothing is said to have been saved. Judged once the
    // app has answered the next export (saved again), so the cancelled one is surely behind it.
    std::fs::remove_file(&md_path).unwrap();
    std::fs::remove_file(&json_path).unwrap();
    export(&s, "Markdown").await;
    answer_native_dialog("Export chat as Markdown", &["Escape"], WAIT).unwrap();
    export(&s, "JSON").await;
    answer_native_dialog("Export chat as JSON", &["Return"], WAIT).unwrap();
    s.wait_for_text(&format!("Saved to {}", json_path.display()), WAIT)
        .await
        .unwrap();
    assert!(json_path.exists());
    assert!(!md_path.exists());
    assert!(!s.body_text().await.unwrap().contains("not saved"));

    // The JSON imports back (▾ beside New chat → Import chats…): a second chat with the same
    // conversation opens.
    import(&s, &json_path).await;
    s.wait_text("[data-role=sidebar-status]", WAIT)
        .await
        .unwrap();
    assert_eq!(
        s.client
            .find_all(fantoccini::Locator::Css(".chat-list .chat-item"))
            .await
            .unwrap()
            .len(),
        2
    );
    s.wait_for_text(ANSWER, WAIT).await.unwrap();
    s.close().await;
}

/// A ChatGPT `conversations.json`: two conversations, the first with two answers to its question
/// (the second one on screen), a hidden system message and a tool call left out.
fn chatgpt_export() -> serde_json::Value {
    let said = |role: &str, text: &str| serde_json::json!({"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}, "recipient": "all", "create_time": 1_700_000_000.0});
    serde_json::json!([
        {
            "title": "Trip to Italy",
            "create_time": 1_700_000_000.0,
            "update_time": 1_700_000_500.0,
            "current_node": "a1b",
            "mapping": {
                "root": {"id": "root", "parent": null, "children": ["sys"], "message": null},
                "sys": {"id": "sys", "parent": "root", "children": ["u1"], "message": {"author": {"role": "system"}, "content": {"content_type": "text", "parts": ["You are ChatGPT"]}, "metadata": {"is_visually_hidden_from_conversation": true}}},
                "u1": {"id": "u1", "parent": "sys", "children": ["a1", "a1b"], "message": said("user", "Where should I go in Italy?")},
                "a1": {"id": "a1", "parent": "u1", "children": [], "message": said("assistant", "Rome, for the history.")},
                "a1b": {"id": "a1b", "parent": "u1", "children": [], "message": said("assistant", "Florence, for the art.")}
            }
        },
        {
            "title": "Bread",
            "create_time": 1_600_000_000.0,
            "update_time": 1_600_000_100.0,
            "current_node": "b2",
            "mapping": {
                "b1": {"id": "b1", "parent": null, "children": ["b2"], "message": said("user", "How long to proof dough?")},
                "b2": {"id": "b2", "parent": "b1", "children": [], "message": said("assistant", "About an hour, until doubled.")}
            }
        }
    ])
}

#[tokio::test]
async fn a_chatgpt_export_imports_with_its_branches() {
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.unwrap();
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("conversations.json");
    std::fs::write(&file, chatgpt_export().to_string()).unwrap();
    import(&s, &file).await;
    let status = s
        .wait_text("[data-role=sidebar-status]", WAIT)
        .await
        .unwrap();
    assert_eq!(status, "Imported 2 chat(s).");
    // The newest conversation opens on the answer that was on screen in ChatGPT; the other
    // answer is its first version.
    s.wait_for_text("Florence, for the art.", WAIT)
        .await
        .unwrap();
    let shown = s.body_text().await.unwrap();
    assert!(shown.contains("Where should I go in Italy?"), "{shown}");
    assert!(
        !shown.contains("Rome, for the history.") && !shown.contains("You are ChatGPT"),
        "{shown}"
    );
    let versions = s
        .wait_text(".msg--assistant [data-role=versions]", WAIT)
        .await
        .unwrap();
    assert!(versions.contains("2/2"), "{versions}");
    s.screenshots("import-chatgpt").await.unwrap();
    s.click(".msg--assistant [data-role=version-previous]")
        .await
        .unwrap();
    s.wait_for_text("Rome, for the history.", WAIT)
        .await
        .unwrap();
    // The other conversation is in the list, and opens.
    s.click(".chat-list .chat-item[title=Bread]").await.unwrap();
    s.wait_for_text("About an hour, until doubled.", WAIT)
        .await
        .unwrap();

    // A file that is not an export says why.
    std::fs::write(&file, "{\"hello\": 1}").unwrap();
    import(&s, &file).await;
    let notice = s.wait_for_text("Could not import", WAIT).await.unwrap();
    assert!(
        notice.contains("neither a Tollgate chat export nor a ChatGPT conversations.json"),
        "{notice}"
    );
    s.close().await;
}
