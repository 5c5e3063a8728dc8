//! A task's plan in a whole turn (F-98), against the mock LLM: the model proposes its plan,
//! the card shows it and refuses a widened answer, the user keeps part of it, the calls inside
//! it run without a card, the call past its bound asks saying so, and the grant ends with the
//! turn. Judged by what ran (the probe tools' own log) and the rows.

use super::chat::{approval, next_event, Env};
use serde_json::json;
use tollgate_engine::approvals::ApprovalError;
use tollgate_engine::chat::TurnOutcome;
use tollgate_engine::policy::DecidedBy;
use tollgate_engine::protocol::{ApprovalRequest, AskReason, OffPlan};
use tollgate_engine::{Decision, ExecutionDecision};
use tollgate_mock_llm::openai;

#[tokio::test]
async fn a_plan_approved_once_runs_its_calls_without_cards_and_ends_with_the_turn() {
    let env = Env::new().await;
    let plan = json!({"steps": [
        {"purpose": "write the two notes", "tool": "note", "maxCalls": 2, "targets": []},
        {"purpose": "say it is done", "tool": "echo", "maxCalls": 1, "targets": []}
    ]});
    env.mock.push(openai::calls(
        "",
        &[("p1", "propose_plan", &plan.to_string())],
    ));
    env.mock.push(openai::calls(
        "",
        &[
            ("n1", "note", r#"{"text": "first"}"#),
            ("n2", "note", r#"{"text": "second"}"#),
        ],
    ));
    env.mock
        .push(openai::calls("", &[("n3", "note", r#"{"text": "third"}"#)]));
    env.mock.push(openai::text("Both notes are written."));
    let mut handle = env.start(env.openai(), "write two notes");

    // The plan's card: what the model proposed, before anything untrusted was read.
    let card = approval(
        &next_event(&mut handle.events, "the plan's card", |e| {
            approval(e).is_some()
        })
        .await,
    )
    .unwrap();
    let ApprovalRequest::Execution {
        reason: AskReason::Plan { shown },
        ..
    } = &card.request
    else {
        panic!("a plan card: {:?}", card.request)
    };
    assert_eq!(shown.proposal.steps.len(), 2);
    assert!(!shown.exposed);
    // An answer that widens the plan, or remembers it, is refused and the card keeps waiting.
    let widened = json!({"steps": [
        {"purpose": "write the two notes", "tool": "note", "maxCalls": 9, "targets": []}
    ]});
    let err = env
        .exec
        .answer_approval(
            &card.id,
            Decision::Execution(ExecutionDecision::EditAndAllow { arguments: widened }),
        )
        .unwrap_err();
    assert!(matches!(err, ApprovalError::NotThePlanShown), "{err}");
    let err = env
        .exec
        .answer_approval(
            &card.id,
            Decision::Execution(ExecutionDecision::AllowForChat),
        )
        .unwrap_err();
    assert!(matches!(err, ApprovalError::NotThePlanShown), "{err}");
    // The user keeps the first step only.
    let kept = json!({"steps": [
        {"purpose": "write the two notes", "tool": "note", "maxCalls": 2, "targets": []}
    ]});
    env.exec
        .answer_approval(
            &card.id,
            Decision::Execution(ExecutionDecision::EditAndAllow {
                arguments: kept.clone(),
            }),
        )
        .unwrap();

    // The third note is past the step's bound: it asks, saying so. Nothing else asked.
    let past = approval(
        &next_event(&mut handle.events, "the card of the third note", |e| {
            approval(e).is_some()
        })
        .await,
    )
    .unwrap();
    let ApprovalRequest::Execution { reason, .. } = &past.request else {
        panic!("an execution card")
    };
    assert_eq!(
        *reason,
        AskReason::OffPlan {
            off: OffPlan::UsedUp { max_calls: 2 }.into(),
            would_allow: None
        }
    );
    let ran: Vec<String> = env.log.lock().iter().map(|l| l.0.clone()).collect();
    assert_eq!(ran, ["note:first", "note:second"]);
    env.exec
        .answer_approval(
            &past.id,
            Decision::Execution(ExecutionDecision::Deny { reason: None }),
        )
        .unwrap();
    let outcome = handle.join().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );

    // The grant ended with the turn; the rows say who allowed what.
    assert_eq!(env.exec.task_grant(), None);
    env.store.flush().await.unwrap();
    let rows = env.store.chat_calls(env.exec.chat()).await.unwrap();
    let by: Vec<(Option<String>, DecidedBy)> = rows
        .iter()
        .map(|r| (r.tool.clone(), r.decided_by))
        .collect();
    assert_eq!(
        by,
        [
            (Some("propose_plan".into()), DecidedBy::User),
            (Some("note".into()), DecidedBy::Plan),
            (Some("note".into()), DecidedBy::Plan),
            (Some("note".into()), DecidedBy::User),
        ]
    );
    // The grant is stored with the chat: the plan's record holds what the user kept.
    let stored: serde_json::Value =
        serde_json::from_str(rows[0].resolved_args.as_deref().unwrap()).unwrap();
    assert_eq!(stored, kept);
    let ran: Vec<String> = env.log.lock().iter().map(|l| l.0.clone()).collect();
    assert_eq!(
        ran,
        ["note:first", "note:second"],
        "the denied third never ran"
    );
}
