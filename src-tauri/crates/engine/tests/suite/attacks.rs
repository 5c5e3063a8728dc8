//! One test per way past the gate (issue "The gate must hold", SECURITY.md): each tries the
//! attack and asserts it fails. Model answers, fetched pages and MCP servers have their own
//! tests where the attack lives (the chat loop, `tools::web`, `suite/mcp.rs`); these drive the
//! executor and the service directly.

use crate::common::*;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_engine::{CallOrigin, Decision, ExecutionDecision, ToolExecutor};
use tollgate_executor::approvals::ApprovalError;
use tollgate_executor::Turnstile;
use tollgate_protocol::policy::CallStatus;
use tollgate_protocol::{ApprovalRequest, RuleGrant, RuleScopeChoice};
use tollgate_protocol::{RuleAction, RuleScope};

fn allow_once() -> Decision {
    Decision::Execution(ExecutionDecision::AllowOnce)
}

fn deny() -> Decision {
    Decision::Execution(ExecutionDecision::Deny { reason: None })
}

/// Starts a call that runs only after `place`'s earlier calls are done (F-21).
fn spawn_in_turn(
    exec: &Arc<ToolExecutor>,
    req: tollgate_engine::ToolCallRequest,
    place: Turnstile,
) -> tokio::task::JoinHandle<tollgate_engine::ToolCallResult> {
    let exec = Arc::clone(exec);
    tokio::spawn(async move {
        let origin = CallOrigin {
            turnstile: Some(place),
            ..Default::default()
        };
        exec.execute(req, origin, &CancellationToken::new()).await
    })
}

/// A chat whose workspace holds `.git/` and `docs/a` — a symlink to `../.git` when `linked`, a
/// plain folder otherwise — and a global rule allowing `write_file` under `docs/**`.
#[cfg(unix)]
async fn docs_workspace(linked: bool) -> (Harness, Arc<ToolExecutor>, tempfile::TempDir) {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".git")).unwrap();
    std::fs::create_dir_all(ws.path().join("docs")).unwrap();
    if linked {
        std::os::unix::fs::symlink("../.git", ws.path().join("docs/a")).unwrap();
    } else {
        std::fs::create_dir(ws.path().join("docs/a")).unwrap();
    }
    exec.set_workspace(Some(ws.path().to_path_buf()))
        .await
        .unwrap();
    h.deps
        .rules
        .add(
            "write_file",
            Some("docs/**".into()),
            RuleAction::Allow,
            RuleScope::Global,
        )
        .await
        .unwrap();
    (h, exec, ws)
}

/// Item 1: a chat's rules die with it, and its id is never handed to the next chat.
#[tokio::test]
async fn rules_of_a_deleted_chat_never_decide_for_a_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let app = crate::common::app_in(dir.path()).open().await;
    let old = app
        .store()
        .create_chat(Default::default())
        .await
        .unwrap()
        .id;
    app.gate()
        .rules()
        .add(
            "run_command",
            None,
            RuleAction::Allow,
            RuleScope::Chat { chat: old },
        )
        .await
        .unwrap();
    app.chats().delete_chat(old).await.unwrap();
    assert!(
        app.gate().rules().list().is_empty(),
        "the chat's rule is gone from memory"
    );
    let new = app
        .store()
        .create_chat(Default::default())
        .await
        .unwrap()
        .id;
    assert_ne!(new, old, "the deleted chat's id is not reused");
    let subject = tollgate_executor::rules::RuleSubject::Command("rm -rf ~".into());
    assert_eq!(
        app.gate().rules().evaluate(new, "run_command", &subject),
        None
    );
    assert_eq!(
        app.gate().rules().evaluate(old, "run_command", &subject),
        None
    );
}

/// Item 2: an empty pattern is refused (the card keeps waiting); "every call" is its own choice.
#[tokio::test]
async fn an_empty_pattern_never_means_every_call() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let task = spawn(&exec, call("write_thing", json!({"text": "x"})));
    let p = h.next_approval().await;
    for pattern in ["", "   ", "\t\n"] {
        let err = exec
            .asks()
            .answer_approval(
                &p.id,
                Decision::Execution(ExecutionDecision::AlwaysAllow {
                    scope: RuleScopeChoice::AllChats,
                    grant: RuleGrant::Matching {
                        pattern: pattern.into(),
                    },
                }),
            )
            .unwrap_err();
        assert!(matches!(err, ApprovalError::InvalidPattern(_)), "{err}");
    }
    assert!(h.deps.rules.list().is_empty());
    assert_eq!(exec.asks().pending().len(), 1, "the approval still waits");
    // A rule book asked directly refuses it too.
    assert!(h
        .deps
        .rules
        .add(
            "write_thing",
            Some(" ".into()),
            RuleAction::Allow,
            RuleScope::Global
        )
        .await
        .is_err());
    exec.asks()
        .answer_approval(
            &p.id,
            Decision::Execution(ExecutionDecision::AlwaysAllow {
                scope: RuleScopeChoice::ThisChat,
                grant: RuleGrant::EveryCall,
            }),
        )
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::Success);
    let rules = h.deps.rules.list();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].pattern, None, "every call, chosen as such");
}

/// Item 4: a path rule matches where the call really writes, through today's symlinks.
#[cfg(unix)]
#[tokio::test]
async fn path_rules_match_the_resolved_path_not_the_typed_one() {
    let (h, exec, ws) = docs_workspace(true).await;
    // A plain docs file is covered by the rule.
    let r = run(
        &exec,
        call(
            "write_file",
            json!({"path": "docs/readme.md", "content": "hi"}),
        ),
    )
    .await;
    assert_eq!(r.status, CallStatus::Success, "{}", r.content);
    // docs/a/config is .git/config: not covered, so the user is asked.
    let task = spawn(
        &exec,
        call(
            "write_file",
            json!({"path": "docs/a/config", "content": "[core]\n\tfsmonitor = evil"}),
        ),
    );
    let p = h.next_approval().await;
    exec.asks().answer_approval(&p.id, deny()).unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    assert!(!ws.path().join(".git/config").exists());
}

/// Item 7: `WriteVar` plus nested `$VAR_REF`s cannot build huge arguments without approval.
#[tokio::test]
async fn nested_references_cannot_build_huge_arguments() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(
        &exec,
        call(
            "WriteVar",
            json!({"name": "x0", "value": "y".repeat(64 * 1024)}),
        ),
    )
    .await;
    assert_eq!(r.status, CallStatus::Success, "{}", r.content);
    for i in 1..=10 {
        let value = format!("$VAR_REF{{{{x{}}}}}$VAR_REF{{{{x{}}}}}", i - 1, i - 1);
        // Written unexpanded? WriteVar resolves its arguments like every tool: once the doubling
        // passes the bound the call is refused instead of built.
        let r = run(
            &exec,
            call("WriteVar", json!({"name": format!("x{i}"), "value": value})),
        )
        .await;
        if r.status != CallStatus::Success {
            assert_eq!(r.status, CallStatus::InvalidArgs, "{}", r.content);
            assert!(
                r.content.contains("MiB") || r.content.contains("KiB"),
                "{}",
                r.content
            );
            h.store.flush().await.unwrap();
            let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
            let stored: usize = rows
                .iter()
                .map(|c| c.resolved_args.as_deref().map_or(0, str::len))
                .sum();
            assert!(
                stored < 16 * 1024 * 1024,
                "{stored} bytes of arguments were recorded"
            );
            return;
        }
    }
    panic!("10 doublings of 64 KiB (64 MiB) were allowed to build");
}

/// Item 8: "allow for this chat" covers the folder it was given in, not the next one.
#[tokio::test]
async fn ask_once_records_are_bound_to_the_workspace() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    exec.set_workspace(Some(a.path().to_path_buf()))
        .await
        .unwrap();
    let task = spawn(&exec, call("read_thing", json!({"text": "./build.sh"})));
    let p = h.next_approval().await;
    exec.asks()
        .answer_approval(&p.id, Decision::Execution(ExecutionDecision::AllowForChat))
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::Success);
    let again = run(&exec, call("read_thing", json!({"text": "./build.sh"}))).await;
    assert_eq!(
        again.status,
        CallStatus::Success,
        "the record covers folder A"
    );
    let records = exec.asks().records().await.unwrap();
    assert_eq!(records[0].workspace.as_deref(), a.path().to_str());

    exec.set_workspace(Some(b.path().to_path_buf()))
        .await
        .unwrap();
    let task = spawn(&exec, call("read_thing", json!({"text": "./build.sh"})));
    let p = h.next_approval().await;
    exec.asks().answer_approval(&p.id, deny()).unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    assert_eq!(h.ran().len(), 2, "folder B asked, and the denial held");
}

/// Item 9: `setsid cmd &` neither outlives the call nor holds it until its timeout.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_processes_die_with_their_command() {
    let h = Harness::new().await;
    let (exec, _ws) = h.chat_in_workspace().await;
    let marker = format!(
        "{}.{}",
        900 + std::process::id() % 90,
        std::process::id() % 1000
    );
    let command = format!(
        "setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & (setsid sh -c 'sleep {marker}' &) ; echo started"
    );
    let task = spawn(
        &exec,
        call(
            "run_command",
            json!({"command": command, "timeout_seconds": 600}),
        ),
    );
    let p = h.next_approval().await;
    exec.asks().answer_approval(&p.id, allow_once()).unwrap();
    // The call ends with the shell (a held pipe would keep it waiting for 600 s; the test would
    // time out instead).
    let r = tokio::time::timeout(Duration::from_secs(60), task)
        .await
        .expect("the call ended with its shell")
        .unwrap();
    assert_eq!(r.status, CallStatus::Success, "{}", r.content);
    assert!(r.content.contains("started"), "{}", r.content);
    let leftovers = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .filter(|c| c.starts_with("sleep ") && c.contains(&marker))
            .collect()
    };
    let deadline = crate::common::deadline();
    while std::time::Instant::now() < deadline {
        if leftovers().is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("still running after the call: {:?}", leftovers());
}

/// Item 11: a rule revoked while an allowed call waits its turn does not let it run.
#[tokio::test]
async fn a_rule_revoked_while_the_call_waits_its_turn_asks_again() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let rule = h
        .deps
        .rules
        .add("read_thing", None, RuleAction::Allow, RuleScope::Global)
        .await
        .unwrap();
    let places = Turnstile::sequence(2);
    let task = spawn_in_turn(
        &exec,
        call("read_thing", json!({"text": "t"})),
        places[1].clone(),
    );
    // Granted by the rule, and waiting for the call before it.
    places[1].reached().await;
    assert!(h.ran().is_empty(), "it waits for the call before it");
    assert!(h.deps.rules.remove(rule.id).await.unwrap());
    places[0].done();
    let p = h.next_approval().await;
    assert!(matches!(p.request, ApprovalRequest::Execution { .. }));
    exec.asks().answer_approval(&p.id, deny()).unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    assert!(h.ran().is_empty());
}

/// SPEC §11: a call granted for one definition of a tool, waiting its turn while the server
/// redefines the tool (another revision under the same name), does not run on the new one.
#[tokio::test]
async fn a_tool_redefined_while_the_call_waits_its_turn_is_refused() {
    use tollgate_tools::{Registry, ToolGroup, ToolSpec};
    let h = Harness::new().await;
    let exec = h.chat().await;
    // The tool as granted: revision "a".
    let ran = Arc::clone(&h.ran);
    let tool = move |revision: &str| {
        let ran = Arc::clone(&ran);
        FnTool::new(
            ToolSpec::new("mcp_thing", "Does a thing.", json!({"type": "object"}))
                .policy(tollgate_protocol::policy::ExecutionPolicy::Auto)
                .revision(revision.to_string()),
            move |args, _| {
                let ran = Arc::clone(&ran);
                async move {
                    ran.calls.lock().push(args);
                    Ok(json!("done"))
                }
            },
        )
    };
    let registry = |revision: &str| {
        Arc::new(
            Registry::with_groups([ToolGroup::new("srv", "A server", "Its tools.")
                .enabled_by_default(true)
                .tool(tool(revision))])
            .unwrap(),
        )
    };
    exec.set_registry(registry("a"));
    let places = Turnstile::sequence(2);
    let task = spawn_in_turn(&exec, call("mcp_thing", json!({})), places[1].clone());
    // Allowed by its policy and waiting its turn; then the server redefines the tool.
    places[1].reached().await;
    exec.set_registry(registry("b"));
    places[0].done();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::ExecutionRejected, "{}", r.content);
    assert!(r.content.contains("changed this tool"), "{}", r.content);
    assert!(h.ran().is_empty());
}

/// Item 11: an approval given for one folder does not run in another.
#[tokio::test]
async fn a_workspace_switched_after_approval_refuses_the_call() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    exec.set_workspace(Some(a.path().to_path_buf()))
        .await
        .unwrap();
    let places = Turnstile::sequence(2);
    let task = spawn_in_turn(
        &exec,
        call("write_thing", json!({"text": "t"})),
        places[1].clone(),
    );
    let p = h.next_approval().await;
    exec.asks().answer_approval(&p.id, allow_once()).unwrap();
    exec.set_workspace(Some(b.path().to_path_buf()))
        .await
        .unwrap();
    places[0].done();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::ExecutionRejected);
    assert!(
        r.content.contains("workspace folder changed"),
        "{}",
        r.content
    );
    assert!(h.ran().is_empty());
}

/// Item 11 and 4: a symlink swapped in after approval does not redirect the write.
#[cfg(unix)]
#[tokio::test]
async fn a_symlink_swapped_in_after_approval_refuses_the_call() {
    let (_h, exec, ws) = docs_workspace(false).await;
    let places = Turnstile::sequence(2);
    let task = spawn_in_turn(
        &exec,
        call(
            "write_file",
            json!({"path": "docs/a/config", "content": "x"}),
        ),
        places[1].clone(),
    );
    // Granted, and waiting for its turn: the swap happens after approval, before the run.
    places[1].reached().await;
    std::fs::remove_dir(ws.path().join("docs/a")).unwrap();
    std::os::unix::fs::symlink("../.git", ws.path().join("docs/a")).unwrap();
    places[0].done();
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::ExecutionRejected, "{}", r.content);
    assert!(!ws.path().join(".git/config").exists());
}

/// Item 14: a provider printed for a log or a panic never shows its key.
#[test]
fn providers_never_print_their_key() {
    use tollgate_providers::{anthropic::AnthropicProvider, openai::OpenAiProvider};
    let key = "sk-live-SHOULD-NOT-PRINT-123";
    let a = format!(
        "{:?}",
        AnthropicProvider {
            base_url: "https://api.anthropic.com".into(),
            api_key: key.into(),
            ..Default::default()
        }
    );
    let o = format!(
        "{:?}",
        OpenAiProvider {
            base_url: "https://api.openai.com/v1".into(),
            api_key: key.into(),
            tool_calling: Default::default(),
            ..Default::default()
        }
    );
    assert!(!a.contains(key) && !o.contains(key), "{a} {o}");
    assert!(a.contains("redacted"));
}

/// Item 14: a provider that redirects elsewhere never gets the key sent to the other host.
#[tokio::test]
async fn api_keys_never_follow_a_redirect_to_another_host() {
    use axum::response::Redirect;
    use tollgate_providers::{anthropic::AnthropicProvider, ChatMessage, ChatRequest, Provider};
    let seen = Arc::new(parking_lot::Mutex::new(Vec::<String>::new()));
    let thief = {
        let seen = Arc::clone(&seen);
        axum::Router::new().fallback(move |headers: axum::http::HeaderMap| {
            let seen = Arc::clone(&seen);
            async move {
                seen.lock().extend(
                    headers
                        .iter()
                        .map(|(k, v)| format!("{k}: {}", v.to_str().unwrap_or_default())),
                );
                "{}"
            }
        })
    };
    let thief_listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
    let thief_addr = thief_listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(thief_listener, thief).await.unwrap() });
    let redirector = axum::Router::new().fallback(move || async move {
        Redirect::temporary(&format!("http://{thief_addr}/v1/messages"))
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, redirector).await.unwrap() });
    let provider = AnthropicProvider {
        base_url: format!("http://{addr}"),
        api_key: "sk-ant-MUST-STAY-HOME".into(),
        ..Default::default()
    };
    let request = ChatRequest {
        model: "m".into(),
        system: String::new(),
        messages: vec![ChatMessage::User {
            content: "hi".into(),
            images: Vec::new(),
        }],
        tools: vec![],
        max_tokens: 10,
        temperature: None,
        ..Default::default()
    };
    let result = provider
        .complete(&request.into(), &mut |_| {}, &CancellationToken::new())
        .await;
    assert!(result.is_err(), "a redirect away is not an answer");
    assert!(
        !seen
            .lock()
            .iter()
            .any(|h| h.contains("sk-ant-MUST-STAY-HOME")),
        "the key reached the other host: {:?}",
        seen.lock()
    );
}
