//! The app's engine in one place: the store, the registry, the approval and question hubs, the
//! rules, the settings, the providers — and one [`ToolExecutor`] per chat, one running turn per
//! chat. The desktop app's commands are thin calls into this.

use crate::approvals::ApprovalError;
use crate::approvals::ApprovalHub;
use crate::chat::{ChatEvent, StartTurn, Turn, TurnInput, TurnSettings, UserInput};
use crate::executor::{ExecutorDeps, ExecutorError, ToolExecutor};
use crate::ids::ChatId;
use crate::protocol::Invalid;
use crate::protocol::{EventSink, Router};
use crate::protocol::{SharedSettings, ToolSettings, TOOL_SETTINGS_KEY};
use crate::providers::config::{ConfigError, Providers};
use crate::rules::RuleBook;
use crate::secrets::Keychain;
use crate::store::{ChatParams, Store, StoreError};
use crate::tools::questions::{AnswerError, QuestionHub};
use crate::tools::{Registry, RegistryError};
use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;
use tokio_util::sync::CancellationToken;

mod asks;
mod background;
mod branches;
mod chats;
mod errors;
mod gate;
mod guard;
mod kept;
mod mcp;
mod mcp_oauth;
mod preferences;
mod presets;
mod providers;
mod sampling;
mod sandbox;
mod server_review;
mod services;
mod views;
pub use branches::ModelChoice;
pub use chats::{
    export_file_name, ChatHistory, ChatRevision, ExportFormat, ExportTarget, HISTORY_FIRST_PAGE,
    HISTORY_PAGE,
};
pub use gate::SettingsView;
pub use guard::{CoveredCall, RuleCoverage, COVERAGE_EXAMINED, COVERAGE_LISTED};
pub use mcp::{McpServerView, MCP_SETTINGS_KEY};
pub use services::{
    Chats, Gate, McpServers, McpViews, ModelProviders, Preferences, Presets, UserAsks,
};
pub use views::{ServedView, ViewDocuments, VIEW_SCHEME};

/// The settings key of [`AppSettings`].
pub const APP_SETTINGS_KEY: &str = "app";

/// Light, dark, or follow the system.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

/// The UI's language.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Language {
    #[default]
    #[serde(rename = "en")]
    English,
    #[serde(rename = "zh-CN")]
    SimplifiedChinese,
}

/// General settings (F-53).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AppSettings {
    pub theme: Theme,
    pub language: Language,
    pub turn: TurnSettings,
    /// While the window is not focused, an approval or question that starts waiting shows a
    /// system notification (F-59).
    pub notify: bool,
    /// ... and asks for the window's attention (the taskbar's urgency hint) (F-59).
    pub attention_hint: bool,
    /// Show the views MCP servers ship with their tools (MCP Apps, F-96); each server
    /// has its own switch too.
    pub mcp_views: bool,
}

impl Default for AppSettings {
    fn default() -> Self {
        Self {
            theme: Theme::default(),
            language: Language::default(),
            turn: TurnSettings::default(),
            notify: true,
            attention_hint: true,
            mcp_views: true,
        }
    }
}

/// Why an operation failed; the message is shown to the user.
#[derive(Debug, Error)]
pub enum ServiceError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Executor(#[from] ExecutorError),
    #[error(transparent)]
    Approval(#[from] ApprovalError),
    #[error(transparent)]
    Answer(#[from] AnswerError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    McpConfig(#[from] crate::mcp::McpConfigError),
    #[error(transparent)]
    Secret(#[from] crate::secrets::SecretError),
    #[error(transparent)]
    Provider(#[from] crate::providers::ProviderError),
    #[error("{0}")]
    NotFound(crate::protocol::Missing),
    #[error("{0}")]
    Invalid(crate::protocol::Invalid),
    #[error("a reply is already being written in this chat; wait for it or press Stop")]
    Busy,
    #[error("{path} could not be written: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// A refusal from further down (an attachment, a server's answer), in its own words.
pub(crate) fn refused(message: String) -> ServiceError {
    ServiceError::Invalid(Invalid::Other { message })
}

/// What a turn runs with: the app's settings, with the chat's own temperature and answer length
/// where it has them (F-58).
pub fn with_chat_params(mut settings: TurnSettings, params: ChatParams) -> TurnSettings {
    if params.temperature.is_some() {
        settings.temperature = params.temperature;
    }
    if let Some(max) = params.max_tokens {
        settings.max_tokens = max;
    }
    settings
}

/// Longest automatic chat title, in characters.
const TITLE_CHARS: usize = 60;

/// A chat's automatic title: the first line of its first message, cut at a word boundary.
pub fn title_from_message(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let words: Vec<&str> = line.split_whitespace().collect();
    let line = words.join(" ");
    if line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let mut out = String::new();
    for word in words {
        if out.chars().count() + word.chars().count() + 1 > TITLE_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        out = line.chars().take(TITLE_CHARS).collect();
    }
    out.push('…');
    out
}

/// A message worth sending: text or a file, its files within the limits (F-57).
fn checked(input: TurnInput) -> Result<TurnInput, ServiceError> {
    let check = |mut m: UserInput| -> Result<UserInput, ServiceError> {
        if m.text.trim().is_empty() && m.attachments.is_empty() {
            return Err(ServiceError::Invalid(Invalid::EmptyMessage));
        }
        m.attachments = crate::chat::attachments::check(m.attachments).map_err(refused)?;
        Ok(m)
    };
    Ok(match input {
        TurnInput::Message(m) => TurnInput::Message(check(m)?),
        TurnInput::Edit { parent, message } => TurnInput::Edit {
            parent,
            message: check(message)?,
        },
        TurnInput::Rerun { message, call, of } => TurnInput::Rerun {
            message: check(message)?,
            call,
            of,
        },
        other @ (TurnInput::Retry | TurnInput::Regenerate { .. }) => other,
    })
}

/// A turn that runs: how to stop it, and the provider and model it was started with (a chat's
/// own, or one chosen for this turn), which a server that borrows the chat's model meanwhile
/// gets too (F-99).
struct RunningTurn {
    stop: CancellationToken,
    provider: Option<i64>,
    model: String,
}

/// Everything the app runs on.
pub struct Tollgate {
    store: Store,
    registry: RwLock<Arc<Registry>>,
    /// The MCP servers (F-45).
    mcp: Arc<crate::mcp::McpManager>,
    /// The questions MCP servers ask the user (SPEC §11).
    elicitations: Arc<crate::mcp::elicitation::ElicitationHub>,
    /// The MCP servers' saved settings, sign-ins and review saves (F-45, SPEC §11): the state
    /// the MCP servers' service owns.
    mcp_state: mcp::McpState,
    keychain: Keychain,
    hub: Arc<ApprovalHub>,
    questions: Arc<QuestionHub>,
    rules: Arc<RuleBook>,
    settings: SharedSettings,
    router: Arc<Router>,
    providers: Providers,
    app_settings: RwLock<AppSettings>,
    executors: tokio::sync::Mutex<HashMap<ChatId, Arc<ToolExecutor>>>,
    turns: Mutex<HashMap<ChatId, RunningTurn>>,
    /// The app itself, for the work it hands to tasks of its own (a chat's follower, F-99).
    me: std::sync::Weak<Tollgate>,
    /// Counts the turns that ended: a late result (F-99) whose turn has not written its tool
    /// message yet waits on it.
    turn_ended: tokio::sync::watch::Sender<u64>,
    /// The chat loop (`tollgate_turn::start_turn`), handed in by whoever opens the service.
    start_turn: StartTurn,
    /// The folders no sandboxed command may read (F-46).
    hidden: Arc<[PathBuf]>,
    /// Wakes the database's upkeep: purging what deleted chats left behind, merging the search
    /// index (F-71).
    purger: Arc<tokio::sync::Notify>,
    /// MCP Apps views waiting for their frames (F-96).
    views: views::ViewDocuments,
}

/// How often the database's idle upkeep runs when nothing wakes it.
const UPKEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// The database's upkeep, begun once start-up is over ([`Tollgate::start_background_work`]):
/// first opens the chats with a call going on as its server's task, so it is followed again
/// (F-99); purges the rows deleted chats left behind (`Store::purge_deleted`), woken by each delete,
/// then merges the search index's segments (`SearchIndex::tend_search_index`), also every
/// [`UPKEEP_EVERY`]. Every step is a short call of its own, so reads go between them. Holds the
/// app weakly: it ends with the app.
async fn upkeep(app: std::sync::Weak<Tollgate>, wake: Arc<tokio::sync::Notify>) {
    wake.notified().await;
    background::resume_call_tasks(app.clone());
    loop {
        let Some(store) = app.upgrade().map(|a| a.store.clone()) else {
            return;
        };
        if let Err(e) = store.purge_deleted().await {
            tracing::warn!(
                "purging deleted chats stopped: {e}; it is tried again on the next delete"
            );
        }
        if let Err(e) = store.search_index().tend_search_index().await {
            tracing::warn!("merging the search index stopped: {e}; tried again later");
        }
        drop(store);
        // Woken by a delete, or the time is up: either way, the next round.
        let _ = tokio::time::timeout(UPKEEP_EVERY, wake.notified()).await;
    }
}

impl Tollgate {
    /// Opens the database in `data_dir` and loads rules and settings. Gate events of chats with no
    /// running turn go to `background` (e.g. a badge for a chat waiting on approval). Turns run
    /// on `start_turn`, the chat loop (`tollgate_turn::start_turn`; see [`crate::chat`] for why
    /// it is handed in).
    pub async fn open(
        data_dir: &Path,
        keychain: Keychain,
        background: Arc<dyn EventSink>,
        start_turn: StartTurn,
    ) -> Result<Arc<Self>, ServiceError> {
        Self::open_for_home(
            data_dir,
            keychain,
            background,
            start_turn,
            std::env::home_dir().as_deref(),
        )
        .await
    }

    /// [`Tollgate::open`] for the user whose home folder is `home`: its secret folders are the
    /// ones sandboxed commands never read (F-46). Tests pass a planted home.
    pub async fn open_for_home(
        data_dir: &Path,
        keychain: Keychain,
        background: Arc<dyn EventSink>,
        start_turn: StartTurn,
        home: Option<&Path>,
    ) -> Result<Arc<Self>, ServiceError> {
        let store = Store::open_in(data_dir)?;
        let hidden: Arc<[PathBuf]> =
            crate::tools::sandbox::hidden_folders(home, store.path().parent()).into();
        let settings: ToolSettings = store.setting(TOOL_SETTINGS_KEY).await?.unwrap_or_default();
        let app_settings: AppSettings = store.setting(APP_SETTINGS_KEY).await?.unwrap_or_default();
        let questions = Arc::new(QuestionHub::new());
        let registry = Self::build_registry(&questions, Vec::new())?;
        let router = Arc::new(Router::new(background));
        let kept = Arc::new(kept::CallKeeper {
            store: store.clone(),
            router: Arc::clone(&router),
        });
        let elicitations =
            crate::mcp::elicitation::ElicitationHub::keeping(router.clone(), kept.clone());
        let rules = Arc::new(RuleBook::load(store.clone()).await?);
        let this = Arc::new_cyclic(|me| Self {
            me: me.clone(),
            rules,
            providers: Providers::new(store.clone(), keychain.clone()),
            registry: RwLock::new(Arc::new(registry)),
            mcp: crate::mcp::McpManager::new(
                Arc::clone(&hidden),
                Some(Arc::clone(&elicitations)),
                Some(Arc::new(sampling::ChatModel {
                    app: me.clone(),
                    kept,
                })),
            ),
            elicitations,
            mcp_state: mcp::McpState::default(),
            keychain,
            hub: Arc::new(ApprovalHub::new()),
            questions,
            settings: Arc::new(RwLock::new(settings)),
            router,
            app_settings: RwLock::new(app_settings),
            executors: tokio::sync::Mutex::new(HashMap::new()),
            turns: Mutex::new(HashMap::new()),
            turn_ended: tokio::sync::watch::Sender::new(0),
            start_turn,
            hidden,
            store,
            purger: Arc::new(tokio::sync::Notify::new()),
            views: views::ViewDocuments::default(),
        });
        tokio::spawn(upkeep(Arc::downgrade(&this), Arc::clone(&this.purger)));
        this.start_mcp().await?;
        this.providers.remember_keys().await;
        Ok(this)
    }

    /// The database: for reads the services do not cover (the chat a notification names, a
    /// test's look at what was stored).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The registry in use: built-in groups plus the ready MCP servers.
    pub fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.read())
    }

    /// The chat's executor, opened on first use and shared afterwards (one per chat).
    pub async fn executor(&self, chat: ChatId) -> Result<Arc<ToolExecutor>, ServiceError> {
        let mut map = self.executors.lock().await;
        if let Some(e) = map.get(&chat) {
            return Ok(Arc::clone(e));
        }
        let deps = ExecutorDeps {
            registry: self.registry(),
            store: self.store.clone(),
            hub: Arc::clone(&self.hub),
            rules: Arc::clone(&self.rules),
            settings: Arc::clone(&self.settings),
            sink: self.router.clone(),
            hidden: Arc::clone(&self.hidden),
        };
        let exec = ToolExecutor::open(chat, deps).await?;
        map.insert(chat, Arc::clone(&exec));
        if let Some(handed) = exec.under_way().take_handovers() {
            background::follow_handovers(self.me.clone(), &exec, handed);
        }
        self.prepare_door(chat, &exec);
        Ok(exec)
    }

    /// Makes a chat's history and tools ready at the secrets' door in the background when its
    /// executor is made (the chat was opened): its first request after the app starts then costs
    /// what a later round costs, not the redaction of the whole conversation. Only speed depends
    /// on it: a text it did not make ready is redacted when the request is sealed.
    fn prepare_door(&self, chat: ChatId, exec: &Arc<ToolExecutor>) {
        let store = self.store.clone();
        let exec = Arc::clone(exec);
        tokio::spawn(async move {
            let Ok(rows) = store.branches().chat_messages(chat).await else {
                return;
            };
            let messages = crate::chat::history::from_rows(&rows);
            let tools: Vec<_> = exec
                .toolbox()
                .offered_tools()
                .into_iter()
                .map(|o| o.definition)
                .collect();
            let prepared = tokio::task::spawn_blocking(move || {
                crate::providers::Outgoing::prepare(messages, &tools)
            })
            .await;
            if let Ok(prepared) = prepared {
                exec.secret_door().take(prepared);
            }
        });
    }

    /// Starts a turn in `chat`; its events go to `on_event` until `TurnFinished`. Refused while a
    /// turn already runs in the chat.
    pub async fn send(
        self: &Arc<Self>,
        chat: ChatId,
        input: TurnInput,
        on_event: Box<dyn Fn(ChatEvent) + Send + Sync>,
    ) -> Result<(), ServiceError> {
        self.start(chat, input, None, on_event).await
    }

    /// Starts a turn with the chat's model, or `model` for this turn only.
    async fn start(
        self: &Arc<Self>,
        chat: ChatId,
        input: TurnInput,
        model: Option<ModelChoice>,
        on_event: Box<dyn Fn(ChatEvent) + Send + Sync>,
    ) -> Result<(), ServiceError> {
        self.not_running(chat)?;
        let input = checked(input)?;
        let row = self
            .store
            .chat(chat)
            .await?
            .ok_or(ExecutorError::NoSuchChat(chat))?;
        let exec = self.executor(chat).await?;
        let (provider_id, chosen_model) = match model {
            Some(m) => (Some(m.provider), m.model),
            None => (row.provider_id, row.model.clone()),
        };
        let (provider, default_model) = self.providers.resolve(provider_id).await?;
        if row.title.trim().is_empty() {
            if let TurnInput::Message(message) = &input {
                let title = title_from_message(&message.text);
                if !title.is_empty() {
                    self.store.rename_chat(chat, title).await?;
                }
            }
        }
        let model = if chosen_model.trim().is_empty() {
            default_model
        } else {
            chosen_model
        };
        let turn_model = model.clone();
        let turn = Turn {
            exec,
            provider,
            store: self.store.clone(),
            router: Arc::clone(&self.router),
            model,
            system_prompt: row.system_prompt,
            settings: with_chat_params(self.app_settings.read().turn.clone(), row.params),
        };
        let handle = {
            let mut turns = self.turns.lock();
            if turns.contains_key(&chat) {
                return Err(ServiceError::Busy);
            }
            let handle = (self.start_turn)(turn, input);
            turns.insert(
                chat,
                RunningTurn {
                    stop: handle.stopper(),
                    provider: provider_id,
                    model: turn_model,
                },
            );
            handle
        };
        let this = Arc::clone(self);
        tokio::spawn(async move {
            handle.relay(&*on_event).await;
            let idle = {
                let mut turns = this.turns.lock();
                turns.remove(&chat);
                turns.is_empty()
            };
            this.turn_ended.send_modify(|n| *n = n.wrapping_add(1));
            // What the turn held (its request carries the whole history) is free now: give it
            // back to the system, once no other turn is running (F-71's long session).
            if idle {
                drop(on_event);
                let _ = tokio::task::spawn_blocking(crate::heap::release_free_memory).await;
            }
        });
        Ok(())
    }

    /// Stop (F-25); returns whether a turn was running.
    pub fn stop(&self, chat: ChatId) -> bool {
        match self.turns.lock().get(&chat) {
            Some(turn) => {
                turn.stop.cancel();
                true
            }
            None => false,
        }
    }

    /// The chat's executor if it is open (nothing is opened to ask).
    async fn open_executor(&self, chat: ChatId) -> Option<Arc<ToolExecutor>> {
        self.executors.lock().await.get(&chat).cloned()
    }

    /// The task grant in force in `chat` (F-98), if its executor holds one.
    pub async fn task(&self, chat: ChatId) -> Option<crate::protocol::TaskState> {
        self.open_executor(chat)
            .await
            .and_then(|e| e.task().task_grant())
    }

    /// Ends the task grant in force in `chat` (F-98: the Stop on the plan in the chat's
    /// header): its next calls are decided one by one, as without a plan. Returns whether a
    /// grant was in force.
    pub async fn stop_task(&self, chat: ChatId) -> bool {
        self.open_executor(chat)
            .await
            .is_some_and(|e| e.task().end_task())
    }

    /// Whether a turn runs in `chat`.
    pub fn is_running(&self, chat: ChatId) -> bool {
        self.turns.lock().contains_key(&chat)
    }

    /// Refuses (`Busy`) while a turn runs in `chat`: the conversation is changing under it.
    fn not_running(&self, chat: ChatId) -> Result<(), ServiceError> {
        if self.is_running(chat) {
            return Err(ServiceError::Busy);
        }
        Ok(())
    }

    /// Begins the database's upkeep, which start-up leaves for later: following again the calls
    /// going on as tasks (F-99), purging what a purge cut short by a crash or a quit left
    /// behind, merging the search index. Each step holds the
    /// database for a moment, so the app calls this once its window has painted and the first
    /// screens' reads never wait behind it.
    pub fn start_background_work(&self) {
        self.purger.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::title_from_message;

    #[test]
    fn titles_come_from_the_first_line_cut_at_a_word() {
        assert_eq!(
            title_from_message("\n  what is   6*7?\nmore"),
            "what is 6*7?"
        );
        let long = "word ".repeat(30);
        let title = title_from_message(&long);
        assert!(
            title.ends_with('…') && title.chars().count() <= 61,
            "{title}"
        );
        assert!(!title.contains("wor…"));
        assert_eq!(title_from_message(&"x".repeat(100)).chars().count(), 61);
        assert_eq!(title_from_message("   "), "");
    }
}
