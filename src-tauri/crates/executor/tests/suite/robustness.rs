//! Failures that must not hurt: timeouts, Stop, panicking tools, and a crash mid-call.

use crate::common::*;
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_executor::CallOrigin;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::policy::CallStatus;
use tollgate_store::RecordStatus;
use tollgate_store::{CallStart, Store};

#[tokio::test]
async fn a_hanging_tool_times_out_and_its_token_is_cancelled() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("sleeps", json!({"ms": 60_000}))).await;
    assert_eq!(r.status, CallStatus::TimedOut);
    assert!(
        r.content.contains("did not finish within 0.3 s"),
        "{}",
        r.content
    );
    h.cancelled_seen
        .raised("the tool's cancellation token fired")
        .await;
    h.store.flush().await.unwrap();
    assert_eq!(
        h.store.calls().chat_calls(exec.chat()).await.unwrap()[0].status,
        RecordStatus::TimedOut
    );
}

#[tokio::test]
async fn the_user_timeout_override_applies() {
    let mut settings = tollgate_protocol::ToolSettings::default();
    settings.tool_mut("sleeps").timeout_ms = Some(120_000);
    let h = Harness::with_settings(settings).await;
    let exec = h.chat().await;
    let r = run(&exec, call("sleeps", json!({"ms": 500}))).await;
    assert_eq!(r.status, CallStatus::Success, "{}", r.content);
}

#[tokio::test]
async fn stop_cancels_a_running_tool() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    h.deps.settings.write().tool_mut("sleeps").timeout_ms = Some(60_000);
    let cancel = CancellationToken::new();
    let task = {
        let exec = exec.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            exec.execute(
                call("sleeps", json!({"ms": 60_000})),
                CallOrigin::default(),
                &cancel,
            )
            .await
        })
    };
    h.sleeping.raised("the tool began").await;
    cancel.cancel();
    let r = tokio::time::timeout(Duration::from_secs(60), task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.status, CallStatus::Cancelled);
    assert!(r.content.contains("stopped by the user"), "{}", r.content);
    h.cancelled_seen
        .raised("the tool's cancellation token fired")
        .await;
}

/// Stop on one call's card stops that call alone: its tool is told, the model is told the
/// user stopped it, and the turn (its token) goes on; a call not running is not stopped.
#[tokio::test]
async fn stop_on_a_calls_card_stops_that_call_and_not_the_turn() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    h.deps.settings.write().tool_mut("sleeps").timeout_ms = Some(60_000);
    let turn = CancellationToken::new();
    let task = {
        let exec = exec.clone();
        let turn = turn.clone();
        tokio::spawn(async move {
            exec.execute(
                call("sleeps", json!({"ms": 60_000})),
                CallOrigin::default(),
                &turn,
            )
            .await
        })
    };
    h.sleeping.raised("the tool began").await;
    let seq = exec.last_seq();
    assert!(!exec.under_way().stop(seq + 1), "no such call runs");
    assert!(exec.under_way().stop(seq));
    let r = tokio::time::timeout(Duration::from_secs(60), task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.status, CallStatus::Cancelled);
    assert!(
        r.content.contains("The user stopped the call"),
        "{}",
        r.content
    );
    assert!(!turn.is_cancelled(), "the turn goes on");
    h.cancelled_seen
        .raised("the tool's cancellation token fired")
        .await;
    assert!(
        !exec.under_way().stop(seq),
        "an ended call is no longer running"
    );
}

/// A Stop that lands while the run is polled, after the gate looked at the Stop (a runtime
/// with more than one thread allows it), is still the user's Stop: the model is told the user
/// stopped the call, not the tool's own words as an error.
#[tokio::test]
async fn a_stop_that_lands_while_the_tool_is_polled_is_the_users_stop() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("stopped_mid_run", json!({}))).await;
    assert_eq!(r.status, CallStatus::Cancelled, "{}", r.content);
    assert!(
        r.content.contains("The user stopped the call"),
        "{}",
        r.content
    );
    assert!(!r.content.contains("Error from tool"), "{}", r.content);
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("panics", json!({}))).await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(
        r.content.contains("crashed: tool bug: value missing"),
        "{}",
        r.content
    );
    // The executor keeps working.
    assert_eq!(
        run(&exec, call("echo", json!({"text": "still here"})))
            .await
            .content,
        "still here"
    );
}

#[tokio::test]
async fn calls_left_running_by_a_crash_are_marked_on_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let chat: ChatId;
    {
        let store = Store::open_in(dir.path()).unwrap();
        chat = store.create_chat(Default::default()).await.unwrap().id;
        store.calls().record_call_start(CallStart {
            chat,
            message_id: None,
            round: 0,
            seq: 1,
            call_id: "call_x".into(),
            requested_name: "write_thing".into(),
            raw_args: "{}".into(),
            started_at: 0,
            view_of: None,
        });
        store.flush().await.unwrap();
        // The process "dies" here: no finish is ever recorded.
    }
    let store = Store::open_in(dir.path()).unwrap();
    let rows = store.calls().chat_calls(chat).await.unwrap();
    assert_eq!(rows[0].status, RecordStatus::Cancelled);
    assert!(rows[0].is_error);
    assert!(rows[0]
        .result_text
        .as_deref()
        .unwrap()
        .contains("Interrupted"));
}

#[tokio::test]
async fn opening_an_executor_for_a_missing_chat_is_an_error() {
    let h = Harness::new().await;
    let err = tollgate_executor::ToolExecutor::open(ChatId(999), h.deps.clone())
        .await
        .err()
        .unwrap();
    assert_eq!(err.to_string(), "chat 999 does not exist");
}

#[tokio::test]
async fn every_failure_has_content_a_row_and_an_event() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let results = vec![
        run(&exec, call_text("echo", "{oops")).await,
        run(&exec, call("nope", json!({}))).await,
        run(&exec, call("echo", json!({"text": 1}))).await,
        run(&exec, call("echo", json!({"text": "$VAR_REF{{missing}}"}))).await,
        run(&exec, call("panics", json!({}))).await,
        run(&exec, call("sleeps", json!({"ms": 60_000}))).await,
    ];
    for r in &results {
        assert!(r.is_error);
        assert!(!r.content.trim().is_empty());
    }
    h.store.flush().await.unwrap();
    let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
    let statuses: Vec<String> = rows.iter().map(|r| r.status.to_string()).collect();
    assert_eq!(
        statuses,
        [
            "invalid_args",
            "not_found",
            "invalid_args",
            "invalid_args",
            "error",
            "timed_out"
        ]
    );
    let finished = h
        .sink
        .events
        .lock()
        .iter()
        .filter(|e| matches!(e, tollgate_protocol::ToolEvent::Finished { .. }))
        .count();
    assert_eq!(finished, 6);
}
