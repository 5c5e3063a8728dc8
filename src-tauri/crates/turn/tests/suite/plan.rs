//! A task's plan in a whole turn (F-98), against the mock LLM: the model proposes its plan,
//! the card shows it and refuses a widened answer, the user keeps part of it, the calls inside
//! it run without a card, the call past its bound asks saying so, and the grant ends with the
//! turn. Judged by what ran (the probe tools' own log) and the rows.

use super::chat::{approval, next_event, Env};
use serde_json::json;
use tollgate_engine::chat::TurnOutcome;
use tollgate_engine::{Decision, ExecutionDecision};
use tollgate_executor::approvals::ApprovalError;
use tollgate_mock_llm::openai;
use tollgate_protocol::policy::DecidedBy;
use tollgate_protocol::{ApprovalRequest, AskReason, OffPlan};

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
        .asks()
        .answer_approval(
            &card.id,
            Decision::Execution(ExecutionDecision::EditAndAllow { arguments: widened }),
        )
        .unwrap_err();
    assert!(matches!(err, ApprovalError::NotThePlanShown), "{err}");
    let err = env
        .exec
        .asks()
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
        .asks()
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
        .asks()
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
    assert_eq!(env.exec.task().task_grant(), None);
    env.store.flush().await.unwrap();
    let rows = env.store.calls().chat_calls(env.exec.chat()).await.unwrap();
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

/// A provider that answers its first request through `inner` and panics on the next: a bug in
/// the loop's own code, in the middle of a turn that holds a grant.
struct PanicsOnSecondRequest {
    inner: std::sync::Arc<dyn tollgate_providers::Provider>,
    calls: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl tollgate_providers::Provider for PanicsOnSecondRequest {
    fn kind(&self) -> tollgate_protocol::ProviderKind {
        self.inner.kind()
    }

    async fn complete(
        &self,
        request: &tollgate_providers::Outgoing,
        on_delta: &mut (dyn FnMut(tollgate_providers::StreamDelta) + Send),
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<tollgate_providers::Completion, tollgate_providers::ProviderError> {
        if self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            panic!("index out of bounds in the round's bookkeeping");
        }
        self.inner.complete(request, on_delta, cancel).await
    }

    async fn models(&self) -> Result<Vec<String>, tollgate_providers::ProviderError> {
        Ok(Vec::new())
    }
}

/// Every way a turn ends ends its grant (F-98): an answer, a provider's failure, Stop, and a
/// panic that unwinds the turn. After each, the chat holds no grant, and in the next turn the
/// call the plan named asks and, denied, never runs.
#[tokio::test]
async fn every_way_a_turn_ends_ends_its_grant() {
    use tollgate_protocol::ToolEvent;
    for ending in ["answer", "failure", "stop", "panic"] {
        let env = Env::new().await;
        let plan = json!({"steps": [
            {"purpose": "write notes", "tool": "note", "maxCalls": 5, "targets": []}
        ]});
        env.mock.push(openai::calls(
            "",
            &[("p1", "propose_plan", &plan.to_string())],
        ));
        match ending {
            "answer" => env.mock.push(openai::text("Done.")),
            "failure" => env.mock.push(tollgate_mock_llm::Reply::status(
                400,
                "the request is invalid",
            )),
            // A long call the turn is stopped in.
            "stop" => env
                .mock
                .push(openai::calls("", &[("s1", "slow", r#"{"text": "wait"}"#)])),
            _ => {}
        }
        let provider: std::sync::Arc<dyn tollgate_providers::Provider> = if ending == "panic" {
            std::sync::Arc::new(PanicsOnSecondRequest {
                inner: env.openai(),
                calls: Default::default(),
            })
        } else {
            env.openai()
        };
        let mut handle = env.start(provider, "write the notes");
        let card = approval(
            &next_event(&mut handle.events, "the plan's card", |e| {
                approval(e).is_some()
            })
            .await,
        )
        .unwrap();
        env.exec
            .asks()
            .answer_approval(&card.id, Decision::Execution(ExecutionDecision::AllowOnce))
            .unwrap();
        next_event(&mut handle.events, "the grant", |e| {
            matches!(e, tollgate_engine::chat::ChatEvent::Tool { event }
                if matches!(&**event, ToolEvent::TaskChanged { task: Some(_), .. }))
        })
        .await;
        if ending == "stop" {
            next_event(&mut handle.events, "the long call", |e| {
                matches!(e, tollgate_engine::chat::ChatEvent::Tool { event }
                    if matches!(&**event, ToolEvent::Started { tool, .. } if tool == "slow"))
            })
            .await;
            handle.stop();
        }
        let outcome = handle.join().await;
        assert_eq!(env.exec.task().task_grant(), None, "{ending}: {outcome:?}");

        // The next turn: the note the plan named asks, and denied it never runs.
        env.mock
            .push(openai::calls("", &[("n1", "note", r#"{"text": "after"}"#)]));
        env.mock.push(openai::text("Not written."));
        let mut next = env.start(env.openai(), "one more note");
        let asked = approval(
            &next_event(&mut next.events, "the note's card", |e| {
                approval(e).is_some()
            })
            .await,
        )
        .unwrap();
        let ApprovalRequest::Execution { reason, .. } = &asked.request else {
            panic!("{ending}: an execution card: {:?}", asked.request)
        };
        assert_eq!(asked.tool, "note", "{ending}");
        assert!(
            !matches!(reason, AskReason::OffPlan { .. } | AskReason::Plan { .. }),
            "{ending}: no plan is in force: {reason:?}"
        );
        env.exec
            .asks()
            .answer_approval(
                &asked.id,
                Decision::Execution(ExecutionDecision::Deny { reason: None }),
            )
            .unwrap();
        next.join().await;
        let ran: Vec<String> = env.log.lock().iter().map(|l| l.0.clone()).collect();
        assert!(
            !ran.contains(&"note:after".to_string()),
            "{ending}: {ran:?}"
        );
    }
}
