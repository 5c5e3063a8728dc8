//! The sandbox of shell commands (F-46, issue 15) for real, on this machine's kernel (Landlock):
//! the supervisor applies it before the shell starts. Every attack an approved command could
//! make — writing outside the workspace, reading a secret folder, writing through a symlink that
//! leads out, a child process doing it instead, a TCP connection with the network off — fails;
//! the same work inside the workspace and the private temp folder succeeds.
#![cfg(target_os = "linux")]

use super::service::{collector, with_mock};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tollgate_engine::chat::{ChatEvent, TurnInput, TurnOutcome};
use tollgate_engine::protocol::{
    ApprovalRequest, ChatSandbox, NullSink, SandboxMode, SandboxReport, ToolEvent,
};
use tollgate_engine::secrets::Keychain;
use tollgate_engine::service::Tollgate;
use tollgate_engine::store::NewChat;
use tollgate_engine::tools::sandbox::{SandboxLevel, SandboxSpec, SANDBOX_ENV};
use tollgate_engine::tools::supervisor::SUPERVISOR_ARG;
use tollgate_engine::{ChatId, Decision, ExecutionDecision};
use tollgate_mock_llm::openai;

/// Runs `command` under the supervisor with `spec`; its exit code and stderr.
fn run(spec: &SandboxSpec, command: &str) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tollgate-supervise"))
        .args([SUPERVISOR_ARG, command])
        .env(SANDBOX_ENV, serde_json::to_string(spec).unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Held open while the command runs: closing the supervisor's stdin means "stop".
    let stdin = child.stdin.take().unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let _ = std::io::stderr().flush();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_approved_command_cannot_reach_past_its_workspace() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp, home) = (
        root.path().join("ws"),
        root.path().join("tmp"),
        root.path().join("home"),
    );
    for d in [&ws, &tmp, &home.join(".ssh")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::os::unix::fs::symlink(&home, ws.join("out")).unwrap();
    let spec = SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        workspace: ws.clone(),
        temp: tmp.clone(),
        hidden: vec![home.join(".ssh")],
        writable: Vec::new(),
    };
    let p = |path: &std::path::Path| path.display().to_string();

    let (code, err) = run(&spec, &format!("touch {}", p(&root.path().join("outside"))));
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");
    assert!(!root.path().join("outside").exists());

    let (code, err) = run(&spec, &format!("cat {}", p(&home.join(".ssh/id_rsa"))));
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");

    let (code, _) = run(&spec, &format!("echo x > {}", p(&ws.join("out/planted"))));
    assert_ne!(code, 0, "a symlink out of the workspace leads nowhere");
    assert!(!home.join("planted").exists());

    let (code, _) = run(
        &spec,
        &format!("sh -c 'touch {}'", p(&root.path().join("child"))),
    );
    assert_ne!(code, 0, "a child process inherits the sandbox");
    assert!(!root.path().join("child").exists());

    // Inside the workspace and the private temp folder, work goes on.
    let (code, err) = run(
        &spec,
        &format!(
            "echo ok > {0} && cat {0} && echo t > \"$TMPDIR/t\" && ls /usr >/dev/null",
            p(&ws.join("inside"))
        ),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(ws.join("inside")).unwrap(), "ok\n");
    assert!(tmp.join("t").exists());

    // Read-only: not even the workspace is writable.
    let read_only = SandboxSpec {
        level: SandboxLevel::ReadOnly,
        ..spec.clone()
    };
    let (code, _) = run(&read_only, &format!("touch {}", p(&ws.join("new"))));
    assert_ne!(code, 0);
    let (code, err) = run(&read_only, &format!("cat {}", p(&ws.join("inside"))));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn with_the_network_off_a_command_cannot_connect() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("tmp")).unwrap();
    let spec = SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        workspace: root.path().to_path_buf(),
        temp: root.path().join("tmp"),
        hidden: vec![],
        writable: Vec::new(),
    };
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'");
    let (code, err) = run(&spec, &connect);
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");
    let online = SandboxSpec {
        network: true,
        ..spec
    };
    let (code, err) = run(&online, &connect);
    assert_eq!(code, 0, "{err}");
}

/// Sends `message`, allows every call the user is asked about, and returns the sandbox each
/// approval card showed, with the turn's outcome.
async fn turn_allowing_all(
    app: &Arc<Tollgate>,
    chat: ChatId,
    message: &str,
) -> (Vec<Option<SandboxReport>>, TurnOutcome) {
    let (on_event, mut rx) = collector();
    app.send(chat, TurnInput::Message(message.into()), on_event)
        .await
        .unwrap();
    let mut cards = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .unwrap()
            .unwrap();
        match event {
            ChatEvent::TurnFinished { outcome } => return (cards, outcome),
            ChatEvent::Tool { event } => {
                if let ToolEvent::ApprovalRequested { approval } = *event {
                    if let ApprovalRequest::Execution { sandbox, .. } = &approval.request {
                        cards.push(sandbox.clone());
                    }
                    app.decide(
                        chat,
                        &approval.id,
                        Decision::Execution(ExecutionDecision::AllowOnce),
                    )
                    .await
                    .unwrap();
                }
            }
            _ => {}
        }
    }
}

/// The tool results the model received in its last request, in order.
fn tool_results(mock: &tollgate_mock_llm::MockLlm) -> Vec<String> {
    let bodies = mock.bodies();
    let last = bodies.last().unwrap();
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn command(id: &str, line: &str) -> (String, String) {
    (id.to_string(), json!({ "command": line }).to_string())
}

/// Pushes one answer that calls `run_command` once per line, then a closing answer.
fn script(mock: &tollgate_mock_llm::MockLlm, lines: &[String]) {
    let calls: Vec<(String, String)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| command(&format!("c{i}"), l))
        .collect();
    let refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "run_command", args.as_str()))
        .collect();
    mock.push(openai::calls("", &refs));
    mock.push(openai::text("Done."));
}

/// The whole way, as in the app: the model asks for each attack, the user approves every one,
/// the sandbox blocks it, and the model reads one line saying what was blocked — next to the
/// command's own error. The same work inside the workspace succeeds; the record keeps the
/// report for the tool card. Then the user turns the network on, and the sandbox off (which
/// needs their confirmation).
#[tokio::test]
async fn approved_attacks_fail_in_the_sandbox_and_the_model_is_told_why() {
    tollgate_engine::tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, home, ws) = (root.join("data"), root.join("home"), root.join("ws"));
    for d in [&data, &home.join(".ssh"), &ws] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::os::unix::fs::symlink(&home, ws.join("out")).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Tollgate::open_for_home(
        &data,
        Keychain::new("app.tollgate.test.sandbox"),
        Arc::new(NullSink),
        Some(&home),
    )
    .await
    .unwrap();
    let mock = with_mock(&app).await;
    let chat = app.store.create_chat(NewChat::default()).await.unwrap().id;
    let exec = app.executor(chat).await.unwrap();
    exec.set_workspace(Some(ws.clone())).await.unwrap();
    assert_eq!(
        app.chat_sandbox(chat).await.unwrap(),
        ChatSandbox::default()
    );

    let p = |path: &Path| path.display().to_string();
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'");
    script(
        &mock,
        &[
            format!("touch {}", p(&root.join("outside"))),
            format!("cat {}", p(&home.join(".ssh/id_rsa"))),
            "echo x > out/planted".to_string(),
            format!("sh -c 'touch {}'", p(&root.join("child"))),
            connect.clone(),
            "echo ok > inside.txt && cat inside.txt && echo t > \"$TMPDIR/t\"".to_string(),
        ],
    );
    let (cards, outcome) = turn_allowing_all(&app, chat, "try everything").await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert_eq!(cards.len(), 6);
    for card in &cards {
        let card = card.as_ref().expect("a shell card shows its sandbox");
        assert_eq!(
            (card.level, card.network, card.mode),
            (SandboxLevel::WorkspaceOnly, false, SandboxMode::Confined)
        );
    }
    let results = tool_results(&mock);
    assert_eq!(results.len(), 6, "{results:#?}");
    let expect = [
        format!(
            "Blocked by the sandbox: writing outside the workspace: {}",
            p(&root.join("outside"))
        ),
        format!(
            "Blocked by the sandbox: reading a protected folder ({}): {}",
            p(&home.join(".ssh")),
            p(&home.join(".ssh/id_rsa"))
        ),
        format!(
            "Blocked by the sandbox: writing outside the workspace: {}",
            p(&home.join("planted"))
        ),
        format!(
            "Blocked by the sandbox: writing outside the workspace: {}",
            p(&root.join("child"))
        ),
        "Blocked by the sandbox: opening a network connection (the network is off in this chat)"
            .to_string(),
    ];
    for (result, line) in results.iter().zip(&expect) {
        assert!(result.contains(line.as_str()), "{line}\n---\n{result}");
        assert!(
            result.contains("Permission denied"),
            "the command's own error stays: {result}"
        );
    }
    assert!(results[5].starts_with("Exit code 0."), "{}", results[5]);
    assert!(!results[5].contains("Blocked"), "{}", results[5]);
    assert!(!root.join("outside").exists());
    assert!(!home.join("planted").exists());
    assert!(!root.join("child").exists());
    assert!(!results[1].contains("PRIVATE KEY"));
    assert_eq!(
        std::fs::read_to_string(ws.join("inside.txt")).unwrap(),
        "ok\n"
    );

    // The record keeps what the tool card shows, also after the chat is read back.
    let calls = app.store.chat_calls(chat).await.unwrap();
    let reports: Vec<_> = calls.iter().map(|c| c.sandbox.clone().unwrap()).collect();
    assert_eq!(
        reports[0].blocked,
        [expect[0].trim_start_matches("Blocked by the sandbox: ")]
    );
    assert!(reports[5].blocked.is_empty());
    assert_eq!(reports[5].mode, SandboxMode::Confined);

    // The user runs the child-process call again without the sandbox: no card (the click is
    // the decision), the same command, now with full access; the model reads the new result.
    let refused = app
        .rerun_unsandboxed(chat, reports.len() as u64, "again".into(), collector().0)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("not blocked"), "{refused}");
    mock.push(openai::text("Now it is there."));
    let (on_event, mut rx) = collector();
    app.rerun_unsandboxed(
        chat,
        calls[3].seq,
        "Run it again without the sandbox.".into(),
        on_event,
    )
    .await
    .unwrap();
    let (events, outcome) = super::service::until_finished(&mut rx).await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert!(!events.iter().any(|e| matches!(e, ChatEvent::Tool { event } if matches!(**event, ToolEvent::ApprovalRequested { .. }))));
    assert!(root.join("child").exists());
    let rerun = app.store.chat_calls(chat).await.unwrap().pop().unwrap();
    assert_eq!(rerun.resolved_args, calls[3].resolved_args);
    assert_eq!(rerun.decided_by, tollgate_engine::policy::DecidedBy::User);
    assert_eq!(rerun.sandbox.as_ref().unwrap().mode, SandboxMode::Off);
    let body = mock.bodies().pop().unwrap();
    let messages = body["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(
        messages[n - 3]["content"],
        "Run it again without the sandbox."
    );
    assert_eq!(
        messages[n - 2]["tool_calls"][0]["function"]["name"],
        "run_command"
    );
    assert!(
        messages[n - 1]["content"]
            .as_str()
            .unwrap()
            .starts_with("Exit code 0."),
        "{body}"
    );
    // A rerun is the user's only: the chat's own sandbox is unchanged.
    assert_eq!(
        app.chat_sandbox(chat).await.unwrap(),
        ChatSandbox::default()
    );

    // Network on: the same connection goes through.
    let online = ChatSandbox {
        network: true,
        ..ChatSandbox::default()
    };
    app.set_chat_sandbox(chat, online, false).await.unwrap();
    script(&mock, std::slice::from_ref(&connect));
    let (cards, _) = turn_allowing_all(&app, chat, "connect again").await;
    assert!(cards[0].as_ref().unwrap().network);
    let results = tool_results(&mock);
    let last = results.last().unwrap();
    assert!(last.starts_with("Exit code 0."), "{last}");
    assert!(last.contains("connected"), "{last}");

    // Off needs the user's confirmation; with it, the command reaches past the workspace.
    let off = ChatSandbox {
        level: SandboxLevel::Off,
        network: true,
    };
    let refused = app.set_chat_sandbox(chat, off, false).await.unwrap_err();
    assert!(refused.to_string().contains("confirmation"), "{refused}");
    assert_eq!(app.chat_sandbox(chat).await.unwrap(), online);
    app.set_chat_sandbox(chat, off, true).await.unwrap();
    script(&mock, &[format!("touch {}", p(&root.join("outside")))]);
    let (cards, _) = turn_allowing_all(&app, chat, "now outside").await;
    assert_eq!(cards[0].as_ref().unwrap().mode, SandboxMode::Off);
    assert!(root.join("outside").exists());
    let calls = app.store.chat_calls(chat).await.unwrap();
    assert_eq!(
        calls.last().unwrap().sandbox.as_ref().unwrap().mode,
        SandboxMode::Off
    );
}
