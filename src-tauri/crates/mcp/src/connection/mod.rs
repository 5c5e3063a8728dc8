//! One live connection to an MCP server through the official `rmcp` client: a child process on
//! stdio (in its own process group, so `npx`/`uvx` trees die with it) or a streamable-HTTP
//! endpoint. It notices when the server goes away, keeps the last lines a stdio server wrote to
//! stderr (for the error shown to the user), and forwards cancellation of a call to the server.

mod handler;
mod launch;
mod listen;
mod rounds;
mod sampling;
mod start;
mod tasks;

use super::config::{McpServerConfig, McpTransport};
use handler::Handler;
use launch::{own_files, sandbox_for, stdio_command};
use parking_lot::Mutex;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientCapabilities, ClientConfig, ClientRequest, GetPromptRequestParams, GetPromptResult,
    Implementation, JsonObject, Prompt, ReadResourceRequestParams, Resource, ResourceContents,
    ServerResult, Tool as McpToolInfo,
};
use rmcp::service::NotificationContext;
use rmcp::service::{PeerRequestOptions, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use rmcp::{Peer, RoleClient};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How long starting a server may take (a first `npx -y` may download the package).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(120);
/// Lines of a stdio server's stderr kept for error messages.
const STDERR_LINES: usize = 20;

/// Why connecting or calling failed. Messages are for the user and the model.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum McpError {
    #[error("cannot start \"{command}\": {message}")]
    Spawn { command: String, message: String },
    #[error("the server did not finish starting within {0} s")]
    ConnectTimeout(u64),
    #[error("the server refused to start the session: {0}")]
    Handshake(String),
    /// The server did not answer the 2026-07-28 discover probe as one that speaks it or one
    /// that does not (a result that is not a discovery, a connection it closed): the session is
    /// begun again with the older handshake (F-99). Never the end of a connect.
    #[error("the server did not answer the MCP 2026-07-28 discover probe as expected: {0}")]
    ProbeRefused(String),
    /// The server wants a signed-in user (a `401`, or a `403` asking for more scope):
    /// `expired` when Tollgate sent a token that is no longer good (expired and not renewable,
    /// or revoked). `challenge` is the answer's `WWW-Authenticate` header, where it had one:
    /// the sign-in starts from it (its `resource_metadata` address and `scope`).
    #[error("{}", if *expired { "the sign-in to this server expired or was revoked; sign in again" } else { "this server needs you to sign in" })]
    AuthRequired {
        expired: bool,
        challenge: Option<String>,
    },
    #[error("listing the server's tools failed: {0}")]
    ListTools(String),
    #[error("listing the server's {what} failed: {message}")]
    List { what: &'static str, message: String },
    #[error("the server is not running")]
    Closed,
    #[error("the call was cancelled")]
    Cancelled,
    /// The server needs the user to open pages first (`-32042`).
    #[error("the server needs the user to open a page first: {}", .0.iter().map(|p| p.url.as_str()).collect::<Vec<_>>().join(", "))]
    PagesRequired(Vec<super::pages::RequiredPage>),
    /// The call's task outlasted its wait ([`CallOptions::hand_over`]): it goes on on the
    /// server as the task named, not stopped, to be followed with
    /// [`McpConnection::follow_task`] (F-99).
    #[error("the call goes on as the server's task {0}")]
    RunsOn(String),
    #[error("{0}")]
    Call(String),
}

/// How one tool call is made.
#[derive(Clone)]
pub struct CallOptions {
    /// The longest the server may take to answer (the server is told to stop then), not
    /// counting the time the user is asked something (`clock`).
    pub timeout: Duration,
    pub clock: Arc<tollgate_tools::clock::CallClock>,
    /// Stops the call (the server is told).
    pub cancel: CancellationToken,
    /// Told of the server's progress reports, and of what the call waits for.
    pub on_progress: super::progress::ProgressListener,
    /// The running call a page the server needs opened is put to the user under; without it,
    /// such a call fails with the page named.
    pub asked_in: Option<super::elicitation::RunningCall>,
    /// How long a call the server runs as a task is followed before it is handed over to go on
    /// after its turn ([`McpError::RunsOn`]); `None`: followed to its end.
    pub hand_over: Option<Duration>,
}

impl CallOptions {
    /// A call nobody watches: its progress shown nowhere, no running call to put a question
    /// under (the conformance client and the tests call tools this way).
    pub fn unobserved(timeout: Duration, cancel: CancellationToken) -> Self {
        Self {
            timeout,
            clock: tollgate_tools::clock::CallClock::new(),
            cancel,
            on_progress: Arc::new(|_: super::progress::CallProgress| {}),
            asked_in: None,
            hand_over: None,
        }
    }
}

/// How Tollgate opens every session (F-99): the 2026-07-28 discover probe, with `initialize`
/// where the server does not know it. Public for the benchmark that prices the probe.
pub fn probing_lifecycle() -> rmcp::service::ClientLifecycleMode {
    start::lifecycle(start::Opening::Probe)
}

/// What the server said about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerIdentity {
    pub name: Option<String>,
    pub version: Option<String>,
    pub instructions: Option<String>,
    /// The protocol version the session speaks (the newest both sides know).
    pub protocol: Option<String>,
}

/// A list the server says has changed (`notifications/*/list_changed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListChanged {
    Tools,
    Resources,
    Prompts,
}

/// Where a server's questions go (SPEC §11): the calls of its tools that run, and the hub that
/// puts them to the user.
#[derive(Clone)]
pub struct Asks {
    pub slot: Arc<super::ServerSlot>,
    pub hub: Arc<super::elicitation::ElicitationHub>,
    /// The chat's model, for a server the user lets use it ([`crate::sampling`]); `None`:
    /// every request for it is declined.
    pub sampler: Option<Arc<dyn super::sampling::Sampler>>,
}

/// What a session carries besides the settings: the signed-in user's tokens, and where the
/// server's questions go. Without `asks`, the server is told Tollgate does not take questions.
#[derive(Clone, Default)]
pub struct Session {
    pub oauth: Option<super::oauth::OAuthAccess>,
    pub asks: Option<Asks>,
}

/// How long reading a resource or getting a prompt may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

/// A connected server.
pub struct McpConnection {
    peer: Peer<RoleClient>,
    /// The running calls that show the server's progress reports.
    progress: super::progress::ProgressRoutes,
    /// Where the server's questions go, and the pages it said the user finished on.
    asks: Option<Asks>,
    pages: Arc<super::pages::PagesDone>,
    changes: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<ListChanged>>>,
    /// Tollgate's own way to say "list the tools again", beside the server's notifications.
    relist: tokio::sync::mpsc::UnboundedSender<ListChanged>,
    has_resources: bool,
    has_prompts: bool,
    /// The session speaks 2026-07-28: its lists have a lifetime (`ttlMs`).
    modern: bool,
    /// The user lets the server see the calling chat's workspace folder (its roots).
    share_workspace: bool,
    /// The user lets the server ask the chat's model (sampling), each request on its card.
    share_model: bool,
    identity: ServerIdentity,
    shutdown: CancellationToken,
    closed: watch::Receiver<bool>,
    /// Set when the server asks, in the middle of the session, for a (further) sign-in: a
    /// `401`, or a `403` asking for more scope, answering a request. Holds the answer's
    /// `WWW-Authenticate` header, if any, for the manager ([`Self::sign_in_wanted`]).
    sign_in: watch::Sender<Option<Option<String>>>,
    pid: Option<u32>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// A sandboxed server's private temp folder, removed when the connection goes, and the
    /// proxy of its allowed hosts, stopped then.
    _sandbox_temp: Option<(
        tempfile::TempDir,
        Option<tollgate_sandbox::proxy::HostProxy>,
    )>,
}

/// Who Tollgate says it is and what it takes: questions (forms and pages), views, tasks, roots
/// where the user lets the server see the calling chat's folder (`share_workspace`), and
/// sampling where the user lets it ask the chat's model (`share_model`).
fn client_config(share_workspace: bool, share_model: bool) -> ClientConfig {
    use rmcp::model::{ElicitationCapability, FormElicitationCapability, UrlElicitationCapability};
    let mut form = FormElicitationCapability::new();
    form.schema_validation = Some(true);
    let mut elicitation = ElicitationCapability::new();
    elicitation.form = Some(form);
    elicitation.url = Some(UrlElicitationCapability::new());
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(elicitation);
    if share_workspace {
        capabilities.roots = Some(rmcp::model::RootsCapabilities::default());
    }
    if share_model {
        // Text alone, without tools or the chat's context: neither is said to be taken.
        #[allow(deprecated)]
        {
            capabilities.sampling = Some(rmcp::model::SamplingCapability::default());
        }
    }
    // MCP Apps (F-96): the views servers ship are shown, contained and gated. Tasks (F-99): a
    // call a server runs as a task is followed to its end.
    capabilities.extensions = Some(
        [
            (
                super::apps::EXTENSION_ID.to_string(),
                super::apps::client_capability(),
            ),
            (
                rmcp::model::TASKS_EXTENSION_ID.to_string(),
                rmcp::model::JsonObject::new(),
            ),
        ]
        .into_iter()
        .collect(),
    );
    // The newest version that still has an `initialize` handshake: rmcp's default is its
    // newest version of all (2026-07-28), which has none, so a server that knows it refuses
    // the request (F-96, the conformance suite's `initialize` scenario).
    ClientConfig::new(
        capabilities,
        Implementation::new("tollgate", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE)
}

impl McpConnection {
    /// Starts or reaches the server and completes the MCP handshake. `config` must hold the
    /// secret values (environment, headers) already.
    /// A server with a sandbox in its settings starts under it, never reading `hidden` (F-46).
    /// An HTTP server the user signed in to gets the tokens of `session.oauth` (refreshed once
    /// after a `401`); the server's questions go where `session.asks` says.
    pub async fn connect(
        config: &McpServerConfig,
        hidden: &[PathBuf],
        session: Session,
    ) -> Result<Self, McpError> {
        let shutdown = CancellationToken::new();
        let (changes_tx, changes) = tokio::sync::mpsc::unbounded_channel();
        let oauth = session.oauth.as_ref();
        let progress = super::progress::ProgressRoutes::default();
        let pages = Arc::new(super::pages::PagesDone::default());
        let relist = changes_tx.clone();
        // The model is lent only where the user lets the server and a model can answer.
        let share_model = config.share_model
            && session
                .asks
                .as_ref()
                .is_some_and(|asks| asks.sampler.is_some());
        let handler = Handler {
            changes: changes_tx,
            asks: session.asks.clone(),
            progress: progress.clone(),
            pages: Arc::clone(&pages),
            share_workspace: config.share_workspace,
            share_model,
        };
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let start::Started {
            running,
            pid,
            sandbox_temp,
        } = start::begin(config, hidden, oauth, handler, &shutdown, &stderr_tail).await?;
        let identity = running
            .peer_info()
            .map(|info| ServerIdentity {
                name: info.server_info.as_ref().map(|i| i.name.clone()),
                version: info.server_info.as_ref().map(|i| i.version.clone()),
                instructions: info.instructions.clone(),
                protocol: Some(info.protocol_version.to_string()),
            })
            .unwrap_or_default();
        let (has_resources, has_prompts) = running
            .peer_info()
            .map(|info| {
                (
                    info.capabilities.resources.is_some(),
                    info.capabilities.prompts.is_some(),
                )
            })
            .unwrap_or_default();
        let peer = running.peer().clone();
        // A 2026-07-28 session hears of list changes only when it asks (F-99).
        let modern = identity.protocol.as_deref()
            == Some(rmcp::model::ProtocolVersion::V_2026_07_28.as_str());
        let filter = running
            .peer_info()
            .and_then(|info| listen::filter_for(&info.capabilities));
        // A listing is fresh for its `ttlMs` and answered from the cache meanwhile; never a
        // stale one when the server fails to list: the gate must hear the failure (SPEC §12).
        peer.set_response_cache_config(
            rmcp::ClientCacheConfig::default().with_serve_stale_on_error(false),
        )
        .await;
        if let (true, Some(filter)) = (modern, filter) {
            tokio::spawn(listen::listen(
                peer.clone(),
                filter,
                relist.clone(),
                shutdown.clone(),
            ));
        }
        let (closed_tx, closed) = watch::channel(false);
        tokio::spawn(async move {
            let _ = running.waiting().await;
            let _ = closed_tx.send(true);
        });
        Ok(Self {
            peer,
            progress,
            asks: session.asks,
            pages,
            changes: Mutex::new(Some(changes)),
            relist,
            has_resources,
            has_prompts,
            modern,
            share_workspace: config.share_workspace,
            share_model,
            identity,
            shutdown,
            closed,
            sign_in: watch::Sender::new(None),
            pid,
            stderr_tail,
            _sandbox_temp: sandbox_temp,
        })
    }

    /// Changes when the server asks, in the middle of the session, for a (further) sign-in;
    /// then holds the challenge (the `WWW-Authenticate` header), if the answer had one.
    pub fn sign_in_wanted(&self) -> watch::Receiver<Option<Option<String>>> {
        self.sign_in.subscribe()
    }

    /// If a request's error `e` says the server wants a (further) sign-in: that error, after
    /// telling whoever watches ([`Self::sign_in_wanted`]).
    fn sign_in_error(&self, e: &ServiceError) -> Option<McpError> {
        let challenge = match e {
            // rmcp's `ServiceError` does not chain its transport error as a source.
            ServiceError::TransportSend(t) => sign_in_wanted(t),
            other => sign_in_wanted(other),
        }?;
        self.sign_in.send_replace(Some(challenge.clone()));
        Some(McpError::AuthRequired {
            expired: false,
            challenge,
        })
    }

    /// What the server said about itself at the handshake.
    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    /// Whether the server's lists have a lifetime (`ttlMs`, MCP 2026-07-28): a listing is then
    /// asked for again once it is stale, rather than only when the server says it changed.
    pub fn lists_expire(&self) -> bool {
        self.modern
    }

    /// The process id of a stdio server.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Whether the server is still there.
    pub fn is_alive(&self) -> bool {
        !*self.closed.borrow() && !self.peer.is_transport_closed()
    }

    /// Resolves when the connection has ended, for whatever reason.
    pub async fn closed(&self) {
        let mut rx = self.closed.clone();
        let _ = rx.wait_for(|c| *c).await;
    }

    /// The last lines a stdio server wrote to stderr, joined with " / ".
    pub fn stderr_tail(&self) -> Option<String> {
        joined_tail(&self.stderr_tail)
    }

    /// Every tool the server offers (all pages).
    pub async fn tools(&self) -> Result<Vec<McpToolInfo>, McpError> {
        self.peer.list_all_tools().await.map_err(|e| {
            self.sign_in_error(&e).unwrap_or_else(|| {
                McpError::ListTools(tollgate_secrets::redact_known_owned(e.to_string()))
            })
        })
    }

    /// Has the one who watches the connection list the tools again, as a `list_changed` from
    /// the server would: a tool found changed without one (SPEC §12).
    pub fn relist_tools(&self) {
        let _ = self.relist.send(ListChanged::Tools);
    }

    /// The server's list_changed notifications, for the one who watches the connection.
    pub fn take_changes(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<ListChanged>> {
        self.changes.lock().take()
    }

    /// Every resource the server offers (none if it offers no resources).
    pub async fn resources(&self) -> Result<Vec<Resource>, McpError> {
        if !self.has_resources {
            return Ok(Vec::new());
        }
        self.peer
            .list_all_resources()
            .await
            .map_err(|e| McpError::List {
                what: "resources",
                message: e.to_string(),
            })
    }

    /// Every prompt the server offers (none if it offers no prompts).
    pub async fn prompts(&self) -> Result<Vec<Prompt>, McpError> {
        if !self.has_prompts {
            return Ok(Vec::new());
        }
        self.peer
            .list_all_prompts()
            .await
            .map_err(|e| McpError::List {
                what: "prompts",
                message: e.to_string(),
            })
    }

    /// Reads a resource's contents.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, McpError> {
        let read = self
            .peer
            .read_resource(ReadResourceRequestParams::new(uri.to_string()));
        Ok(self.fetch(read).await?.contents)
    }

    /// Gets a prompt filled in with `arguments`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: JsonObject,
    ) -> Result<GetPromptResult, McpError> {
        let get = self
            .peer
            .get_prompt(GetPromptRequestParams::new(name.to_string()).with_arguments(arguments));
        self.fetch(get).await
    }

    /// A request with [`FETCH_TIMEOUT`], its errors in the user's words.
    async fn fetch<T>(
        &self,
        request: impl std::future::Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, McpError> {
        if !self.is_alive() {
            return Err(McpError::Closed);
        }
        tokio::select! {
            r = tokio::time::timeout(FETCH_TIMEOUT, request) => match r {
                Err(_) => Err(McpError::Call(format!("the server did not answer within {} s", FETCH_TIMEOUT.as_secs()))),
                Ok(Ok(result)) => Ok(result),
                Ok(Err(ServiceError::TransportClosed)) => Err(McpError::Closed),
                Ok(Err(ServiceError::McpError(e))) => Err(McpError::Call(e.message.to_string())),
                Ok(Err(e)) => Err(McpError::Call(e.to_string())),
            },
            () = self.closed() => Err(McpError::Closed),
        }
    }

    /// Calls a tool. If `cancel` fires or the future is dropped (the executor's timeout), the
    /// server receives `notifications/cancelled` for the request. The server's progress
    /// reports go to `on_progress` while it runs. A server that first needs the user to open
    /// pages (`-32042`) has them put to the user; when it says they finished, the call is made
    /// again, once.
    pub async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
        options: &CallOptions,
    ) -> Result<CallToolResult, McpError> {
        let first = self.call_once(tool, arguments.clone(), options).await;
        let Err(McpError::PagesRequired(pages)) = first else {
            return first;
        };
        let opened = super::pages::open_pages(
            pages,
            self.asks.as_ref(),
            options.asked_in.as_ref(),
            &self.pages,
            &options.on_progress,
        );
        tokio::select! {
            r = opened => r.map_err(|e| McpError::Call(e.to_string()))?,
            () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            () = self.closed() => return Err(McpError::Closed),
        }
        self.call_once(tool, arguments, options).await
    }

    /// Follows the task `task_id` a call of this server went on as ([`McpError::RunsOn`]) to
    /// its end, as the call would have: its status on the call's card, its questions put to the
    /// user, `tasks/cancel` when `options.cancel` fires or this is dropped. A server that no
    /// longer knows the task says so, as the call's failure.
    pub async fn follow_task(
        &self,
        task_id: &str,
        options: &CallOptions,
    ) -> Result<CallToolResult, McpError> {
        if !self.is_alive() {
            return Err(McpError::Closed);
        }
        tokio::select! {
            r = tasks::follow_again(self, task_id.to_string(), options) => r,
            () = options.cancel.cancelled() => Err(McpError::Cancelled),
            () = self.closed() => Err(McpError::Closed),
        }
    }

    /// One call of a tool, with its timeout, cancellation and progress: one `tools/call`
    /// request, and where the server needs the user's input first (`input_required`), the
    /// rounds that answer it ([`rounds`]).
    async fn call_once(
        &self,
        tool: &str,
        arguments: JsonObject,
        options: &CallOptions,
    ) -> Result<CallToolResult, McpError> {
        if !self.is_alive() {
            return Err(McpError::Closed);
        }
        let mut params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let call = async {
            let mut rounds = rounds::Rounds::default();
            for round in 1..=rounds::MAX_ROUNDS {
                match self.request(params.clone(), options).await {
                    Ok(ServerResult::CallToolResult(result)) => return Ok(result),
                    Ok(ServerResult::CreateTaskResult(created)) => {
                        return tasks::follow(self, created.task, options).await;
                    }
                    // No round is left to send answers in: the user is not asked for nothing.
                    Ok(ServerResult::InputRequiredResult(_)) if round == rounds::MAX_ROUNDS => {
                        break;
                    }
                    Ok(ServerResult::InputRequiredResult(asked)) => {
                        let retry = rounds.retry(asked, self.askers(), options).await?;
                        params.input_responses = retry.responses;
                        params.request_state = retry.state;
                    }
                    Ok(_) => return Err(self.call_error(ServiceError::UnexpectedResponse)),
                    Err(e) => return Err(self.call_error(e)),
                }
            }
            Err(McpError::Call(format!(
                "the server still wanted more input after {} rounds; the call was given up",
                rounds::MAX_ROUNDS
            )))
        };
        let timeout = options.timeout;
        tokio::select! {
            r = options.clock.limit(timeout, call) => r.unwrap_or_else(|_| Err(McpError::Call(format!(
                "the server did not answer within {} s; the request was cancelled",
                timeout.as_secs()
            )))),
            () = options.cancel.cancelled() => Err(McpError::Cancelled),
            () = self.closed() => Err(McpError::Closed),
        }
    }

    /// One `tools/call` request with the call's progress shown; the server is told when its
    /// answer is no longer awaited.
    async fn request(
        &self,
        params: CallToolRequestParams,
        options: &CallOptions,
    ) -> Result<ServerResult, ServiceError> {
        let (handle, _route) = self
            .progress
            .send(
                self.peer.send_request_with_option(
                    ClientRequest::CallToolRequest(CallToolRequest::new(params)),
                    PeerRequestOptions::no_options(),
                ),
                |handle| handle.progress_token.clone(),
                std::sync::Arc::clone(&options.on_progress),
            )
            .await?;
        let abandoned = AbandonedCall::new(&self.peer, handle.id.clone());
        let response = handle.await_response().await;
        abandoned.disarm();
        response
    }

    /// Who answers a server's input requests for this connection: the user for questions, the
    /// settings for roots and the model.
    fn askers(&self) -> rounds::Askers<'_> {
        rounds::Askers {
            asks: self.asks.as_ref(),
            share_workspace: self.share_workspace,
            share_model: self.share_model,
        }
    }

    /// A call's failure in the user's words (a task's too: [`tasks`]).
    fn call_error(&self, e: ServiceError) -> McpError {
        match e {
            ServiceError::TransportClosed => McpError::Closed,
            ServiceError::McpError(e) if e.code.0 == super::pages::PAGES_REQUIRED => {
                let pages = super::pages::required_pages(e.data.as_ref());
                if pages.is_empty() {
                    McpError::Call(e.message.to_string())
                } else {
                    McpError::PagesRequired(pages)
                }
            }
            ServiceError::McpError(e) => McpError::Call(e.message.to_string()),
            // A server that wants a (further) sign-in for this call: a `401`, or a `403`
            // asking for more scope (step-up).
            e => self.sign_in_error(&e).unwrap_or_else(|| {
                if self.is_alive() {
                    McpError::Call(e.to_string())
                } else {
                    McpError::Closed
                }
            }),
        }
    }

    /// Ends the session: closes stdin, then terminates the process group if it lingers.
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(10), self.closed()).await;
    }
}

/// A call whose answer is no longer awaited (stopped, timed out, its turn gone): the server is
/// told to stop working on it.
struct AbandonedCall<'a> {
    peer: &'a Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl<'a> AbandonedCall<'a> {
    fn new(peer: &'a Peer<RoleClient>, id: rmcp::model::RequestId) -> Self {
        Self { peer, id: Some(id) }
    }

    /// The answer arrived: nothing to cancel.
    fn disarm(mut self) {
        self.id = None;
    }
}

impl Drop for AbandonedCall<'_> {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some("the call was stopped".into()),
                ))
                .await;
        });
    }
}

impl Drop for McpConnection {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Whether `error` says the server wants a signed-in user: a `401` (rmcp's
/// `AuthRequiredError`), a `403` asking for more scope (`InsufficientScopeError`), or rmcp's own
/// "authorization required" somewhere in the cause. `Some` holds the answer's
/// `WWW-Authenticate` header, where there was one.
fn sign_in_wanted(error: &(dyn std::error::Error + 'static)) -> Option<Option<String>> {
    use rmcp::transport::auth::AuthError;
    use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(c) = cause {
        if let Some(e) = c.downcast_ref::<AuthRequiredError>() {
            return Some(Some(e.www_authenticate_header.clone()));
        }
        if let Some(e) = c.downcast_ref::<InsufficientScopeError>() {
            return Some(Some(e.www_authenticate_header.clone()));
        }
        if matches!(
            c.downcast_ref::<AuthError>(),
            Some(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_))
        ) {
            return Some(None);
        }
        cause = c.source();
    }
    None
}

/// The last lines a stdio server wrote to stderr, on one line; `None` if it wrote nothing.
fn joined_tail(tail: &Mutex<VecDeque<String>>) -> Option<String> {
    let tail = tail.lock();
    (!tail.is_empty()).then(|| {
        tail.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" / ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_offers_a_version_that_has_one() {
        let sent = serde_json::to_value(client_config(false, false)).unwrap();
        let offered = sent["protocolVersion"].as_str().unwrap().to_string();
        assert_eq!(
            offered,
            rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE.to_string()
        );
        assert_ne!(
            offered,
            rmcp::model::ProtocolVersion::LATEST.to_string(),
            "the newest version has no initialize request"
        );
        assert_eq!(sent["clientInfo"]["name"], "tollgate");
        assert_eq!(
            sent["capabilities"]["elicitation"]["url"],
            serde_json::json!({})
        );
    }

    #[test]
    fn roots_and_sampling_are_said_to_be_taken_only_where_the_user_lets_the_server() {
        let closed = serde_json::to_value(client_config(false, false)).unwrap();
        assert!(closed["capabilities"].get("roots").is_none(), "{closed}");
        assert!(closed["capabilities"].get("sampling").is_none(), "{closed}");
        let open = serde_json::to_value(client_config(true, true)).unwrap();
        assert!(open["capabilities"]["roots"].is_object(), "{open}");
        // Text alone: neither tools nor the chat's context are offered with the model.
        assert_eq!(open["capabilities"]["sampling"], serde_json::json!({}));
        // Each on its own.
        let folder = serde_json::to_value(client_config(true, false)).unwrap();
        assert!(folder["capabilities"]["roots"].is_object(), "{folder}");
        assert!(folder["capabilities"].get("sampling").is_none(), "{folder}");
        let model = serde_json::to_value(client_config(false, true)).unwrap();
        assert!(model["capabilities"].get("roots").is_none(), "{model}");
        assert!(model["capabilities"]["sampling"].is_object(), "{model}");
    }
}
