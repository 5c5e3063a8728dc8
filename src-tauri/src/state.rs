//! The state every command shares: one store, one registry, one approval hub, one rule book and
//! the app-wide tool settings.

use parking_lot::RwLock;
use std::path::Path;
use std::sync::Arc;
use tollgate_engine::questions::{self, QuestionHub};
use tollgate_engine::rules::RuleBook;
use tollgate_engine::settings::{SharedSettings, ToolSettings, TOOL_SETTINGS_KEY};
use tollgate_engine::store::StoreError;
use tollgate_engine::tools::{Registry, RegistryError};
use tollgate_engine::{ApprovalHub, Store};

/// Why the app state could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("the database could not be opened: {0}")]
    Store(#[from] StoreError),
    #[error("the built-in tools could not be registered: {0}")]
    Registry(#[from] RegistryError),
}

/// Shared by every command.
pub struct AppState {
    pub store: Store,
    pub registry: Arc<Registry>,
    pub hub: Arc<ApprovalHub>,
    pub rules: Arc<RuleBook>,
    pub settings: SharedSettings,
    /// Questions the model asked with `ask_user`, waiting for the user.
    pub questions: Arc<QuestionHub>,
}

impl AppState {
    /// Opens the database in `data_dir` and loads rules and settings.
    pub async fn open(data_dir: &Path) -> Result<Self, StateError> {
        let store = Store::open_in(data_dir)?;
        let settings: ToolSettings = store.setting(TOOL_SETTINGS_KEY).await?.unwrap_or_default();
        let rules = RuleBook::load(store.clone()).await?;
        let questions = Arc::new(QuestionHub::new());
        let mut registry = Registry::with_builtins()?;
        registry.register_group(questions::group(Arc::clone(&questions)))?;
        Ok(Self {
            registry: Arc::new(registry),
            hub: Arc::new(ApprovalHub::new()),
            questions,
            rules: Arc::new(rules),
            settings: Arc::new(RwLock::new(settings)),
            store,
        })
    }
}
