//! MCP servers' questions (elicitation, SPEC §11) in the real window: the official SDK's
//! `elicitationFormExample` server asks for a registration form while its tool runs — the card
//! appears under the call, its first field has the keyboard, Tab moves through the fields and
//! Enter sends; the next time Escape declines. The probe server asks the user to open a page:
//! the whole address is shown, nothing opens until the button is pressed (from the keyboard),
//! and then the system browser (a stand-in on `PATH`) gets exactly that address.

use std::time::Duration;
use tollgate_e2e::node_servers::{free_port, mcp_dir, sdk_example, NodeServer, StandInBrowser};
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::{completions, data_files_holding, keys, tool_results};
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);

/// The text of the first element matching `css` (WebDriver's visible text of a one-line,
/// clipped span reads empty in WebKit).
async fn text_of(s: &Session, css: &str) -> String {
    let text = s
        .client
        .execute(
            "return document.querySelector(arguments[0])?.textContent ?? '';",
            vec![serde_json::Value::String(css.to_string())],
        )
        .await
        .unwrap();
    text.as_str().unwrap_or_default().to_string()
}

/// Waits until the first element matching `css` reads `want`.
async fn until_text(s: &Session, css: &str, want: &str) {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let text = text_of(s, css).await;
        if text == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "\"{css}\" never read \"{want}\" (it reads \"{text}\")"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_servers_form_is_answered_from_the_keyboard_and_a_page_is_shown_before_it_opens() {
    let _seat = Seat::take().await.unwrap();
    let port = free_port();
    let forms = NodeServer::start(
        &sdk_example("elicitationFormExample.js"),
        &[],
        &[("PORT", port.to_string())],
        &["Form elicitation example server is running"],
    )
    .await
    .unwrap();
    let browser = StandInBrowser::new().unwrap();
    let path = browser.path_env();
    let (s, mock) = Session::with_mock_provider(&[("PATH", &path)], "sk-e2e-elicitation")
        .await
        .unwrap();
    let probe = mcp_dir().join("probe-server.mjs").display().to_string();
    s.import_mcp_json(&serde_json::json!({"mcpServers": {
        "forms": {"url": format!("http://localhost:{port}/mcp")},
        "probe": {"command": "node", "args": [probe]}
    }}))
    .await
    .unwrap();
    for server in ["forms", "probe"] {
        s.wait_text(&format!("[data-server={server}] [data-status=ready]"), WAIT)
            .await
            .unwrap();
    }
    s.back_to_chat().await.unwrap();

    // The form: under the call, saying which server asks; the first field has the keyboard.
    mock.push(openai::calls("", &[("c1", "forms__register_user", "{}")]));
    mock.push(openai::text("You are registered."));
    s.new_chat_and_send("Register me").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let head = s
        .wait_text("[data-elicitation] .approval-head", WAIT)
        .await
        .unwrap();
    assert_eq!(head, "The MCP server forms asks you");
    assert!(
        s.focused().await.unwrap().starts_with("INPUT|"),
        "the first field has the keyboard"
    );
    s.type_here("ada").await.unwrap();
    s.press(keys::TAB).await.unwrap();
    s.type_here("ada@example.org").await.unwrap();
    s.press(keys::TAB).await.unwrap();
    s.type_here("analytical engine").await.unwrap();
    s.screenshots("elicitation-form").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("You are registered.", WAIT).await.unwrap();
    let results = tool_results(&completions(&mock)[1]);
    assert!(
        results[0].contains("Registration successful!")
            && results[0].contains("Username: ada")
            && results[0].contains("Email: ada@example.org"),
        "{results:?}"
    );
    // The question and the answer the server got are kept with the call: opened, its card
    // shows them under the form's labels, the password withheld, here and in every file.
    let kept = s.wait_text("[data-role=server-asked]", WAIT).await.unwrap();
    assert!(kept.contains("forms asked you 1 question(s)"), "{kept}");
    s.click(".tool-card[data-seq='1'] > .tool-card-head")
        .await
        .unwrap();
    let asked = s
        .wait_text("[data-role=asked-question]", WAIT)
        .await
        .unwrap();
    assert!(
        asked.contains("answered")
            && asked.contains("Username")
            && asked.contains("ada@example.org")
            && asked.contains("[redacted]")
            && !asked.contains("analytical engine"),
        "{asked}"
    );
    s.screenshots("elicitation-kept").await.unwrap();

    // Escape declines, and the server hears "decline".
    mock.push(openai::calls("", &[("c2", "forms__register_user", "{}")]));
    mock.push(openai::text("Not registered."));
    s.send("Register me again").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_text("[data-elicitation] .approval-head", WAIT)
        .await
        .unwrap();
    s.press(keys::ESCAPE).await.unwrap();
    s.wait_for_text("Not registered.", WAIT).await.unwrap();
    let results = tool_results(&completions(&mock)[3]);
    assert!(
        results
            .iter()
            .any(|r| r.contains("Registration cancelled by user.")),
        "{results:?}"
    );

    // A page: its whole address first; nothing opens until the button, pressed from the
    // keyboard; then the browser gets exactly that address.
    mock.push(openai::calls("", &[("c3", "probe__visit", "{}")]));
    mock.push(openai::text("Connected."));
    s.send("Connect my account").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let address = s.wait_text("[data-role=elicit-url]", WAIT).await.unwrap();
    assert_eq!(address, "https://connect.example.com/start?session=probe");
    assert!(
        browser.opened().is_empty(),
        "nothing opened before the button"
    );
    s.screenshots("elicitation-url").await.unwrap();
    s.tab_to("elicit-open").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Connected.", WAIT).await.unwrap();
    assert_eq!(
        browser.opened(),
        vec!["https://connect.example.com/start?session=probe".to_string()]
    );
    let results = tool_results(&completions(&mock)[5]);
    assert!(
        results
            .iter()
            .any(|r| r.contains("the user answered accept")),
        "{results:?}"
    );
    // Once the app has saved what it holds and exited: the password typed into the form is in
    // no file of its data folder, though the question and the rest of the answer are kept.
    let data = s.close_keeping_data().await.expect("the data folder");
    assert_eq!(
        data_files_holding(data.path(), "analytical engine").unwrap(),
        Vec::<std::path::PathBuf>::new(),
        "the password is in a file of the data folder"
    );
    assert!(
        !data_files_holding(data.path(), "ada@example.org")
            .unwrap()
            .is_empty(),
        "the kept answer is in no file: the search proves nothing"
    );
    forms.stop().await;
}

/// SPEC §11 in the window: a server's progress shows on the running call's card (a bar and the
/// server's words) until the call ends; a resource the result links to is attached to the next
/// message from the keyboard, read from the server that linked it.
#[tokio::test]
async fn a_servers_progress_shows_on_the_card_and_a_linked_resource_is_attached() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-progress")
        .await
        .unwrap();
    let marker = tempfile::tempdir().unwrap();
    let steps = marker.path().join("steps");
    let probe = mcp_dir().join("probe-server.mjs").display().to_string();
    s.import_mcp_servers(
        &serde_json::json!({"mcpServers": {
            "probe": {"command": "node", "args": [probe], "env": {"PROBE_MARKER": steps.display().to_string()}}
        }}),
        "probe",
    )
    .await
    .unwrap();
    s.back_to_chat().await.unwrap();

    // The server reports step 1 of 4 and waits: the card shows it while the call runs.
    mock.push(openai::calls(
        "",
        &[("c1", "probe__steps", r#"{"count":4}"#)],
    ));
    mock.push(openai::text("All four steps are done."));
    s.new_chat_and_send("Work through four steps")
        .await
        .unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    until_text(
        &s,
        ".tool-card:not(.tool-card--compact) .tool-card-progress-text",
        "Step 1 of 4 · 25% done",
    )
    .await;
    let bar = s
        .client
        .execute(
            "const b = document.querySelector('.tool-card:not(.tool-card--compact) [data-role=progress] progress'); \
             return b ? [b.value, b.max] : null;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(bar, serde_json::json!([1, 4]), "the bar shows step 1 of 4");
    s.screenshots("mcp-progress").await.unwrap();
    let mut go = steps.as_os_str().to_owned();
    go.push(".go");
    std::fs::write(&go, "go").unwrap();
    s.wait_for_text("All four steps are done.", WAIT)
        .await
        .unwrap();
    assert!(
        !s.exists("[data-role=progress]").await.unwrap(),
        "the progress goes with the call"
    );

    // A result that links to the project notes: Shift+Tab from the composer to its Attach,
    // Enter, and the notes are in the message being written.
    mock.push(openai::calls("", &[("c2", "probe__report", "{}")]));
    mock.push(openai::text("The report is written."));
    s.send("Write the report").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("The report is written.", WAIT)
        .await
        .unwrap();
    until_text(
        &s,
        ".tool-card:not(.tool-card--compact) .resource-link-uri",
        "probe://notes.md",
    )
    .await;
    assert_eq!(
        text_of(
            &s,
            ".tool-card:not(.tool-card--compact) .resource-link-name"
        )
        .await,
        "Project notes"
    );
    s.el("#composer").await.unwrap().click().await.unwrap();
    s.back_tab_to("attach-link").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_count(".composer [data-role=attachments] li", 1)
        .await
        .unwrap();
    assert_eq!(
        text_of(&s, ".composer [data-role=attachments] .attachment-name").await,
        "Project notes"
    );
    s.screenshots("mcp-resource-link").await.unwrap();
    s.close().await;
}
