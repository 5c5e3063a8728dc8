//! Links in answers, as a user meets them in the real window (F-59): a link that says where it
//! goes opens in the system's browser at a click; one whose text reads otherwise shows its full
//! target first, from the keyboard too, and Escape opens nothing; and nothing — not even a
//! script — can navigate the app window away from its own page (the Rust navigation guard).
//!
//! The system's browser is reached the way the opener plugin reaches it on Linux, through
//! `xdg-open`; a stand-in first on the app's `PATH` records what it was asked to open.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);
const PLAIN: &str = "https://example.com/docs";
const DISGUISED: &str = "https://docs.evil.example/steal?session=1";

/// The lines the stand-in `xdg-open` recorded, waiting until there are `n`.
async fn opened(log: &Path, n: usize) -> Vec<String> {
    let deadline = Instant::now() + WAIT;
    loop {
        let lines: Vec<String> = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        if lines.len() >= n || Instant::now() > deadline {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn links_open_in_the_browser_never_in_the_window() {
    let _seat = Seat::take().await.unwrap();
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("opened.txt");
    let script = bin.path().join("xdg-open");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (s, mock) = Session::with_mock_provider(&[("PATH", &path)], "sk-e2e-links")
        .await
        .unwrap();
    mock.push(openai::text(&format!(
        "Read [example.com/docs]({PLAIN}) or [the official docs]({DISGUISED})."
    )));
    s.new_chat_and_send("where are the docs?").await.unwrap();
    s.wait_for_text("the official docs", WAIT).await.unwrap();

    // A link that says where it goes: one click, and the browser has it.
    s.click_text(".msg--assistant .markdown a", "example.com/docs")
        .await
        .unwrap();
    assert_eq!(opened(&log, 1).await, [PLAIN]);
    assert!(!s.exists("[data-role=link-dialog]").await.unwrap());

    // A link whose text reads otherwise, from the keyboard: its full target shows first, with
    // the focus on Cancel; Escape opens nothing.
    s.click("#composer").await.unwrap();
    s.back_tab_to("the official docs").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let target = s
        .wait_text("[data-role=link-dialog] .link-target", WAIT)
        .await
        .unwrap();
    assert_eq!(target, DISGUISED);
    assert!(
        s.focused().await.unwrap().ends_with("|Cancel"),
        "{}",
        s.focused().await.unwrap()
    );
    s.screenshots("flow-link-dialog").await.unwrap();
    s.press(keys::ESCAPE).await.unwrap();
    assert!(!s.exists("[data-role=link-dialog]").await.unwrap());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(opened(&log, 1).await.len(), 1, "Escape opened nothing");

    // Again, and this time Tab to "Open in browser" and press Enter.
    s.click("#composer").await.unwrap();
    s.back_tab_to("the official docs").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.el("[data-role=link-dialog]").await.unwrap();
    s.tab_to("Open in browser").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    assert_eq!(opened(&log, 2).await, [PLAIN, DISGUISED]);

    // The backstop: a script sending the window elsewhere is refused by the Rust guard.
    let before = s.client.current_url().await.unwrap();
    let away = format!("{}/navigated-away", mock.url());
    s.client
        .execute(
            "window.location.href = arguments[0]; return true;",
            vec![serde_json::Value::String(away.clone())],
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        !mock.requests().iter().any(|r| r.path == "/navigated-away"),
        "the window loaded the page"
    );
    assert_eq!(s.client.current_url().await.unwrap(), before);
    assert!(
        s.exists("#composer").await.unwrap(),
        "the app is still there"
    );
    s.close().await;
}

/// The X clipboard's text, once it equals `want` (or what it holds when the wait ends).
async fn clipboard_becomes(want: &str) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let out = tollgate_e2e::seat::x_command("xclip")
            .args(["-o", "-selection", "clipboard"])
            .output()
            .expect("xclip runs (install the xclip package)");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        if text == want || Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn copy_puts_a_code_block_and_a_whole_answer_on_the_clipboard() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-copy")
        .await
        .unwrap();
    let answer = "Run this:\n\n```sh\necho 'hello' > greeting.txt\n```\n\nThen **look** at it.";
    mock.push(openai::text(answer));
    s.new_chat_and_send("how do I greet?").await.unwrap();
    s.wait_for_text("Then look at it.", WAIT).await.unwrap();

    // From the keyboard, as a user does: Shift+Tab back from the composer to the code's button.
    s.click("#composer").await.unwrap();
    s.back_tab_to("copy-code").await.unwrap();
    s.screenshots("flow-copy-code-focused").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    assert_eq!(
        clipboard_becomes("echo 'hello' > greeting.txt").await,
        "echo 'hello' > greeting.txt"
    );
    s.wait_text("[data-role=copy-code]", WAIT).await.unwrap();

    // The whole answer, as its markdown, with Space on the message's Copy.
    s.click("#composer").await.unwrap();
    s.back_tab_to("copy-message").await.unwrap();
    s.press(keys::SPACE).await.unwrap();
    assert_eq!(clipboard_becomes(answer).await, answer);
    s.close().await;
}
