//! One chat's gate, [`ToolExecutor`]: the chat's state (its view of the registry, overrides,
//! workspace, ask-once records, variables, task grant and secrets' door) and what every executor
//! of the app shares ([`ExecutorDeps`]). Each concern's operations are a room of their own
//! (`facets.rs`); the pipeline a call passes is `pipeline.rs`.

/// The tool settings every chat's executor reads, shared with the service that saves them.
pub type SharedSettings = Arc<parking_lot::RwLock<ToolSettings>>;

use crate::approvals::ApprovalHub;
use crate::rules::RuleBook;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use thiserror::Error;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::EventSink;
use tollgate_protocol::{ChatSandbox, ChatToolOverrides, ToolSettings};
use tollgate_protocol::{GroupView, ToolDefinition, ToolView};
use tollgate_provenance::Offered;
use tollgate_store::{Store, StoreError};
use tollgate_tools::vars::{VarKind, VarLimits, VarStore};
use tollgate_tools::vars_tools::VARS_GROUP;
use tollgate_tools::Registry;

/// Errors opening or configuring an executor.
#[derive(Debug, Error)]
pub enum ExecutorError {
    #[error("chat {0} does not exist")]
    NoSuchChat(ChatId),
    #[error("no tool group is called \"{0}\"")]
    NoSuchGroup(String),
    #[error("no tool is called \"{0}\"")]
    NoSuchTool(String),
    /// The folder chosen as a workspace cannot be one (it holds the home folder).
    #[error("this folder cannot be a workspace: {0}")]
    UnfitWorkspace(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What every executor of the app shares.
#[derive(Clone)]
pub struct ExecutorDeps {
    pub registry: Arc<Registry>,
    pub store: Store,
    pub hub: Arc<ApprovalHub>,
    pub rules: Arc<RuleBook>,
    pub settings: SharedSettings,
    pub sink: Arc<dyn EventSink>,
    /// The folders no sandboxed command may read (F-46): the user's secret folders and
    /// Tollgate's data folder (`tollgate_sandbox::hidden_folders`).
    pub hidden: Arc<[PathBuf]>,
}

/// One chat's gate.
pub struct ToolExecutor {
    pub(crate) chat: ChatId,
    pub(crate) deps: ExecutorDeps,
    pub(crate) registry: RwLock<Arc<Registry>>,
    pub(crate) overrides: RwLock<ChatToolOverrides>,
    pub(crate) workspace: RwLock<Option<PathBuf>>,
    /// Ask-once records: (tool, args hash) → allowed.
    pub(crate) records: Mutex<HashMap<(String, String), bool>>,
    /// The tools (name, revision) whose source was asked in this chat, on the registry in use,
    /// whether the definition in force is the one the grants were made for (SPEC §12).
    pub(crate) verified: Mutex<std::collections::HashSet<(String, Arc<str>)>>,
    /// The task's grant in force, if the user approved a plan (F-98; `task.rs`).
    pub(crate) task: Mutex<Option<crate::plan::ActiveGrant>>,
    pub(crate) vars: Arc<VarStore>,
    pub(crate) seq: AtomicU64,
    /// The calls whose tools run now, by number: each can be stopped on its own card.
    pub(crate) running: Mutex<HashMap<u64, tokio_util::sync::CancellationToken>>,
    /// The secrets' door this chat's requests pass (F-46), kept across turns so that a request
    /// redacts only what is new since the last.
    pub(crate) door: Mutex<tollgate_secrets::door::SecretDoor>,
    /// The calls handed over to go on as their server's tasks (F-99; `handovers.rs`, `background.rs`).
    pub(crate) handovers: crate::handovers::HandOvers,
}

impl ToolExecutor {
    /// Opens the executor of `chat`: loads its overrides, workspace, records and variables, and
    /// installs the tool groups' rule variables.
    pub async fn open(chat: ChatId, deps: ExecutorDeps) -> Result<Arc<Self>, ExecutorError> {
        let row = deps
            .store
            .chat(chat)
            .await?
            .ok_or(ExecutorError::NoSuchChat(chat))?;
        let records = deps
            .store
            .gate_records()
            .approval_records(chat)
            .await?
            .into_iter()
            .map(|r| ((r.tool, r.args_hash), r.allowed))
            .collect();
        let limits = {
            let s = deps.settings.read();
            VarLimits {
                max_count: s.var_max_count,
                max_bytes: s.var_max_bytes,
            }
        };
        let vars = Arc::new(VarStore::load(chat, deps.store.clone(), limits).await?);
        let seq = deps.store.calls().last_call_seq(chat).await?;
        // The calls a restart left going on as tasks are followed again.
        let handovers = crate::handovers::HandOvers::default();
        for call in deps.store.calls().chat_call_tasks(chat).await? {
            handovers.hand_over(call);
        }
        let exec = Self {
            chat,
            registry: RwLock::new(Arc::clone(&deps.registry)),
            overrides: RwLock::new(row.tool_overrides),
            workspace: RwLock::new(row.workspace.map(PathBuf::from)),
            records: Mutex::new(records),
            verified: Mutex::new(std::collections::HashSet::new()),
            task: Mutex::new(None),
            door: Mutex::new(tollgate_secrets::door::SecretDoor::new()),
            vars,
            seq: AtomicU64::new(seq),
            running: Mutex::new(HashMap::new()),
            handovers,
            deps,
        };
        exec.install_guide_variables();
        Ok(Arc::new(exec))
    }

    fn install_guide_variables(&self) {
        let registry = self.registry();
        for group in registry.groups() {
            for guide in &group.guides {
                let name = group.guide_var_name(guide);
                if let Err(e) =
                    self.vars
                        .set(&name, Arc::from(guide.prompt.as_str()), VarKind::Guide)
                {
                    tracing::warn!("guide variable {name} not installed: {e}");
                }
            }
        }
    }

    /// The chat this executor belongs to.
    pub fn chat(&self) -> ChatId {
        self.chat
    }

    /// The secrets' door of this chat's requests (F-46): every request the chat sends is sealed
    /// through it (`tollgate_providers::Outgoing::seal`).
    pub fn secret_door(&self) -> parking_lot::MutexGuard<'_, tollgate_secrets::door::SecretDoor> {
        self.door.lock()
    }

    /// The chat's variables.
    pub fn vars(&self) -> &Arc<VarStore> {
        &self.vars
    }

    /// The registry in use.
    pub fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.read())
    }

    /// Swaps in a new registry (e.g. after an MCP server was added) and installs its rules.
    pub fn set_registry(&self, registry: Arc<Registry>) {
        *self.registry.write() = registry;
        // Another registry: a server may have restarted or reconnected; grants are checked
        // against its listing again before they are used (SPEC §12).
        self.verified.lock().clear();
        self.install_guide_variables();
        // A late result waits for its tool's server to be back (F-99).
        self.handovers.registry_changed.notify_waiters();
    }

    /// The chat's workspace folder.
    pub fn workspace(&self) -> Option<PathBuf> {
        self.workspace.read().clone()
    }

    /// Sets the chat's workspace folder (persisted).
    pub async fn set_workspace(&self, workspace: Option<PathBuf>) -> Result<(), ExecutorError> {
        if let Some(why) = workspace
            .as_deref()
            .and_then(tollgate_tools::sandbox::paths::unfit_workspace)
        {
            return Err(ExecutorError::UnfitWorkspace(why));
        }
        let text = workspace.as_ref().map(|p| p.to_string_lossy().into_owned());
        self.deps.store.set_chat_workspace(self.chat, text).await?;
        *self.workspace.write() = workspace;
        Ok(())
    }

    /// The chat's sandbox level and network switch (F-46).
    pub fn sandbox(&self) -> ChatSandbox {
        self.overrides.read().sandbox.clone()
    }

    /// Sets the chat's sandbox (persisted). Turning it off is a decision the caller has had the
    /// user confirm.
    pub async fn set_sandbox(&self, sandbox: ChatSandbox) -> Result<(), ExecutorError> {
        self.update_overrides(|o| o.sandbox = sandbox).await
    }

    /// What a tool gets to know about the chat's sandbox.
    pub(crate) fn sandbox_plan(&self) -> tollgate_tools::sandbox::SandboxPlan {
        let mut chat = self.sandbox();
        if self.guard().ways_out_off() {
            // The ways out are off: no network, not even to the listed hosts (F-82).
            chat.network = false;
            chat.hosts.clear();
        }
        tollgate_tools::sandbox::SandboxPlan {
            chat,
            hidden: Arc::clone(&self.deps.hidden),
        }
    }

    pub(crate) async fn update_overrides(
        &self,
        change: impl FnOnce(&mut ChatToolOverrides),
    ) -> Result<(), ExecutorError> {
        let snapshot = {
            let mut o = self.overrides.write();
            change(&mut o);
            o.clone()
        };
        self.deps
            .store
            .set_chat_tool_overrides(self.chat, &snapshot)
            .await?;
        Ok(())
    }

    /// The last call number used in this chat (for tests and the UI's expectations).
    pub fn last_seq(&self) -> u64 {
        self.seq.load(Ordering::SeqCst)
    }
}

pub(crate) fn set_toggle(
    map: &mut std::collections::BTreeMap<String, bool>,
    name: &str,
    enabled: Option<bool>,
) {
    match enabled {
        Some(on) => map.insert(name.to_string(), on),
        None => map.remove(name),
    };
}

/// Whether a group is on: the chat's toggle, else the app setting, else the group's default.
/// `vars` is on whenever any other group is (F-40); groups that need a workspace are off in a
/// chat without one.
pub fn group_enabled(
    registry: &Registry,
    settings: &ToolSettings,
    overrides: &ChatToolOverrides,
    has_workspace: bool,
    name: &str,
) -> bool {
    if name == VARS_GROUP {
        return registry.groups().iter().any(|g| {
            g.name != VARS_GROUP
                && group_enabled(registry, settings, overrides, has_workspace, &g.name)
        });
    }
    let Some(group) = registry.group(name) else {
        return false;
    };
    if group.needs_workspace && !has_workspace {
        return false;
    }
    overrides
        .groups
        .get(name)
        .or_else(|| settings.groups.get(name))
        .copied()
        .unwrap_or(group.enabled_by_default)
}

/// Whether a tool is toggled on: the chat's toggle, else the app setting, else on.
pub fn tool_toggled_on(settings: &ToolSettings, overrides: &ChatToolOverrides, name: &str) -> bool {
    overrides
        .tools
        .get(name)
        .copied()
        .or_else(|| settings.tool(name).and_then(|o| o.enabled))
        .unwrap_or(true)
}

/// Every group with its tools, as seen with `overrides` (empty for the app-wide settings view,
/// which passes `has_workspace = true` to show the defaults).
pub fn group_views(
    registry: &Registry,
    settings: &ToolSettings,
    overrides: &ChatToolOverrides,
    has_workspace: bool,
) -> Vec<GroupView> {
    registry
        .groups()
        .iter()
        .map(|g| GroupView {
            name: g.name.clone(),
            title: g.title.clone(),
            description: g.description.clone(),
            enabled: group_enabled(registry, settings, overrides, has_workspace, &g.name),
            tools: g
                .tools
                .iter()
                .map(|t| {
                    let spec = t.spec();
                    ToolView {
                        name: spec.name.clone(),
                        description: spec.description.clone(),
                        enabled: tool_toggled_on(settings, overrides, &spec.name),
                        execution_policy: settings
                            .execution_policy(&spec.name)
                            .unwrap_or(spec.execution_policy),
                        result_policy: settings
                            .result_policy(&spec.name)
                            .unwrap_or(spec.result_policy),
                        default_execution_policy: spec.execution_policy,
                        default_result_policy: spec.result_policy,
                        read_only: spec.read_only,
                        effects: settings.effects(&spec.name).unwrap_or(spec.effects),
                        default_effects: spec.effects,
                        effects_claimed: matches!(
                            spec.content,
                            tollgate_tools::ContentKind::Mcp { .. }
                        ) && settings.effects(&spec.name).is_none(),
                        targets: settings
                            .targets(&spec.name)
                            .map(tollgate_provenance::targets::declared)
                            .unwrap_or_else(|| spec.targets.to_vec()),
                        default_targets: spec.targets.to_vec(),
                        timeout_ms: u64::try_from(
                            settings
                                .timeout(&spec.name)
                                .unwrap_or(spec.timeout)
                                .as_millis(),
                        )
                        .unwrap_or(u64::MAX),
                    }
                })
                .collect(),
        })
        .collect()
}

/// The definitions of the tools `enabled` (by name, in order) of `registry`, each written by its
/// group's `said_by`.
pub(crate) fn offered_tools(registry: &Registry, enabled: &[String]) -> Vec<Offered> {
    enabled
        .iter()
        .filter_map(|name| registry.tool(name))
        .map(|t| {
            let by = registry.group(&t.group).and_then(|g| g.said_by.clone());
            let spec = t.tool.spec();
            let mut description = spec.description.clone();
            if let Some(ret) = &spec.declared_return {
                description.push_str(&format!("\nReturns: {}", ret.type_name));
                if let Some(note) = &ret.note {
                    description.push_str(&format!(" — {note}"));
                }
            }
            Offered {
                by,
                definition: ToolDefinition {
                    name: spec.name.clone(),
                    description,
                    parameters: t.parameters.clone(),
                },
            }
        })
        .collect()
}
