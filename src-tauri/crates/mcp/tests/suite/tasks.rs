//! Calls a 2026-07-28 server runs as tasks (the Tasks extension, F-99), against the task server
//! (Python SDK 2.x, tests/mcp/python/task-server.py): followed to their result, their status
//! shown on the call, their questions put to the user, and stopped on the server when the call
//! is stopped. Judged by what the server's log says it received.

use super::{args, options};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_mcp::elicitation::ElicitationHub;
use tollgate_mcp::progress::CallProgress;
use tollgate_mcp::{
    Asks, CallOptions, McpConnection, McpError, McpServerConfig, ServerSlot, Session,
};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::{ElicitationAnswer, EventSink, PendingElicitation, ToolEvent};
use tollgate_test_support::mcp_servers::{task_in, task_server};
use tollgate_test_support::wait::eventually;

/// The task server over stdio, writing what it receives to `log`.
fn tasks(log: &std::path::Path) -> McpServerConfig {
    let (python, script) = task_server();
    McpServerConfig::stdio("tasks", &python, &[&script, "stdio"])
        .with_env("TASK_LOG", log.display().to_string())
}

/// What the task server received, in order.
fn received(log: &std::path::Path) -> Vec<Value> {
    tollgate_test_support::mcp_servers::logged(log)
}

/// Whether the server's log holds an entry for `method` with `status` (any, if `None`).
fn logged(log: &std::path::Path, method: &str, status: Option<&str>) -> bool {
    received(log)
        .iter()
        .any(|e| e["method"] == method && status.is_none_or(|s| e["status"] == s))
}

#[tokio::test]
async fn a_task_is_followed_to_its_result_and_its_status_is_shown_on_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tasks.log");
    let gate = dir.path().join("go");
    let conn = McpConnection::connect(&tasks(&log), &[], Default::default())
        .await
        .unwrap();
    let shown = Arc::new(parking_lot::Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&shown);
    let call_options = CallOptions {
        on_progress: Arc::new(move |p: CallProgress| {
            seen.lock().extend(p.message);
        }),
        ..options(Duration::from_secs(60), &CancellationToken::new())
    };
    let gate_arg = gate.display().to_string();
    let call = conn.call(
        "long_job",
        args(json!({"label": "the report", "gate": gate_arg})),
        &call_options,
    );
    let finish = async {
        // The task is under way on the server, and its card says what it is doing.
        eventually("the task is followed", || {
            logged(&log, "tasks/get", Some("working"))
        })
        .await;
        eventually("its status is shown", || {
            shown.lock().iter().any(|m| m == "working on the report")
        })
        .await;
        std::fs::write(&gate, "go").unwrap();
    };
    let (out, ()) = tokio::join!(call, finish);
    assert_eq!(
        tollgate_mcp::render_result(&out.unwrap()).text,
        "job done: the report"
    );
    assert!(logged(&log, "tasks/get", Some("completed")));
    assert!(
        !logged(&log, "tasks/cancel", None),
        "an ended task is not cancelled"
    );
    conn.shutdown().await;
}

/// Hands each question the hub puts to the user to the test's stand-in user.
struct Questions(tokio::sync::mpsc::UnboundedSender<PendingElicitation>);

impl EventSink for Questions {
    fn emit(&self, event: ToolEvent) {
        if let ToolEvent::ElicitationRequested { elicitation } = event {
            let _ = self.0.send(elicitation);
        }
    }
}

#[tokio::test]
async fn a_task_that_needs_input_asks_on_its_call_and_gets_the_users_answer() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tasks.log");
    let (tx, mut questions) = tokio::sync::mpsc::unbounded_channel();
    let hub = ElicitationHub::new(Arc::new(Questions(tx)));
    let slot = Arc::new(ServerSlot::new("tasks"));
    let session = Session {
        oauth: None,
        asks: Some(Asks {
            slot: Arc::clone(&slot),
            hub: Arc::clone(&hub),
            sampler: None,
        }),
    };
    let conn = McpConnection::connect(&tasks(&log), &[], session)
        .await
        .unwrap();
    let cancel = CancellationToken::new();
    let (_running, call_options) = super::on_card(&slot, ChatId(4), 9, &cancel, None);
    let call = conn.call(
        "long_question",
        args(json!({"topic": "taxes"})),
        &call_options,
    );
    let user = async {
        let q = questions.recv().await.unwrap();
        assert_eq!((q.chat, q.seq), (ChatId(4), 9), "asked on the task's call");
        assert_eq!(q.message, "Whose job is this?");
        hub.answer(
            ChatId(4),
            &q.id,
            ElicitationAnswer::Accept {
                content: Some(json!({"name": "Ada"})),
            },
        )
        .unwrap();
    };
    // A bound for a failure, not a wait: a question put twice would wait for an answer
    // that never comes.
    let (out, ()) =
        tokio::time::timeout(Duration::from_secs(60), async { tokio::join!(call, user) })
            .await
            .expect("the task ended without the question being put again");
    assert_eq!(
        tollgate_mcp::render_result(&out.unwrap()).text,
        "job for Ada done"
    );
    // The reading after the answer still showed the question: it was not put again.
    assert!(
        questions.try_recv().is_err(),
        "the answered question was asked again"
    );
    let readings: Vec<Value> = received(&log)
        .into_iter()
        .filter(|e| e["method"] == "tasks/get" && e["status"] == "input_required")
        .collect();
    assert!(readings.len() >= 2, "the stale reading came: {readings:?}");
    let update = received(&log)
        .into_iter()
        .find(|e| e["method"] == "tasks/update")
        .expect("the answer was sent with tasks/update");
    assert_eq!(update["input_responses"]["who"]["content"]["name"], "Ada");
    conn.shutdown().await;
}

#[tokio::test]
async fn a_stopped_call_cancels_its_task_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tasks.log");
    let conn = McpConnection::connect(&tasks(&log), &[], Default::default())
        .await
        .unwrap();
    let cancel = CancellationToken::new();
    let gate = dir.path().join("never");
    let gate_arg = gate.display().to_string();
    let call_options = options(Duration::from_secs(60), &cancel);
    let call = conn.call(
        "long_job",
        args(json!({"label": "forever", "gate": gate_arg})),
        &call_options,
    );
    let stop = async {
        eventually("the task is followed", || {
            logged(&log, "tasks/get", Some("working"))
        })
        .await;
        cancel.cancel();
    };
    let (out, ()) = tokio::join!(call, stop);
    assert_eq!(out.unwrap_err(), McpError::Cancelled);
    // Judged by the server's log: it was told to stop that very task.
    eventually("the server is told", || logged(&log, "tasks/cancel", None)).await;
    assert_eq!(task_in(&log, "tools/call"), task_in(&log, "tasks/cancel"));
    conn.shutdown().await;
}

/// A task is long work by design: it is followed past its call's timeout while its server says
/// how it stands, and its result still arrives. The task's readings come at least 50 ms apart
/// (the pace the server asks), so thirty of them outlast the one-second timeout.
#[tokio::test]
async fn a_task_outlives_its_calls_timeout_while_its_server_answers() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tasks.log");
    let gate = dir.path().join("go");
    let conn = McpConnection::connect(&tasks(&log), &[], Default::default())
        .await
        .unwrap();
    let gate_arg = gate.display().to_string();
    let call_options = options(Duration::from_secs(1), &CancellationToken::new());
    let call = conn.call(
        "long_job",
        args(json!({"label": "the long one", "gate": gate_arg})),
        &call_options,
    );
    let finish = async {
        eventually("thirty readings of the task", || {
            received(&log)
                .iter()
                .filter(|e| e["method"] == "tasks/get")
                .count()
                >= 30
        })
        .await;
        std::fs::write(&gate, "go").unwrap();
    };
    let (out, ()) = tokio::join!(call, finish);
    assert_eq!(
        tollgate_mcp::render_result(&out.unwrap()).text,
        "job done: the long one"
    );
    conn.shutdown().await;
}

/// A task that outlasts the wait its call was given goes on on its server, untouched; the
/// call is handed over with the task's id, and following that id on a new session (the app
/// started again) gets the task's result. A task the server does not know is said to be so.
#[tokio::test]
async fn a_task_that_outlasts_its_wait_goes_on_and_is_followed_again_on_a_new_session() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tasks.log");
    let gate = dir.path().join("go");
    let (_server, url) =
        tollgate_test_support::mcp_servers::over_http(task_server(), "TASK_LOG", &log).await;
    let config = McpServerConfig::http("tasks", url);
    let conn = McpConnection::connect(&config, &[], Default::default())
        .await
        .unwrap();
    let gate_arg = gate.display().to_string();
    let call_options = CallOptions {
        hand_over: Some(Duration::from_millis(200)),
        ..options(Duration::from_secs(60), &CancellationToken::new())
    };
    let out = conn
        .call(
            "long_job",
            args(json!({"label": "the report", "gate": gate_arg})),
            &call_options,
        )
        .await;
    let Err(McpError::RunsOn(task)) = out else {
        panic!("the call was not handed over: {out:?}");
    };
    conn.shutdown().await;
    assert_eq!(
        task_in(&log, "tools/call"),
        Some(Value::from(task.as_str())),
        "handed over with its own id"
    );
    std::fs::write(&gate, "go").unwrap();
    let again = McpConnection::connect(&config, &[], Default::default())
        .await
        .unwrap();
    let out = again
        .follow_task(
            &task,
            &options(Duration::from_secs(60), &CancellationToken::new()),
        )
        .await
        .unwrap();
    assert_eq!(
        tollgate_mcp::render_result(&out).text,
        "job done: the report"
    );
    assert!(
        !logged(&log, "tasks/cancel", None),
        "a task handed over was cancelled"
    );
    let unknown = again
        .follow_task(
            "no-such-task",
            &options(Duration::from_secs(60), &CancellationToken::new()),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, McpError::Call(m) if !m.is_empty()),
        "{unknown:?}"
    );
    again.shutdown().await;
}
