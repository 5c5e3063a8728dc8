//! MCP Apps views (issue 47) in the real window. A view written to attack its host
//! (tests/mcp/view-server.mjs) tries every way out of its frame and reports what it managed to
//! the one origin it declares; an attacker's server it does not declare must hear nothing, the
//! app's database must not change, and its call to its server's tool must meet the gate like a
//! model's. The same attacks, run from a frame that shares the app's origin (the weakened frame),
//! reach the page, the storage and Tauri: the attacks are real. And the npm registry's own example
//! server renders its view in both themes and calls its tool back through the gate.

use std::path::Path;
use std::time::Duration;
use tollgate_e2e::node_servers::mcp_dir;
use tollgate_e2e::recorder::Recorder;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::{openai, MockLlm};

const WAIT: Duration = Duration::from_secs(60);

/// The attacks the view runs inside its frame, each reported as `<name> blocked: …` or
/// `<name> reached: …`: reading the app's page, Tauri's globals, the app's storage.
const READS: &[&str] = &[
    "parent-dom",
    "top-dom",
    "tauri-global",
    "parent-tauri",
    "ipc-fetch",
    "local-storage",
    "cookie",
];

/// The attacks that would show outside: judged by what the attacker's server received (a
/// blocked navigation or form need not throw in the frame), and by the database for Tauri's
/// message handler.
const SENDS: &[&str] = &[
    "ipc-handler",
    "undeclared-fetch",
    "undeclared-image",
    "popup",
    "top-navigation",
    "form",
];

/// Titles of the chats in the app's database file.
fn chat_titles(s: &Session) -> Vec<String> {
    let path = s.data_path().join("tollgate.sqlite3");
    let db =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("the app's database");
    let mut stmt = db.prepare("SELECT title FROM chats").unwrap();
    stmt.query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Adds the attack server in Settings → MCP servers (its files in `dir`, its reports to
/// `report`, and `extra` in its environment), then has the model call its `show_view` in a new
/// chat, allowed from the keyboard, and answer "Here is the view.".
async fn show_the_view(
    s: &Session,
    mock: &MockLlm,
    dir: &Path,
    report: &Recorder,
    extra: &[(&str, &str)],
) {
    let mut env =
        serde_json::json!({"VIEW_DIR": dir.display().to_string(), "VIEW_REPORT": report.origin});
    for (k, v) in extra {
        env[*k] = serde_json::Value::from(*v);
    }
    let script = mcp_dir().join("view-server.mjs").display().to_string();
    let json = serde_json::json!({"mcpServers": {"views": {"command": "node", "args": [script], "env": env}}});
    s.import_mcp_servers(&json, "views").await.unwrap();
    s.back_to_chat().await.unwrap();
    mock.push(openai::calls(
        "",
        &[("c1", "views__show_view", r#"{"label":"first"}"#)],
    ));
    mock.push(openai::text("Here is the view."));
    s.new_chat_and_send("Show me the view").await.unwrap();
    // Read-only: it asks once; Enter on the focused Allow runs it.
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Here is the view.", WAIT).await.unwrap();
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .count()
}

#[tokio::test]
async fn a_view_that_attacks_its_host_reaches_nothing_and_its_call_meets_the_gate() {
    let _seat = Seat::take().await.unwrap();
    let report = Recorder::start().await.unwrap();
    let attacker = Recorder::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-views")
        .await
        .unwrap();
    show_the_view(
        &s,
        &mock,
        dir.path(),
        &report,
        &[("VIEW_ATTACK", attacker.origin.as_str())],
    )
    .await;
    s.wait_for_text("Here is the view.", WAIT).await.unwrap();
    s.wait_text("[data-role=view-frame]", WAIT).await.unwrap();
    let reach = s.wait_text("[data-role=view-reach]", WAIT).await.unwrap();
    assert!(reach.contains(&report.origin), "{reach}");
    report.wait_for("initialized", WAIT).await.unwrap();
    // Every attack ran (the last is the form) before the view's own call.
    report.wait_for("form ", WAIT).await.unwrap();

    // The view's call to its own view-only tool asks like any other, under the view.
    s.el("[data-role=view-call] .approval-card").await.unwrap();
    let made = s
        .wait_text("[data-role=view-call] [data-role=made-by-view]", WAIT)
        .await
        .unwrap();
    assert!(made.contains("views"), "{made}");
    assert_eq!(
        lines(&dir.path().join("nudges.jsonl")),
        0,
        "nothing ran before the answer"
    );
    s.screenshots("mcp-view-call-asks").await.unwrap();
    // The user was looking at the view: a click on the card's Allow once.
    s.click_text(".approval-card.is-active button", "Allow once")
        .await
        .unwrap();
    let bodies = report.wait_for("done", WAIT).await.unwrap();

    let reported = |attack: &str| {
        bodies
            .iter()
            .find(|b| b.starts_with(&format!("{attack} ")))
            .unwrap_or_else(|| panic!("{attack} was not reported: {bodies:?}"))
            .clone()
    };
    for attack in READS {
        let line = reported(attack);
        assert!(line.starts_with(&format!("{attack} blocked")), "{line}");
    }
    for attack in SENDS {
        reported(attack);
    }
    let nudge = bodies.iter().find(|b| b.starts_with("call-nudge")).unwrap();
    assert!(nudge.contains("nudged from-view"), "{nudge}");
    let wipe = bodies.iter().find(|b| b.starts_with("call-wipe")).unwrap();
    assert!(wipe.contains("may not call"), "{wipe}");
    // Judged by what the outside received and what changed on disk.
    assert_eq!(
        attacker.received(),
        [],
        "the undeclared server heard from the view"
    );
    assert_eq!(lines(&dir.path().join("nudges.jsonl")), 1);
    assert!(
        !dir.path().join("wipes.jsonl").exists(),
        "the model's tool ran"
    );
    assert!(
        !chat_titles(&s).iter().any(|t| t.contains("pwned")),
        "{:?}",
        chat_titles(&s)
    );
    let url = s.client.current_url().await.unwrap();
    assert_eq!(url.scheme(), "tauri", "the window left the app: {url}");
    assert_eq!(
        s.wait_count(".view-call .tool-card", 2).await.ok(),
        Some(())
    );
    s.screenshots("mcp-view-attacks").await.unwrap();

    // The weakened frame: the same attacks from a frame that shares the app's origin (no
    // sandbox) reach the page, its storage and Tauri's commands — what the real frame keeps out.
    let weak = s
        .client
        .execute(
            r#"const f = document.createElement('iframe');
               document.body.appendChild(f);
               const w = f.contentWindow;
               const out = {};
               try { out.parentDom = w.parent.document.body.innerText.length > 0; } catch (e) { out.parentDom = String(e); }
               try { w.localStorage.setItem('weak', '1'); out.storage = w.localStorage.getItem('weak') === '1'; } catch (e) { out.storage = String(e); }
               try { out.tauri = typeof w.parent.__TAURI_INTERNALS__.invoke === 'function'; } catch (e) { out.tauri = String(e); }
               w.localStorage.removeItem('weak');
               f.remove();
               return out;"#,
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        weak,
        serde_json::json!({"parentDom": true, "storage": true, "tauri": true}),
        "the weakened frame should reach what the real one could not"
    );
    let created = s
        .client
        .execute_async(
            r#"const done = arguments[0];
               const f = document.createElement('iframe');
               document.body.appendChild(f);
               f.contentWindow.parent.__TAURI_INTERNALS__
                 .invoke('create_chat', { chat: { title: 'pwned-by-weak-frame' } })
                 .then(() => done('created'), (e) => done('refused: ' + e));"#,
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(created, "created");
    assert!(chat_titles(&s).iter().any(|t| t == "pwned-by-weak-frame"));
    s.close().await;
}

#[tokio::test]
async fn a_view_that_floods_the_host_is_stopped_with_a_note() {
    let _seat = Seat::take().await.unwrap();
    let report = Recorder::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-views-flood")
        .await
        .unwrap();
    show_the_view(&s, &mock, dir.path(), &report, &[("VIEW_MODE", "flood")]).await;
    let note = s.wait_text("[data-role=view-stopped]", WAIT).await.unwrap();
    assert!(note.contains("too many requests"), "{note}");
    assert!(
        !s.exists("[data-role=view-frame]").await.unwrap(),
        "the frame is gone"
    );
    s.screenshots("mcp-view-stopped").await.unwrap();
    s.close().await;
}

#[tokio::test]
async fn a_view_shows_again_after_a_restart_with_its_server_off() {
    let _seat = Seat::take().await.unwrap();
    let report = Recorder::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-views-restart")
        .await
        .unwrap();
    show_the_view(&s, &mock, dir.path(), &report, &[("VIEW_MODE", "show")]).await;
    let result = r#"result {"label":"first","shown":true}"#;
    report.wait_for(result, WAIT).await.unwrap();

    // The server turned off in Settings, then the app closed and started again.
    s.open_settings("MCP servers").await.unwrap();
    s.click("[data-server=views] input.switch").await.unwrap();
    s.wait_text("[data-server=views] [data-status=disabled]", WAIT)
        .await
        .unwrap();
    let data = s.close_keeping_data().await.unwrap();
    let s = Session::start_in(data, &[]).await.unwrap();
    s.click(".sidebar .chat-list .chat-item").await.unwrap();
    s.wait_text("[data-role=view-frame]", WAIT).await.unwrap();
    // The view was sent the stored result again: shown from what was kept, no call made.
    let until = std::time::Instant::now() + WAIT;
    while report
        .bodies()
        .iter()
        .filter(|b| b.as_str() == result)
        .count()
        < 2
    {
        assert!(
            std::time::Instant::now() < until,
            "the view never showed again: {:?}",
            report.bodies()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(mock.bodies().len(), 2, "the model was not asked again");
    s.screenshots("mcp-view-after-restart").await.unwrap();
    s.close().await;
}

#[tokio::test]
async fn the_registrys_example_view_renders_in_both_themes_and_calls_its_tool_through_the_gate() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-views-basic")
        .await
        .unwrap();
    let script = mcp_dir()
        .join("node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js")
        .display()
        .to_string();
    let json = serde_json::json!({"mcpServers": {"clock": {"command": "node", "args": [script, "--stdio"]}}});
    s.import_mcp_servers(&json, "clock").await.unwrap();
    s.back_to_chat().await.unwrap();
    mock.push(openai::calls("", &[("c1", "clock__get-time", "{}")]));
    mock.push(openai::text("That is the time."));
    s.new_chat_and_send("What time is it?").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("That is the time.", WAIT).await.unwrap();
    s.wait_text("[data-role=view-frame]", WAIT).await.unwrap();

    // Inside the frame: the view shows the result it was sent (the time, not "Loading...").
    s.client.clone().enter_frame(0).await.unwrap();
    let shown = wait_in_frame(&s, |t| t.contains("Server Time:") && !t.contains("Loading")).await;
    let first = shown
        .lines()
        .find(|l| l.starts_with("20"))
        .unwrap_or_default()
        .to_string();
    assert!(first.ends_with('Z'), "an ISO time: {shown}");
    // Seen as the user sees it, in both themes (the view is told when the theme changes).
    s.client.clone().enter_parent_frame().await.unwrap();
    s.client
        .execute(
            "document.querySelector('[data-role=mcp-view]').scrollIntoView({block: 'start'}); return true;",
            vec![],
        )
        .await
        .unwrap();
    s.screenshots("mcp-view-basic-shown").await.unwrap();
    s.client.clone().enter_frame(0).await.unwrap();
    // Its own button calls the tool again, from the view.
    let button = s
        .client
        .find(fantoccini::Locator::XPath(
            "//button[contains(., 'Get Server Time')]",
        ))
        .await
        .unwrap();
    button.click().await.unwrap();
    s.client.clone().enter_parent_frame().await.unwrap();
    let made = s
        .wait_text("[data-role=view-call] [data-role=made-by-view]", WAIT)
        .await
        .unwrap();
    assert!(made.contains("clock"), "{made}");
    s.wait_count("[data-role=view-call] .tool-card", 1)
        .await
        .unwrap();
    s.screenshots("mcp-view-basic").await.unwrap();
    s.close().await;
}

/// Waits (inside the frame the session entered) until the page's text passes `done`.
async fn wait_in_frame(s: &Session, done: impl Fn(&str) -> bool) -> String {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let text = s
            .client
            .execute(
                "return document.body ? document.body.innerText : '';",
                vec![],
            )
            .await
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        if done(&text) {
            return text;
        }
        assert!(
            std::time::Instant::now() < until,
            "the frame never showed it: {text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
