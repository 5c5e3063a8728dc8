//! Signing in to remote MCP servers (SPEC §11) against real servers: the official TypeScript
//! SDK's example server (`simpleStreamableHttp.js --oauth`, and `--oauth-strict`, which accepts
//! only tokens issued for itself through the RFC 8707 `resource`), with its own authorization
//! server on a second port; and `tests/mcp/oauth-fakes.mjs`, whose sign-ins go wrong one way
//! each. The browser is a stand-in that follows the authorization server's redirect back to
//! Tollgate's loopback listener, as a browser would after the user clicked "Allow".

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, BufReader};
use tollgate_engine::service::{ServiceError, Tollgate};
use tollgate_mcp::oauth::Browser;
use tollgate_mcp::{McpServerConfig, McpStatus};
use tollgate_protocol::Invalid;
use tollgate_secrets::Keychain;

pub(super) use tollgate_test_support::mcp_servers::{free_port, servers_dir};

/// A node server of the tests, killed when dropped.
pub(super) struct Node {
    child: tokio::process::Child,
}

impl Node {
    /// Starts `script` with `args` and `env` and waits until it printed every line of `ready`.
    pub(super) async fn start(
        script: &Path,
        args: &[&str],
        env: &[(&str, String)],
        ready: &[&str],
    ) -> Self {
        let mut child = tokio::process::Command::new("node")
            .arg(script)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("node starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut waiting: Vec<&str> = ready.to_vec();
        let started = async {
            while !waiting.is_empty() {
                let line =
                    lines.next_line().await.unwrap().unwrap_or_else(|| {
                        panic!("{} ended before it was ready", script.display())
                    });
                waiting.retain(|w| !line.contains(w));
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(60), started)
            .await
            .unwrap_or_else(|_| panic!("{} never said it was ready", script.display()));
        // Keep reading (and dropping) what it prints, so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self { child }
    }

    pub(super) async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// The SDK's example server with its authorization server; `strict`: `--oauth-strict`.
async fn example_server(mcp: u16, auth: u16, strict: bool) -> Node {
    let script = servers_dir().join(
        "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
    );
    Node::start(
        &script,
        if strict {
            &["--oauth", "--oauth-strict"]
        } else {
            &["--oauth"]
        },
        &[
            ("MCP_PORT", mcp.to_string()),
            ("MCP_AUTH_PORT", auth.to_string()),
        ],
        &[
            "MCP Streamable HTTP Server listening",
            "OAuth Authorization Server listening",
        ],
    )
    .await
}

/// One of the faulty servers of `oauth-fakes.mjs`.
async fn fake(mode: &str, extra: &[(&str, String)]) -> (Node, u16) {
    let port = free_port();
    let mut env = vec![("MODE", mode.to_string()), ("PORT", port.to_string())];
    env.extend(extra.iter().cloned());
    let node = Node::start(
        &servers_dir().join("oauth-fakes.mjs"),
        &[],
        &env,
        &["listening"],
    )
    .await;
    (node, port)
}

/// The user's browser after they clicked "Allow": it follows the authorization server's
/// redirects, back to Tollgate's loopback listener. Records the addresses it was given.
fn browser(opened: Arc<parking_lot::Mutex<Vec<String>>>) -> Browser {
    Arc::new(move |url: &str| {
        opened.lock().push(url.to_string());
        let url = url.to_string();
        tokio::spawn(async move {
            let _ = reqwest::get(&url).await;
        });
        Ok(())
    })
}

pub(super) async fn open(dir: &Path) -> Arc<Tollgate> {
    crate::common::app_in(dir)
        .keychain(Keychain::new("app.tollgate.test.oauth"))
        .open()
        .await
}

/// The app in `dir` with the remote server `name` at `url` added.
async fn with_server(dir: &Path, name: &str, url: &str) -> Arc<Tollgate> {
    let app = open(dir).await;
    app.mcp_servers()
        .save_mcp_server(McpServerConfig::http(name, url), None)
        .await
        .unwrap();
    app
}

/// Waits until `name` leaves `Connecting`.
pub(super) async fn settled(app: &Tollgate, name: &str) -> McpStatus {
    let mut status = None;
    crate::common::eventually(&format!("{name} settles"), || {
        status = app
            .mcp_servers()
            .manager()
            .state(name)
            .map(|s| s.status)
            .filter(|s| *s != McpStatus::Connecting);
        status.is_some()
    })
    .await;
    status.unwrap()
}

/// Every byte of the app's data folder (the database and its journal).
fn data_bytes(dir: &Path) -> Vec<u8> {
    let mut all = Vec::new();
    for entry in walk(dir) {
        all.extend(std::fs::read(entry).unwrap_or_default());
    }
    all
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// The access token the keychain holds for `name`'s sign-in.
async fn token_of(app: &Tollgate, name: &str) -> String {
    let view = app
        .mcp_servers()
        .list()
        .into_iter()
        .find(|s| s.config.name == name)
        .unwrap();
    let record = view.sign_in.expect("signed in");
    let json = Keychain::new("app.tollgate.test.oauth")
        .get(&record.account())
        .await
        .unwrap()
        .expect("the tokens are in the keychain");
    let stored: serde_json::Value = serde_json::from_str(&json).unwrap();
    stored["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn signs_in_calls_a_tool_and_keeps_the_token_in_the_keychain(strict: bool) {
    let (mcp, auth) = (free_port(), free_port());
    let server = example_server(mcp, auth, strict).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://localhost:{mcp}/mcp");
    let app = with_server(dir.path(), "demo", &url).await;
    assert_eq!(
        settled(&app, "demo").await,
        McpStatus::NeedsSignIn { expired: false }
    );

    let opened = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let record = app
        .mcp_servers()
        .sign_in_mcp_server("demo", browser(Arc::clone(&opened)))
        .await
        .unwrap();
    assert_eq!(
        record.issuer.trim_end_matches('/'),
        format!("http://localhost:{auth}")
    );
    assert_eq!(record.resource, url);
    // The browser was sent to the authorization server with PKCE and the resource.
    let address = opened.lock()[0].clone();
    assert!(
        address.starts_with(&format!("http://localhost:{auth}/authorize?")),
        "{address}"
    );
    assert!(address.contains("code_challenge_method=S256"), "{address}");
    assert!(address.contains("resource="), "{address}");

    assert_eq!(settled(&app, "demo").await, McpStatus::Ready);
    crate::common::eventually("the server's tools reach the registry", || {
        app.registry().tool("demo__greet").is_some()
    })
    .await;
    let (conn, _) = app.mcp_servers().manager().connection("demo").unwrap();
    let mut args = serde_json::Map::new();
    args.insert("name".into(), "Ada".into());
    let greeted = conn
        .call(
            "greet",
            args,
            &super::mcp::options(
                std::time::Duration::from_secs(60),
                &tokio_util::sync::CancellationToken::new(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(tollgate_mcp::render_result(&greeted).text, "Hello, Ada!");

    // The token is in the keychain and nowhere else: not in the database, not in the settings
    // view the window gets.
    let token = token_of(&app, "demo").await;
    assert!(token.len() >= 16);
    assert!(!contains(&data_bytes(dir.path()), &token));
    let view = serde_json::to_string(&app.mcp_servers().list()).unwrap();
    assert!(!view.contains(&token));
    assert!(view.contains("\"signIn\""));

    // The authorization server forgets its tokens (it is restarted): the next start of the
    // server asks to sign in again, saying the sign-in ran out.
    server.stop().await;
    let server = example_server(mcp, auth, strict).await;
    app.mcp_servers().restart_mcp_server("demo").unwrap();
    assert_eq!(
        settled(&app, "demo").await,
        McpStatus::NeedsSignIn { expired: true }
    );
    // No session: no server name or protocol of the last one is shown as if current.
    let state = app.mcp_servers().manager().state("demo").unwrap();
    assert_eq!((state.server_name, state.protocol_version), (None, None));

    // Signing out removes the tokens from the keychain.
    let account = app.mcp_servers().list()[0]
        .sign_in
        .clone()
        .unwrap()
        .account();
    app.mcp_servers().sign_out_mcp_server("demo").await.unwrap();
    assert_eq!(
        Keychain::new("app.tollgate.test.oauth")
            .get(&account)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        settled(&app, "demo").await,
        McpStatus::NeedsSignIn { expired: false }
    );
    app.mcp_servers().manager().shutdown().await;
    server.stop().await;
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn signs_in_to_the_sdk_example_server() {
    signs_in_calls_a_tool_and_keeps_the_token_in_the_keychain(false).await;
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn signs_in_to_the_strict_sdk_example_server_with_the_resource_parameter() {
    signs_in_calls_a_tool_and_keeps_the_token_in_the_keychain(true).await;
}

/// A second server, on another issuer, is never sent the first one's token: it asks for its own
/// sign-in, and the Authorization headers it received (it records them) never carry the token.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_token_never_reaches_another_server() {
    let (mcp, auth) = (free_port(), free_port());
    let server = example_server(mcp, auth, false).await;
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("headers.txt");
    let (recorder, port) = fake("recorder", &[("RECORD", record.display().to_string())]).await;
    let app = open(&dir.path().join("data")).await;
    app.mcp_servers()
        .save_mcp_server(
            McpServerConfig::http("demo", format!("http://localhost:{mcp}/mcp")),
            None,
        )
        .await
        .unwrap();
    settled(&app, "demo").await;
    app.mcp_servers()
        .sign_in_mcp_server("demo", browser(Arc::default()))
        .await
        .unwrap();
    assert_eq!(settled(&app, "demo").await, McpStatus::Ready);
    let token = token_of(&app, "demo").await;

    // The other server, and the first one edited to point at it.
    let other_url = format!("http://127.0.0.1:{port}/mcp");
    app.mcp_servers()
        .save_mcp_server(McpServerConfig::http("other", &other_url), None)
        .await
        .unwrap();
    assert_eq!(
        settled(&app, "other").await,
        McpStatus::NeedsSignIn { expired: false }
    );
    app.mcp_servers()
        .save_mcp_server(McpServerConfig::http("demo", &other_url), Some("demo"))
        .await
        .unwrap();
    assert_eq!(
        settled(&app, "demo").await,
        McpStatus::NeedsSignIn { expired: false }
    );
    assert!(
        app.mcp_servers().list().iter().all(|s| s.sign_in.is_none()),
        "a sign-in is for the address it was made for"
    );
    let headers = std::fs::read_to_string(&record).unwrap_or_default();
    assert!(!headers.contains(&token), "{headers}");
    app.mcp_servers().manager().shutdown().await;
    recorder.stop().await;
    server.stop().await;
}

/// A server that lets the session start and asks for a sign-in only later shows Sign in with
/// the scope it asked for, never a transport error (F-96): its tool list refused with a
/// `401`, or a call refused with a `403` asking for more scope (a step-up).
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_sign_in_asked_for_after_the_session_began_shows_sign_in_with_its_scope() {
    // The tool list refused.
    let (node, port) = fake("late", &[("LATE", "list".to_string())]).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let app = with_server(dir.path(), "notes", &url).await;
    assert_eq!(
        settled(&app, "notes").await,
        McpStatus::NeedsSignIn { expired: false }
    );
    let challenge = app
        .mcp_servers()
        .manager()
        .sign_in_challenge("notes")
        .unwrap_or_default();
    assert!(challenge.contains("notes:read"), "{challenge}");
    app.mcp_servers().manager().shutdown().await;
    node.stop().await;

    // A call refused for want of scope: the session is ready until then.
    let (node, port) = fake("late", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let app = with_server(dir.path(), "notes", &url).await;
    assert_eq!(settled(&app, "notes").await, McpStatus::Ready);
    let (conn, _) = app.mcp_servers().manager().connection("notes").unwrap();
    let cancel = tokio_util::sync::CancellationToken::new();
    let refused = conn
        .call(
            "write_note",
            Default::default(),
            &crate::suite::mcp::options(std::time::Duration::from_secs(30), &cancel),
        )
        .await
        .unwrap_err();
    assert_eq!(refused.to_string(), "this server needs you to sign in");
    crate::common::eventually("the card offers Sign in", || {
        app.mcp_servers().manager().state("notes").map(|s| s.status)
            == Some(McpStatus::NeedsSignIn { expired: false })
    })
    .await;
    let challenge = app
        .mcp_servers()
        .manager()
        .sign_in_challenge("notes")
        .unwrap_or_default();
    assert!(
        challenge.contains("insufficient_scope") && challenge.contains("notes:write"),
        "{challenge}"
    );
    app.mcp_servers().manager().shutdown().await;
    node.stop().await;
}

/// The secret of a client registered in advance lives in the keychain only (F-96): the
/// settings and the window see `""` ("one is stored"), a save that leaves it blank keeps it, a
/// server pointed elsewhere does not take it along, and removing the server removes it.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_client_secret_lives_in_the_keychain_only() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let keychain = Keychain::new("app.tollgate.test.oauth");
    let account = "mcp-server-partner-client-secret";
    let secret = "partner-client-secret-0123456789";
    let stored = || async { keychain.get(account).await.unwrap().unwrap_or_default() };
    let mut config = McpServerConfig::http("partner", "http://127.0.0.1:9/mcp");
    config.oauth_client_id = Some("partner-client".into());
    config.oauth_client_secret = Some(secret.into());
    app.mcp_servers()
        .save_mcp_server(config.clone(), None)
        .await
        .unwrap();
    let view = app
        .mcp_servers()
        .list()
        .into_iter()
        .find(|s| s.config.name == "partner")
        .unwrap();
    assert_eq!(view.config.oauth_client_secret.as_deref(), Some(""));
    assert!(
        !contains(&data_bytes(dir.path()), secret),
        "the database holds the secret"
    );
    assert!(stored().await.contains(secret));

    // Saved again with the field left blank: kept.
    config.oauth_client_secret = Some(String::new());
    app.mcp_servers()
        .save_mcp_server(config.clone(), Some("partner"))
        .await
        .unwrap();
    assert!(stored().await.contains(secret));

    // Pointed elsewhere with the field left blank: refused, not sent along.
    let mut moved = config.clone();
    moved.transport = McpServerConfig::http("partner", "http://127.0.0.1:10/mcp").transport;
    let refused = app
        .mcp_servers()
        .save_mcp_server(moved, Some("partner"))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("OAuth client secret"),
        "{refused}"
    );

    app.mcp_servers()
        .remove_mcp_server("partner")
        .await
        .unwrap();
    assert_eq!(keychain.get(account).await.unwrap(), None);
    app.mcp_servers().manager().shutdown().await;
}

/// The reason a sign-in to a faulty server gives.
async fn sign_in_failure(mode: &str, extra: &[(&str, String)]) -> String {
    let (node, port) = fake(mode, extra).await;
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    app.mcp_servers()
        .save_mcp_server(
            McpServerConfig::http("faulty", format!("http://127.0.0.1:{port}/mcp")),
            None,
        )
        .await
        .unwrap();
    settled(&app, "faulty").await;
    let err = app
        .mcp_servers()
        .sign_in_mcp_server("faulty", browser(Arc::default()))
        .await
        .unwrap_err();
    app.mcp_servers().manager().shutdown().await;
    node.stop().await;
    match err {
        ServiceError::Invalid(Invalid::McpSignIn { server, reason }) => {
            assert_eq!(server, "faulty");
            reason
        }
        other => panic!("a sign-in failure: {other:?}"),
    }
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn each_failed_discovery_says_what_went_wrong() {
    let none = sign_in_failure("no-metadata", &[]).await;
    assert!(none.contains("publishes no OAuth metadata"), "{none}");

    let wrong = sign_in_failure("wrong-iss", &[]).await;
    assert!(
        wrong.contains("names another issuer") && wrong.contains("http://evil.example/as"),
        "{wrong}"
    );

    let elsewhere = free_port();
    let moved = sign_in_failure("redirect", &[("OTHER_PORT", elsewhere.to_string())]).await;
    assert!(
        moved.contains("redirect to non-same-origin URL rejected")
            && moved.contains(&format!("localhost:{elsewhere}")),
        "{moved}"
    );

    let refused = sign_in_failure("token-error", &[]).await;
    assert!(
        refused.contains("did not give a token") && refused.contains("invalid_grant"),
        "{refused}"
    );
}
