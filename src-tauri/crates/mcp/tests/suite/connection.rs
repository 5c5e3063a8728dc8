//! One connection (`McpConnection`): how a server is started or reached, what it offers, a
//! call, and what the user is told when it cannot start.

use super::{args, everything, options, probe};
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_mcp::{McpConnection, McpError, McpServerConfig};
use tollgate_test_support::mcp_servers::{everything_js, free_port};

#[tokio::test]
async fn a_stdio_server_says_who_it_is_lists_its_tools_and_answers_a_call() {
    let conn = McpConnection::connect(&everything("everything"), &[], Default::default())
        .await
        .unwrap();
    let who = conn.identity();
    assert!(who.name.is_some(), "{who:?}");
    assert_eq!(
        who.protocol.as_deref(),
        Some(
            rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE
                .to_string()
                .as_str()
        ),
        "the session speaks the newest version with a handshake"
    );
    assert!(conn.pid().is_some());
    let tools = conn.tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
    let out = conn
        .call(
            "echo",
            args(json!({"message": "through stdio"})),
            &options(Duration::from_secs(30), &CancellationToken::new()),
        )
        .await
        .unwrap();
    assert!(tollgate_mcp::render_result(&out)
        .text
        .contains("through stdio"));
    conn.shutdown().await;
    assert!(!conn.is_alive());
}

#[tokio::test]
async fn a_server_over_streamable_http_answers_a_call() {
    let port = free_port();
    let mut server = tokio::process::Command::new("node")
        .args([&everything_js(), "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let config = McpServerConfig::http("remote", format!("http://127.0.0.1:{port}/mcp"));
    // The server listens once it has started: until then a session cannot begin.
    let conn = tollgate_test_support::wait::eventually_some_async(
        "the HTTP server accepts a session",
        || {
            let config = config.clone();
            async move {
                McpConnection::connect(&config, &[], Default::default())
                    .await
                    .ok()
            }
        },
    )
    .await;
    let tools = conn.tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"));
    let out = conn
        .call(
            "echo",
            args(json!({"message": "through http"})),
            &options(Duration::from_secs(30), &CancellationToken::new()),
        )
        .await
        .unwrap();
    assert!(tollgate_mcp::render_result(&out)
        .text
        .contains("through http"));
    assert_eq!(conn.pid(), None, "a remote server is no process of ours");
    conn.shutdown().await;
    server.kill().await.unwrap();
}

#[tokio::test]
async fn a_program_that_is_not_there_is_named_with_what_to_check() {
    let config = McpServerConfig::stdio("broken", "no-such-program-tollgate", &[]);
    let Err(error) = McpConnection::connect(&config, &[], Default::default()).await else {
        panic!("a missing program started")
    };
    let McpError::Spawn { command, message } = &error else {
        panic!("not a start failure: {error:?}")
    };
    assert_eq!(command, "no-such-program-tollgate");
    assert!(message.contains("not found"), "{message}");
    assert!(message.contains("PATH"), "{message}");
}

#[tokio::test]
async fn a_server_that_exits_before_its_handshake_says_what_it_wrote() {
    let config = McpServerConfig::stdio(
        "early",
        "node",
        &[
            "-e",
            "process.stderr.write('early: the config file is missing\\n'); process.exit(2)",
        ],
    );
    let Err(error) = McpConnection::connect(&config, &[], Default::default()).await else {
        panic!("a server that exited started")
    };
    let text = error.to_string();
    assert!(matches!(error, McpError::Handshake(_)), "{error:?}");
    assert!(text.contains("the config file is missing"), "{text}");
}

/// Calls the probe's `touch`: writes (or reads) `path`; "ok" or "failed: <code>".
async fn touch(conn: &McpConnection, path: std::path::PathBuf, read: bool) -> String {
    let out = conn
        .call(
            "touch",
            args(json!({"path": path.display().to_string(), "read": read})),
            &options(Duration::from_secs(30), &CancellationToken::new()),
        )
        .await
        .unwrap();
    tollgate_mcp::render_result(&out).text
}

/// A local server in the sandbox (F-46): it writes only in the folders of its settings, never
/// reads the hidden ones, and is held there however it is asked; without the sandbox the same
/// call reaches out.
#[tokio::test]
async fn a_sandboxed_server_writes_only_in_its_folders() {
    tollgate_tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-mcp-supervise").into());
    // Not under /tmp: the sandbox has a private one, where a write is harmless.
    let dir = tollgate_test_support::test_root(env!("CARGO_TARGET_TMPDIR"));
    let root = dir.path().canonicalize().unwrap();
    let (allowed, secrets) = (root.join("allowed"), root.join("home/.ssh"));
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::create_dir_all(&secrets).unwrap();
    std::fs::write(secrets.join("id_rsa"), "KEY").unwrap();
    let mut config = probe("boxed", &root.join("marker"));
    config.sandbox = Some(tollgate_mcp::McpSandbox {
        network: false,
        folders: vec![allowed.display().to_string()],
        hosts: Vec::new(),
    });
    config.validate().unwrap();
    let conn = McpConnection::connect(&config, std::slice::from_ref(&secrets), Default::default())
        .await
        .unwrap();
    assert_eq!(touch(&conn, allowed.join("x"), false).await, "ok");
    // Outside: the system is read-only there; the secret folder is empty.
    assert_eq!(
        touch(&conn, root.join("outside"), false).await,
        "failed: EROFS"
    );
    assert_eq!(
        touch(&conn, secrets.join("id_rsa"), true).await,
        "failed: ENOENT"
    );
    assert!(allowed.join("x").exists());
    assert!(!root.join("outside").exists());
    conn.shutdown().await;

    // The same server without the sandbox reaches out.
    config.sandbox = None;
    let conn = McpConnection::connect(&config, std::slice::from_ref(&secrets), Default::default())
        .await
        .unwrap();
    assert_eq!(touch(&conn, root.join("outside"), false).await, "ok");
    assert_eq!(touch(&conn, secrets.join("id_rsa"), true).await, "ok");
    conn.shutdown().await;

    // A folder that is not a full path is refused before anything starts.
    config.sandbox = Some(tollgate_mcp::McpSandbox {
        network: true,
        folders: vec!["relative/dir".into()],
        hosts: Vec::new(),
    });
    assert!(config
        .validate()
        .unwrap_err()
        .to_string()
        .contains("full path"));
}
