//! Keeps the configured MCP servers running: connects enabled ones in the background, offers the
//! tools of the ready ones as tool groups, marks a server that goes away as failed (with what it
//! last wrote to stderr), and restarts it on request. Every change bumps a counter that the
//! service watches to swap the registry of every chat.

use super::catalog::{self, McpPromptView, McpResourceView};
use super::config::McpServerConfig;
use super::connection::{McpConnection, ServerIdentity};
use super::review::{AcceptError, ReviewBook};
use super::slot::ServerSlot;
use super::tool::McpTool;
use parking_lot::Mutex;
use rmcp::model::{Prompt, Resource, Tool as McpToolInfo};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::watch;
use tollgate_protocol::{ServerReviewState, Source, ToolChange};
use tollgate_tools::{Guidance, ToolGroup};

mod reviews;
mod session;

/// Longest server instructions put into the system prompt.
const MAX_INSTRUCTIONS: usize = 4_000;

/// Where a server is.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum McpStatus {
    /// Switched off in settings.
    Disabled,
    /// Starting, or completing the handshake.
    Connecting,
    /// Connected; its tools are offered.
    Ready,
    /// Could not start, or stopped unexpectedly; can be restarted.
    Failed { error: String },
    /// A remote server that wants a signed-in user (SPEC §11): never signed in, or `expired`
    /// (the sign-in ran out and could not be renewed, or was revoked).
    NeedsSignIn { expired: bool },
}

/// One tool as listed in settings.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolSummary {
    /// The name the model sees.
    pub name: String,
    /// The name on the server.
    pub remote_name: String,
    pub description: String,
    pub read_only: bool,
    /// The server's `destructiveHint` (or its default): "always allow" is a warned choice.
    pub destructive: bool,
    /// Kept for the server's view (`_meta.ui.visibility` without `"model"`, F-95): listed
    /// here, never offered to the model.
    pub view_only: bool,
    /// Set while the tool is under review (SPEC §11): what changed, to accept.
    pub change: Option<ToolChange>,
}

/// A server's runtime state.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerState {
    pub name: String,
    pub status: McpStatus,
    /// The server's own name and version, once connected.
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    /// The MCP protocol version the session speaks.
    pub protocol_version: Option<String>,
    /// What the server says about using it; also sent to the model with its tools.
    pub instructions: Option<String>,
    pub tools: Vec<McpToolSummary>,
    /// How many resources and prompts it offers.
    pub resources: usize,
    pub prompts: usize,
    /// Where its first-sight review stands (SPEC §12): until confirmed, what it says counts as
    /// untrusted in every chat that offers its tools.
    pub review: ServerReviewState,
}

/// What [`McpManager::configure`] is given per server.
#[derive(Debug, Clone)]
pub struct McpLaunch {
    /// The settings, with secret values filled in.
    pub config: McpServerConfig,
    /// Why the server cannot start (e.g. its secrets could not be read from the keychain).
    pub blocked: Option<String>,
    /// The signed-in user's tokens, for a remote server the user signed in to (SPEC §11).
    pub oauth: Option<super::oauth::OAuthAccess>,
}

struct Entry {
    config: McpServerConfig,
    oauth: Option<super::oauth::OAuthAccess>,
    slot: Arc<ServerSlot>,
    status: McpStatus,
    tools: Vec<McpToolInfo>,
    resources: Vec<Resource>,
    prompts: Vec<Prompt>,
    identity: ServerIdentity,
    /// The `WWW-Authenticate` header of the server's last answer asking for a sign-in: the
    /// next sign-in starts from it ([`McpManager::sign_in_challenge`]).
    challenge: Option<String>,
    /// The tools under review, by their name on the server.
    reviews: BTreeMap<String, ToolChange>,
    /// Bumped whenever the server is started or stopped on purpose, so that a connecting or
    /// watching task of an older start knows it is out of date.
    generation: u64,
}

/// One server to start: its name, the start it belongs to, its settings and its tokens.
struct Start {
    name: String,
    generation: u64,
    config: McpServerConfig,
    oauth: Option<super::oauth::OAuthAccess>,
    slot: Arc<ServerSlot>,
}

impl Entry {
    /// This entry's next start.
    fn start(&self, name: &str) -> Start {
        Start {
            name: name.to_string(),
            generation: self.generation,
            config: self.config.clone(),
            oauth: self.oauth.clone(),
            slot: Arc::clone(&self.slot),
        }
    }

    fn clear_lists(&mut self) {
        self.tools.clear();
        self.reviews.clear();
        self.resources.clear();
        self.prompts.clear();
    }

    /// Whether the first-sight review flags any of the server's texts as steering the model
    /// ([`tollgate_protocol::FindingKind::steers`]); `all_tools`: every MCP tool's name, this
    /// server's among them (the scan leaves its own out).
    fn texts_steer(&self, all_tools: &[String]) -> bool {
        let tools: Vec<(&str, &str, serde_json::Value)> = self
            .tools
            .iter()
            .map(|t| {
                (
                    t.name.as_ref(),
                    t.description.as_deref().unwrap_or_default(),
                    serde_json::Value::Object((*t.input_schema).clone()),
                )
            })
            .collect();
        let scanned: Vec<(&str, &str, &serde_json::Value)> =
            tools.iter().map(|(n, d, s)| (*n, *d, s)).collect();
        let others: Vec<&str> = all_tools.iter().map(String::as_str).collect();
        crate::scan::scan(self.identity.instructions.as_deref(), &scanned, &others)
            .iter()
            .any(|f| f.kind.steers())
    }

    /// Where the first-sight review of what this server says now stands in `book`.
    fn review_state(&self, book: &ReviewBook) -> ServerReviewState {
        let now =
            super::review::texts_fingerprint(self.identity.instructions.as_deref(), &self.tools);
        match book.confirmed(&self.config.name) {
            Some(f) if f == now => ServerReviewState::Confirmed,
            Some(_) => ServerReviewState::Changed,
            None => ServerReviewState::Unreviewed,
        }
    }

    fn state(&self, book: &ReviewBook) -> McpServerState {
        McpServerState {
            review: self.review_state(book),
            name: self.config.name.clone(),
            status: self.status.clone(),
            server_name: self.identity.name.clone(),
            server_version: self.identity.version.clone(),
            protocol_version: self.identity.protocol.clone(),
            instructions: self.identity.instructions.clone(),
            tools: self
                .tools
                .iter()
                .map(|t| McpToolSummary {
                    name: super::tool::tool_name(&self.config.name, &t.name),
                    remote_name: t.name.to_string(),
                    description: t.description.as_deref().unwrap_or_default().to_string(),
                    read_only: super::tool::read_only_hint(t),
                    view_only: !super::apps::offered_to_the_model(t),
                    destructive: super::tool::effects_from_hints(t).irreversible,
                    change: self.reviews.get(t.name.as_ref()).cloned(),
                })
                .collect(),
            resources: self.resources.len(),
            prompts: self.prompts.len(),
        }
    }
}

/// The running MCP servers.
pub struct McpManager {
    entries: Mutex<BTreeMap<String, Entry>>,
    changed: watch::Sender<u64>,
    /// The folders a sandboxed server never reads (F-46).
    hidden: Arc<[std::path::PathBuf]>,
    /// The definitions the user's grants were made for (SPEC §11), and whether it changed
    /// since the service last saved it.
    book: Mutex<(ReviewBook, bool)>,
    /// Where the servers' questions go (SPEC §11); `None`: servers are told Tollgate takes none.
    questions: Option<Arc<super::elicitation::ElicitationHub>>,
    /// The chat's model, for the servers the user lets ask it (F-99); `None`: none may.
    sampler: Option<Arc<dyn super::sampling::Sampler>>,
}

/// Why a change could not be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpReviewError {
    #[error("the MCP server \"{0}\" is not running")]
    NotRunning(String),
    #[error(transparent)]
    Accept(#[from] AcceptError),
    #[error(
        "the MCP server \"{0}\" changed what it says after the review was shown; read it again"
    )]
    TextsChanged(String),
}

impl McpManager {
    /// A manager whose sandboxed servers never read `hidden`, whose servers' questions go to
    /// `questions`, and whose servers the user lets use the chat's model ask it through
    /// `sampler`.
    pub fn new(
        hidden: Arc<[std::path::PathBuf]>,
        questions: Option<Arc<super::elicitation::ElicitationHub>>,
        sampler: Option<Arc<dyn super::sampling::Sampler>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            entries: Mutex::new(BTreeMap::new()),
            changed: watch::channel(0).0,
            hidden,
            book: Mutex::new((ReviewBook::default(), false)),
            questions,
            sampler,
        })
    }

    /// The `WWW-Authenticate` header of the last answer in which server `name` asked for a
    /// sign-in (its `resource_metadata` address and the `scope` it wants), if it sent one.
    pub fn sign_in_challenge(&self, name: &str) -> Option<String> {
        self.entries.lock().get(name)?.challenge.clone()
    }

    /// Changes whenever a server's state or tools change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn notify(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Tells whoever watches the servers that something about them changed outside the
    /// manager (a sign-in began or ended).
    pub fn touch(&self) {
        self.notify();
    }

    /// Makes the running set match `launches`: stops servers that are gone, and applies
    /// [`Self::upsert`] to each of the others.
    pub fn configure(self: &Arc<Self>, launches: Vec<McpLaunch>) {
        let mut stopped = Vec::new();
        let mut start = Vec::new();
        {
            let mut entries = self.entries.lock();
            entries.retain(|name, entry| {
                let keep = launches.iter().any(|l| &l.config.name == name);
                if !keep {
                    stopped.extend(entry.slot.replace(None));
                }
                keep
            });
            for launch in launches {
                Self::apply(&mut entries, launch, &mut stopped, &mut start);
            }
        }
        self.finish_changes(stopped, start);
    }

    /// Adds a server or changes its settings. A new or changed enabled server is (re)started; a
    /// disabled one is stopped; an unchanged one keeps running.
    pub fn upsert(self: &Arc<Self>, launch: McpLaunch) {
        let mut stopped = Vec::new();
        let mut start = Vec::new();
        Self::apply(&mut self.entries.lock(), launch, &mut stopped, &mut start);
        self.finish_changes(stopped, start);
    }

    /// Stops and forgets a server; returns whether it was known.
    pub fn remove(self: &Arc<Self>, name: &str) -> bool {
        let Some(entry) = self.entries.lock().remove(name) else {
            return false;
        };
        {
            let mut book = self.book.lock();
            book.0.remove(name);
            book.1 = true;
        }
        self.finish_changes(entry.slot.replace(None).into_iter().collect(), Vec::new());
        true
    }

    fn apply(
        entries: &mut BTreeMap<String, Entry>,
        launch: McpLaunch,
        stopped: &mut Vec<Arc<McpConnection>>,
        start: &mut Vec<Start>,
    ) {
        let name = launch.config.name.clone();
        let entry = entries.entry(name.clone()).or_insert_with(|| Entry {
            config: launch.config.clone(),
            oauth: launch.oauth.clone(),
            slot: Arc::new(ServerSlot::new(&name)),
            status: McpStatus::Disabled,
            tools: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
            identity: ServerIdentity::default(),
            challenge: None,
            reviews: BTreeMap::new(),
            generation: 0,
        });
        let fresh = entry.generation == 0;
        let changed = entry.config != launch.config || entry.oauth != launch.oauth;
        let blocked_changed = match (&launch.blocked, &entry.status) {
            (Some(why), McpStatus::Failed { error }) => why != error,
            (Some(_), _) => true,
            (None, _) => false,
        };
        if !(fresh || changed || blocked_changed) {
            return;
        }
        entry.config = launch.config;
        entry.oauth = launch.oauth;
        entry.generation += 1;
        stopped.extend(entry.slot.replace(None));
        entry.clear_lists();
        entry.status = match (&launch.blocked, entry.config.enabled) {
            (_, false) => McpStatus::Disabled,
            (Some(why), true) => McpStatus::Failed { error: why.clone() },
            (None, true) => {
                start.push(entry.start(&name));
                McpStatus::Connecting
            }
        };
    }

    /// Stops and starts a server again (after a failure, or to pick up new tools).
    pub fn restart(self: &Arc<Self>, name: &str) -> bool {
        let mut stopped = Vec::new();
        let mut start = Vec::new();
        {
            let mut entries = self.entries.lock();
            let Some(entry) = entries.get_mut(name) else {
                return false;
            };
            entry.generation += 1;
            stopped.extend(entry.slot.replace(None));
            entry.clear_lists();
            if entry.config.enabled {
                entry.status = McpStatus::Connecting;
                start.push(entry.start(name));
            } else {
                entry.status = McpStatus::Disabled;
            }
        }
        self.finish_changes(stopped, start);
        true
    }

    fn finish_changes(self: &Arc<Self>, stopped: Vec<Arc<McpConnection>>, start: Vec<Start>) {
        for conn in stopped {
            tokio::spawn(async move { conn.shutdown().await });
        }
        for launch in start {
            let this = Arc::clone(self);
            tokio::spawn(async move { this.run(launch).await });
        }
        self.notify();
    }

    /// Every resource of the ready servers.
    pub fn resources(&self) -> Vec<McpResourceView> {
        let entries = self.entries.lock();
        entries
            .values()
            .filter(|e| e.status == McpStatus::Ready)
            .flat_map(|e| {
                e.resources
                    .iter()
                    .map(|r| catalog::resource_view(&e.config.name, r))
            })
            .collect()
    }

    /// The name to show for one resource of a ready server: its title, else its name.
    pub fn resource_title(&self, server: &str, uri: &str) -> Option<String> {
        let entries = self.entries.lock();
        let entry = entries
            .get(server)
            .filter(|e| e.status == McpStatus::Ready)?;
        let r = entry.resources.iter().find(|r| r.uri == uri)?;
        Some(r.title.clone().unwrap_or_else(|| r.name.clone()))
    }

    /// Every prompt of the ready servers.
    pub fn prompts(&self) -> Vec<McpPromptView> {
        let entries = self.entries.lock();
        entries
            .values()
            .filter(|e| e.status == McpStatus::Ready)
            .flat_map(|e| {
                e.prompts
                    .iter()
                    .map(|p| catalog::prompt_view(&e.config.name, p))
            })
            .collect()
    }

    /// The live connection of a ready server, and its settings (to scrub secrets from errors).
    pub fn connection(&self, server: &str) -> Option<(Arc<McpConnection>, McpServerConfig)> {
        let entries = self.entries.lock();
        let e = entries.get(server)?;
        Some((e.slot.connection()?, e.config.clone()))
    }

    /// The state of every configured server, by name.
    pub fn states(&self) -> Vec<McpServerState> {
        let entries = self.entries.lock();
        let book = self.book.lock();
        entries.values().map(|e| e.state(&book.0)).collect()
    }

    /// The state of one server.
    pub fn state(&self, name: &str) -> Option<McpServerState> {
        let entries = self.entries.lock();
        let book = self.book.lock();
        entries.get(name).map(|e| e.state(&book.0))
    }

    /// The process id of a running stdio server (tests, diagnostics).
    pub fn pid(&self, name: &str) -> Option<u32> {
        self.entries
            .lock()
            .get(name)
            .and_then(|e| e.slot.connection())
            .and_then(|c| c.pid())
    }

    /// One tool group per ready server. A server's own texts (its instructions, its tools'
    /// descriptions) are untrusted until the user confirmed them at first sight — and stay so
    /// when the review flagged any of them as steering the model (SPEC §12): a confirmation
    /// with every finding ticked says the user saw it, not that it may steer.
    pub fn groups(&self) -> Vec<ToolGroup> {
        let entries = self.entries.lock();
        let all_tools: Vec<String> = entries
            .values()
            .flat_map(|e| {
                e.tools
                    .iter()
                    .map(|t| crate::tool_name(&e.config.name, &t.name))
            })
            .collect();
        entries
            .values()
            .filter(|e| e.status == McpStatus::Ready)
            .map(|e| {
                // The description reaches the model provider with every request: it names the
                // server as the user named it — never its command line or URL (which may carry
                // keys), nor the name and version the server gives itself (its `serverInfo`,
                // which no review shows).
                let about = "The tools of an MCP server the user added.";
                let mut group =
                    ToolGroup::new(&e.config.name, &e.config.name, about).enabled_by_default(true);
                if let Some(text) = e
                    .identity
                    .instructions
                    .as_deref()
                    .filter(|t| !t.trim().is_empty())
                {
                    let text: String = text.chars().take(MAX_INSTRUCTIONS).collect();
                    group = group.guidance(Guidance::Text(text));
                }
                // A tool for the server's view alone is never offered to the model (F-96):
                // it is registered for the views only.
                for info in &e.tools {
                    let review = e.reviews.get(info.name.as_ref()).cloned();
                    let tool = McpTool::new(&e.config, info, Arc::clone(&e.slot), review);
                    group = if super::apps::offered_to_the_model(info) {
                        group.tool(tool)
                    } else {
                        group.view_tool(tool)
                    };
                }
                let confirmed = e.review_state(&self.book.lock().0) == ServerReviewState::Confirmed;
                if !confirmed || e.texts_steer(&all_tools) {
                    group.said_by = Some(Source::McpServer {
                        server: e.config.name.clone(),
                    });
                }
                group
            })
            .collect()
    }

    /// Stops every server (at app exit).
    pub async fn shutdown(&self) {
        let conns: Vec<Arc<McpConnection>> = {
            let mut entries = self.entries.lock();
            entries
                .values_mut()
                .filter_map(|e| {
                    e.generation += 1;
                    e.slot.replace(None)
                })
                .collect()
        };
        futures::future::join_all(conns.iter().map(|c| c.shutdown())).await;
    }
}

/// The entry of server `name` if it still belongs to the start `generation`: a later start or
/// stop supersedes the tasks of an earlier one, which then leave the entry alone.
fn current<'a>(
    entries: &'a mut BTreeMap<String, Entry>,
    name: &str,
    generation: u64,
) -> Option<&'a mut Entry> {
    entries.get_mut(name).filter(|e| e.generation == generation)
}
