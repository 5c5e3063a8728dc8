//! How a session begins: a stdio server's process started (in its sandbox, its stderr kept) or
//! an HTTP endpoint reached (with the signed-in user's token), then the MCP handshake, its
//! failures said in the user's words.

use super::*;

/// The running session of a connection.
pub(super) type Running = RunningService<RoleClient, Handler>;

/// A stdio server that started: its session, its process, and the sandbox it owns.
pub(super) struct Started {
    pub(super) running: Running,
    pub(super) pid: Option<u32>,
    /// The sandbox's private temp folder and its host proxy, kept while the server runs.
    pub(super) sandbox_temp: Option<(
        tempfile::TempDir,
        Option<tollgate_sandbox::proxy::HostProxy>,
    )>,
}

/// Starts the server of `config` (a stdio server under its sandbox, never reading `hidden`,
/// F-46, its last lines of stderr kept in `stderr_tail`; an HTTP server as the signed-in user of
/// `oauth`) and begins the session: the 2026-07-28 discover probe first, and where the server
/// answers it as neither era would, the older handshake on a fresh start (F-99).
pub(super) async fn begin(
    config: &McpServerConfig,
    hidden: &[PathBuf],
    oauth: Option<&crate::oauth::OAuthAccess>,
    handler: Handler,
    shutdown: &CancellationToken,
    stderr_tail: &Arc<Mutex<VecDeque<String>>>,
) -> Result<Started, McpError> {
    let open = |opening: Opening| {
        let handler = handler.clone();
        async move {
            match &config.transport {
                McpTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => {
                    let program = Program {
                        command,
                        args,
                        env,
                        cwd: cwd.as_deref(),
                    };
                    let session = Opened {
                        handler,
                        shutdown,
                        opening,
                    };
                    stdio(config, program, hidden, session, stderr_tail).await
                }
                McpTransport::Http { url, headers } => {
                    let session = Opened {
                        handler,
                        shutdown,
                        opening,
                    };
                    Ok(Started {
                        running: http(&config.name, url.trim(), headers, oauth, session).await?,
                        pid: None,
                        sandbox_temp: None,
                    })
                }
            }
        }
    };
    match open(Opening::Probe).await {
        Err(McpError::ProbeRefused(probe)) => {
            tracing::info!(
                "MCP server {}: {probe}; beginning with the older handshake",
                config.name
            );
            stderr_tail.lock().clear();
            open(Opening::Initialize).await.map_err(|e| match e {
                McpError::Handshake(why) => McpError::Handshake(format!(
                    "{why} (before it, the 2026-07-28 discover probe: {probe})"
                )),
                other => other,
            })
        }
        other => other,
    }
}

/// How a session opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opening {
    /// The discover probe, falling back to `initialize` where the server answers as one that
    /// does not know it ([`lifecycle`]).
    Probe,
    /// `initialize` alone: the server answered the probe as neither era would.
    Initialize,
}

/// What a session is begun with: Tollgate's side of it, the token that ends it, and how it
/// opens.
struct Opened<'a> {
    handler: Handler,
    shutdown: &'a CancellationToken,
    opening: Opening,
}

/// What a stdio server's settings say to run.
struct Program<'a> {
    command: &'a String,
    args: &'a [String],
    env: &'a std::collections::BTreeMap<String, String>,
    cwd: Option<&'a str>,
}

/// Starts the stdio server of `config` running `program`.
async fn stdio(
    config: &McpServerConfig,
    program: Program<'_>,
    hidden: &[PathBuf],
    session: Opened<'_>,
    stderr_tail: &Arc<Mutex<VecDeque<String>>>,
) -> Result<Started, McpError> {
    let Program {
        command,
        args,
        env,
        cwd,
    } = program;
    let spawn_error = |e: std::io::Error| McpError::Spawn {
        command: command.clone(),
        message: if e.kind() == std::io::ErrorKind::NotFound {
            "the program was not found; check the command and that it is installed and on PATH"
                .into()
        } else {
            e.to_string()
        },
    };
    let sandbox = match &config.sandbox {
        // The server's own environment settings pass into its sandbox; nothing else of
        // Tollgate's does (F-46).
        Some(wanted) => {
            let keep: Vec<String> = env.keys().cloned().collect();
            let own = own_files(command, args);
            sandbox_for(&config.name, wanted, hidden, &keep, own).await?
        }
        None => None,
    };
    let path = tollgate_tools::login_path::for_children_async().await;
    let launch = stdio_command(command, args, env, cwd, sandbox.as_ref(), path.as_deref());
    let sandbox_temp = sandbox.map(|sb| (sb.temp, sb.proxy));
    let (transport, stderr) = TokioChildProcess::builder(launch)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn_error)?;
    let pid = transport.id();
    let reader = stderr.map(|stderr| keep_tail(stderr, Arc::clone(stderr_tail)));
    match handshake(session, transport).await {
        Ok(running) => Ok(Started {
            running,
            pid,
            sandbox_temp,
        }),
        Err(e) => {
            // A server that failed to start usually said why on stderr; what it writes after
            // is not kept (a fresh start may follow, with a tail of its own).
            if let Some(mut reader) = reader {
                let _ = tokio::time::timeout(Duration::from_millis(500), &mut reader).await;
                reader.abort();
            }
            Err(with_stderr(e, stderr_tail))
        }
    }
}

/// Keeps the last [`STDERR_LINES`] lines a server writes to `stderr` in `tail`.
fn keep_tail(
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut tail = tail.lock();
            if tail.len() == STDERR_LINES {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    })
}

/// Reaches the streamable-HTTP server at `url` (named `name` in the logs) with its own
/// `headers`, as the signed-in user of `oauth` where there is one, and completes the handshake.
async fn http(
    name: &str,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    oauth: Option<&crate::oauth::OAuthAccess>,
    session: Opened<'_>,
) -> Result<Running, McpError> {
    let transport_config = StreamableHttpClientTransportConfig::with_uri(url.to_string())
        .custom_headers(custom_headers(headers)?);
    let Some(access) = oauth else {
        let transport = StreamableHttpClientTransport::from_config(transport_config);
        return handshake(session, transport).await;
    };
    let client = signed_in_client(url, access).await?;
    let transport = StreamableHttpClientTransport::with_client(client, transport_config);
    match handshake(session, transport).await {
        Ok(running) => Ok(running),
        Err(McpError::AuthRequired { challenge, .. }) => Err(McpError::AuthRequired {
            expired: true,
            challenge,
        }),
        // The probe answered as neither era would: begun again with `initialize` (`begin`),
        // not taken for a sign-in that no longer works.
        Err(e @ McpError::ProbeRefused(_)) => Err(e),
        // Some servers answer a token they no longer know with an error rather than a 401: if
        // the server asks a caller without a token to sign in, the token is what failed.
        Err(e) if asks_anyone_to_sign_in(url).await => {
            tracing::info!("{name}: the sign-in is no longer accepted ({e})");
            Err(McpError::AuthRequired {
                expired: true,
                challenge: None,
            })
        }
        Err(e) => Err(e),
    }
}

/// The server's own headers as HTTP headers, or which one is not valid.
fn custom_headers(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>, McpError> {
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| McpError::Handshake(format!("header {name}: {e}")))?;
        let value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|_| McpError::Handshake(format!("the value of header {name} is not valid")))?;
        custom.insert(name, value);
    }
    Ok(custom)
}

/// The eras Tollgate speaks (F-99): 2026-07-28 to a server that answers `server/discover`, and
/// the newest version with an `initialize` handshake (2025-11-25; the server may settle on an
/// older one) to a server that answers the probe as one that does not know it.
pub(super) fn lifecycle(opening: Opening) -> rmcp::service::ClientLifecycleMode {
    use rmcp::service::ClientLifecycleMode;
    match opening {
        Opening::Probe => ClientLifecycleMode::Auto {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            legacy_version: Some(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE),
        },
        Opening::Initialize => ClientLifecycleMode::Initialize,
    }
}

/// Begins the session over `transport` as `session` says, within [`CONNECT_TIMEOUT`]; its
/// failures in the user's words.
async fn handshake<T, E, A>(session: Opened<'_>, transport: T) -> Result<Running, McpError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    use rmcp::service::ClientInitializeError;
    let Opened {
        handler,
        shutdown,
        opening,
    } = session;
    let serve = rmcp::service::serve_client_with_lifecycle_and_ct(
        handler,
        transport,
        lifecycle(opening),
        shutdown.clone(),
    );
    match tokio::time::timeout(CONNECT_TIMEOUT, serve).await {
        Err(_) => Err(McpError::ConnectTimeout(CONNECT_TIMEOUT.as_secs())),
        Ok(Err(e)) => {
            let wanted = match &e {
                ClientInitializeError::TransportError { error, .. } => {
                    sign_in_wanted(error.error.as_ref())
                }
                _ => None,
            };
            let why = tollgate_secrets::redact_known_owned(e.to_string());
            // What a server that speaks neither era's way answers the probe with: a result that
            // is no discovery, an error of its own, a connection it closed; a version error
            // (`-32022`) naming only versions older than 2026-07-28, which `initialize` reaches;
            // or an `initialize` refused on the connection the probe used (the Python SDK 2.x
            // serves a connection in the era of its first request, even one it did not know).
            // Not a network that failed or a sign-in: those say the same either way.
            let probe_refused = opening == Opening::Probe
                && match &e {
                    ClientInitializeError::TransportError { .. }
                    | ClientInitializeError::Cancelled
                    | ClientInitializeError::NoPreferredProtocolVersion => false,
                    ClientInitializeError::LegacyFallbackFailed { fallback, .. } => !matches!(
                        **fallback,
                        ClientInitializeError::TransportError { .. }
                            | ClientInitializeError::Cancelled
                    ),
                    _ => true,
                };
            Err(match wanted {
                Some(challenge) => McpError::AuthRequired {
                    expired: false,
                    challenge,
                },
                None if probe_refused => McpError::ProbeRefused(why),
                None => McpError::Handshake(why),
            })
        }
        Ok(Ok(running)) => Ok(running),
    }
}

/// Whether the server at `url` answers a session start without a token with `401`: then it
/// wants a signed-in user.
async fn asks_anyone_to_sign_in(url: &str) -> bool {
    let hello = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE.to_string(),
            "capabilities": {},
            "clientInfo": {"name": "tollgate", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let sent = reqwest::Client::new()
        .post(url)
        .header(
            reqwest::header::ACCEPT,
            "application/json, text/event-stream",
        )
        .json(&hello)
        .timeout(Duration::from_secs(30))
        .send()
        .await;
    matches!(sent, Ok(r) if r.status() == reqwest::StatusCode::UNAUTHORIZED)
}

/// An HTTP client that sends the signed-in user's token from the keychain (and refreshes it
/// once when the server refuses it).
async fn signed_in_client(
    url: &str,
    access: &crate::oauth::OAuthAccess,
) -> Result<rmcp::transport::auth::AuthClient<reqwest::Client>, McpError> {
    use rmcp::transport::auth::{AuthClient, AuthorizationManager};
    let failed = |e: rmcp::transport::auth::AuthError| {
        McpError::Handshake(tollgate_secrets::redact_known_owned(format!(
            "the sign-in could not be used: {e}"
        )))
    };
    let mut manager = AuthorizationManager::new(url).await.map_err(failed)?;
    manager.set_credential_store(crate::oauth::KeychainCredentials::new(
        access.keychain.clone(),
        access.account.clone(),
    ));
    // `false`: no tokens, or tokens of an authorization server this server no longer names.
    if !manager.initialize_from_store().await.map_err(failed)? {
        return Err(McpError::AuthRequired {
            expired: true,
            challenge: None,
        });
    }
    Ok(AuthClient::new(reqwest::Client::default(), manager))
}

/// Adds what a stdio server printed before failing, which usually says why.
fn with_stderr(e: McpError, tail: &Mutex<VecDeque<String>>) -> McpError {
    if matches!(e, McpError::ProbeRefused(_)) {
        return e;
    }
    match joined_tail(tail) {
        Some(lines) => McpError::Handshake(format!("{e}; the server wrote: {lines}")),
        None => e,
    }
}
