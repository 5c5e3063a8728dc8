//! The sandbox the whole way through the app, with the mock model: what the model is told and
//! the cards show, reruns and edits that run exactly what was shown, the file tools and the
//! secret paths, "only these hosts", and the variables a chat adds.

use super::{commit, git, test_root};
use crate::suite::service::{collector, with_mock};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tollgate_engine::chat::{ChatEvent, TurnInput, TurnOutcome};
use tollgate_engine::service::Tollgate;
use tollgate_engine::{ChatId, Decision, ExecutionDecision};
use tollgate_mock_llm::{openai, MockLlm};
use tollgate_protocol::{ApprovalRequest, ChatSandbox, SandboxMode, SandboxReport, ToolEvent};
use tollgate_secrets::Keychain;
use tollgate_tools::sandbox::SandboxLevel;

/// An app whose data folder, home and workspace are under one root, with the mock model and a
/// chat working in the workspace.
struct Opened {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    ws: PathBuf,
    app: Arc<Tollgate>,
    mock: MockLlm,
    chat: ChatId,
}

/// Opens an app for a test (`keychain`: its own keychain service) with `home` as the user's
/// home and `workspace` (relative to the root) as the chat's workspace.
async fn open_app(keychain: &str, workspace: &str) -> Opened {
    tollgate_tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
    let dir = test_root();
    let root = dir.path().canonicalize().unwrap();
    let (data, home, ws) = (root.join("data"), root.join("home"), root.join(workspace));
    for d in [&data, &home, &ws] {
        std::fs::create_dir_all(d).unwrap();
    }
    let app = crate::common::app_in(&data)
        .keychain(Keychain::new(keychain))
        .home(&home)
        .open()
        .await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    app.executor(chat)
        .await
        .unwrap()
        .set_workspace(Some(ws.clone()))
        .await
        .unwrap();
    Opened {
        _dir: dir,
        root,
        home,
        ws,
        app,
        mock,
        chat,
    }
}

/// Sends `message`, allows every call the user is asked about, and returns the sandbox each
/// approval card showed, with the turn's outcome.
pub(in crate::suite) async fn turn_allowing_all(
    app: &Arc<Tollgate>,
    chat: ChatId,
    message: &str,
) -> (Vec<Option<SandboxReport>>, TurnOutcome) {
    turn_deciding(app, chat, message, |_| {
        Decision::Execution(ExecutionDecision::AllowOnce)
    })
    .await
}

/// Sends `message` and answers every approval card with `decide`; the sandbox each card
/// showed, and the turn's outcome.
async fn turn_deciding(
    app: &Arc<Tollgate>,
    chat: ChatId,
    message: &str,
    decide: impl Fn(&ApprovalRequest) -> Decision,
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
                        cards.push(sandbox.as_deref().cloned());
                    }
                    app.asks()
                        .answer_approval(chat, &approval.id, decide(&approval.request))
                        .await
                        .unwrap();
                }
            }
            _ => {}
        }
    }
}

/// The user's "run again without the sandbox" on call `c<seq>`, through the model's answer to
/// it (which must complete); the turn's events.
async fn rerun_to_the_end(app: &Arc<Tollgate>, chat: ChatId, seq: u64) -> Vec<ChatEvent> {
    let (on_event, mut rx) = collector();
    app.rerun_unsandboxed(
        chat,
        seq,
        "Run it again without the sandbox.".into(),
        on_event,
    )
    .await
    .unwrap();
    let (events, outcome) = crate::suite::service::until_finished(&mut rx).await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    events
}

/// The tool results the model received in its last request, in order.
pub(in crate::suite) fn tool_results(mock: &MockLlm) -> Vec<String> {
    tollgate_mock_llm::openai::tool_results(mock.bodies().last().unwrap())
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
    tollgate_tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
    let dir = test_root();
    let root = dir.path().canonicalize().unwrap();
    let (data, home, ws) = (root.join("data"), root.join("home"), root.join("ws"));
    for d in [&data, &home.join(".ssh"), &ws] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::os::unix::fs::symlink(&home, ws.join("out")).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = crate::common::app_in(&data)
        .keychain(Keychain::new(format!(
            "app.tollgate.test.sandbox {}",
            data.display()
        )))
        .home(&home)
        .open()
        .await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    let exec = app.executor(chat).await.unwrap();
    exec.set_workspace(Some(ws.clone())).await.unwrap();
    assert_eq!(
        app.gate().chat_sandbox(chat).await.unwrap(),
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
            ["Permission denied", "Read-only file system", "No such file"]
                .iter()
                .any(|e| result.contains(e)),
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
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
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
    let events = rerun_to_the_end(&app, chat, calls[3].seq).await;
    assert!(!events.iter().any(|e| matches!(e, ChatEvent::Tool { event } if matches!(**event, ToolEvent::ApprovalRequested { .. }))));
    assert!(root.join("child").exists());
    let rerun = app
        .store()
        .calls()
        .chat_calls(chat)
        .await
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(rerun.resolved_args, calls[3].resolved_args);
    assert_eq!(rerun.decided_by, tollgate_protocol::policy::DecidedBy::User);
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
        app.gate().chat_sandbox(chat).await.unwrap(),
        ChatSandbox::default()
    );

    // Network on: the same connection goes through.
    let online = ChatSandbox {
        network: true,
        ..ChatSandbox::default()
    };
    app.gate()
        .set_chat_sandbox(chat, online.clone(), false)
        .await
        .unwrap();
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
        ..ChatSandbox::default()
    };
    let refused = app
        .gate()
        .set_chat_sandbox(chat, off.clone(), false)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("confirmation"), "{refused}");
    assert_eq!(app.gate().chat_sandbox(chat).await.unwrap(), online);
    app.gate().set_chat_sandbox(chat, off, true).await.unwrap();
    script(&mock, &[format!("touch {}", p(&root.join("outside")))]);
    let (cards, _) = turn_allowing_all(&app, chat, "now outside").await;
    assert_eq!(cards[0].as_ref().unwrap().mode, SandboxMode::Off);
    assert!(root.join("outside").exists());
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    assert_eq!(
        calls.last().unwrap().sandbox.as_ref().unwrap().mode,
        SandboxMode::Off
    );
}

/// The rerun runs byte for byte what the card showed (F-46): two variables the model wrote
/// that would read as a reference side by side are refused at once; an edited call runs as the
/// user wrote it, never expanded; its rerun without the sandbox is not expanded either, and runs
/// in the workspace the blocked call ran in, not the one the chat points at now.
#[tokio::test]
async fn a_rerun_runs_exactly_what_the_card_showed_where_it_ran() {
    let Opened {
        root,
        ws: first,
        app,
        mock,
        chat,
        ..
    } = &open_app("app.tollgate.test.rerun", "first").await;
    let (app, mock, chat, first) = (app, mock, *chat, first.clone());
    let second = root.join("second");
    std::fs::create_dir_all(&second).unwrap();
    let exec = app.executor(chat).await.unwrap();

    // The model writes `$VAR_REF{` and a payload into two variables and puts them side by side.
    let write = |name: &str, value: &str| json!({ "name": name, "value": value }).to_string();
    let (x, y) = (write("x", "$VAR_REF{"), write("y", "touch PWNED"));
    let joined = json!({ "command": "echo $VAR_REF{{x}}{y}} > shown.txt" }).to_string();
    mock.push(openai::calls(
        "",
        &[
            ("w1", "WriteVar", x.as_str()),
            ("w2", "WriteVar", y.as_str()),
        ],
    ));
    mock.push(openai::calls("", &[("c1", "run_command", joined.as_str())]));
    mock.push(openai::text("Done."));
    let (cards, _) = turn_allowing_all(app, chat, "go").await;
    assert!(cards.is_empty(), "refused before any card: {cards:?}");
    let results = tool_results(mock);
    let refused = results.last().unwrap();
    assert!(
        refused.contains("would form a new reference ($VAR_REF{{y}})"),
        "{refused}"
    );
    assert!(!first.join("shown.txt").exists() && !first.join("PWNED").exists());

    // The user edits a call to hold the literal text `$VAR_REF{{y}}` (and write outside, which
    // the sandbox blocks): it runs as written, not expanded.
    let outside = root.join("outside.txt");
    let literal = format!(
        "echo '$VAR_REF{{{{y}}}}' > shown.txt; echo '$VAR_REF{{{{y}}}}' > {}",
        outside.display()
    );
    script(mock, &["echo harmless".to_string()]);
    let edited = json!({ "command": literal });
    let (cards, _) = turn_deciding(app, chat, "again", |_| {
        Decision::Execution(ExecutionDecision::EditAndAllow {
            arguments: edited.clone(),
        })
    })
    .await;
    assert_eq!(cards.len(), 1);
    assert_eq!(
        std::fs::read_to_string(first.join("shown.txt")).unwrap(),
        "$VAR_REF{{y}}\n"
    );
    assert!(!first.join("PWNED").exists());
    assert!(!outside.exists());
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    let blocked = calls.last().unwrap();
    let report = blocked.sandbox.as_ref().unwrap();
    assert!(!report.blocked.is_empty(), "{report:?}");
    assert_eq!(report.workspace.as_deref(), Some(first.to_str().unwrap()));
    assert!(
        report.changed.contains(&"shown.txt".to_string()),
        "{report:?}"
    );
    assert_eq!(
        blocked.resolved_args.as_deref(),
        Some(edited.to_string().as_str())
    );

    // The chat now points elsewhere; the rerun still runs in the first workspace, exactly.
    exec.set_workspace(Some(second.clone())).await.unwrap();
    mock.push(openai::text("Ran it."));
    rerun_to_the_end(app, chat, blocked.seq).await;
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "$VAR_REF{{y}}\n"
    );
    assert!(
        !second.join("shown.txt").exists(),
        "ran where the chat points now"
    );
    assert!(!first.join("PWNED").exists() && !second.join("PWNED").exists());
    let rerun = app
        .store()
        .calls()
        .chat_calls(chat)
        .await
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(rerun.resolved_args, blocked.resolved_args);
    assert_eq!(rerun.sandbox.as_ref().unwrap().mode, SandboxMode::Off);
}

/// The file tools refuse the secret paths even inside the workspace (F-46): with the home
/// folder as the workspace and every call approved, `.ssh/id_rsa` is neither read, searched,
/// listed, found, written nor shown on a card — also through a symlink in the workspace.
#[tokio::test]
async fn the_file_tools_refuse_secret_paths_inside_the_workspace() {
    // The home folder itself is the workspace.
    let Opened {
        home,
        app,
        mock,
        chat,
        ..
    } = &open_app("app.tollgate.test.hidden", "home").await;
    let (app, mock, chat) = (app, mock, *chat);
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::write(home.join("notes.txt"), "PRIVATE notes of mine").unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), home.join("keys")).unwrap();
    let calls = [
        ("r1", "read_file", json!({"path": ".ssh/id_rsa"})),
        ("r2", "read_file", json!({"path": "keys/id_rsa"})),
        ("l1", "list_dir", json!({"path": ".ssh"})),
        ("g1", "grep", json!({"pattern": "PRIVATE"})),
        ("g2", "glob", json!({"pattern": "**/*"})),
        (
            "w1",
            "edit_file",
            json!({"path": ".ssh/id_rsa", "old_text": "PRIVATE", "new_text": "x"}),
        ),
        (
            "w2",
            "write_file",
            json!({"path": ".ssh/authorized_keys", "content": "ssh-ed25519 AAAA attacker"}),
        ),
    ];
    let args: Vec<String> = calls.iter().map(|(_, _, a)| a.to_string()).collect();
    let refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .zip(&args)
        .map(|((id, tool, _), a)| (*id, *tool, a.as_str()))
        .collect();
    mock.push(openai::calls("", &refs));
    mock.push(openai::text("Done."));
    turn_deciding(app, chat, "look around", |request| {
        if let ApprovalRequest::Execution { preview, .. } = request {
            assert!(preview.is_none(), "a card previewed a secret: {preview:?}");
        }
        Decision::Execution(ExecutionDecision::AllowOnce)
    })
    .await;
    let results = tool_results(mock);
    assert_eq!(results.len(), calls.len(), "{results:#?}");
    for (i, result) in results.iter().enumerate() {
        assert!(!result.contains("PRIVATE KEY"), "{}: {result}", calls[i].1);
    }
    for i in [0, 1, 2, 5, 6] {
        assert!(
            results[i].contains("is in a protected folder"),
            "{}: {}",
            calls[i].1,
            results[i]
        );
    }
    assert!(
        results[3].contains("notes.txt"),
        "the rest is searched: {}",
        results[3]
    );
    assert!(!results[3].contains(".ssh"), "{}", results[3]);
    assert!(!results[4].contains("id_rsa"), "{}", results[4]);
    assert!(!home.join(".ssh/authorized_keys").exists());
    assert_eq!(
        std::fs::read_to_string(home.join(".ssh/id_rsa")).unwrap(),
        "PRIVATE KEY"
    );
}

/// Real work with "only these hosts": `npm install` of a small package from the npm registry,
/// through the whole app (the card lists the host), with nothing else reachable.
#[tokio::test]
async fn npm_install_works_with_only_the_registry_listed() {
    let Opened {
        ws,
        app,
        mock,
        chat,
        ..
    } = &open_app("app.tollgate.test.hosts", "ws").await;
    let (app, mock, chat) = (app, mock, *chat);
    // The proxy refuses a listed name that leads to a private or reserved address unless that
    // address is listed too (SPEC §12). Where the registry resolves to one (a machine whose
    // DNS sends it to a local mirror), the user lists the address as well; so does the test.
    let mut hosts = vec!["registry.npmjs.org".to_string()];
    for addr in tokio::net::lookup_host(("registry.npmjs.org", 443))
        .await
        .unwrap()
    {
        if !tollgate_tools::reach::is_public(addr.ip()) {
            hosts.push(match addr {
                std::net::SocketAddr::V4(a) => format!("{}:443", a.ip()),
                std::net::SocketAddr::V6(a) => format!("[{}]:443", a.ip()),
            });
        }
    }
    let registry = ChatSandbox {
        hosts: hosts.clone(),
        ..ChatSandbox::default()
    };
    app.gate()
        .set_chat_sandbox(chat, registry, false)
        .await
        .unwrap();
    script(
        mock,
        &[
            "npm install --no-audit --no-fund --no-update-notifier is-number@7.0.0 && node -e \"console.log(require('is-number')(5))\"".to_string(),
            "curl -sS https://example.com/ -o /dev/null".to_string(),
        ],
    );
    let (cards, _) = turn_allowing_all(app, chat, "install it").await;
    let card = cards[0].as_ref().unwrap();
    assert!(card.env.is_empty());
    assert_eq!(card.hosts, hosts);
    assert!(!card.network);
    let results = tool_results(mock);
    assert!(results[0].starts_with("Exit code 0."), "{}", results[0]);
    assert!(results[0].contains("true"), "{}", results[0]);
    assert!(ws.join("node_modules/is-number/package.json").is_file());
    assert!(
        results[1].contains(&format!(
            "Blocked by the sandbox: connecting to example.com:443: example.com:443 is not among this chat's allowed hosts ({})",
            hosts.join(", ")
        )),
        "{}",
        results[1]
    );
}

/// Variables the user adds for a chat's commands reach them (and the card names them); the
/// address of a service outside, a secret-shaped name, or one the sandbox sets itself is
/// refused with the reason, and the chat's sandbox stays as it was.
#[tokio::test]
async fn a_chat_adds_variables_to_its_commands_but_never_a_secret_or_an_address() {
    let Opened {
        app, mock, chat, ..
    } = &open_app("app.tollgate.test.env", "ws").await;
    let (app, mock, chat) = (app, mock, *chat);
    let with = |pairs: &[(&str, &str)]| ChatSandbox {
        env: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..ChatSandbox::default()
    };
    for (name, why) in [
        ("DISPLAY", "a service outside the sandbox"),
        ("GITHUB_TOKEN", "looks like a secret"),
        ("PATH", "set by the sandbox itself"),
        ("NOT-A-NAME", "not a variable name"),
    ] {
        let refused = app
            .gate()
            .set_chat_sandbox(chat, with(&[(name, "x")]), false)
            .await
            .unwrap_err();
        assert!(refused.to_string().contains(why), "{name}: {refused}");
        assert_eq!(
            app.gate().chat_sandbox(chat).await.unwrap(),
            ChatSandbox::default()
        );
    }
    app.gate()
        .set_chat_sandbox(chat, with(&[("RUST_LOG", "debug"), ("CI", "1")]), false)
        .await
        .unwrap();
    script(mock, &["echo \"$RUST_LOG/$CI\"".to_string()]);
    let (cards, _) = turn_allowing_all(app, chat, "show").await;
    assert_eq!(cards[0].as_ref().unwrap().env, ["CI", "RUST_LOG"]);
    let results = tool_results(mock);
    assert!(results.last().unwrap().contains("debug/1"), "{results:?}");
}

/// The whole way, as the issue found it in the window: the model asks for a command that plants
/// `.git/commondir` (pointing at a folder it made, whose config names a monitor) and a nested
/// repository it adds to the index; the user approves; the model is told neither was kept; and
/// the user's own `git status` afterwards, outside any sandbox, runs nothing planted. A commit
/// in the same approved command lands. Graded by the marker file the planted monitor makes.
#[tokio::test]
async fn a_planted_commondir_or_nested_repository_never_runs_for_the_users_git() {
    let Opened {
        _dir,
        root,
        ws,
        app,
        mock,
        chat,
        ..
    } = open_app("app.tollgate.test.sandbox.git", "ws").await;
    git(&ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a").unwrap();
    git(&ws, &["add", "."]);
    commit(&ws, "first");
    let marker = root.join("PLANTED-RAN");
    let monitor = format!("touch {}; false", marker.display());
    script(
        &mock,
        &[
            format!(
                "mkdir -p .cache/g && cp -r .git/objects .git/refs .git/config .cache/g/ && git config --file .cache/g/config core.fsmonitor '{monitor}' && echo \"$PWD/.cache/g\" > .git/commondir"
            ),
            format!(
                "git init -q vendor && git -C vendor config core.fsmonitor '{monitor}' && touch vendor/f && git -C vendor add f && git -C vendor -c user.name=T -c user.email=t@example.org commit -qm v && git add vendor"
            ),
            "echo b > b.txt && git add b.txt && git -c user.name=T -c user.email=t@example.org commit -qm second".to_string(),
        ],
    );
    let (cards, outcome) = turn_allowing_all(&app, chat, "set up the repository").await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert_eq!(cards.len(), 3);
    let results = tool_results(&mock);
    assert!(
        results[0].contains("Blocked by the sandbox: writing commondir in git's folder"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("creating a git repository (its configuration and hooks run code outside the sandbox): vendor/.git"),
        "{}",
        results[1]
    );
    // The user's own git, outside the sandbox, at the top and in the nested folder.
    for dir in [ws.clone(), ws.join("vendor")] {
        git(&dir, &["status"]);
    }
    assert!(!marker.exists(), "the planted monitor ran");
    assert!(git(&ws, &["log", "--oneline"]).contains("second"));
    assert!(!ws.join(".git/commondir").exists());
}

/// The home folder, or a folder above it, is refused as a workspace: its shell startup files,
/// `~/.local/bin`, autostart entries and `authorized_keys` would be writable to an approved
/// command, and they run later outside any sandbox (Tollgate runs the login shell at every
/// start). A folder inside it is fine.
#[tokio::test]
async fn the_home_folder_and_the_folders_above_it_are_no_workspace() {
    let Opened {
        _dir,
        app,
        chat,
        ws,
        ..
    } = open_app("app.tollgate.test.sandbox.home", "ws").await;
    let exec = app.executor(chat).await.unwrap();
    let home = std::env::home_dir().unwrap();
    for unfit in [home.clone(), PathBuf::from("/")] {
        let err = exec.set_workspace(Some(unfit.clone())).await.unwrap_err();
        assert!(
            err.to_string().contains("holds your home folder"),
            "{unfit:?}: {err}"
        );
        assert_eq!(
            exec.workspace(),
            Some(ws.clone()),
            "the workspace is unchanged"
        );
    }
}
