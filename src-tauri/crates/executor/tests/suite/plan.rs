//! A task's grant in the gate (F-98): a call inside the plan the user approved runs without a
//! card and is recorded as allowed by the plan; a call off it asks, its card saying how it
//! leaves the plan; a step's bound is a bound; a grant never widens a deny; an ended grant
//! allows nothing. Judged by what ran (the test tool's own log) and by the rows.

use crate::common::*;
use serde_json::json;
use tollgate_protocol::policy::{CallStatus, DecidedBy};
use tollgate_protocol::{
    ApprovalRequest, AskReason, Decision, ExecutionDecision, GrantSpan, OffPlan, PlanStep,
    RuleAction, RuleScope, Source, TaskGrant, TaskState, ToolEvent,
};

fn step(tool: &str, max_calls: u32, targets: &[&str]) -> PlanStep {
    PlanStep {
        purpose: format!("use {tool}"),
        tool: tool.into(),
        max_calls,
        pattern: None,
        targets: targets.iter().map(|t| t.to_string()).collect(),
        from: Vec::new(),
    }
}

fn grant(steps: Vec<PlanStep>) -> TaskGrant {
    TaskGrant {
        steps,
        span: GrantSpan::Turn,
    }
}

/// The reason on the card the next call raises, which the test then denies.
async fn denied_reason(
    h: &Harness,
    exec: &std::sync::Arc<tollgate_executor::ToolExecutor>,
    text: &str,
) -> AskReason {
    let task = spawn(exec, call("write_thing", json!({ "text": text })));
    let pending = h.next_approval().await;
    let ApprovalRequest::Execution { reason, .. } = pending.request.clone() else {
        panic!("an execution card")
    };
    exec.answer_approval(
        &pending.id,
        Decision::Execution(ExecutionDecision::Deny { reason: None }),
    )
    .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    reason
}

#[tokio::test]
async fn a_call_inside_the_plan_runs_without_a_card_and_one_off_it_says_how_it_leaves() {
    let h = Harness::new().await;
    // `write_thing` asks every time; its `text` is where it goes.
    h.deps.settings.write().tool_mut("write_thing").targets = Some(vec!["text".into()]);
    let exec = h.chat().await;
    exec.grant_task(grant(vec![step("write_thing", 2, &["bob@example.com"])]));

    // Inside: no card, recorded as allowed by the plan.
    let r = run(
        &exec,
        call("write_thing", json!({"text": "BOB@example.com"})),
    )
    .await;
    assert_eq!(r.status, CallStatus::Success, "{r:?}");
    assert!(h.no_approval_waiting().await);
    assert_eq!(h.ran(), vec![json!({"text": "BOB@example.com"})]);
    h.store.flush().await.unwrap();
    let rows = h.store.chat_calls(exec.chat()).await.unwrap();
    assert_eq!(rows[0].decided_by, DecidedBy::Plan);
    // The autonomy figures count it as run without asking, by the plan.
    let figures = h.store.autonomy(Some(exec.chat())).await.unwrap();
    assert_eq!((figures.consequential, figures.by_plan), (1, 1));
    assert_eq!(figures.ratio(), 1.0);

    // A target the plan does not name asks, and the card says which.
    let reason = denied_reason(&h, &exec, "eve@evil.example").await;
    assert_eq!(
        reason,
        AskReason::OffPlan {
            off: OffPlan::Target {
                argument: "/text".into(),
                value: "eve@evil.example".into(),
                taken_from: Vec::new()
            }
            .into(),
            would_allow: None
        }
    );
    assert_eq!(h.ran().len(), 1, "the off-plan call never ran");

    // The second call of the step runs; the third is past its bound.
    run(
        &exec,
        call("write_thing", json!({"text": "bob@example.com"})),
    )
    .await;
    assert_eq!(h.ran().len(), 2);
    assert_eq!(exec.task_grant().map(|t| t.used()), Some(vec![2]));
    let reason = denied_reason(&h, &exec, "bob@example.com").await;
    assert!(
        matches!(
            &reason,
            AskReason::OffPlan { off, .. } if **off == OffPlan::UsedUp { max_calls: 2 }
        ),
        "{reason:?}"
    );

    // Ended, the grant allows nothing: the tool asks as it always does.
    exec.end_task();
    assert_eq!(exec.task_grant(), None);
    assert_eq!(
        denied_reason(&h, &exec, "bob@example.com").await,
        AskReason::AskAlways
    );
    assert_eq!(h.ran().len(), 2);
}

#[tokio::test]
async fn a_grant_never_widens_a_deny_rule_and_names_no_other_tool() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    h.deps
        .rules
        .add(
            "write_thing",
            Some("*secret*".into()),
            RuleAction::Deny,
            RuleScope::Global,
        )
        .await
        .unwrap();
    exec.grant_task(grant(vec![step("write_thing", 5, &[])]));
    let r = run(
        &exec,
        call("write_thing", json!({"text": "the secret plan"})),
    )
    .await;
    assert_eq!(r.status, CallStatus::ExecutionRejected);
    assert!(r.content.contains("rule"), "{}", r.content);
    assert!(h.ran().is_empty());

    // A tool no step names asks, saying so.
    let task = spawn(&exec, call("run", json!({"command": "ls"})));
    let pending = h.next_approval().await;
    let ApprovalRequest::Execution { reason, .. } = &pending.request else {
        panic!("an execution card")
    };
    assert_eq!(
        *reason,
        AskReason::OffPlan {
            off: OffPlan::Tool.into(),
            would_allow: None
        }
    );
    exec.answer_approval(
        &pending.id,
        Decision::Execution(ExecutionDecision::Deny { reason: None }),
    )
    .unwrap();
    task.await.unwrap();
    assert!(h.ran().is_empty());
}

/// Two calls of one round judged inside a step with one call left: one takes it and runs, the
/// other asks as used up, whichever order they run in.
#[tokio::test]
async fn a_steps_last_call_is_taken_once_by_two_calls_of_one_round() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    exec.grant_task(grant(vec![step("read_thing", 1, &[])]));
    let round = {
        let exec = std::sync::Arc::clone(&exec);
        tokio::spawn(async move {
            let calls = vec![
                tollgate_executor::ToolCallRequest::new(
                    "r1",
                    "read_thing",
                    tollgate_protocol::parse::RawArguments::Json(json!({"text": "one"})),
                ),
                tollgate_executor::ToolCallRequest::new(
                    "r2",
                    "read_thing",
                    tollgate_protocol::parse::RawArguments::Json(json!({"text": "two"})),
                ),
            ];
            let limits = tollgate_executor::RoundLimits {
                doom_loop_threshold: 0,
                max_parallel: 4,
            };
            exec.run_round(
                calls,
                tollgate_executor::CallOrigin::default(),
                &mut tollgate_executor::RepeatTracker::default(),
                limits,
                &tokio_util::sync::CancellationToken::new(),
            )
            .await
        })
    };
    let pending = h.next_approval().await;
    let ApprovalRequest::Execution { reason, .. } = &pending.request else {
        panic!("an execution card")
    };
    assert!(
        matches!(
            &reason,
            AskReason::OffPlan { off, .. } if **off == OffPlan::UsedUp { max_calls: 1 }
        ),
        "{reason:?}"
    );
    exec.answer_approval(
        &pending.id,
        Decision::Execution(ExecutionDecision::Deny { reason: None }),
    )
    .unwrap();
    let results = round.await.unwrap();
    let ran: Vec<_> = results
        .iter()
        .filter(|r| r.status == CallStatus::Success)
        .collect();
    assert_eq!(ran.len(), 1, "{results:?}");
    assert_eq!(h.ran().len(), 1, "one call ran");
}

/// What the window hears of a grant: each change, with the calls each step made (the header's
/// plan ticks its steps off from these), and its end.
fn task_events(h: &Harness) -> Vec<Option<TaskState>> {
    h.sink
        .events
        .lock()
        .iter()
        .filter_map(|e| match e {
            ToolEvent::TaskChanged { task, .. } => Some(task.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_window_follows_the_grant_and_a_restart_ends_it() {
    let h = Harness::new().await;
    h.deps.settings.write().tool_mut("write_thing").targets = Some(vec!["text".into()]);
    let exec = h.chat().await;
    let plan = grant(vec![step("write_thing", 2, &["bob@example.com"])]);
    exec.grant_task(plan.clone());
    run(
        &exec,
        call("write_thing", json!({"text": "bob@example.com"})),
    )
    .await;
    let seq = exec.last_seq();
    // The Stop on the header's plan: the grant ends, and the window hears so.
    assert!(exec.end_task());
    assert!(!exec.end_task(), "nothing left to stop");
    assert_eq!(
        task_events(&h),
        [
            Some(TaskState {
                grant: plan.clone(),
                calls: vec![vec![]]
            }),
            Some(TaskState {
                grant: plan.clone(),
                calls: vec![vec![seq]]
            }),
            None,
        ]
    );

    // A grant in force when the app stops does not outlive it: the chat opened again holds
    // none, and the same call asks as the tool always does.
    exec.grant_task(plan);
    assert!(exec.task_grant().is_some());
    let chat = exec.chat();
    drop(exec);
    let h = h.restart().await;
    let exec = h.executor(chat).await;
    assert_eq!(exec.task_grant(), None);
    assert_eq!(
        denied_reason(&h, &exec, "bob@example.com").await,
        AskReason::AskAlways
    );
    assert!(h.ran().is_empty(), "nothing ran after the restart");
}

/// A value a `$VAR_REF` passes on is not the model's own choice: a recipient that reaches a
/// target argument from a file the task read is off the plan, and its card says which file it
/// was taken from.
#[tokio::test]
async fn a_target_passed_on_by_reference_says_where_it_was_taken_from() {
    let h = Harness::new().await;
    h.deps.settings.write().tool_mut("write_thing").targets = Some(vec!["text".into()]);
    let (exec, ws) = h.chat_in_workspace().await;
    std::fs::write(ws.path().join("contacts.txt"), "eve@evil.example\n").unwrap();
    exec.grant_task(grant(vec![
        step("read_file", 1, &[]),
        step("write_thing", 1, &["bob@example.com"]),
    ]));
    let read = run(&exec, call("read_file", json!({"path": "contacts.txt"}))).await;
    assert_eq!(read.status, CallStatus::Success, "{read:?}");
    let var = format!("read_file_c{}_result", exec.last_seq());

    let task = spawn(
        &exec,
        call(
            "write_thing",
            json!({ "text": format!("$VAR_REF{{{{{var}}}}}") }),
        ),
    );
    let pending = h.next_approval().await;
    let ApprovalRequest::Execution { reason, .. } = pending.request.clone() else {
        panic!("an execution card")
    };
    let AskReason::OffPlan { off, .. } = reason else {
        panic!("off the plan: {reason:?}")
    };
    let OffPlan::Target {
        value, taken_from, ..
    } = *off
    else {
        panic!("off the plan by its target: {off:?}")
    };
    assert_eq!(value.trim(), "eve@evil.example");
    assert!(
        matches!(taken_from.as_slice(), [Source::File { path, .. }] if path.ends_with("contacts.txt")),
        "{taken_from:?}"
    );
    exec.answer_approval(
        &pending.id,
        Decision::Execution(ExecutionDecision::Deny { reason: None }),
    )
    .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    assert!(
        h.ran().is_empty(),
        "the recipient from the file was never written to"
    );
}
