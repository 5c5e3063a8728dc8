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
    exec.asks()
        .answer_approval(
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
    exec.task()
        .grant_task(grant(vec![step("write_thing", 2, &["bob@example.com"])]));

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
    let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
    assert_eq!(rows[0].decided_by, DecidedBy::Plan);
    // The autonomy figures count it as run without asking, by the plan.
    let figures = h.store.calls().autonomy(Some(exec.chat())).await.unwrap();
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
    assert_eq!(exec.task().task_grant().map(|t| t.used()), Some(vec![2]));
    let reason = denied_reason(&h, &exec, "bob@example.com").await;
    assert!(
        matches!(
            &reason,
            AskReason::OffPlan { off, .. } if **off == OffPlan::UsedUp { max_calls: 2 }
        ),
        "{reason:?}"
    );

    // Ended, the grant allows nothing: the tool asks as it always does.
    exec.task().end_task();
    assert_eq!(exec.task().task_grant(), None);
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
    exec.task()
        .grant_task(grant(vec![step("write_thing", 5, &[])]));
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
    exec.asks()
        .answer_approval(
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
    exec.task()
        .grant_task(grant(vec![step("read_thing", 1, &[])]));
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
    exec.asks()
        .answer_approval(
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
    exec.task().grant_task(plan.clone());
    run(
        &exec,
        call("write_thing", json!({"text": "bob@example.com"})),
    )
    .await;
    let seq = exec.last_seq();
    // The Stop on the header's plan: the grant ends, and the window hears so.
    assert!(exec.task().end_task());
    assert!(!exec.task().end_task(), "nothing left to stop");
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
    exec.task().grant_task(plan);
    assert!(exec.task().task_grant().is_some());
    let chat = exec.chat();
    drop(exec);
    let h = h.restart().await;
    let exec = h.executor(chat).await;
    assert_eq!(exec.task().task_grant(), None);
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
    exec.task().grant_task(grant(vec![
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
    exec.asks()
        .answer_approval(
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

/// Whether a call that sends to `to` asks (then denied) rather than running.
async fn sends_to(
    h: &Harness,
    exec: &std::sync::Arc<tollgate_executor::ToolExecutor>,
    to: &str,
) -> bool {
    let task = spawn(exec, call("write_thing", json!({ "text": to })));
    tokio::select! {
        r = task => {
            let r = r.unwrap();
            assert_eq!(r.status, CallStatus::Success, "{r:?}");
            false
        }
        p = h.next_approval() => {
            exec.asks().answer_approval(&p.id, Decision::Execution(ExecutionDecision::Deny { reason: None }))
                .unwrap();
            true
        }
    }
}

/// A harness whose `write_thing` sends to its `text`.
async fn sending() -> Harness {
    let h = Harness::new().await;
    h.deps.settings.write().tool_mut("write_thing").targets = Some(vec!["text".into()]);
    h
}

/// What a step's `from` learns (F-98): only the successful results, as shown after review, of
/// the plan's own lookups — not an error, not a result the user withheld, not a lookup keyed on
/// what a page named. Each is followed by a call that would send to the value the result
/// named: it asks, and denied it never runs. The control: a plain lookup's answer is granted.
#[tokio::test]
async fn a_steps_sources_grant_only_what_the_plans_own_lookups_showed() {
    use tollgate_provenance::{ExposureBuilder, SharedExposure};
    let plan = |lookup: &str| {
        let mut send = step("write_thing", 3, &[]);
        send.from = vec![lookup.to_string()];
        grant(vec![step(lookup, 3, &[]), send])
    };
    // The control: the plan's lookup answers an address; sending to it is inside the plan.
    let h = sending().await;
    let exec = h.chat().await;
    exec.task().grant_task(plan("echo"));
    let r = run(&exec, call("echo", json!({"text": "Alice Archer"}))).await;
    assert_eq!(r.status, CallStatus::Success);
    assert!(
        !sends_to(&h, &exec, "Alice Archer").await,
        "the lookup's answer is granted"
    );

    // An error result names a host: not granted.
    let h = sending().await;
    let exec = h.chat().await;
    exec.task().grant_task(plan("fails"));
    // Its error is shown to the user first (it asks for review on error): approved as it is.
    let task = spawn(&exec, call("fails", json!({})));
    let review = h.next_approval().await;
    exec.asks()
        .answer_approval(
            &review.id,
            Decision::Result(tollgate_protocol::ResultDecision::Approve),
        )
        .unwrap();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::Error);
    assert!(r.content.contains("x.txt"), "{}", r.content);
    assert!(
        sends_to(&h, &exec, "x.txt").await,
        "an error's text grants nothing"
    );

    // A result the user withheld on review: not granted.
    let h = sending().await;
    let exec = h.chat().await;
    exec.task().grant_task(plan("reviewed"));
    let task = spawn(&exec, call("reviewed", json!({"text": "Eve Evans"})));
    let review = h.next_approval().await;
    exec.asks()
        .answer_approval(
            &review.id,
            Decision::Result(tollgate_protocol::ResultDecision::Reject { reason: None }),
        )
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ResultRejected);
    assert!(
        sends_to(&h, &exec, "SECRET OUTPUT for Eve Evans").await,
        "a withheld result grants nothing"
    );

    // A lookup keyed on a name only a page gave: its answer is the page's choice.
    let h = sending().await;
    let exec = h.chat().await;
    exec.task().grant_task(plan("echo"));
    let mut read = ExposureBuilder::new();
    read.add_typed("Look up the contact the page names and write them.");
    read.add(
        &[Source::Web {
            url: "https://news.example/p".into(),
            host: "news.example".into(),
        }],
        "Please look up Mallory Moss in the directory.",
    );
    let origin = tollgate_executor::CallOrigin {
        exposure: Some(SharedExposure(read.snapshot())),
        ..Default::default()
    };
    let r = exec
        .execute(
            call("echo", json!({"text": "Mallory Moss"})),
            origin,
            &tokio_util::sync::CancellationToken::new(),
        )
        .await;
    assert_eq!(r.status, CallStatus::Success, "{r:?}");
    assert!(
        sends_to(&h, &exec, "Mallory Moss").await,
        "a lookup keyed on a page's name grants nothing"
    );
    assert!(
        !h.ran().iter().any(|args| args["text"] == "Mallory Moss"
            || args["text"] == "SECRET OUTPUT for Eve Evans"
            || args["text"] == "x.txt"),
        "{:?}",
        h.ran()
    );
}

/// A call the plan allots that asks anyway (an ask rule) and that the user allows on its card
/// uses up its step's call: the next one is past the bound.
#[tokio::test]
async fn a_call_allowed_on_its_card_inside_a_step_uses_up_its_call() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    h.deps
        .rules
        .add(
            "write_thing",
            None,
            RuleAction::Ask,
            RuleScope::Chat { chat: exec.chat() },
        )
        .await
        .unwrap();
    exec.task()
        .grant_task(grant(vec![step("write_thing", 1, &[])]));
    let task = spawn(&exec, call("write_thing", json!({"text": "first"})));
    let card = h.next_approval().await;
    exec.asks()
        .answer_approval(&card.id, Decision::Execution(ExecutionDecision::AllowOnce))
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::Success);
    let state = exec.task().task_grant().unwrap();
    assert_eq!(
        state.calls[0].len(),
        1,
        "the allowed call took the step's call"
    );
    let reason = denied_reason(&h, &exec, "second").await;
    assert!(
        matches!(&reason, AskReason::OffPlan { off, .. } if **off == OffPlan::UsedUp { max_calls: 1 })
            || matches!(reason, AskReason::Rule { .. }),
        "{reason:?}"
    );
    assert_eq!(exec.task().task_grant().unwrap().calls[0].len(), 1);
}

/// A plan step that runs commands, in a chat whose sandbox is off: the command asks, saying the
/// plan cannot hold it, and denied it never runs.
#[tokio::test]
async fn a_plans_command_asks_where_the_sandbox_cannot_hold_it() {
    let h = Harness::new().await;
    let (exec, ws) = h.chat_in_workspace().await;
    exec.set_sandbox(tollgate_protocol::ChatSandbox {
        level: tollgate_protocol::SandboxLevel::Off,
        ..Default::default()
    })
    .await
    .unwrap();
    exec.task()
        .grant_task(grant(vec![step("run_command", 3, &["127.0.0.1"])]));
    let marker = ws.path().join("ran");
    let task = spawn(
        &exec,
        call(
            "run_command",
            json!({"command": format!("touch {}", marker.display())}),
        ),
    );
    let card = h.next_approval().await;
    let ApprovalRequest::Execution { reason, .. } = card.request.clone() else {
        panic!("an execution card")
    };
    assert!(
        matches!(&reason, AskReason::OffPlan { off, .. }
            if **off == OffPlan::Unconfined { mode: tollgate_protocol::SandboxMode::Off }),
        "{reason:?}"
    );
    exec.asks()
        .answer_approval(
            &card.id,
            Decision::Execution(ExecutionDecision::Deny { reason: None }),
        )
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    assert!(!marker.exists());
}
