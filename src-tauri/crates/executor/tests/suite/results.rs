//! Result approval (F-06), formatting and store & truncate (F-15, F-16).

use crate::common::*;
use serde_json::json;
use tollgate_protocol::policy::{CallDecision, CallStatus, ExecutionChoice, ResultChoice};
use tollgate_protocol::ApprovalRequest;
use tollgate_protocol::ToolSettings;
use tollgate_protocol::{Decision, ResultDecision};

#[tokio::test]
async fn a_rejected_result_never_reaches_the_model_or_a_variable() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let task = spawn(&exec, call("reviewed", json!({"text": "db"})));
    let p = h.next_approval().await;
    let ApprovalRequest::Result {
        text_for_model,
        full_output,
        status,
        ..
    } = &p.request
    else {
        panic!("{p:?}")
    };
    assert_eq!(text_for_model, "SECRET OUTPUT for db");
    assert_eq!(full_output, "SECRET OUTPUT for db");
    assert_eq!(*status, CallStatus::Success);
    exec.asks()
        .answer_approval(
            &p.id,
            Decision::Result(ResultDecision::Reject {
                reason: Some("private".into()),
            }),
        )
        .unwrap();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::ResultRejected);
    assert!(!r.content.contains("SECRET"), "{}", r.content);
    assert!(
        r.content.contains("withheld the result") && r.content.contains("Reason: private"),
        "{}",
        r.content
    );
    assert!(r.result_var.is_none());
    assert!(
        exec.vars()
            .list()
            .iter()
            .all(|v| !v.name.starts_with("reviewed_")),
        "{:?}",
        exec.vars().list()
    );
    h.store.flush().await.unwrap();
    let row = &h.store.calls().chat_calls(exec.chat()).await.unwrap()[0];
    assert_eq!(row.status, tollgate_store::RecordStatus::ResultRejected);
    assert!(!row
        .result_text
        .as_deref()
        .unwrap_or_default()
        .contains("SECRET"));
    assert_eq!(
        row.decision,
        CallDecision {
            execution: Some(ExecutionChoice::Allow),
            result: Some(ResultChoice::Reject)
        }
    );
    // Not readable through a reference either.
    let r = run(
        &exec,
        call("echo", json!({"text": "$VAR_REF{{reviewed_c1_result}}"})),
    )
    .await;
    assert_eq!(r.status, CallStatus::InvalidArgs);
}

#[tokio::test]
async fn an_edited_result_is_what_the_model_gets_and_what_is_stored() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let task = spawn(&exec, call("reviewed", json!({"text": "x"})));
    let p = h.next_approval().await;
    exec.asks()
        .answer_approval(
            &p.id,
            Decision::Result(ResultDecision::EditAndApprove {
                text: "redacted".into(),
            }),
        )
        .unwrap();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(r.content, "redacted");
    assert_eq!(
        exec.vars().peek("reviewed_c1_result").as_deref(),
        Some("redacted")
    );

    let task = spawn(&exec, call("reviewed", json!({"text": "y"})));
    let p = h.next_approval().await;
    exec.asks()
        .answer_approval(&p.id, Decision::Result(ResultDecision::Approve))
        .unwrap();
    assert_eq!(task.await.unwrap().content, "SECRET OUTPUT for y");
}

#[tokio::test]
async fn on_error_review_asks_only_for_errors() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let task = spawn(&exec, call("fails", json!({})));
    let p = h.next_approval().await;
    let ApprovalRequest::Result {
        status,
        text_for_model,
        ..
    } = &p.request
    else {
        panic!()
    };
    assert_eq!(*status, CallStatus::Error);
    assert!(text_for_model.contains("no such thing"));
    exec.asks()
        .answer_approval(&p.id, Decision::Result(ResultDecision::Approve))
        .unwrap();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::Error);
    assert!(r.is_error);
}

#[tokio::test]
async fn long_results_are_truncated_with_a_reference_to_the_full_text() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("lines", json!({"n": 5000}))).await;
    let full: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    assert!(r.truncated);
    assert!(
        r.content.chars().count() < 8_300,
        "{}",
        r.content.chars().count()
    );
    assert!(r.content.starts_with("line 0\n"));
    assert!(r.content.ends_with("line 4999\n"));
    assert!(
        r.content
            .contains("chars omitted — full text in $VAR_REF{{lines_c1_result}}"),
        "{}",
        &r.content[..200]
    );
    assert_eq!(
        exec.vars().peek("lines_c1_result").as_deref(),
        Some(full.as_str())
    );

    // The call's own limit wins; 0 and -1 mean everything.
    let r = run(&exec, call("lines", json!({"n": 5000, "limit": 0}))).await;
    assert!(!r.truncated);
    assert_eq!(r.content, full);
    let r = run(&exec, call("lines", json!({"n": 5000, "limit": -1}))).await;
    assert_eq!(r.content, full);
    let r = run(&exec, call("lines", json!({"n": 5000, "limit": 100}))).await;
    assert!(r.truncated);
    let notice_start = r.content.find("\n…[").unwrap();
    let notice_end = r.content.find("]…\n").unwrap() + "]…\n".len();
    assert!(notice_start + (r.content.len() - notice_end) <= 100);

    // The model reads the rest by reference.
    let rest = run(
        &exec,
        call(
            "ReadVar",
            json!({"name": "lines_c4_result", "start": 0, "length": 14}),
        ),
    )
    .await;
    assert!(
        rest.content.ends_with("line 0\nline 1\n"),
        "{}",
        rest.content
    );
}

#[tokio::test]
async fn the_global_default_and_tool_overrides_set_the_limit() {
    let mut settings = ToolSettings {
        default_output_limit: 50,
        ..Default::default()
    };
    settings.tool_mut("echo").output_limit = Some(10);
    let h = Harness::with_settings(settings).await;
    let exec = h.chat().await;
    let r = run(&exec, call("lines", json!({"n": 20}))).await;
    assert!(r.truncated);
    let r = run(&exec, call("echo", json!({"text": "0123456789abcdef"}))).await;
    assert!(r.truncated, "{}", r.content);
    assert!(r.content.starts_with("012345"));
    assert!(r.content.ends_with("def"));
}

#[tokio::test]
async fn empty_output_still_says_something() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("echo", json!({"text": ""}))).await;
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(
        r.content,
        "The tool \"echo\" finished successfully and returned no output."
    );
}
