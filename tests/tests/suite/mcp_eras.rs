//! Both eras of MCP in one chat, in the real window (F-99): a server on the Python SDK 2.x that
//! speaks 2026-07-28 and the npm registry's everything server (2025-11-25 only), each showing
//! its protocol on its card and each used in the same turn. The new server's call needs the
//! user's input twice (`input_required`): each question comes on the call's card, answered
//! from the keyboard, and no second approval card appears for its rounds; the model's try with
//! a changed argument is a call of its own, and asks. Judged by what the model was sent and what
//! the server's own log received.

use std::time::Duration;
use tollgate_e2e::node_servers::mcp_dir;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::{completions, keys, tool_results};
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;
use tollgate_test_support::mcp_servers::{logged, over_http, task_in, task_server};

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_2026_07_28_server_and_a_2025_11_25_server_are_used_in_one_chat() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-eras")
        .await
        .unwrap();
    let python_dir = mcp_dir().join("python");
    let python = python_dir.join(".venv/bin/python");
    assert!(
        python.is_file(),
        "run bash .ci/setup.sh (the Python MCP SDK)"
    );
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("era.log");
    let everything = mcp_dir()
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string();
    s.import_mcp_json(&serde_json::json!({"mcpServers": {
        "era": {
            "command": python.display().to_string(),
            "args": [python_dir.join("era-server.py").display().to_string(), "stdio"],
            "env": {"ERA_LOG": log.display().to_string()}
        },
        "everything": {"command": "node", "args": [everything, "stdio"]}
    }}))
    .await
    .unwrap();
    for server in ["era", "everything"] {
        s.wait_text(&format!("[data-server={server}] [data-status=ready]"), WAIT)
            .await
            .unwrap();
    }
    // Each card says which protocol its server speaks.
    let era = s
        .wait_text("[data-server=era] [data-role=mcp-protocol]", WAIT)
        .await
        .unwrap();
    assert!(era.contains("2026-07-28"), "{era}");
    let old = s
        .wait_text("[data-server=everything] [data-role=mcp-protocol]", WAIT)
        .await
        .unwrap();
    assert!(old.contains("2025-11-25"), "{old}");
    s.screenshots("mcp-eras-settings").await.unwrap();
    s.back_to_chat().await.unwrap();

    // One turn, one call to each.
    mock.push(openai::calls(
        "",
        &[
            (
                "c1",
                "everything__echo",
                r#"{"message":"from the older era"}"#,
            ),
            ("c2", "era__ask_twice", r#"{"topic":"rivers"}"#),
        ],
    ));
    mock.push(openai::text("Both servers answered."));
    s.new_chat_and_send("Ask both servers").await.unwrap();
    for _ in 0..2 {
        s.active_approval().await.unwrap();
        s.press(keys::ENTER).await.unwrap();
    }
    // The questions of the new server's call, one at a time, on its card: no approval card
    // comes back for its rounds.
    for answer in ["Ada", "teal"] {
        s.wait_text("[data-elicitation] .approval-head", WAIT)
            .await
            .unwrap();
        let id = s
            .client
            .execute(
                "return document.querySelector('[data-elicitation]').getAttribute('data-elicitation');",
                vec![],
            )
            .await
            .unwrap();
        let id = id.as_str().unwrap().to_string();
        assert!(
            !s.exists(".approval-card[data-approval]").await.unwrap(),
            "a round of the call asked for approval again"
        );
        s.type_here(answer).await.unwrap();
        if answer == "teal" {
            s.screenshots("mcp-eras-second-question").await.unwrap();
        }
        s.press(keys::ENTER).await.unwrap();
        s.wait_gone(
            &format!("[data-elicitation='{id}']"),
            "the question stayed after it was answered",
        )
        .await
        .unwrap();
    }
    s.wait_for_text("Both servers answered.", WAIT)
        .await
        .unwrap();
    let results = tool_results(&completions(&mock)[1]);
    assert!(
        results.iter().any(|r| r.contains("from the older era")),
        "{results:?}"
    );
    assert!(
        results.iter().any(|r| r == "rivers: Ada likes teal"),
        "{results:?}"
    );
    // The server's own log: three rounds of one call, each with the approved arguments.
    let rounds = logged(&log);
    assert_eq!(rounds.len(), 3, "{rounds:?}");
    assert!(rounds
        .iter()
        .all(|r| r["arguments"] == serde_json::json!({"topic": "rivers"})
            && r["protocol"] == "2026-07-28"));

    // The model tries the call again with another argument: no round of the approved call, but
    // a call of its own, and it asks. Nothing reaches the server until the user decides, and
    // Escape on the card denies it.
    mock.push(openai::calls(
        "",
        &[("c3", "era__ask_twice", r#"{"topic":"lakes"}"#)],
    ));
    mock.push(openai::text("Not about lakes, then."));
    s.send("And about lakes?").await.unwrap();
    let asked = s.wait_text(".approval-card.is-active", WAIT).await.unwrap();
    assert!(asked.contains("lakes"), "{asked}");
    assert_eq!(logged(&log).len(), 3, "the changed call reached the server");
    s.press(keys::ESCAPE).await.unwrap();
    s.wait_for_text("Not about lakes, then.", WAIT)
        .await
        .unwrap();
    assert_eq!(logged(&log).len(), 3, "a denied call reached the server");
    s.close().await;
}

/// Waits until the app itself (not the window's list, which may still show the state from
/// before a save) says server `name` is ready: a saved change starts it again, and its tools
/// are back only then.
async fn until_ready(s: &Session, name: &str) {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let status = s
            .client
            .execute_async(
                r#"
                const [name, done] = arguments;
                window.__TAURI_INTERNALS__.invoke('list_mcp_servers')
                  .then((all) => done(all.find((v) => v.config.name === name)?.state.status.state ?? 'absent'),
                        (e) => done('error: ' + e));
                "#,
                vec![serde_json::Value::String(name.to_string())],
            )
            .await
            .unwrap();
        if status == "ready" {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{name} is not ready after {WAIT:?}: {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Roots and sampling by consent (F-99), from the keyboard: a server that asks which folders it
/// may see is told none and its call ends saying how to allow it, until the user turns on "Let
/// it see the chat's workspace folder" and "Let it ask the chat's model" in its form (Tab to
/// each switch, Space, Tab to Save, Enter); then the same call is answered with the chat's
/// workspace folder, and a call that asks the chat's model shows the whole request on its card
/// and is answered by the model once the user tabs to "Let the model answer" and presses Enter.
#[tokio::test]
async fn a_server_sees_the_chats_folder_and_asks_its_model_once_the_user_lets_it() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-roots")
        .await
        .unwrap();
    let python_dir = mcp_dir().join("python");
    s.import_mcp_json(&serde_json::json!({"mcpServers": {
        "era": {
            "command": python_dir.join(".venv/bin/python").display().to_string(),
            "args": [python_dir.join("era-server.py").display().to_string(), "stdio"]
        }
    }}))
    .await
    .unwrap();
    s.wait_text("[data-server=era] [data-status=ready]", WAIT)
        .await
        .unwrap();
    s.back_to_chat().await.unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let folder = workspace
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    s.new_chat().await.unwrap();
    s.set_workspace(workspace.path()).await.unwrap();

    // Not allowed yet: the call ends saying how to allow it.
    mock.push(openai::calls("", &[("c1", "era__folders", "{}")]));
    mock.push(openai::text("I may not see any folder."));
    s.send("Which folders can you see?").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("I may not see any folder.", WAIT)
        .await
        .unwrap();
    let results = tool_results(&completions(&mock)[1]);
    assert!(
        results
            .iter()
            .any(|r| r.contains("the user has not let it")),
        "{results:?}"
    );
    assert!(!results.iter().any(|r| r.contains(&folder)), "{results:?}");

    // The user lets it, from the keyboard, in the server's form.
    s.open_settings("MCP servers").await.unwrap();
    s.click_text("[data-server=era] button", "Edit")
        .await
        .unwrap();
    s.tab_to("mcp-share-workspace").await.unwrap();
    s.press(keys::SPACE).await.unwrap();
    s.tab_to("mcp-share-model").await.unwrap();
    s.press(keys::SPACE).await.unwrap();
    s.screenshots("mcp-share-workspace").await.unwrap();
    s.tab_to("Save").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    // The form closes once the save is made (and the server is starting again).
    s.wait_gone("form.mcp-form", "the form stayed after Save")
        .await
        .unwrap();
    until_ready(&s, "era").await;
    s.wait_text("[data-server=era] [data-status=ready]", WAIT)
        .await
        .unwrap();
    s.back_to_chat().await.unwrap();

    mock.push(openai::calls("", &[("c2", "era__folders", "{}")]));
    mock.push(openai::text("I see the workspace."));
    s.send("And now?").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("I see the workspace.", WAIT).await.unwrap();
    let results = tool_results(&completions(&mock)[3]);
    assert!(
        results
            .iter()
            .any(|r| r.starts_with("file://") && r.contains(&folder)),
        "{results:?}"
    );

    // The server asks the chat's model: the request waits on the call's card, whole.
    mock.push(openai::calls(
        "",
        &[("c3", "era__summarise", r#"{"passage":"rivers"}"#)],
    ));
    mock.push(openai::text("Rivers run to the sea."));
    mock.push(openai::text("The server has its summary."));
    s.send("Summarise rivers").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let asked = s
        .wait_text("[data-elicitation] [data-role=elicit-sampling]", WAIT)
        .await
        .unwrap();
    assert!(asked.contains("Summarise in one line: rivers"), "{asked}");
    assert!(
        !s.exists(".approval-card[data-approval]").await.unwrap(),
        "the call asked for approval again"
    );
    assert_eq!(
        completions(&mock).len(),
        5,
        "the model was asked before the user agreed"
    );
    s.screenshots("mcp-sampling-request").await.unwrap();
    s.tab_to("elicit-sample").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("The server has its summary.", WAIT)
        .await
        .unwrap();
    let sent = completions(&mock);
    // The model read the server's text alone (no tools, none of the chat)…
    let borrowed = sent[5].to_string();
    assert!(
        borrowed.contains("Summarise in one line: rivers"),
        "{borrowed}"
    );
    assert!(
        !borrowed.contains("Which folders can you see?"),
        "{borrowed}"
    );
    assert!(
        sent[5]["tools"].as_array().is_none_or(|t| t.is_empty()),
        "{borrowed}"
    );
    // …and the server had its answer, which the call's card keeps for the user to read.
    let kept = s.wait_text("[data-role=lent-model]", WAIT).await.unwrap();
    assert!(kept.contains("answered this server 1 time"), "{kept}");
    // Opened, the call shows what the model was sent and what it wrote, and what it cost.
    s.click(".tool-card[data-seq='3'] > .tool-card-head")
        .await
        .unwrap();
    let exchange = s
        .wait_text("[data-role=lent-exchange]", WAIT)
        .await
        .unwrap();
    assert!(
        exchange.contains("Summarise in one line: rivers")
            && exchange.contains("Rivers run to the sea.")
            && exchange.contains("mock-large · 11 in · 7 out"),
        "{exchange}"
    );
    s.screenshots("mcp-sampling-kept").await.unwrap();
    let results = tool_results(&sent[6]);
    assert!(
        results
            .iter()
            .any(|r| r.starts_with("summary: Rivers run to the sea.")),
        "{results:?}"
    );
    s.close().await;
}

/// The task server's long job as the model asks for it: its label, the file whose existence ends
/// it, and what the model answers after the call.
struct LongJob<'a> {
    label: &'a str,
    gate: &'a std::path::Path,
    reply: &'a str,
}

/// Imports the task server as `tasks` (its entry `server` as an MCP JSON file gives it), then,
/// in a new chat, has the model call `long_job` for `job` and allows the call on its card with
/// Enter. Leaves the call running.
async fn start_long_job(
    s: &Session,
    mock: &tollgate_mock_llm::MockLlm,
    server: serde_json::Value,
    job: LongJob<'_>,
) {
    s.import_mcp_json(&serde_json::json!({"mcpServers": {"tasks": server}}))
        .await
        .unwrap();
    s.wait_text("[data-server=tasks] [data-status=ready]", WAIT)
        .await
        .unwrap();
    s.back_to_chat().await.unwrap();
    let args =
        serde_json::json!({"label": job.label, "gate": job.gate.display().to_string()}).to_string();
    mock.push(openai::calls("", &[("c1", "tasks__long_job", &args)]));
    mock.push(openai::text(job.reply));
    s.new_chat_and_send(&format!("Write {}", job.label))
        .await
        .unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
}

/// A call a server runs as a task (the Tasks extension, F-99) shows its status on its card and
/// is stopped from there, from the keyboard: the server's own log says the task was cancelled,
/// and the turn goes on with the model told the user stopped the call.
#[tokio::test]
async fn a_task_is_stopped_from_its_card_and_the_server_cancels_it() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-task")
        .await
        .unwrap();
    let python_dir = mcp_dir().join("python");
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("tasks.log");
    let never = log_dir.path().join("never");
    let server = serde_json::json!({
        "command": python_dir.join(".venv/bin/python").display().to_string(),
        "args": [python_dir.join("task-server.py").display().to_string(), "stdio"],
        "env": {"TASK_LOG": log.display().to_string()}
    });
    let job = LongJob {
        label: "the quarterly report",
        gate: &never,
        reply: "You stopped the report.",
    };
    start_long_job(&s, &mock, server, job).await;
    // The task's status on its card, then Stop, from the keyboard.
    s.wait_for_text("working on the quarterly report", WAIT)
        .await
        .unwrap();
    s.screenshots("mcp-task-running").await.unwrap();
    s.tab_to("stop-call").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("You stopped the report.", WAIT)
        .await
        .unwrap();
    let results = tool_results(&completions(&mock)[1]);
    assert!(
        results
            .iter()
            .any(|r| r.contains("The user stopped the call")),
        "{results:?}"
    );
    // Judged by the server's log: that very task was cancelled.
    let started = task_in(&log, "tools/call").expect("the task started");
    let cancelled = tollgate_test_support::wait::eventually_some_async(
        "the server is told to cancel the task",
        || async { task_in(&log, "tasks/cancel") },
    )
    .await;
    assert_eq!(cancelled, started);
    s.close().await;
}

/// A call a server runs as a task that outlasts its turn (F-99): the turn ends with the model
/// told the call goes on, and the card says so; the user quits the app, and the task goes on on
/// its server (over HTTP, so it outlives the app). Started again, the app follows the task and
/// its result shows on the call's card; the next turn's request carries it in place of the note.
/// Judged by the task server's log and what the model's server received.
#[tokio::test]
async fn a_task_started_in_one_turn_shows_its_result_after_a_restart() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-late")
        .await
        .unwrap();
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("tasks.log");
    let gate = log_dir.path().join("go");
    let (_server, url) = over_http(task_server(), "TASK_LOG", &log).await;
    let server = serde_json::json!({"type": "http", "url": url, "timeout": 2});
    let job = LongJob {
        label: "the annual report",
        gate: &gate,
        reply: "The annual report is being made.",
    };
    start_long_job(&s, &mock, server, job).await;
    s.wait_for_text("The annual report is being made.", WAIT)
        .await
        .unwrap();
    s.wait_for_text("Goes on in the background", WAIT)
        .await
        .unwrap();
    s.screenshots("mcp-task-in-background").await.unwrap();
    let told = tool_results(&completions(&mock)[1]);
    assert!(
        told[0].contains("goes on as a task on its server"),
        "{told:?}"
    );

    // The user quits; the task goes on on its server, and ends while the app is closed.
    let dir = s.close_keeping_data().await.unwrap();
    assert!(
        !logged(&log).iter().any(|e| e["method"] == "tasks/cancel"),
        "quitting cancelled the task"
    );
    std::fs::write(&gate, "go").unwrap();
    let s = Session::start_in(dir, &[]).await.unwrap();
    s.click(".sidebar .chat-list .chat-item").await.unwrap();
    s.wait_for_text("job done: the annual report", WAIT)
        .await
        .unwrap();
    s.screenshots("mcp-task-late-result").await.unwrap();
    mock.push(openai::text("It is done."));
    s.send("Is it done?").await.unwrap();
    s.wait_for_text("It is done.", WAIT).await.unwrap();
    let told = tool_results(&completions(&mock)[2]);
    assert_eq!(told, vec!["job done: the annual report".to_string()]);
    s.close().await;
}
