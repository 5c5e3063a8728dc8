//! Calls that go on after their turn as their server's task (F-99), through the whole app: the
//! turn waits as long as the call may take, then the model is told the call goes on and the turn
//! ends; the task is kept with the call, followed again after a restart, and its result passes
//! result review and takes the place of the note in the chat, so the next turn's request
//! carries it. Judged by what the model's server (the mock LLM) received and the task server's
//! log (tests/mcp/python/task-server.py, over streamable HTTP so it outlives the app).

use super::oauth::settled;
use super::sandbox::app::tool_results;
use super::service::{turn, with_mock};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tollgate_engine::chat::{TurnInput, TurnOutcome};
use tollgate_engine::service::Tollgate;
use tollgate_engine::{ChatId, Decision};
use tollgate_mcp::{McpServerConfig, McpStatus};
use tollgate_mock_llm::{openai, MockLlm};
use tollgate_protocol::policy::CallStatus;
use tollgate_protocol::policy::ResultPolicy;
use tollgate_protocol::{ApprovalRequest, ResultDecision};
use tollgate_store::RecordStatus;
use tollgate_test_support::mcp_servers::{logged, over_http, task_in, task_server};

/// The task server at `url` as `tasks`: its calls handed over after a second, their results
/// reviewed as `review` says.
fn tasks(url: &str, review: ResultPolicy) -> McpServerConfig {
    let mut config = McpServerConfig::http("tasks", url);
    config.timeout_secs = 1;
    config.result_policy = Some(review);
    config
}

/// A test's folder with the task server over HTTP: its log, the file whose existence ends a
/// long job, and the server's endpoint (stopped when this is dropped).
struct Served {
    dir: tempfile::TempDir,
    log: PathBuf,
    gate: PathBuf,
    url: String,
    _server: tokio::process::Child,
}

async fn served() -> Served {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tasks.log");
    let gate = dir.path().join("go");
    let (server, url) = over_http(task_server(), "TASK_LOG", &log).await;
    Served {
        dir,
        log,
        gate,
        url,
        _server: server,
    }
}

/// The app on `dir` with the task server ready and the mock model as its provider.
async fn app_with_tasks(dir: &Path, config: &McpServerConfig) -> Arc<Tollgate> {
    let app = super::service::open(dir).await;
    app.mcp_servers()
        .save_mcp_server(config.clone(), None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "tasks").await, McpStatus::Ready);
    super::mcp::registry_has(&app, "tasks__long_job", true).await;
    app
}

/// A turn in `chat` in which the model starts the long job (which ends once `gate` exists), is
/// told it goes on, and says so.
async fn start_job(app: &Arc<Tollgate>, mock: &MockLlm, chat: ChatId, gate: &Path) {
    let args = json!({"label": "the report", "gate": gate.display().to_string()}).to_string();
    mock.push(openai::calls("", &[("c1", "tasks__long_job", &args)]));
    mock.push(openai::text("The report is being made."));
    let (on_event, mut events) = super::service::collector();
    app.send(chat, TurnInput::Message("make the report".into()), on_event)
        .await
        .unwrap();
    // A server's tools are asked for until the user has seen them (SPEC §11): allowed once.
    super::mcp::approve_next(app, chat).await;
    let (_, outcome) = super::service::until_finished(&mut events).await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
}

/// The call's row, once it has left `status`.
async fn call_once_not(app: &Tollgate, chat: ChatId, status: RecordStatus) -> Value {
    tollgate_test_support::wait::eventually_some_async("the call's row changes", || async {
        let call = app.store().calls().recorded_call(chat, 1).await.unwrap();
        call.filter(|c| c.status != status)
            .map(|c| serde_json::to_value(c).unwrap())
    })
    .await
}

/// A long job that never ends by itself, going on after its turn: the app, its model, its chat
/// and the task server's log.
struct Job {
    app: Arc<Tollgate>,
    mock: MockLlm,
    chat: ChatId,
    log: PathBuf,
    _served: Served,
}

impl Job {
    async fn going_on() -> Self {
        let served = served().await;
        let app = app_with_tasks(served.dir.path(), &tasks(&served.url, ResultPolicy::Never)).await;
        let mock = with_mock(&app).await;
        let chat = crate::common::new_chat(&app).await;
        start_job(&app, &mock, chat, &served.dir.path().join("never")).await;
        Self {
            app,
            mock,
            chat,
            log: served.log.clone(),
            _served: served,
        }
    }
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_task_that_outlasts_its_turn_is_followed_after_a_restart_and_its_result_reaches_the_model(
) {
    let Served {
        dir,
        log,
        gate,
        url,
        ..
    } = &served().await;
    let config = tasks(url, ResultPolicy::Never);
    let app = app_with_tasks(dir.path(), &config).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    start_job(&app, &mock, chat, gate).await;
    // The model was told the call goes on, not a result and not a failure.
    let told = tool_results(&mock);
    assert!(
        told[0].contains("goes on as a task on its server"),
        "{told:?}"
    );
    // The task's id is the server's text: the model is never given it.
    let task_id = task_in(log, "tools/call").unwrap();
    assert!(!told[0].contains(task_id.as_str().unwrap()), "{told:?}");
    let row = app.store().calls().recorded_call(chat, 1).await.unwrap();
    assert_eq!(row.unwrap().status, RecordStatus::InBackground);
    // The app quits as the window's close does; the task goes on on its server.
    app.mcp_servers().manager().shutdown().await;
    drop(app);
    assert!(
        !logged(log).iter().any(|e| e["method"] == "tasks/cancel"),
        "the task was cancelled when the app quit"
    );
    let app = super::service::open(dir.path()).await;
    // As the window does once it has painted.
    app.start_background_work();
    // Followed again: the restarted app reads the task before it ends.
    let readings = || {
        logged(log)
            .iter()
            .filter(|e| e["method"] == "tasks/get")
            .count()
    };
    let before = readings();
    crate::common::eventually("the restarted app follows the task", || readings() > before).await;
    std::fs::write(gate, "go").unwrap();
    let row = call_once_not(&app, chat, RecordStatus::InBackground).await;
    assert_eq!(row["status"], "success", "{row}");
    assert_eq!(row["resultText"], "job done: the report");
    // The next turn's request carries the result where the note was.
    mock.push(openai::text("Done."));
    turn(&app, chat, TurnInput::Message("is it done?".into())).await;
    let told = tool_results(&mock);
    assert_eq!(told, vec!["job done: the report".to_string()]);
    // Where it came from went with it: the chat's exposure counts the task's server.
    let messages = app.store().branches().chat_messages(chat).await.unwrap();
    let exposure = tollgate_engine::chat::exposure::from_rows(&messages, &Default::default());
    assert!(
        exposure.snapshot().sources().iter().any(
            |s| matches!(s, tollgate_protocol::Source::McpTool { server, .. } if server == "tasks")
        ),
        "the late result's source is not in the chat's exposure"
    );
    assert!(app
        .store()
        .calls()
        .chat_call_tasks(chat)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_late_result_waits_for_review_and_the_model_gets_what_the_user_approved() {
    let Served { dir, gate, url, .. } = &served().await;
    let app = app_with_tasks(dir.path(), &tasks(url, ResultPolicy::Always)).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    start_job(&app, &mock, chat, gate).await;
    std::fs::write(gate, "go").unwrap();
    // The result arrives after the turn: the user reviews it before the model sees it.
    crate::common::eventually("the late result waits for review", || {
        !app.asks().pending(chat).is_empty()
    })
    .await;
    let review = app.asks().pending(chat).pop().unwrap();
    assert_eq!(review.seq, 1);
    let ApprovalRequest::Result {
        text_for_model,
        status,
        ..
    } = &review.request
    else {
        panic!("not a result's review: {:?}", review.request);
    };
    assert_eq!(
        (text_for_model.as_str(), *status),
        ("job done: the report", CallStatus::Success)
    );
    let row = app.store().calls().recorded_call(chat, 1).await.unwrap();
    assert_eq!(row.unwrap().status, RecordStatus::InBackground);
    app.asks()
        .answer_approval(
            chat,
            &review.id,
            Decision::Result(ResultDecision::EditAndApprove {
                text: "the report, as the user put it".into(),
            }),
        )
        .await
        .unwrap();
    let row = call_once_not(&app, chat, RecordStatus::InBackground).await;
    assert_eq!(row["resultText"], "the report, as the user put it");
    mock.push(openai::text("Done."));
    turn(&app, chat, TurnInput::Message("is it done?".into())).await;
    assert_eq!(
        tool_results(&mock),
        vec!["the report, as the user put it".to_string()]
    );
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_task_going_on_after_its_turn_is_stopped_from_its_card_and_on_its_server() {
    let job = Job::going_on().await;
    let (app, mock, chat, log) = (&job.app, &job.mock, job.chat, &job.log);
    // Its follower holds the call's Stop once the turn is over.
    tollgate_test_support::wait::eventually_some_async("the call can be stopped", || async {
        app.chats().stop_call(chat, 1).await.then_some(())
    })
    .await;
    let row = call_once_not(app, chat, RecordStatus::InBackground).await;
    assert_eq!(row["status"], "cancelled", "{row}");
    crate::common::eventually("the server is told to stop the task", || {
        logged(log).iter().any(|e| e["method"] == "tasks/cancel")
    })
    .await;
    assert_eq!(task_in(log, "tools/call"), task_in(log, "tasks/cancel"));
    // The model is told at its next turn that the user stopped it.
    mock.push(openai::text("Stopped."));
    turn(app, chat, TurnInput::Message("what happened?".into())).await;
    let told = tool_results(mock);
    assert!(told[0].contains("The user stopped the call"), "{told:?}");
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn deleting_a_chat_stops_its_tasks_on_their_servers() {
    let job = Job::going_on().await;
    let (app, chat, log) = (&job.app, job.chat, &job.log);
    app.chats().delete_chat(chat).await.unwrap();
    crate::common::eventually("the server is told to stop the task", || {
        logged(log).iter().any(|e| e["method"] == "tasks/cancel")
    })
    .await;
    assert!(app
        .store()
        .calls()
        .chats_with_call_tasks()
        .await
        .unwrap()
        .is_empty());
}

/// Allows call `seq` of `chat` once, when its card is there.
async fn allow(app: &Tollgate, chat: ChatId, seq: u64) {
    let card = tollgate_test_support::wait::eventually_some_async("the call's card", || async {
        app.asks().pending(chat).into_iter().find(|p| p.seq == seq)
    })
    .await;
    app.asks()
        .answer_approval(
            chat,
            &card.id,
            Decision::Execution(tollgate_engine::ExecutionDecision::AllowOnce),
        )
        .await
        .unwrap();
}

/// A call handed over in a round whose other call still waits for the user: its task ends
/// before the round's tool message is written, and its result still reaches the model.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_task_that_ends_before_its_round_does_still_reaches_the_model() {
    let Served { dir, gate, url, .. } = &served().await;
    let app = app_with_tasks(dir.path(), &tasks(url, ResultPolicy::Never)).await;
    let mut settings = app.preferences().tool_settings();
    settings.tool_mut("calculate").execution_policy =
        Some(tollgate_protocol::policy::ExecutionPolicy::AskAlways);
    app.preferences().set_tool_settings(settings).await.unwrap();
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    let job = json!({"label": "the report", "gate": gate.display().to_string()}).to_string();
    mock.push(openai::calls(
        "",
        &[
            ("c1", "tasks__long_job", &job),
            ("c2", "calculate", r#"{"expression": "6*7"}"#),
        ],
    ));
    mock.push(openai::text("Both under way."));
    let (on_event, mut events) = super::service::collector();
    app.send(chat, TurnInput::Message("report and sum".into()), on_event)
        .await
        .unwrap();
    allow(&app, chat, 1).await;
    // The job goes on after its wait and ends while the sum still waits for the user.
    call_once_not(&app, chat, RecordStatus::Running).await;
    std::fs::write(gate, "go").unwrap();
    let row = call_once_not(&app, chat, RecordStatus::InBackground).await;
    assert_eq!(row["resultText"], "job done: the report");
    allow(&app, chat, 2).await;
    super::service::until_finished(&mut events).await;
    mock.push(openai::text("Done."));
    turn(&app, chat, TurnInput::Message("and now?".into())).await;
    assert_eq!(
        tool_results(&mock),
        vec!["job done: the report".to_string(), "42".to_string()]
    );
}

/// A chat exported while a call of it goes on as a task, imported again: nobody follows the
/// task in the copy, so the copy's call has ended, and the model is told its result stayed
/// behind, not that it will come.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn an_imported_copy_says_its_task_stayed_behind() {
    let job = Job::going_on().await;
    let (app, chat) = (&job.app, job.chat);
    let exported = tollgate_engine::chat::export::json(app.store(), chat)
        .await
        .unwrap()
        .to_string();
    let copy = app.chats().import_chats(exported.as_bytes()).await.unwrap()[0].id;
    let calls = app.store().calls().chat_calls(copy).await.unwrap();
    assert_eq!(calls[0].status, RecordStatus::Cancelled);
    assert!(app
        .store()
        .calls()
        .chats_with_call_tasks()
        .await
        .unwrap()
        .iter()
        .all(|c| *c != copy));
    let messages = app.store().branches().chat_messages(copy).await.unwrap();
    let told: Vec<String> = tollgate_engine::chat::history::from_rows(&messages)
        .into_iter()
        .filter_map(|m| match m {
            tollgate_providers::ChatMessage::Tool { results } => {
                Some(results.into_iter().map(|r| r.content))
            }
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(told.len(), 1);
    assert!(
        told[0].contains("its result is not in this copy"),
        "{told:?}"
    );
}
