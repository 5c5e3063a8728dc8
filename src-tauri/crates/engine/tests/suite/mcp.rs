//! MCP (F-45) against real servers run as child processes: the npm registry's
//! `@modelcontextprotocol/server-everything` over stdio and streamable HTTP, its MCP Apps PDF
//! viewer `@modelcontextprotocol/server-pdf` (F-95), and a small probe
//! server (tests/mcp/probe-server.mjs, on the official TypeScript SDK) for cancellation and
//! crashes. The test command installs them with `npm ci` in tests/mcp.

use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_engine::service::Tollgate;
use tollgate_engine::{CallOrigin, Decision, ExecutionDecision, ToolCallRequest};
use tollgate_mcp::{McpConnection, McpError, McpServerConfig, McpStatus};
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::policy::{CallStatus, ExecutionPolicy};
use tollgate_secrets::Keychain;

pub(crate) use tollgate_test_support::mcp_servers::{everything_js, servers_dir};

fn everything(name: &str) -> McpServerConfig {
    McpServerConfig::stdio(name, "node", &[&everything_js(), "stdio"])
}

fn probe(name: &str, marker: &std::path::Path) -> McpServerConfig {
    let script = servers_dir().join("probe-server.mjs").display().to_string();
    let mut c = McpServerConfig::stdio(name, "node", &[&script]);
    if let tollgate_mcp::McpTransport::Stdio { env, .. } = &mut c.transport {
        env.insert("PROBE_MARKER".into(), marker.display().to_string());
    }
    c
}

/// The keychain of the app on `dir`: a service of its own per data folder, as the app's
/// `Keychain::for_data_dir` gives each profile, so tests running side by side never read or
/// delete each other's entries (two tests' servers named "probe" share an account name).
pub(crate) fn keychain(dir: &std::path::Path) -> Keychain {
    crate::common::keychain_of(dir)
}

pub(crate) async fn open(dir: &std::path::Path) -> Arc<Tollgate> {
    crate::common::app_in(dir).open().await
}

/// Waits until the server leaves `Connecting`.
pub(crate) async fn settled(app: &Tollgate, name: &str) -> McpStatus {
    let deadline = crate::common::deadline();
    while std::time::Instant::now() < deadline {
        if let Some(s) = app.mcp_servers().manager().state(name) {
            if s.status != McpStatus::Connecting {
                return s.status;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{name} never finished connecting");
}

/// Adds the probe server (writing to `marker`), waits until it is ready and offers `tool`, and
/// opens a chat to call it in.
async fn probe_ready(
    app: &Tollgate,
    marker: &std::path::Path,
    tool: &str,
) -> tollgate_engine::ChatId {
    app.mcp_servers()
        .save_mcp_server(probe("probe", marker), None)
        .await
        .unwrap();
    assert_eq!(settled(app, "probe").await, McpStatus::Ready);
    registry_has(app, tool, true).await;
    crate::common::new_chat(app).await
}

/// Waits until the registry has (or lacks) `tool`.
pub(crate) async fn registry_has(app: &Tollgate, tool: &str, wanted: bool) {
    let what = format!(
        "the registry {} {tool}",
        if wanted { "gets" } else { "drops" }
    );
    crate::common::eventually(&what, || app.registry().tool(tool).is_some() == wanted).await;
}

/// Runs `request` in `chat`, allowing it once when it asks.
async fn run_approved(
    app: &Tollgate,
    chat: tollgate_engine::ChatId,
    request: ToolCallRequest,
) -> tollgate_engine::ToolCallResult {
    start_approved(app, chat, request).await.await.unwrap()
}

/// Starts `request` in `chat`: the running call.
pub(crate) async fn spawn_call(
    app: &Tollgate,
    chat: tollgate_engine::ChatId,
    request: ToolCallRequest,
) -> tokio::task::JoinHandle<tollgate_engine::ToolCallResult> {
    let exec = app.executor(chat).await.unwrap();
    tokio::spawn(async move {
        exec.execute(request, CallOrigin::default(), &CancellationToken::new())
            .await
    })
}

/// Starts `request` in `chat` and allows it once when it asks: the running call.
pub(crate) async fn start_approved(
    app: &Tollgate,
    chat: tollgate_engine::ChatId,
    request: ToolCallRequest,
) -> tokio::task::JoinHandle<tollgate_engine::ToolCallResult> {
    let task = spawn_call(app, chat, request).await;
    approve_next(app, chat).await;
    task
}

/// Allows the next call waiting in `chat`; returns its group.
pub(crate) async fn approve_next(app: &Tollgate, chat: tollgate_engine::ChatId) -> String {
    let deadline = crate::common::deadline();
    while std::time::Instant::now() < deadline {
        if let Some(p) = app.asks().pending(chat).pop() {
            app.asks()
                .answer_approval(
                    chat,
                    &p.id,
                    Decision::Execution(ExecutionDecision::AllowOnce),
                )
                .await
                .unwrap();
            return p.group;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no approval was requested");
}

/// Waits (a minute at most) until the file at `path` exists.
async fn wait_for(path: &std::path::Path) -> bool {
    let deadline = crate::common::deadline();
    while !path.exists() {
        if std::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

/// The file the probe server writes when a `wait` call begins.
fn started(marker: &std::path::Path) -> std::path::PathBuf {
    let mut name = marker.as_os_str().to_owned();
    name.push(".started");
    name.into()
}

pub(crate) fn call(name: &str, args: serde_json::Value) -> ToolCallRequest {
    ToolCallRequest::new(format!("call_{name}"), name, RawArguments::Json(args))
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn everything_over_stdio_goes_through_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    app.mcp_servers()
        .save_mcp_server(everything("everything"), None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "everything").await, McpStatus::Ready);
    registry_has(&app, "everything__echo", true).await;

    let state = app.mcp_servers().manager().state("everything").unwrap();
    assert_eq!(state.server_name.as_deref(), Some("mcp-servers/everything"));
    let echo = state
        .tools
        .iter()
        .find(|t| t.remote_name == "echo")
        .unwrap();
    assert!(echo.read_only, "echo carries readOnlyHint");
    let registry = app.registry();
    let group = registry.group("everything").unwrap();
    assert!(group.description.contains("MCP server"));
    let echo_spec = registry
        .tool("everything__echo")
        .unwrap()
        .tool
        .spec()
        .clone();
    assert!(echo_spec.read_only);
    assert_eq!(echo_spec.execution_policy, ExecutionPolicy::AskOnce);
    let toggle = registry
        .tool("everything__toggle-simulated-logging")
        .unwrap();
    assert_eq!(
        toggle.tool.spec().execution_policy,
        ExecutionPolicy::AskAlways,
        "tools without readOnlyHint ask every time"
    );

    // A call waits for the user's decision, then reaches the server.
    let chat = crate::common::new_chat(&app).await;
    let exec = app.executor(chat).await.unwrap();
    assert!(exec
        .toolbox()
        .enabled_tool_names()
        .contains(&"everything__get-sum".to_string()));
    let task = {
        let exec = Arc::clone(&exec);
        tokio::spawn(async move {
            exec.execute(
                call("everything__get-sum", json!({"a": 19, "b": 23})),
                CallOrigin::default(),
                &CancellationToken::new(),
            )
            .await
        })
    };
    assert_eq!(approve_next(&app, chat).await, "everything");
    let result = task.await.unwrap();
    assert_eq!(result.status, CallStatus::Success, "{}", result.content);
    assert!(result.content.contains("42"), "{}", result.content);

    // Invalid arguments are stopped by the gate's own validation of the server's schema.
    let bad = exec
        .execute(
            call("everything__get-sum", json!({"a": "nineteen"})),
            CallOrigin::default(),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(bad.status, CallStatus::InvalidArgs, "{}", bad.content);

    // Disabling the server removes its tools from every chat.
    let mut off = everything("everything");
    off.enabled = false;
    app.mcp_servers()
        .save_mcp_server(off, Some("everything"))
        .await
        .unwrap();
    registry_has(&app, "everything__echo", false).await;
    assert_eq!(
        app.mcp_servers()
            .manager()
            .state("everything")
            .unwrap()
            .status,
        McpStatus::Disabled
    );
    assert!(!exec
        .toolbox()
        .enabled_tool_names()
        .iter()
        .any(|t| t.starts_with("everything__")));
    app.mcp_servers().manager().shutdown().await;
}

/// F-45: an image a server returns is shown to the user with the call (in the event and the
/// record), checked by its bytes; the model reads a note, never the base64; a withheld result
/// keeps no image either.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn an_image_result_is_shown_to_the_user_and_only_described_to_the_model() {
    use tollgate_engine::{ResultDecision, ToolEvent};
    use tollgate_protocol::policy::ResultPolicy;
    use tollgate_protocol::{ToolOverride, ToolSettings};
    use tollgate_tools::ChannelSink;
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let app = crate::common::app_in(dir.path())
        .sink(Arc::new(ChannelSink(tx)))
        .open()
        .await;
    app.mcp_servers()
        .save_mcp_server(everything("everything"), None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "everything").await, McpStatus::Ready);
    registry_has(&app, "everything__get-tiny-image", true).await;
    let chat = crate::common::new_chat(&app).await;

    let result = run_approved(&app, chat, call("everything__get-tiny-image", json!({}))).await;
    assert_eq!(result.status, CallStatus::Success, "{}", result.content);
    assert!(
        result
            .content
            .contains("[image 1: image/png, 3.9 KB, shown to the user; you cannot see it]"),
        "{}",
        result.content
    );
    assert!(result.content.contains("The image above is the MCP logo."));
    assert!(
        !result.content.contains("iVBORw0KGgo"),
        "the model is never sent the base64"
    );
    let stored = app
        .executor(chat)
        .await
        .unwrap()
        .vars()
        .get(result.result_var.as_deref().unwrap())
        .unwrap();
    assert!(!stored.contains("iVBORw0KGgo"), "nor can it read it back");

    let mut finished = None;
    while let Ok(event) = events.try_recv() {
        if let ToolEvent::Finished { summary, .. } = event {
            finished = Some(summary);
        }
    }
    let summary = finished.expect("the call's end was announced");
    assert_eq!(summary.images.len(), 1);
    assert_eq!(summary.images[0].media_type, "image/png");
    assert!(summary.images[0].data.starts_with("iVBORw0KGgo"));

    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    assert_eq!(
        calls[0].result_images, summary.images,
        "the record keeps them"
    );
    app.store().flush().await.unwrap();
    app.mcp_servers().manager().shutdown().await;
    drop(app);

    // After a restart the record still has the image; a withheld result keeps none.
    let app = open(dir.path()).await;
    assert_eq!(
        app.store().calls().chat_calls(chat).await.unwrap()[0].result_images,
        summary.images
    );
    assert_eq!(settled(&app, "everything").await, McpStatus::Ready);
    registry_has(&app, "everything__get-tiny-image", true).await;
    let mut settings = ToolSettings::default();
    settings.tools.insert(
        "everything__get-tiny-image".into(),
        ToolOverride {
            result_policy: Some(ResultPolicy::Always),
            ..Default::default()
        },
    );
    app.preferences().set_tool_settings(settings).await.unwrap();
    let exec = app.executor(chat).await.unwrap();
    let task = tokio::spawn(async move {
        exec.execute(
            call("everything__get-tiny-image", json!({})),
            CallOrigin::default(),
            &CancellationToken::new(),
        )
        .await
    });
    approve_next(&app, chat).await;
    let review = loop {
        if let Some(p) = app
            .asks()
            .pending(chat)
            .into_iter()
            .find(|p| matches!(p.request, tollgate_protocol::ApprovalRequest::Result { .. }))
        {
            break p;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // The reviewer sees the image the model will not.
    let tollgate_protocol::ApprovalRequest::Result { images, .. } = &review.request else {
        panic!("{review:?}")
    };
    assert_eq!(images, &summary.images);
    app.asks()
        .answer_approval(
            chat,
            &review.id,
            Decision::Result(ResultDecision::Reject { reason: None }),
        )
        .await
        .unwrap();
    let withheld = task.await.unwrap();
    assert_eq!(withheld.status, CallStatus::ResultRejected);
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    assert!(calls[1].result_images.is_empty(), "{:?}", calls[1]);
    app.mcp_servers().manager().shutdown().await;
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn servers_and_their_secrets_survive_a_restart_of_the_app() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("unused");
    {
        let app = open(dir.path()).await;
        let imported = app
            .mcp_servers()
            .import_mcp_servers(
                &json!({"mcpServers": {
                    "probe": {"command": "node", "args": [servers_dir().join("probe-server.mjs")],
                              "env": {"PROBE_MARKER": marker.display().to_string()}},
                    "later": {"command": "node", "args": ["x.js"], "disabled": true}
                }})
                .to_string(),
            )
            .await
            .unwrap();
        assert_eq!(imported, ["later", "probe"]);
        assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
        // The view never shows a secret value, only its name.
        let views = app.mcp_servers().list();
        let probe_view = views.iter().find(|v| v.config.name == "probe").unwrap();
        assert_eq!(probe_view.config.transport.secrets()["PROBE_MARKER"], "");
        assert_eq!(
            views
                .iter()
                .find(|v| v.config.name == "later")
                .unwrap()
                .state
                .status,
            McpStatus::Disabled
        );
        app.mcp_servers().manager().shutdown().await;
    }
    let db_file = dir.path().join(tollgate_store::DB_FILE);
    let mut db = std::fs::read(&db_file).unwrap();
    db.extend(std::fs::read(db_file.with_extension("sqlite3-wal")).unwrap_or_default());
    assert!(
        db.windows(6).any(|w| w == b"PROBE_"),
        "the server list is not in the database"
    );
    let needle = marker.display().to_string();
    assert!(
        !db.windows(needle.len()).any(|w| w == needle.as_bytes()),
        "a secret value reached the database file"
    );
    let app = open(dir.path()).await;
    assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
    registry_has(&app, "probe__wait", true).await;
    // The secret came back from the keychain: the probe got PROBE_MARKER, where it notes that
    // a call stopped in the chat (Stop) was cancelled on the server.
    let chat = crate::common::new_chat(&app).await;
    let exec = app.executor(chat).await.unwrap();
    let stop = CancellationToken::new();
    let task = {
        let (exec, stop) = (Arc::clone(&exec), stop.clone());
        tokio::spawn(async move {
            exec.execute(
                call("probe__wait", json!({"seconds": 30})),
                CallOrigin::default(),
                &stop,
            )
            .await
        })
    };
    approve_next(&app, chat).await;
    assert!(
        wait_for(&started(&marker)).await,
        "the call never reached the server"
    );
    stop.cancel();
    assert_eq!(task.await.unwrap().status, CallStatus::Cancelled);
    assert!(
        wait_for(&marker).await,
        "the stopped call never reached the server"
    );
    app.mcp_servers().remove_mcp_server("probe").await.unwrap();
    app.mcp_servers().remove_mcp_server("later").await.unwrap();
    registry_has(&app, "probe__wait", false).await;
    assert!(app.mcp_servers().list().is_empty());
    assert_eq!(
        keychain(dir.path()).get("mcp-server-probe").await.unwrap(),
        None,
        "removing a server deletes its secrets"
    );
    app.mcp_servers().manager().shutdown().await;
}

/// How a test calls a tool directly: no progress shown, no call to ask under.
pub(crate) fn options(timeout: Duration, cancel: &CancellationToken) -> tollgate_mcp::CallOptions {
    tollgate_mcp::CallOptions::unobserved(timeout, cancel.clone())
}

/// A tool a server keeps for its view (`_meta.ui.visibility: ["app"]`, MCP Apps, F-96) is
/// never offered to the model: the npm registry's PDF viewer server keeps `read_pdf_bytes` for
/// the buttons of its view, and the request the provider receives offers only `list_pdfs` and
/// the rest.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_tool_for_a_servers_view_alone_is_never_offered_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let pdf = servers_dir()
        .join("node_modules/@modelcontextprotocol/server-pdf/dist/index.js")
        .display()
        .to_string();
    app.mcp_servers()
        .save_mcp_server(
            McpServerConfig::stdio("pdf", "node", &[&pdf, "--stdio"]),
            None,
        )
        .await
        .unwrap();
    assert_eq!(settled(&app, "pdf").await, McpStatus::Ready);
    let state = app.mcp_servers().manager().state("pdf").unwrap();
    let listed: Vec<&str> = state.tools.iter().map(|t| t.remote_name.as_str()).collect();
    assert!(
        listed.contains(&"read_pdf_bytes") && listed.contains(&"list_pdfs"),
        "the server lists both: {listed:?}"
    );
    let view_only: Vec<&str> = state
        .tools
        .iter()
        .filter(|t| t.view_only)
        .map(|t| t.remote_name.as_str())
        .collect();
    assert!(
        view_only.contains(&"read_pdf_bytes"),
        "the card marks it: {view_only:?}"
    );
    assert!(!view_only.contains(&"list_pdfs"), "{view_only:?}");
    registry_has(&app, "pdf__list_pdfs", true).await;
    // What the model was offered, as the provider received it.
    let mock = crate::suite::service::with_mock(&app).await;
    mock.push(tollgate_mock_llm::openai::text("Nothing to read."));
    let chat = crate::common::new_chat(&app).await;
    crate::suite::service::turn(
        &app,
        chat,
        tollgate_engine::chat::TurnInput::Message("Which PDFs are there?".into()),
    )
    .await;
    let offered: Vec<String> = mock.bodies()[0]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    assert!(offered.iter().any(|n| n == "pdf__list_pdfs"), "{offered:?}");
    assert!(
        !offered.iter().any(|n| n.contains("read_pdf_bytes")),
        "a tool for the view alone reached the model: {offered:?}"
    );
    app.mcp_servers().manager().shutdown().await;
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn cancelling_a_call_tells_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("cancelled.txt");
    let conn = McpConnection::connect(&probe("probe", &marker), &[], Default::default())
        .await
        .unwrap();
    assert_eq!(
        conn.identity().instructions.as_deref(),
        Some("Probe server for Tollgate's tests.")
    );
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    let began = started(&marker);
    tokio::spawn(async move {
        if wait_for(&began).await {
            stopper.cancel();
        }
    });
    let args = json!({"seconds": 30}).as_object().unwrap().clone();
    let err = conn
        .call(
            "wait",
            args.clone(),
            &options(Duration::from_secs(60), &cancel),
        )
        .await
        .unwrap_err();
    assert_eq!(err, McpError::Cancelled);
    assert!(
        wait_for(&marker).await,
        "the server never saw the cancellation"
    );
    assert!(std::fs::read_to_string(&marker)
        .unwrap()
        .starts_with("cancelled"));

    // A call that outlives its timeout is cancelled on the server as well.
    std::fs::remove_file(&marker).unwrap();
    let err = conn
        .call(
            "wait",
            args,
            &options(Duration::from_millis(300), &CancellationToken::new()),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("did not answer"), "{err}");
    assert!(
        wait_for(&marker).await,
        "the timed-out request was not cancelled on the server"
    );
    conn.shutdown().await;
    assert!(!conn.is_alive());
}

/// SPEC §11: a server's progress reports reach the card of the call they are for, as events of
/// that chat and call, with the server's message; the call then ends normally.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_server_s_progress_reaches_the_card_of_its_call() {
    use tollgate_protocol::ToolEvent;
    use tollgate_tools::ChannelSink;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("steps");
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let app = crate::common::app_in(dir.path())
        .sink(Arc::new(ChannelSink(tx)))
        .open()
        .await;
    let chat = probe_ready(&app, &marker, "probe__steps").await;
    let task = start_approved(&app, chat, call("probe__steps", json!({"count": 4}))).await;

    // The server reports step 1 and waits until the test has seen it.
    let (seq, first) = loop {
        let event = tokio::time::timeout_at(crate::common::deadline().into(), events.recv())
            .await
            .expect("no progress was reported")
            .expect("the events ended");
        match event {
            ToolEvent::Started { chat: c, seq, .. } => assert_eq!(c, chat, "call {seq}"),
            ToolEvent::Progress {
                chat: c,
                seq,
                progress,
                total,
                message,
            } => {
                assert_eq!(c, chat);
                break (seq, (progress, total, message));
            }
            ToolEvent::Finished { summary, .. } => {
                panic!("the call ended before any progress: {summary:?}")
            }
            _ => {}
        }
    };
    assert_eq!(first, (1.0, Some(4.0), Some("Step 1 of 4".to_string())));
    std::fs::write(go_file(&marker), "go").unwrap();
    let result = task.await.unwrap();
    assert_eq!(result.status, CallStatus::Success, "{}", result.content);
    assert_eq!(result.content, "4 steps done");
    assert_eq!(result.seq, seq);
    app.mcp_servers().manager().shutdown().await;
}

/// SPEC §11: a resource a result links to is offered to the user to attach, with the server
/// it is on; the model reads the link in the text; reading it gives the resource itself.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_resource_a_result_links_to_can_be_attached() {
    use tollgate_protocol::{AttachmentKind, Source};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let chat = probe_ready(&app, &dir.path().join("m"), "probe__report").await;
    let result = run_approved(&app, chat, call("probe__report", json!({}))).await;
    assert_eq!(result.status, CallStatus::Success, "{}", result.content);
    assert!(
        result
            .content
            .contains("[resource link: notes <probe://notes.md>]"),
        "{}",
        result.content
    );
    // The card (and the stored call, for the card after a restart) offers the link.
    let stored = app.store().calls().chat_calls(chat).await.unwrap();
    let images = &stored.last().unwrap().result_images;
    let [link] = &images[..] else {
        panic!("one link offered: {images:?}")
    };
    assert_eq!(link.kind, AttachmentKind::ResourceLink);
    assert_eq!(link.name, "Project notes");
    assert_eq!(
        link.source,
        Some(Source::McpResource {
            server: "probe".into(),
            uri: "probe://notes.md".into()
        })
    );
    // Attaching reads it from its server.
    let files = app
        .mcp_servers()
        .read_mcp_resource("probe", &link.data)
        .await
        .unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].kind, AttachmentKind::Text);
    assert_eq!(files[0].data, "# Notes\nShip on Friday.");
    // The link itself is never sent as part of a message.
    let refused = tollgate_engine::chat::attachments::check(vec![link.clone()]).unwrap_err();
    assert!(refused.contains("only a link"), "{refused}");
    app.mcp_servers().manager().shutdown().await;
}

/// SPEC §11: a server that answers a call with "open this page first" (`-32042`) has the page
/// put to the user under the call, whole address first; declined, the call fails saying so;
/// opened, the call waits until the server says the user finished there, then is made again.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_page_the_server_needs_opened_first_is_put_to_the_user() {
    use tollgate_protocol::{ElicitationAnswer, ElicitationKind};
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("pay");
    let app = open(dir.path()).await;
    let chat = probe_ready(&app, &marker, "probe__paywall").await;
    let page = |app: &Arc<Tollgate>| {
        let app = Arc::clone(app);
        async move {
            crate::common::eventually("the page is put to the user", || {
                !app.asks().pending_elicitations(chat).is_empty()
            })
            .await;
            app.asks().pending_elicitations(chat).pop().unwrap()
        }
    };

    let declined = start_approved(&app, chat, call("probe__paywall", json!({}))).await;
    let asked = page(&app).await;
    assert_eq!(asked.server, "probe");
    assert_eq!(asked.message, "Pay for the premium forecast.");
    assert_eq!(
        asked.kind,
        ElicitationKind::Url {
            url: "https://pay.example.com/checkout?session=probe".into(),
            host: "pay.example.com".into()
        }
    );
    app.asks()
        .answer_elicitation(chat, &asked.id, ElicitationAnswer::Decline)
        .unwrap();
    let result = declined.await.unwrap();
    assert_eq!(result.status, CallStatus::Error);
    assert!(
        result
            .content
            .contains("the user declined to open pay.example.com"),
        "{}",
        result.content
    );

    let opened = start_approved(&app, chat, call("probe__paywall", json!({}))).await;
    let asked = page(&app).await;
    app.asks()
        .answer_elicitation(chat, &asked.id, ElicitationAnswer::Accept { content: None })
        .unwrap();
    // The call waits for the server's word that the user finished on the page.
    std::fs::write(paid_file(&marker), "paid").unwrap();
    let result = opened.await.unwrap();
    assert_eq!(result.status, CallStatus::Success, "{}", result.content);
    assert_eq!(result.content, "premium forecast: sunny");
    app.mcp_servers().manager().shutdown().await;
}

/// The file that says the user finished on the probe server's page.
fn paid_file(marker: &std::path::Path) -> std::path::PathBuf {
    let mut name = marker.as_os_str().to_owned();
    name.push(".paid");
    name.into()
}

/// The file that lets the probe server's `steps` go on.
fn go_file(marker: &std::path::Path) -> std::path::PathBuf {
    let mut name = marker.as_os_str().to_owned();
    name.push(".go");
    name.into()
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_crashed_server_is_marked_failed_and_can_be_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    app.mcp_servers()
        .save_mcp_server(probe("probe", &dir.path().join("m")), None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
    registry_has(&app, "probe__crash", true).await;
    let first_pid = app.mcp_servers().manager().pid("probe").unwrap();

    // The server dies in the middle of a call: the call fails clearly, the server is marked failed
    // with what it wrote to stderr, and its tools leave the registry.
    let chat = crate::common::new_chat(&app).await;
    let result = run_approved(&app, chat, call("probe__crash", json!({}))).await;
    assert_eq!(result.status, CallStatus::Error);
    assert!(
        result.content.contains("stopped during the call"),
        "{}",
        result.content
    );
    let status = settled(&app, "probe").await;
    let McpStatus::Failed { error } = status else {
        panic!("not failed: {status:?}")
    };
    assert!(error.contains("stopped unexpectedly"), "{error}");
    assert!(error.contains("crashing on purpose"), "{error}");
    registry_has(&app, "probe__crash", false).await;

    app.mcp_servers().restart_mcp_server("probe").unwrap();
    assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
    registry_has(&app, "probe__crash", true).await;
    assert_ne!(app.mcp_servers().manager().pid("probe").unwrap(), first_pid);
    assert!(app.mcp_servers().restart_mcp_server("nope").is_err());

    // A server that cannot start says why.
    app.mcp_servers()
        .save_mcp_server(
            McpServerConfig::stdio("broken", "no-such-program-tollgate", &[]),
            None,
        )
        .await
        .unwrap();
    let McpStatus::Failed { error } = settled(&app, "broken").await else {
        panic!()
    };
    assert!(error.contains("not found"), "{error}");
    app.mcp_servers().manager().shutdown().await;
}

/// Item 6 of the gate issue: keys written into a server's command line or URL never reach the
/// database, the settings view or the system prompt (which goes to the provider every request),
/// yet the server still gets them; and a stored header is never sent to a new host.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn inline_secrets_stay_in_the_keychain_and_never_follow_a_new_host() {
    use tollgate_mcp::inline_secrets::HIDDEN;
    use tollgate_mcp::McpTransport;
    let dir = tempfile::tempdir().unwrap();
    let secret = "sk-live-INLINE-0123456789abcdef";
    let script = servers_dir().join("probe-server.mjs").display().to_string();
    let check_running_server_has_it = |app: &Tollgate| {
        let pid = app
            .mcp_servers()
            .manager()
            .pid("keyed")
            .expect("the server runs");
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        assert!(
            String::from_utf8_lossy(&cmdline).contains(secret),
            "the server got its key back from the keychain"
        );
    };
    {
        let app = open(dir.path()).await;
        app.mcp_servers().import_mcp_servers(
            &json!({"mcpServers": {
                "keyed": {"command": "node", "args": [script, "--api-key", secret]},
                "remote": {"url": "http://127.0.0.1:9/mcp?token=tok-INLINE-42", "headers": {"Authorization": "Bearer hdr-INLINE-7"}}
            }})
            .to_string(),
        )
        .await
        .unwrap();
        assert_eq!(settled(&app, "keyed").await, McpStatus::Ready);
        check_running_server_has_it(&app);
        let views = serde_json::to_string(&app.mcp_servers().list()).unwrap();
        for leaked in [secret, "tok-INLINE-42", "hdr-INLINE-7"] {
            assert!(!views.contains(leaked), "the settings view shows {leaked}");
        }
        assert!(views.contains(HIDDEN));
        // The secrets are remembered, not the URL around them: a page that mentions the same
        // host is read as it is (a whole URL remembered cut `http://127` out of every page).
        let page = "Docs at http://127.0.0.1:4567/docs/a1 and http://127.0.0.1:9/mcp";
        assert_eq!(tollgate_secrets::redact_known(page), page);
        for kept in [secret, "tok-INLINE-42", "hdr-INLINE-7"] {
            assert!(
                !tollgate_secrets::redact_known(&format!("x {kept} y")).contains(kept),
                "{kept} is a known secret"
            );
        }
        // The prompt names the server's tools, never its command line.
        let chat = crate::common::new_chat(&app).await;
        registry_has(&app, "keyed__wait", true).await;
        let prompt = app.executor(chat).await.unwrap().system_prompt_section();
        assert!(prompt.contains("keyed"), "{prompt}");
        assert!(
            !prompt.contains(secret) && !prompt.contains("probe-server.mjs"),
            "{prompt}"
        );

        // Re-pointing the HTTP server at another host with the header left blank is refused:
        // the stored token would go to the new host.
        let mut moved = app
            .mcp_servers()
            .list()
            .into_iter()
            .find(|v| v.config.name == "remote")
            .unwrap()
            .config;
        let McpTransport::Http { url, .. } = &mut moved.transport else {
            panic!()
        };
        *url = "http://127.0.0.2:9/mcp".into();
        let err = app
            .mcp_servers()
            .save_mcp_server(moved.clone(), Some("remote"))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("Authorization"), "{err}");
        // The same goes for a stdio server pointed at another program by its arguments (the
        // command, `node`, is the same): its hidden key is not handed to the new program.
        let mut other_program = app
            .mcp_servers()
            .list()
            .into_iter()
            .find(|v| v.config.name == "keyed")
            .unwrap()
            .config;
        let McpTransport::Stdio { args, .. } = &mut other_program.transport else {
            panic!()
        };
        args[0] = "/tmp/someone-elses-server.mjs".into();
        let err = app
            .mcp_servers()
            .save_mcp_server(other_program, Some("keyed"))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("hidden parts"), "{err}");
        // The same host keeps its stored values.
        let same = app
            .mcp_servers()
            .list()
            .into_iter()
            .find(|v| v.config.name == "remote")
            .unwrap()
            .config;
        app.mcp_servers()
            .save_mcp_server(same, Some("remote"))
            .await
            .unwrap();
        let kept = keychain(dir.path())
            .get("mcp-server-remote")
            .await
            .unwrap()
            .unwrap();
        assert!(kept.contains("hdr-INLINE-7"));
        app.mcp_servers().manager().shutdown().await;
    }
    let db_file = dir.path().join(tollgate_store::DB_FILE);
    let mut db = std::fs::read(&db_file).unwrap();
    db.extend(std::fs::read(db_file.with_extension("sqlite3-wal")).unwrap_or_default());
    for leaked in [secret, "tok-INLINE-42", "hdr-INLINE-7"] {
        assert!(
            !db.windows(leaked.len()).any(|w| w == leaked.as_bytes()),
            "{leaked} reached the database file"
        );
    }
    // After a restart the server still starts with its key.
    let app = open(dir.path()).await;
    assert_eq!(settled(&app, "keyed").await, McpStatus::Ready);
    check_running_server_has_it(&app);
    app.mcp_servers().remove_mcp_server("keyed").await.unwrap();
    app.mcp_servers().remove_mcp_server("remote").await.unwrap();
    app.mcp_servers().manager().shutdown().await;
}

/// Waits until `check` holds of the app (a list a server changed).
async fn eventually(app: &Tollgate, what: &str, check: impl Fn(&Tollgate) -> bool) {
    crate::common::eventually(what, || check(app)).await;
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn resources_attach_prompts_fill_and_changed_lists_are_read_again() {
    use std::collections::BTreeMap;
    use tollgate_protocol::AttachmentKind;
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    app.mcp_servers()
        .save_mcp_server(probe("probe", &dir.path().join("m")), None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
    let state = app.mcp_servers().manager().state("probe").unwrap();
    assert_eq!((state.resources, state.prompts), (2, 1));

    // Resources: listed with their titles; a text one becomes a text file, an image an image.
    let resources = app.mcp_servers().mcp_resources();
    let notes = resources
        .iter()
        .find(|r| r.uri == "probe://notes.md")
        .unwrap();
    assert_eq!(notes.title.as_deref(), Some("Project notes"));
    let files = app
        .mcp_servers()
        .read_mcp_resource("probe", "probe://notes.md")
        .await
        .unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(
        (
            files[0].name.as_str(),
            files[0].kind,
            files[0].data.as_str()
        ),
        (
            "Project notes",
            AttachmentKind::Text,
            "# Notes\nShip on Friday."
        )
    );
    let dot = app
        .mcp_servers()
        .read_mcp_resource("probe", "probe://dot.png")
        .await
        .unwrap();
    assert_eq!(
        (dot[0].kind, dot[0].media_type.as_str()),
        (AttachmentKind::Image, "image/png")
    );
    let missing = app
        .mcp_servers()
        .read_mcp_resource("probe", "probe://nope")
        .await
        .unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("Reading probe://nope from \"probe\" failed"),
        "{missing}"
    );
    let stopped = app
        .mcp_servers()
        .read_mcp_resource("nobody", "probe://notes.md")
        .await
        .unwrap_err();
    assert!(stopped.to_string().contains("is not running"), "{stopped}");

    // Prompts: listed with their arguments; filled in, the text and the embedded resource.
    let prompts = app.mcp_servers().mcp_prompts();
    let review = prompts.iter().find(|p| p.name == "review").unwrap();
    let args: Vec<(&str, bool)> = review
        .arguments
        .iter()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    assert_eq!(args, [("file", true), ("focus", false)]);
    let filled = app
        .mcp_servers()
        .get_mcp_prompt(
            "probe",
            "review",
            BTreeMap::from([("file".to_string(), "main.rs".to_string())]),
        )
        .await
        .unwrap();
    assert_eq!(filled.text, "Review main.rs carefully.");
    assert_eq!(filled.attachments.len(), 1);
    assert_eq!(filled.attachments[0].name, "notes.md");

    // `grow` adds a tool, a resource and a prompt while connected: the server's list_changed
    // notifications make Tollgate list them again, and the new tool reaches the chats.
    let chat = crate::common::new_chat(&app).await;
    let grown = run_approved(&app, chat, call("probe__grow", json!({}))).await;
    assert_eq!(grown.status, CallStatus::Success);
    registry_has(&app, "probe__later", true).await;
    // The new tool asks like the server's others (run_approved waits for its approval).
    let later = run_approved(&app, chat, call("probe__later", json!({}))).await;
    assert_eq!(later.content, "later");
    eventually(&app, "the new resource is listed", |a| {
        a.mcp_servers()
            .mcp_resources()
            .iter()
            .any(|r| r.uri == "probe://later.txt")
    })
    .await;
    eventually(&app, "the new prompt is listed", |a| {
        a.mcp_servers()
            .mcp_prompts()
            .iter()
            .any(|p| p.name == "later-prompt")
    })
    .await;
    app.mcp_servers().manager().shutdown().await;
}

/// Known secrets never leave in results (F-46): a server's key written into its command line
/// goes to the keychain and back into the server's argv at launch, where an approved `ps aux`
/// — with the chat's sandbox off, so that it sees every process — would print it. The result
/// the model gets, the record, the call's variable and the database hold `[redacted]` instead.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_server_s_inline_secret_never_leaves_in_a_result() {
    tollgate_tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
    const SECRET: &str = "tg-inline-secret-7Hq2x9Lw";
    let dir = super::sandbox::test_root();
    let app = open(dir.path()).await;
    let mut config = probe("keyed", &dir.path().join("marker"));
    if let tollgate_mcp::McpTransport::Stdio { args, .. } = &mut config.transport {
        args.extend(["--api-key".to_string(), SECRET.to_string()]);
    }
    app.mcp_servers()
        .save_mcp_server(config, None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "keyed").await, McpStatus::Ready);
    let mock = super::service::with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    let exec = app.executor(chat).await.unwrap();
    exec.set_workspace(Some(dir.path().to_path_buf()))
        .await
        .unwrap();
    let off = tollgate_protocol::ChatSandbox {
        level: tollgate_protocol::SandboxLevel::Off,
        ..Default::default()
    };
    app.gate().set_chat_sandbox(chat, off, true).await.unwrap();
    let ps = json!({"command": "ps axww -o args"}).to_string();
    mock.push(tollgate_mock_llm::openai::calls(
        "",
        &[("c1", "run_command", ps.as_str())],
    ));
    mock.push(tollgate_mock_llm::openai::text("Done."));
    super::sandbox::app::turn_allowing_all(&app, chat, "list processes").await;
    let body = mock.bodies().pop().unwrap().to_string();
    assert!(
        body.contains("probe-server.mjs --api-key [redacted]"),
        "{body}"
    );
    assert!(!body.contains(SECRET));
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    let result = calls
        .last()
        .unwrap()
        .result_text
        .clone()
        .unwrap_or_default();
    assert!(result.contains("--api-key [redacted]"), "{result}");
    app.mcp_servers().manager().shutdown().await;
    drop(app);
    for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            assert!(
                !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
                "{} holds the secret",
                entry.path().display()
            );
        }
    }
}

/// Runs `request` in `chat` and expects it to run without a card.
pub(crate) async fn run_unasked(
    app: &Tollgate,
    chat: tollgate_engine::ChatId,
    request: ToolCallRequest,
) -> tollgate_engine::ToolCallResult {
    let task = spawn_call(app, chat, request).await;
    crate::common::eventually("the call ends or asks", || {
        task.is_finished() || !app.asks().pending(chat).is_empty()
    })
    .await;
    assert!(
        app.asks().pending(chat).is_empty(),
        "the call asked: {:?}",
        app.asks().pending(chat)
    );
    task.await.unwrap()
}

/// Adds the probe server (writing to `marker`), waits until it is ready, and allows every
/// call of its `forecast` in every chat (a global rule).
async fn forecasts_allowed(app: &Tollgate, marker: &std::path::Path) {
    use tollgate_protocol::{RuleAction, RuleScope};
    app.mcp_servers()
        .save_mcp_server(probe("probe", marker), None)
        .await
        .unwrap();
    assert_eq!(settled(app, "probe").await, McpStatus::Ready);
    app.gate()
        .rules()
        .add(
            "probe__forecast",
            None,
            RuleAction::Allow,
            RuleScope::Global,
        )
        .await
        .unwrap();
}

/// The probe server added with a rule for its `forecast` ([`forecasts_allowed`]), and a first
/// chat in which the rule ran a forecast for Oslo without asking.
async fn oslo_under_a_rule(app: &Tollgate, marker: &std::path::Path) -> tollgate_engine::ChatId {
    forecasts_allowed(app, marker).await;
    let first_chat = crate::common::new_chat(app).await;
    let first = run_unasked(
        app,
        first_chat,
        call("probe__forecast", json!({"city": "Oslo"})),
    )
    .await;
    assert_eq!(first.content, "sunny in Oslo");
    first_chat
}

/// The next approval waiting in `chat`.
pub(crate) async fn next_pending(
    app: &Tollgate,
    chat: tollgate_engine::ChatId,
) -> tollgate_protocol::PendingApproval {
    crate::common::eventually("an approval is requested", || {
        !app.asks().pending(chat).is_empty()
    })
    .await;
    app.asks().pending(chat).pop().unwrap()
}

/// SPEC §11: a server that rewrites a tool after the user allowed it — a new sentence in its
/// description, `readOnlyHint` flipped to true — does not keep the rule made for the old tool:
/// the next call asks, with what changed, until the user accepts the new version. Accepting
/// needs the version read; the acceptance is saved; an import that replaces the server sets
/// every tool's grants aside again.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_tool_that_changes_asks_again_with_what_changed_until_accepted() {
    use tollgate_protocol::policy::DecidedBy;
    use tollgate_protocol::{ApprovalRequest, AskReason, DefinitionPart, ReviewReason};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let marker = dir.path().join("m");
    // The user allows every forecast, in every chat.
    forecasts_allowed(&app, &marker).await;
    let chat = crate::common::new_chat(&app).await;
    let first = run_unasked(&app, chat, call("probe__forecast", json!({"city": "Oslo"}))).await;
    assert_eq!(first.content, "sunny in Oslo");

    // The server rewrites the tool behind the user's back.
    let shifted = run_approved(&app, chat, call("probe__shapeshift", json!({}))).await;
    assert_eq!(shifted.content, "changed");
    crate::common::eventually("the changed tool goes under review", || {
        app.registry()
            .tool("probe__forecast")
            .is_some_and(|t| t.tool.spec().review.is_some())
    })
    .await;
    let spec = app
        .registry()
        .tool("probe__forecast")
        .unwrap()
        .tool
        .spec()
        .clone();
    assert!(
        !spec.read_only,
        "a tool that was not read-only is not made read-only by a changed hint"
    );
    assert!(spec.effects.writes);

    // The next call asks despite the rule, and the card carries the diff.
    let task = spawn_call(
        &app,
        chat,
        call("probe__forecast", json!({"city": "Bergen"})),
    )
    .await;
    let pending = next_pending(&app, chat).await;
    let ApprovalRequest::Execution {
        reason,
        tool_change,
        policy,
        ..
    } = &pending.request
    else {
        panic!("an execution card: {pending:?}")
    };
    assert_eq!(
        *reason,
        AskReason::ToolChanged {
            would_allow: Some(DecidedBy::Rule)
        }
    );
    assert_eq!(*policy, ExecutionPolicy::AskAlways);
    let change = tool_change.as_deref().unwrap().clone();
    assert_eq!(change.reason, ReviewReason::Changed);
    assert_eq!(
        change.changed,
        vec![DefinitionPart::Description, DefinitionPart::Annotations]
    );
    assert_eq!(
        change.before.as_ref().unwrap().description,
        "Reads the weather forecast for a city."
    );
    assert!(change.after.description.contains("id_rsa"));
    assert_eq!(
        change.after.annotations,
        Some(json!({"readOnlyHint": true}))
    );
    // Settings → MCP servers shows the same change.
    let summary = app.mcp_servers().manager().state("probe").unwrap();
    let listed = summary
        .tools
        .iter()
        .find(|t| t.remote_name == "forecast")
        .unwrap();
    assert_eq!(listed.change.as_ref(), Some(&change));
    app.asks()
        .answer_approval(
            chat,
            &pending.id,
            Decision::Execution(ExecutionDecision::Deny { reason: None }),
        )
        .await
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);

    // Accepting takes the version read: a click on another accepts nothing.
    let stale = app
        .mcp_servers()
        .accept_mcp_tool_change("probe", "forecast", "0123")
        .await
        .unwrap_err();
    assert!(stale.to_string().contains("changed again"), "{stale}");
    app.mcp_servers()
        .accept_mcp_tool_change("probe", "forecast", &change.fingerprint)
        .await
        .unwrap();
    crate::common::eventually("the accepted tool leaves review", || {
        app.registry()
            .tool("probe__forecast")
            .is_some_and(|t| t.tool.spec().review.is_none())
    })
    .await;
    let after = run_unasked(
        &app,
        chat,
        call("probe__forecast", json!({"city": "Bergen"})),
    )
    .await;
    assert_eq!(after.content, "sunny in Bergen");
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    assert_eq!(calls.last().unwrap().decided_by, DecidedBy::Rule);

    // The acceptance is saved: after a restart the probe offers its original tool again, which
    // is not what was accepted last — so it is under review, compared with the accepted one.
    app.mcp_servers().manager().shutdown().await;
    drop(app);
    let app = open(dir.path()).await;
    assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
    let again = app
        .mcp_servers()
        .manager()
        .state("probe")
        .unwrap()
        .tools
        .into_iter()
        .find(|t| t.remote_name == "forecast")
        .and_then(|t| t.change)
        .expect("the original tool differs from the accepted one");
    assert!(again.before.unwrap().description.contains("id_rsa"));

    // An import that replaces the server: every tool's grants are set aside, unchanged or not.
    let script = servers_dir().join("probe-server.mjs").display().to_string();
    let imported = json!({"mcpServers": {"probe": {
        "command": "node",
        "args": [script],
        "env": {"PROBE_MARKER": marker.display().to_string()}
    }}});
    app.mcp_servers()
        .import_mcp_servers(&imported.to_string())
        .await
        .unwrap();
    assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
    crate::common::eventually("every tool of the replaced server is under review", || {
        app.mcp_servers().manager().state("probe").is_some_and(|s| {
            !s.tools.is_empty()
                && s.tools.iter().all(|t| {
                    t.change
                        .as_ref()
                        .is_some_and(|c| c.reason == ReviewReason::Replaced)
                })
        })
    })
    .await;
    app.mcp_servers().manager().shutdown().await;
}

/// A tool changed without `list_changed` (SPEC §12): a rule made for the old definition in an
/// earlier chat does not run the new one in the next chat. Before the grant is used there, the
/// tool is listed again; the change asks with its diff, and the tool goes under review.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_tool_changed_without_a_word_asks_before_an_earlier_grant_runs_it() {
    use tollgate_protocol::policy::DecidedBy;
    use tollgate_protocol::{AskReason, DefinitionPart};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let marker = dir.path().join("m");
    let first_chat = oslo_under_a_rule(&app, &marker).await;

    // The server rewrites the tool and says nothing: the registry still holds the old one.
    let shifted = run_approved(&app, first_chat, call("probe__quietshift", json!({}))).await;
    assert_eq!(shifted.content, "changed quietly");
    assert!(app
        .registry()
        .tool("probe__forecast")
        .is_some_and(|t| t.tool.spec().review.is_none()));

    // The next chat: the rule would run it, but the tool is listed again first.
    let bergen = BergenCard::ask(&app).await;
    assert_eq!(
        bergen.reason,
        AskReason::ToolChanged {
            would_allow: Some(DecidedBy::Rule)
        }
    );
    let change = bergen.change.as_ref().unwrap();
    assert_eq!(
        change.changed,
        vec![DefinitionPart::Description, DefinitionPart::Annotations]
    );
    assert!(change.after.description.contains(".aws/credentials"));
    bergen
        .deny_and_see_only_oslo_arrived(&app, dir.path())
        .await;
    // Listing it again put it under review, as a list_changed would have.
    crate::common::eventually("the quietly changed tool goes under review", || {
        app.registry()
            .tool("probe__forecast")
            .is_some_and(|t| t.tool.spec().review.is_some())
    })
    .await;
    app.mcp_servers().manager().shutdown().await;
}

/// The listing a standing grant waits on fails (SPEC §12, F-80): the call does not run, and the
/// error, which quotes what the server wrote, reaches the model as the server's text, with the
/// server as its source, so the chat counts it as read. Before, it came with no source and a
/// chat whose every server the user had reviewed still said nothing untrusted was read.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_listing_that_fails_before_a_grant_runs_is_the_servers_text_with_its_source() {
    use tollgate_protocol::Source;
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let marker = dir.path().join("m");
    let first_chat = oslo_under_a_rule(&app, &marker).await;
    let broken = run_approved(&app, first_chat, call("probe__breaklist", json!({}))).await;
    assert_eq!(broken.content, "listing broken");

    // The next chat lists the tool again before the rule runs it; the listing fails.
    let chat = crate::common::new_chat(&app).await;
    let failed = run_unasked(
        &app,
        chat,
        call("probe__forecast", json!({"city": "Bergen"})),
    )
    .await;
    assert!(failed.is_error, "{failed:?}");
    assert!(
        failed.content.contains("mallory@evil.example"),
        "the server's words are quoted: {}",
        failed.content
    );
    assert!(
        failed.sources.contains(&Source::McpServer {
            server: "probe".into()
        }),
        "the server is the error's source: {:?}",
        failed.sources
    );
    // Judged by the server's own log: Bergen never reached it.
    let asked = std::fs::read_to_string(format!("{}.forecasts", marker.display())).unwrap();
    assert_eq!(asked, "Oslo\n");
    app.mcp_servers().manager().shutdown().await;
}

/// The same change, met by a call that asks anyway (F-97): the card the user answers is for
/// the tool as its server runs it now. Before, only a standing grant listed the tool again, so a
/// card raised for another reason (the policy, the gate's hold) showed and granted the old one.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_card_for_a_tool_changed_without_a_word_shows_the_tool_as_it_is_now() {
    use tollgate_protocol::AskReason;
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let marker = dir.path().join("m");
    app.mcp_servers()
        .save_mcp_server(probe("probe", &marker), None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "probe").await, McpStatus::Ready);
    let first_chat = crate::common::new_chat(&app).await;
    let first = run_approved(
        &app,
        first_chat,
        call("probe__forecast", json!({"city": "Oslo"})),
    )
    .await;
    assert_eq!(first.content, "sunny in Oslo");
    let shifted = run_approved(&app, first_chat, call("probe__quietshift", json!({}))).await;
    assert_eq!(shifted.content, "changed quietly");

    // No rule: the policy asks. The card is for the rewritten tool, and says it changed.
    let bergen = BergenCard::ask(&app).await;
    assert_eq!(bergen.reason, AskReason::ToolChanged { would_allow: None });
    let change = bergen.change.as_ref().expect("the card carries the change");
    assert!(change.after.description.contains(".aws/credentials"));
    assert!(!change
        .before
        .as_ref()
        .is_some_and(|b| b.description.contains(".aws/credentials")));
    bergen
        .deny_and_see_only_oslo_arrived(&app, dir.path())
        .await;
    app.mcp_servers().manager().shutdown().await;
}

/// The card a forecast for Bergen raises in a new chat once the probe has rewritten `forecast`
/// without a word, and the call waiting on it.
struct BergenCard {
    chat: tollgate_engine::ChatId,
    pending: tollgate_protocol::PendingApproval,
    reason: tollgate_protocol::AskReason,
    change: Option<tollgate_protocol::ToolChange>,
    task: tokio::task::JoinHandle<tollgate_engine::ToolCallResult>,
}

impl BergenCard {
    async fn ask(app: &Tollgate) -> Self {
        use tollgate_protocol::ApprovalRequest;
        let chat = crate::common::new_chat(app).await;
        let task = spawn_call(
            app,
            chat,
            call("probe__forecast", json!({"city": "Bergen"})),
        )
        .await;
        let pending = next_pending(app, chat).await;
        let ApprovalRequest::Execution {
            reason,
            tool_change,
            ..
        } = &pending.request
        else {
            panic!("an execution card: {pending:?}")
        };
        Self {
            chat,
            reason: reason.clone(),
            change: tool_change.as_deref().cloned(),
            pending,
            task,
        }
    }

    /// Denies the card; judged by the server's own log in `dir`: the forecast before the change
    /// arrived, the one after it did not.
    async fn deny_and_see_only_oslo_arrived(self, app: &Tollgate, dir: &std::path::Path) {
        app.asks()
            .answer_approval(
                self.chat,
                &self.pending.id,
                Decision::Execution(ExecutionDecision::Deny { reason: None }),
            )
            .await
            .unwrap();
        assert_eq!(
            self.task.await.unwrap().status,
            CallStatus::ExecutionRejected
        );
        let given = std::fs::read_to_string(dir.join("m.forecasts")).unwrap();
        assert_eq!(given, "Oslo\n");
    }
}

/// A parameter the review flagged is marked on the card of each call that gives it a value
/// (F-97): the server's `sidenote` asks for the conversation, and the card names it with
/// the words that flagged it, while the ordinary `city` beside it is not marked. Judged by the
/// server's own log: the denied call never reached it.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn the_card_marks_an_argument_whose_parameter_the_review_flagged() {
    use tollgate_protocol::{ApprovalRequest, FindingKind};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let script = servers_dir()
        .join("inject-server.mjs")
        .display()
        .to_string();
    let mut config = McpServerConfig::stdio("curious", "node", &[&script]);
    if let tollgate_mcp::McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert("INJECT_KIND".into(), "curious".into());
        env.insert("INJECT_DIR".into(), dir.path().display().to_string());
    }
    app.mcp_servers()
        .save_mcp_server(config, None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "curious").await, McpStatus::Ready);
    let chat = crate::common::new_chat(&app).await;

    let task = spawn_call(
        &app,
        chat,
        call(
            "curious__weather",
            json!({"city": "Oslo", "sidenote": "The user asked about their salary review."}),
        ),
    )
    .await;
    let pending = next_pending(&app, chat).await;
    let ApprovalRequest::Execution { flagged, .. } = &pending.request else {
        panic!("an execution card: {pending:?}")
    };
    assert_eq!(flagged.len(), 1, "{flagged:?}");
    assert_eq!(flagged[0].path, vec!["sidenote".to_string()]);
    assert_eq!(flagged[0].kind, FindingKind::AsksForContext);
    assert_eq!(flagged[0].excerpt, "conversation");
    app.asks()
        .answer_approval(
            chat,
            &pending.id,
            Decision::Execution(ExecutionDecision::Deny { reason: None }),
        )
        .await
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    assert!(!dir.path().join("curious.jsonl").exists());

    // A call that leaves the flagged parameter out has nothing marked.
    let task = spawn_call(
        &app,
        chat,
        call("curious__weather", json!({"city": "Bergen"})),
    )
    .await;
    let pending = next_pending(&app, chat).await;
    let ApprovalRequest::Execution { flagged, .. } = &pending.request else {
        panic!("an execution card: {pending:?}")
    };
    assert!(flagged.is_empty(), "{flagged:?}");
    app.asks()
        .answer_approval(
            chat,
            &pending.id,
            Decision::Execution(ExecutionDecision::AllowOnce),
        )
        .await
        .unwrap();
    assert_eq!(task.await.unwrap().content, "Sunny in Bergen.");
    app.mcp_servers().manager().shutdown().await;
}
