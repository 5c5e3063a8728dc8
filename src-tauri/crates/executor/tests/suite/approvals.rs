//! Execution approvals (F-03 … F-05, F-07): every decision, ask-once records, rules, and the
//! refusal of decisions that do not belong.

use crate::common::*;
use serde_json::json;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tollgate_executor::approvals::ApprovalError;
use tollgate_executor::{CallOrigin, ToolExecutor};
use tollgate_protocol::policy::{CallStatus, DecidedBy, ExecutionChoice, ExecutionPolicy};
use tollgate_protocol::{ApprovalRequest, AskReason, RuleGrant, RuleScopeChoice};
use tollgate_protocol::{Decision, ExecutionDecision};
use tollgate_protocol::{RuleAction, RuleScope};

fn exec_decision(d: ExecutionDecision) -> Decision {
    Decision::Execution(d)
}

async fn ask_and_decide(
    h: &Harness,
    exec: &Arc<ToolExecutor>,
    req: tollgate_executor::ToolCallRequest,
    d: ExecutionDecision,
) -> tollgate_executor::ToolCallResult {
    let task = spawn(exec, req);
    let pending = h.next_approval().await;
    exec.asks()
        .answer_approval(&pending.id, exec_decision(d))
        .unwrap();
    task.await.unwrap()
}

#[tokio::test]
async fn ask_always_shows_the_full_request_and_allow_once_runs_once() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let task = spawn(&exec, call("write_thing", json!({"text": "a"})));
    let pending = h.next_approval().await;
    assert_eq!(pending.chat, exec.chat());
    assert_eq!(pending.tool, "write_thing");
    assert_eq!(pending.group, "test");
    assert_eq!(pending.id.as_str().len(), 32);
    let ApprovalRequest::Execution {
        arguments,
        policy,
        reason,
        ..
    } = &pending.request
    else {
        panic!()
    };
    assert_eq!(arguments, &json!({"text": "a"}));
    assert_eq!(*policy, ExecutionPolicy::AskAlways);
    assert_eq!(*reason, AskReason::AskAlways);
    assert!(h.ran().is_empty(), "nothing runs before the decision");
    assert_eq!(exec.asks().pending().len(), 1);
    exec.asks()
        .answer_approval(&pending.id, exec_decision(ExecutionDecision::AllowOnce))
        .unwrap();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(h.ran(), vec![json!({"text": "a"})]);

    // The same call asks again.
    let r = ask_and_decide(
        &h,
        &exec,
        call("write_thing", json!({"text": "a"})),
        ExecutionDecision::AllowOnce,
    )
    .await;
    assert_eq!(r.status, CallStatus::Success);
    h.store.flush().await.unwrap();
    let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
    assert_eq!(rows[0].decided_by, DecidedBy::User);
    assert_eq!(rows[0].decision.execution, Some(ExecutionChoice::AllowOnce));
}

#[tokio::test]
async fn allow_for_this_chat_covers_identical_calls_only_and_survives_a_restart() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let chat = exec.chat();
    let r = ask_and_decide(
        &h,
        &exec,
        call("write_thing", json!({"text": "same"})),
        ExecutionDecision::AllowForChat,
    )
    .await;
    assert_eq!(r.status, CallStatus::Success);
    let r = run(&exec, call("write_thing", json!({"text": "same"}))).await;
    assert_eq!(
        r.status,
        CallStatus::Success,
        "identical call runs without asking"
    );
    assert!(h.no_approval_waiting().await);

    // Different arguments ask again; deny it.
    let r = ask_and_decide(
        &h,
        &exec,
        call("write_thing", json!({"text": "other"})),
        ExecutionDecision::Deny { reason: None },
    )
    .await;
    assert_eq!(r.status, CallStatus::ExecutionRejected);

    // Another chat is not covered.
    let other = h.chat().await;
    let task = spawn(&other, call("write_thing", json!({"text": "same"})));
    let p = h.next_approval().await;
    assert_eq!(p.chat, other.chat());
    other
        .asks()
        .answer_approval(
            &p.id,
            exec_decision(ExecutionDecision::Deny { reason: None }),
        )
        .unwrap();
    task.await.unwrap();

    let records = exec.asks().records().await.unwrap();
    assert_eq!(records.len(), 1);
    assert!(records[0].allowed);
    assert_eq!(records[0].args, r#"{"text":"same"}"#);

    let h = h.restart().await;
    let exec = h.executor(chat).await;
    let r = run(&exec, call("write_thing", json!({"text": "same"}))).await;
    assert_eq!(r.status, CallStatus::Success, "records persist");
    h.store.flush().await.unwrap();
    let rows = h.store.calls().chat_calls(chat).await.unwrap();
    assert_eq!(rows.last().unwrap().decided_by, DecidedBy::Record);
    assert_eq!(
        r.seq as usize,
        rows.len(),
        "call numbers continue after a restart"
    );

    // Revoking the record makes the call ask again.
    let hash = exec.asks().records().await.unwrap()[0].args_hash.clone();
    assert!(exec
        .asks()
        .revoke_record("write_thing", &hash)
        .await
        .unwrap());
    let task = spawn(&exec, call("write_thing", json!({"text": "same"})));
    let p = h.next_approval().await;
    exec.asks()
        .answer_approval(&p.id, exec_decision(ExecutionDecision::AllowOnce))
        .unwrap();
    task.await.unwrap();
}

#[tokio::test]
async fn ask_once_remembers_a_denial() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = ask_and_decide(
        &h,
        &exec,
        call("read_thing", json!({"text": "x"})),
        ExecutionDecision::Deny {
            reason: Some("not that file".into()),
        },
    )
    .await;
    assert_eq!(r.status, CallStatus::ExecutionRejected);
    assert!(
        r.content
            .contains("The user denied this call. Reason: not that file"),
        "{}",
        r.content
    );
    let r = run(&exec, call("read_thing", json!({"text": "x"}))).await;
    assert_eq!(r.status, CallStatus::ExecutionRejected);
    assert!(
        r.content.contains("denied this exact call earlier"),
        "{}",
        r.content
    );
    assert!(h.ran().is_empty());
    // Key order does not matter: same canonical arguments.
    let records = exec.asks().records().await.unwrap();
    assert_eq!(records.len(), 1);
    assert!(!records[0].allowed);
}

#[tokio::test]
async fn always_allow_creates_a_rule_with_the_chosen_scope() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let task = spawn(&exec, call("run", json!({"command": "git status -s"})));
    let p = h.next_approval().await;
    let ApprovalRequest::Execution {
        suggested_pattern, ..
    } = &p.request
    else {
        panic!()
    };
    assert_eq!(suggested_pattern.as_deref(), Some("git status *"));
    exec.asks()
        .answer_approval(
            &p.id,
            exec_decision(ExecutionDecision::AlwaysAllow {
                scope: RuleScopeChoice::ThisChat,
                grant: RuleGrant::Matching {
                    pattern: suggested_pattern.clone().unwrap(),
                },
            }),
        )
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::Success);

    let r = run(&exec, call("run", json!({"command": "git status"}))).await;
    assert_eq!(r.status, CallStatus::Success, "covered by the rule");
    // The rule never stretches across an operator.
    let task = spawn(
        &exec,
        call("run", json!({"command": "git status && rm -rf ~"})),
    );
    let p = h.next_approval().await;
    exec.asks()
        .answer_approval(
            &p.id,
            exec_decision(ExecutionDecision::Deny { reason: None }),
        )
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);

    // Scope: this chat only.
    let other = h.chat().await;
    let task = spawn(&other, call("run", json!({"command": "git status"})));
    let p = h.next_approval().await;
    other
        .asks()
        .answer_approval(
            &p.id,
            exec_decision(ExecutionDecision::AlwaysAllow {
                scope: RuleScopeChoice::AllChats,
                grant: RuleGrant::Matching {
                    pattern: "git log *".into(),
                },
            }),
        )
        .unwrap();
    task.await.unwrap();
    let third = h.chat().await;
    assert_eq!(
        run(&third, call("run", json!({"command": "git log --oneline"})))
            .await
            .status,
        CallStatus::Success
    );
    let rules = h.deps.rules.list();
    assert_eq!(rules.len(), 2);
    assert_eq!(rules[0].scope, RuleScope::Chat { chat: exec.chat() });
    assert_eq!(rules[1].scope, RuleScope::Global);
    h.store.flush().await.unwrap();
    assert_eq!(
        h.store.calls().chat_calls(third.chat()).await.unwrap()[0].decided_by,
        DecidedBy::Rule
    );
}

#[tokio::test]
async fn deny_rules_beat_auto_and_ask_rules_make_auto_tools_ask() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    h.deps
        .rules
        .add(
            "echo",
            Some("{\"text\":\"secret*\"}".into()),
            RuleAction::Deny,
            RuleScope::Global,
        )
        .await
        .unwrap();
    h.deps
        .rules
        .add(
            "lines",
            None,
            RuleAction::Ask,
            RuleScope::Chat { chat: exec.chat() },
        )
        .await
        .unwrap();
    let r = run(&exec, call("echo", json!({"text": "secret stuff"}))).await;
    assert_eq!(r.status, CallStatus::ExecutionRejected);
    assert!(
        r.content
            .contains("A rule set by the user denies this call"),
        "{}",
        r.content
    );
    assert_eq!(
        run(&exec, call("echo", json!({"text": "public"})))
            .await
            .status,
        CallStatus::Success
    );
    let task = spawn(&exec, call("lines", json!({"n": 2})));
    let p = h.next_approval().await;
    let ApprovalRequest::Execution { reason, .. } = &p.request else {
        panic!()
    };
    assert!(
        matches!(reason, AskReason::Rule { rule } if rule.action == RuleAction::Ask && rule.tool == "lines"),
        "{reason:?}"
    );
    exec.asks()
        .answer_approval(&p.id, exec_decision(ExecutionDecision::AllowOnce))
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::Success);
}

#[tokio::test]
async fn edited_arguments_are_validated_and_are_what_runs_and_is_recorded() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let task = spawn(&exec, call("write_thing", json!({"text": "original"})));
    let p = h.next_approval().await;
    // An invalid edit is refused and the approval keeps waiting.
    let err = exec
        .asks()
        .answer_approval(
            &p.id,
            exec_decision(ExecutionDecision::EditAndAllow {
                arguments: json!({"text": 1}),
            }),
        )
        .unwrap_err();
    assert!(
        matches!(&err, ApprovalError::InvalidEdit(m) if m.contains("/text: 1 is not of type \"string\"")),
        "{err}"
    );
    assert_eq!(exec.asks().pending().len(), 1);
    exec.asks()
        .answer_approval(
            &p.id,
            exec_decision(ExecutionDecision::EditAndAllow {
                arguments: json!({"text": "edited"}),
            }),
        )
        .unwrap();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(r.content, "did edited");
    assert_eq!(h.ran(), vec![json!({"text": "edited"})]);
    h.store.flush().await.unwrap();
    let row = &h.store.calls().chat_calls(exec.chat()).await.unwrap()[0];
    assert_eq!(row.resolved_args.as_deref(), Some(r#"{"text":"edited"}"#));
    assert_eq!(row.decision.execution, Some(ExecutionChoice::EditAndAllow));
    assert_eq!(
        exec.vars().peek("write_thing_c1_args").as_deref(),
        Some("{\n  \"text\": \"edited\"\n}")
    );
}

#[tokio::test]
async fn deny_and_stop_ends_the_turn() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = ask_and_decide(
        &h,
        &exec,
        call("write_thing", json!({"text": "x"})),
        ExecutionDecision::DenyAndStop {
            reason: Some("enough".into()),
        },
    )
    .await;
    assert_eq!(r.status, CallStatus::ExecutionRejected);
    assert!(r.stop_turn);
    assert!(
        r.content.contains("stopped the turn. Reason: enough"),
        "{}",
        r.content
    );
    assert!(h.ran().is_empty());
}

#[tokio::test]
async fn foreign_unknown_cancelled_and_wrong_kind_decisions_are_refused() {
    let h = Harness::new().await;
    let a = h.chat().await;
    let b = h.chat().await;
    let cancel = CancellationToken::new();
    let task = {
        let a = a.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            a.execute(
                call("write_thing", json!({"text": "x"})),
                CallOrigin::default(),
                &cancel,
            )
            .await
        })
    };
    let p = h.next_approval().await;
    let allow = exec_decision(ExecutionDecision::AllowOnce);
    assert_eq!(
        b.asks().answer_approval(&p.id, allow.clone()),
        Err(ApprovalError::Foreign(p.id.clone()))
    );
    assert!(matches!(
        a.asks().answer_approval(
            &p.id,
            Decision::Result(tollgate_protocol::ResultDecision::Approve)
        ),
        Err(ApprovalError::WrongKind { .. })
    ));
    let unknown =
        tollgate_protocol::ids::ApprovalId::from_string("00000000000000000000000000000000");
    assert_eq!(
        a.asks().answer_approval(&unknown, allow.clone()),
        Err(ApprovalError::Unknown(unknown.clone()))
    );

    cancel.cancel();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::Cancelled);
    assert!(
        r.content.contains("cancelled before the user decided"),
        "{}",
        r.content
    );
    assert_eq!(
        a.asks().answer_approval(&p.id, allow),
        Err(ApprovalError::Cancelled(p.id.clone()))
    );
    assert!(
        h.ran().is_empty(),
        "no ask-policy tool runs without a decision"
    );
    assert!(a.asks().pending().is_empty());
}

#[tokio::test]
async fn the_doom_loop_check_makes_even_auto_tools_ask() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let origin = CallOrigin {
        repeats: Some(3),
        ..Default::default()
    };
    let task = {
        let exec = exec.clone();
        tokio::spawn(async move {
            exec.execute(
                call("echo", json!({"text": "again"})),
                origin,
                &CancellationToken::new(),
            )
            .await
        })
    };
    let p = h.next_approval().await;
    let ApprovalRequest::Execution { reason, .. } = &p.request else {
        panic!()
    };
    assert_eq!(
        *reason,
        AskReason::Repeated {
            times: 3,
            would_allow: DecidedBy::Auto
        }
    );
    exec.asks()
        .answer_approval(&p.id, exec_decision(ExecutionDecision::AllowOnce))
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::Success);
}
