//! MCP Apps views (F-96) in the real window. A view written to attack its host
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
use tollgate_e2e::steps::{completions, keys, tool_results};
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

/// What each test of a view starts with: the seat, a recorder the view reports to, a folder
/// for the server's files, and the app with a mock model (started with `env`).
struct Scene {
    _seat: Seat,
    report: Recorder,
    dir: tempfile::TempDir,
    s: Session,
    mock: MockLlm,
}

async fn scene(key: &str, env: &[(&str, &str)]) -> Scene {
    let _seat = Seat::take().await.unwrap();
    let report = Recorder::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (s, mock) = Session::with_mock_provider(env, key).await.unwrap();
    Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    }
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
    ask_for_the_view(s, mock, dir, report, extra).await;
    s.wait_for_text("Here is the view.", WAIT).await.unwrap();
}

/// [`show_the_view`] up to the Enter that allows the call, without waiting for the answer (a
/// view that stops the window never lets it be seen).
async fn ask_for_the_view(
    s: &Session,
    mock: &MockLlm,
    dir: &Path,
    report: &Recorder,
    extra: &[(&str, &str)],
) {
    ask_for_a_view(s, mock, dir, report, extra, "views__show_view").await;
}

/// The test server imported (with `extra` in its environment), and the model's call to `tool`
/// allowed with Enter.
async fn ask_for_a_view(
    s: &Session,
    mock: &MockLlm,
    dir: &Path,
    report: &Recorder,
    extra: &[(&str, &str)],
    tool: &str,
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
    mock.push(openai::calls("", &[("c1", tool, r#"{"label":"first"}"#)]));
    mock.push(openai::text("Here is the view."));
    s.new_chat_and_send("Show me the view").await.unwrap();
    // Read-only: it asks once; Enter on the focused Allow runs it.
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .count()
}

#[tokio::test]
async fn a_view_that_attacks_its_host_reaches_nothing_and_its_call_meets_the_gate() {
    let Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    } = scene("sk-e2e-views", &[]).await;
    let attacker = Recorder::start().await.unwrap();
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
    let Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    } = scene("sk-e2e-views-flood", &[]).await;
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

/// A view that never stops working (`for (;;) {}`) stops the whole window: its frame runs in
/// the window's web process. The app ends that process once it stays unresponsive, loads its
/// page again and pauses views (the note that says so is the UI tests'); the window answers
/// again and the view does not start again in its chat. Judged by the view itself (it reports
/// each start) and by what the model receives from the keyboard afterwards.
#[tokio::test]
async fn a_view_that_never_stops_working_is_ended_and_views_pause() {
    let Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    } = scene("sk-e2e-views-hog", &[]).await;
    ask_for_the_view(&s, &mock, dir.path(), &report, &[("VIEW_MODE", "hog")]).await;
    report.wait_for("hogging", WAIT).await.unwrap();

    // The window is stuck. A user moves the mouse and presses keys at it (which is how WebKit
    // finds a web process that does not answer), from X, as WebDriver's own would wait.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let pressing = {
        let stop = std::sync::Arc::clone(&stop);
        // The seat's display, read on this thread (it is the thread's own).
        let display = tollgate_e2e::seat::display();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::process::Command::new("xdotool")
                    .env("DISPLAY", &display)
                    .args(["mousemove", "300", "300", "key", "shift"])
                    .status();
                std::thread::sleep(Duration::from_millis(300));
            }
        })
    };
    // The app ends the stuck web process and loads the page again. WebDriver's session ends
    // with the process it drove, so from here the window is driven as a user drives it: from X.
    // Its log says when the page is back (a first paint after the pause).
    let log = wait_for_log(&s, |log| {
        log.split("views paused")
            .nth(1)
            .is_some_and(|after| after.contains("first paint"))
    })
    .await;
    assert!(
        log.contains("stopped responding with views of [\"views\"]"),
        "{log}"
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    pressing.join().unwrap();

    // The page opens the chat that was open, the view paused in it, and the user types into
    // its message box: the message reaches the model with the chat's history, so the window
    // answers and stays answering with the view's chat on screen.
    mock.push(openai::text("Still here."));
    let display = tollgate_e2e::seat::display();
    let typed = "Are you there after the view?";
    let until = std::time::Instant::now() + WAIT;
    while !mock.bodies().iter().any(|b| b.to_string().contains(typed)) {
        let _ = std::process::Command::new("xdotool")
            .env("DISPLAY", &display)
            .args(["type", "--delay", "20", typed])
            .status();
        let _ = std::process::Command::new("xdotool")
            .env("DISPLAY", &display)
            .args(["key", "Return"])
            .status();
        let sent = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < sent
            && !mock.bodies().iter().any(|b| b.to_string().contains(typed))
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(
            std::time::Instant::now() < until,
            "nothing typed reached the model: {:?}",
            mock.bodies().len()
        );
    }
    let asked = mock
        .bodies()
        .into_iter()
        .find(|b| b.to_string().contains(typed))
        .unwrap()
        .to_string();
    assert!(
        asked.contains("Show me the view"),
        "sent in the view's chat: {asked}"
    );
    let starts = |b: &Vec<String>| b.iter().filter(|b| b.starts_with("initialized")).count();
    assert_eq!(
        starts(&report.bodies()),
        1,
        "the view did not start again in its chat: {:?}",
        report.bodies()
    );
    s.end_after_driver_lost().await;
}

/// A view shows from the moment the user let its call run, not when the call ends: it is sent
/// the call's input while the call still runs (its card says so), asks through the gate for the
/// call to be released (its own card, allowed by a click), and is then sent the result in the
/// same page. Judged by what the view reported to its own server, and by what the model received.
#[tokio::test]
async fn a_view_shows_while_its_call_runs_and_is_sent_the_result_when_it_ends() {
    let Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    } = scene("sk-e2e-views-hold", &[]).await;
    ask_for_a_view(
        &s,
        &mock,
        dir.path(),
        &report,
        &[("VIEW_MODE", "hold")],
        "views__hold_view",
    )
    .await;
    report
        .wait_for(r#"input {"label":"first"}"#, WAIT)
        .await
        .unwrap();
    // The call still runs: the view's "release" waits for the user, under the view.
    s.wait_text("[data-role=view-call] .approval-card", WAIT)
        .await
        .unwrap();
    let card = s
        .wait_text(".tool-card[data-seq=\"1\"] .tool-card-meta", WAIT)
        .await
        .unwrap();
    assert!(card.contains("Running"), "{card}");
    assert!(
        !report.bodies().iter().any(|b| b.starts_with("result")),
        "{:?}",
        report.bodies()
    );
    // The running call's card and its view at the top of the screen, the view's own card below.
    s.client
        .execute(
            "document.querySelector('.tool-card[data-seq=\"1\"]').scrollIntoView({block: 'start'})",
            vec![],
        )
        .await
        .unwrap();
    s.screenshots("mcp-view-running").await.unwrap();
    s.click_text(".approval-card.is-active button", "Allow once")
        .await
        .unwrap();
    report
        .wait_for(r#"result {"label":"first","released":true}"#, WAIT)
        .await
        .unwrap();
    s.wait_for_text("Here is the view.", WAIT).await.unwrap();
    let starts = report
        .bodies()
        .iter()
        .filter(|b| b.starts_with("initialized"))
        .count();
    assert_eq!(starts, 1, "one page throughout: {:?}", report.bodies());
    let results = tool_results(&completions(&mock)[1]);
    assert!(
        results.iter().any(|r| r.contains("released first")),
        "{results:?}"
    );
    s.close().await;
}

/// A view that fills memory (a page may: nothing in the frame's policy bounds it) would take the
/// machine's with the window's web process. While views are shown, the app reads that
/// process's memory and ends it past its ceiling; the page loads again with views paused.
/// Judged by what the view itself reported holding before it was ended (the attack was real:
/// it held memory the app's page never needs), and by the app's log.
#[tokio::test]
async fn a_view_that_fills_memory_is_ended_and_views_pause() {
    // A ceiling of 1 GiB rather than 2: the test shares its machine with the other tests.
    let Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    } = scene(
        "sk-e2e-views-fill",
        &[("TOLLGATE_VIEW_MEMORY_CEILING_MIB", "1024")],
    )
    .await;
    ask_for_the_view(&s, &mock, dir.path(), &report, &[("VIEW_MODE", "fill")]).await;
    report.wait_for("filling", WAIT).await.unwrap();

    let log = wait_for_log(&s, |log| {
        log.split("views paused")
            .nth(1)
            .is_some_and(|after| after.contains("first paint"))
    })
    .await;
    assert!(
        log.contains("over its ceiling of") && log.contains("with views of [\"views\"] shown"),
        "{log}"
    );
    assert!(log.contains("was ended (over its memory ceiling)"), "{log}");
    assert!(log.contains("over its ceiling of 1024 MiB"), "{log}");
    let held = report
        .bodies()
        .iter()
        .filter_map(|b| {
            b.strip_prefix("holding ")?
                .strip_suffix(" MiB")?
                .parse::<u64>()
                .ok()
        })
        .max()
        .unwrap_or(0);
    assert!(
        held >= 512,
        "the view held {held} MiB before it was ended: {:?}",
        report.bodies()
    );
    s.end_after_driver_lost().await;
}

/// Waits until the app's log (its files in the data folder) passes `done`; returns it.
async fn wait_for_log(s: &Session, done: impl Fn(&str) -> bool) -> String {
    let until = std::time::Instant::now() + WAIT * 2;
    loop {
        let mut log = String::new();
        if let Ok(entries) = std::fs::read_dir(s.data_path().join("logs")) {
            for entry in entries.flatten() {
                log.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
        if done(&log) {
            return log;
        }
        assert!(
            std::time::Instant::now() < until,
            "the log never said it: {log}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_view_shows_again_after_a_restart_with_its_server_off() {
    let Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    } = scene("sk-e2e-views-restart", &[]).await;
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

/// Whether a message on screen (drawn, not windowed away) holds `text`.
async fn message_drawn(s: &Session, text: &str) -> bool {
    s.client
        .execute(
            "return Array.from(document.querySelectorAll('.chat-scroll .msg')).some((e) => e.textContent.includes(arguments[0]));",
            vec![serde_json::Value::from(text)],
        )
        .await
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// Scrolls the chat to `to` ("top" or "bottom") until the message holding `text` is drawn
/// (`drawn`) or windowed away (`!drawn`).
async fn scroll_until(s: &Session, to: &str, text: &str, drawn: bool) {
    let until = std::time::Instant::now() + WAIT;
    loop {
        s.client
            .execute(
                "const el = document.querySelector('.chat-scroll'); el.scrollTop = arguments[0] === 'top' ? 0 : el.scrollHeight; return true;",
                vec![serde_json::Value::from(to)],
            )
            .await
            .unwrap();
        if message_drawn(s, text).await == drawn {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "scrolled to the {to}, {text:?} is still {}",
            if drawn { "not drawn" } else { "drawn" }
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A long chat draws only the messages near the view; an answer holding a view stays drawn
/// once drawn, so the view keeps its page (and whatever the user did in it) while the chat
/// scrolls away and back. Judged by the view itself: it reports each start to its recorder.
#[tokio::test]
async fn a_view_keeps_its_page_while_a_long_chat_scrolls_away_and_back() {
    let Scene {
        _seat,
        report,
        dir,
        s,
        mock,
    } = scene("sk-e2e-views-scroll", &[]).await;
    show_the_view(&s, &mock, dir.path(), &report, &[("VIEW_MODE", "show")]).await;
    let result = r#"result {"label":"first","shown":true}"#;
    report.wait_for(result, WAIT).await.unwrap();
    // Twenty more turns: 44 messages, a chat long enough to be windowed.
    for i in 0..20 {
        mock.push(openai::text(&format!("Answer number {i}.")));
        s.send(&format!("Question number {i}")).await.unwrap();
        s.wait_for_text(&format!("Answer number {i}."), WAIT)
            .await
            .unwrap();
    }
    scroll_until(&s, "bottom", "Show me the view", false).await;
    scroll_until(&s, "top", "Question number 19", false).await;
    assert!(message_drawn(&s, "Here is the view.").await);
    s.wait_text("[data-role=view-frame]", WAIT).await.unwrap();
    let count = |needle: &str| {
        report
            .bodies()
            .iter()
            .filter(|b| b.starts_with(needle))
            .count()
    };
    assert_eq!(count("initialized"), 1, "{:?}", report.bodies());
    assert_eq!(count("result "), 1, "{:?}", report.bodies());
    assert_eq!(
        mock.bodies().len(),
        22,
        "the model was asked once a turn, no more"
    );
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

/// A one-page PDF whose page reads `text` (in Helvetica), written object by object with its
/// cross-reference table, for the PDF viewer to read from disk.
fn one_page_pdf(text: &str) -> Vec<u8> {
    let stream = format!("BT /F1 28 Tf 72 700 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_string(),
        format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        out.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// The richer of the registry's example servers: `@modelcontextprotocol/server-pdf`'s viewer
/// (pdf.js) reads the file through its own view-only tool, `read_pdf_bytes`, so the document
/// reaches the view only through a call the user allowed.
#[tokio::test]
async fn the_registrys_pdf_viewer_reads_its_file_through_the_gate_and_renders_it() {
    let _seat = Seat::take().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("gate.pdf");
    std::fs::write(&pdf, one_page_pdf("Tollgate shows this page")).unwrap();
    let pdf = pdf.display().to_string();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-views-pdf")
        .await
        .unwrap();
    let script = mcp_dir()
        .join("node_modules/@modelcontextprotocol/server-pdf/dist/index.js")
        .display()
        .to_string();
    let json = serde_json::json!({"mcpServers": {"pdf": {"command": "node", "args": [script, "--stdio", pdf]}}});
    s.import_mcp_servers(&json, "pdf").await.unwrap();
    s.back_to_chat().await.unwrap();
    let args = serde_json::json!({ "url": pdf }).to_string();
    mock.push(openai::calls("", &[("c1", "pdf__display_pdf", &args)]));
    mock.push(openai::text("Here is the PDF."));
    s.new_chat_and_send("Show me gate.pdf").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Here is the PDF.", WAIT).await.unwrap();
    s.wait_text("[data-role=view-frame]", WAIT).await.unwrap();

    // The view asks for the file's bytes: a card under it, made by the view, waiting.
    let made = s
        .wait_text("[data-role=view-call] [data-role=made-by-view]", WAIT)
        .await
        .unwrap();
    assert!(made.contains("pdf"), "{made}");
    let card = s
        .wait_text("[data-role=view-call] .approval-card", WAIT)
        .await
        .unwrap();
    assert!(card.contains("read_pdf_bytes"), "{card}");
    s.client.clone().enter_frame(0).await.unwrap();
    let before = wait_in_frame(&s, |_| true).await;
    assert!(!before.contains("Tollgate shows"), "{before}");
    s.client.clone().enter_parent_frame().await.unwrap();
    s.screenshots("mcp-view-pdf-asks").await.unwrap();

    // Allowed, one card after another (a first byte, then the file), the bytes reach the view
    // and pdf.js draws the page, its text in the page's text layer.
    let until = std::time::Instant::now() + WAIT;
    let mut allowed = 0;
    loop {
        s.client.clone().enter_frame(0).await.unwrap();
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
        s.client.clone().enter_parent_frame().await.unwrap();
        if text.contains("Tollgate shows this page") {
            break;
        }
        if s.exists(".approval-card.is-active").await.unwrap() {
            let card = s.el(".approval-card.is-active").await.unwrap();
            let what = card.text().await.unwrap_or_default();
            assert!(
                what.contains("pdf"),
                "only the view's own calls ask: {what}"
            );
            // The user, reading the view, presses the card's Allow once.
            s.click_text(".approval-card.is-active button", "Allow once")
                .await
                .unwrap();
            allowed += 1;
        }
        assert!(
            std::time::Instant::now() < until,
            "the page was never drawn ({allowed} calls allowed): {text}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        allowed >= 1,
        "the file reached the view only through allowed calls"
    );
    // Drawn, the viewer asks its server for commands (a call that waits for them): its card
    // asks too. While it waits nothing else comes, and the view is seen as the user sees it.
    let until = std::time::Instant::now() + WAIT;
    loop {
        let card = s.wait_text(".approval-card.is-active", WAIT).await.unwrap();
        if card.contains("poll_pdf_commands") {
            break;
        }
        assert!(
            card.contains("pdf"),
            "only the view's own calls ask: {card}"
        );
        s.click_text(".approval-card.is-active button", "Allow once")
            .await
            .unwrap();
        assert!(
            std::time::Instant::now() < until,
            "the viewer never waited for commands"
        );
    }
    s.client
        .execute(
            "document.querySelector('[data-role=mcp-view]').scrollIntoView({block: 'start'}); return true;",
            vec![],
        )
        .await
        .unwrap();
    s.screenshots("mcp-view-pdf").await.unwrap();
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
