//! The [`ToolExecutor`]: one per open chat (SPEC §1). It holds the chat's enabled view of the
//! registry, its ask-once records, its variables and its pending approvals, and runs every call
//! through the pipeline of SPEC §3 (see `pipeline.rs`), deciding each with the one decision
//! function (`decision.rs`).
//!
//! The gate itself, a crate of its own with what it needs beside it: the [`approvals`] hub that
//! routes the user's answers to waiting calls, the [`rules::RuleBook`] that keeps the user's
//! rules, and [`panics`] (the readable text of a crashed tool). It builds on the tools, the
//! provenance gate, the rules and the store, and must never depend on the chat loop or the
//! service above it (`tollgate-engine`), which drive it.

pub mod approvals;
pub mod panics;
pub mod rules;

// The crates below, under the names the code uses for them.
use tollgate_protocol::{self as protocol, canonical, ids, parse, policy};
use tollgate_provenance as provenance;
use tollgate_secrets as secrets;
use tollgate_store as store;
use tollgate_tools::{self as tools, names, vars};

mod ask;
mod call;
mod card;
mod decision;
mod execute;
mod grant;
#[cfg(test)]
mod ledger_property;
mod limits;
mod permission;
mod pipeline;
pub mod plan;
mod prompt;
mod resolve;
mod round;
mod sources;
mod task;
mod turnstile;

pub use call::{CallOrigin, Rerun, ToolCallRequest, ToolCallResult, ViewOrigin};
pub use round::{RepeatTracker, RoundLimits};
pub use sources::line_hashes;
pub use task::GrantLifetime;
pub use turnstile::Turnstile;

/// The tool settings every chat's executor reads, shared with the service that saves them.
pub type SharedSettings = Arc<parking_lot::RwLock<ToolSettings>>;

use crate::approvals::{ApprovalError, ApprovalHub};
use crate::ids::{ApprovalId, ChatId};
use crate::policy::{ExecutionPolicy, ResultPolicy};
use crate::protocol::{ApprovalRequest, Decision, ExecutionDecision, PendingApproval, RuleGrant};
use crate::protocol::{AskReason, EventSink};
use crate::protocol::{ChatSandbox, ChatToolOverrides, ToolSettings};
use crate::protocol::{ExposureView, GuardNote, Source, ToolEffects, TrustKey, WayOut};
use crate::protocol::{GroupView, ToolDefinition, ToolView};
use crate::provenance::{Exposure, Offered, RequestLedger, Trust};
use crate::rules::{check_pattern, RuleBook};
use crate::store::{ApprovalRecordRow, Store, StoreError};
use crate::tools::vars_tools::VARS_GROUP;
use crate::tools::{RegisteredTool, Registry, ToolSpec};
use crate::vars::{VarKind, VarLimits, VarStore};
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use thiserror::Error;

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
    chat: ChatId,
    deps: ExecutorDeps,
    registry: RwLock<Arc<Registry>>,
    overrides: RwLock<ChatToolOverrides>,
    workspace: RwLock<Option<PathBuf>>,
    /// Ask-once records: (tool, args hash) → allowed.
    records: Mutex<HashMap<(String, String), bool>>,
    /// The tools (name, revision) whose source was asked in this chat, on the registry in use,
    /// whether the definition in force is the one the grants were made for (SPEC §12).
    verified: Mutex<std::collections::HashSet<(String, Arc<str>)>>,
    /// The task's grant in force, if the user approved a plan (F-98; `task.rs`).
    task: Mutex<Option<plan::ActiveGrant>>,
    vars: Arc<VarStore>,
    seq: AtomicU64,
    /// The secrets' door this chat's requests pass (F-46), kept across turns so that a request
    /// redacts only what is new since the last.
    door: Mutex<crate::secrets::door::SecretDoor>,
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
        let seq = deps.store.last_call_seq(chat).await?;
        let exec = Self {
            chat,
            registry: RwLock::new(Arc::clone(&deps.registry)),
            overrides: RwLock::new(row.tool_overrides),
            workspace: RwLock::new(row.workspace.map(PathBuf::from)),
            records: Mutex::new(records),
            verified: Mutex::new(std::collections::HashSet::new()),
            task: Mutex::new(None),
            door: Mutex::new(crate::secrets::door::SecretDoor::new()),
            vars,
            seq: AtomicU64::new(seq),
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
    pub fn secret_door(&self) -> parking_lot::MutexGuard<'_, crate::secrets::door::SecretDoor> {
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
    pub(crate) fn sandbox_plan(&self) -> crate::tools::sandbox::SandboxPlan {
        let mut chat = self.sandbox();
        if self.ways_out_off() {
            // The ways out are off: no network, not even to the listed hosts (F-82).
            chat.network = false;
            chat.hosts.clear();
        }
        crate::tools::sandbox::SandboxPlan {
            chat,
            hidden: Arc::clone(&self.deps.hidden),
        }
    }

    fn group_enabled_in(&self, registry: &Registry, name: &str) -> bool {
        let has_workspace = self.workspace.read().is_some();
        group_enabled(
            registry,
            &self.deps.settings.read(),
            &self.overrides.read(),
            has_workspace,
            name,
        )
    }

    /// Whether a group is enabled in this chat (chat override, else settings, else default).
    pub fn is_group_enabled(&self, name: &str) -> bool {
        self.group_enabled_in(&self.registry(), name)
    }

    fn tool_toggled_on(&self, name: &str) -> bool {
        tool_toggled_on(&self.deps.settings.read(), &self.overrides.read(), name)
    }

    /// The effective execution policy of a tool (F-01): the user's override, else the default.
    /// A tool under review (SPEC §11) keeps only a "deny" of the user's: any other policy was
    /// set for the tool as it was.
    pub fn execution_policy(&self, spec: &ToolSpec) -> ExecutionPolicy {
        let set = self.deps.settings.read().execution_policy(&spec.name);
        decision::effective_policy(set, spec.execution_policy, spec.review.is_some())
    }

    /// What a call of the tool may do (F-81): the user's override, else its declaration. A
    /// tool under review (SPEC §11) may do what either says.
    pub fn effects(&self, spec: &ToolSpec) -> ToolEffects {
        let set = self.deps.settings.read().effects(&spec.name);
        match (set, &spec.review) {
            (Some(set), Some(_)) => set.union(spec.effects),
            (set, _) => set.unwrap_or(spec.effects),
        }
    }

    /// Whether what a call of the tool may do is only a server's claim (SPEC §12): an MCP
    /// tool whose effects the user has not confirmed (set in Settings → Tools, or in the
    /// server's first-sight review).
    pub fn effects_unconfirmed(&self, spec: &ToolSpec) -> bool {
        matches!(spec.content, crate::tools::ContentKind::Mcp { .. })
            && self.deps.settings.read().effects(&spec.name).is_none()
    }

    /// The arguments that name where a call of the tool goes (SPEC §12): the user's, else the
    /// tool's own.
    pub fn targets(&self, spec: &ToolSpec) -> Vec<String> {
        match self.deps.settings.read().targets(&spec.name) {
            Some(set) => crate::provenance::targets::declared(set),
            None => spec.targets.to_vec(),
        }
    }

    /// The sources the user endorsed for this chat (F-83).
    pub fn endorsed(&self) -> Vec<TrustKey> {
        self.overrides.read().endorsed.clone()
    }

    /// Trusts `sources` for the rest of this chat (persisted): their content no longer holds
    /// calls at the gate.
    pub async fn endorse(&self, sources: &[TrustKey]) -> Result<(), ExecutorError> {
        self.update_overrides(|o| {
            for s in sources {
                if !o.endorsed.contains(s) {
                    o.endorsed.push(s.clone());
                }
            }
        })
        .await
    }

    /// Takes back an endorsement of this chat (persisted).
    pub async fn unendorse(&self, source: &TrustKey) -> Result<(), ExecutorError> {
        self.update_overrides(|o| o.endorsed.retain(|s| s != source))
            .await
    }

    /// Whether the user turned the ways out off for this chat (F-82).
    pub fn ways_out_off(&self) -> bool {
        self.overrides.read().ways_out_off
    }

    /// Turns the ways out off (or on again) for this chat (persisted): tools that send out are
    /// hidden from the model and refused, and commands get no network.
    pub async fn set_ways_out_off(&self, off: bool) -> Result<(), ExecutorError> {
        self.update_overrides(|o| o.ways_out_off = off).await
    }

    /// The ways out enabled in this chat (F-82): tools the model may call that send out, and
    /// the commands' network.
    pub fn ways_out(&self) -> Vec<WayOut> {
        let registry = self.registry();
        let mut out: Vec<WayOut> = self
            .enabled_tool_names()
            .into_iter()
            .filter(|name| {
                registry
                    .tool(name)
                    .is_some_and(|t| self.effects(t.tool.spec()).sends_out)
            })
            .map(|tool| WayOut::Tool { tool })
            .collect();
        let commands = self
            .enabled_tool_names()
            .iter()
            .filter_map(|n| registry.tool(n))
            .any(|t| t.tool.spec().sandboxed);
        let plan = self.sandbox_plan();
        let network =
            plan.chat.network || !plan.chat.hosts.is_empty() || !plan.chat.level.confines();
        if commands && network {
            out.push(WayOut::CommandNetwork);
        }
        out
    }

    /// The chat's exposure as its header shows it (F-82), from the exposure of the branch the
    /// model sees.
    pub fn exposure_view(&self, exposure: &Exposure) -> ExposureView {
        let settings = self.deps.settings.read().clone();
        let endorsed = self.endorsed();
        let trust = Trust {
            settings: &settings,
            endorsed: &endorsed,
        };
        let newest_first = || exposure.sources().iter().rev();
        let untrusted: Vec<Source> = newest_first()
            .filter(|s| trust.untrusted(s))
            .cloned()
            .collect();
        let private: Vec<Source> = newest_first()
            .filter(|s| trust.private(s))
            .cloned()
            .collect();
        let count = |v: &Vec<Source>| u32::try_from(v.len()).unwrap_or(u32::MAX);
        ExposureView {
            guard: settings.guard.enabled,
            untrusted_count: count(&untrusted),
            private_count: count(&private),
            untrusted: untrusted.into_iter().take(GuardNote::MAX_SOURCES).collect(),
            private: private.into_iter().take(GuardNote::MAX_SOURCES).collect(),
            endorsed,
            ways_out: self.ways_out(),
            ways_out_off: self.ways_out_off(),
        }
    }

    /// The effective result policy of a tool (F-02).
    pub fn result_policy(&self, spec: &ToolSpec) -> ResultPolicy {
        self.deps
            .settings
            .read()
            .result_policy(&spec.name)
            .unwrap_or(spec.result_policy)
    }

    /// Whether the model may see and call the tool: its group is enabled, it is toggled on, and
    /// its policy is not `deny`.
    fn visible(&self, registry: &Registry, tool: &RegisteredTool) -> bool {
        let spec = tool.tool.spec();
        self.group_enabled_in(registry, &tool.group)
            && self.tool_toggled_on(&spec.name)
            && !decision::denies(self.execution_policy(spec))
            && !(self.ways_out_off() && self.effects(spec).sends_out)
            && !(self.ways_out_off() && spec.sandboxed && !self.network_can_be_cut())
    }

    /// Whether this system's sandbox can take the network from the chat's commands (SPEC §12):
    /// the chat's level confines them and the probe found namespaces, which close TCP, UDP and
    /// DNS alike (Landlock alone closes TCP only: UDP and DNS still leave). Unknown (the probe has not finished) counts as no, so "ways out off" never
    /// leaves a command tool that could still send.
    fn network_can_be_cut(&self) -> bool {
        let chat = self.sandbox();
        chat.level.confines()
            && crate::tools::supervisor::known_support().is_some_and(|support| {
                support.available() && !support.gaps(false).iter().any(|g| g.leaves_network())
            })
    }

    /// The names of the tools the model may call, in registry order.
    pub fn enabled_tool_names(&self) -> Vec<String> {
        let registry = self.registry();
        registry
            .groups()
            .iter()
            .flat_map(|g| g.tools.iter())
            .filter_map(|t| registry.tool(&t.spec().name))
            .filter(|t| self.visible(&registry, t))
            .map(|t| t.tool.spec().name.clone())
            .collect()
    }

    /// The tool definitions for the next request (denied and disabled tools are left out).
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.offered_tools()
            .into_iter()
            .map(|o| o.definition)
            .collect()
    }

    /// The tools offered in the next request, each with who wrote its definition (its group's
    /// `said_by`): the request ledger's tools (`tollgate_provenance::ledger`).
    pub fn offered_tools(&self) -> Vec<Offered> {
        offered_tools(&self.registry(), &self.enabled_tool_names())
    }

    /// What the chat offers the model outside the conversation, as the next request carries
    /// it with a model that calls tools natively: the system prompt's tool section and the
    /// tools, each piece with who wrote it. The exposure of a chat outside a turn (its header,
    /// a view's call) reads this; a turn reads each round's own request.
    pub fn offer(&self) -> RequestLedger {
        RequestLedger {
            system: self.system_prompt_ledger(),
            tools: self.offered_tools(),
        }
    }

    /// Sets this chat's own toggle for a group (`None` clears it). Persisted.
    pub async fn set_group_enabled(
        &self,
        group: &str,
        enabled: Option<bool>,
    ) -> Result<(), ExecutorError> {
        if self.registry().group(group).is_none() {
            return Err(ExecutorError::NoSuchGroup(group.to_string()));
        }
        self.update_overrides(|o| set_toggle(&mut o.groups, group, enabled))
            .await
    }

    /// Sets this chat's own toggle for a tool (`None` clears it). Persisted.
    pub async fn set_tool_enabled(
        &self,
        tool: &str,
        enabled: Option<bool>,
    ) -> Result<(), ExecutorError> {
        if self.registry().tool(tool).is_none() {
            return Err(ExecutorError::NoSuchTool(tool.to_string()));
        }
        self.update_overrides(|o| set_toggle(&mut o.tools, tool, enabled))
            .await
    }

    async fn update_overrides(
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

    /// Every group with its tools as this chat sees them.
    pub fn group_views(&self) -> Vec<GroupView> {
        let has_workspace = self.workspace.read().is_some();
        group_views(
            &self.registry(),
            &self.deps.settings.read(),
            &self.overrides.read(),
            has_workspace,
        )
    }

    /// Delivers the user's decision for one of this chat's approvals. Edited arguments are
    /// checked here, so an invalid edit is refused and the approval keeps waiting.
    pub fn answer_approval(
        &self,
        id: &ApprovalId,
        decision: Decision,
    ) -> Result<(), ApprovalError> {
        let pending = self.deps.hub.get(self.chat, id)?;
        if let ApprovalRequest::Execution {
            reason: AskReason::Plan { shown },
            ..
        } = &pending.request
        {
            return match &decision {
                Decision::Execution(
                    ExecutionDecision::AllowOnce
                    | ExecutionDecision::Deny { .. }
                    | ExecutionDecision::DenyAndStop { .. },
                ) => self.deps.hub.resolve(self.chat, id, decision),
                Decision::Execution(ExecutionDecision::EditAndAllow { arguments }) => {
                    let kept = crate::tools::plan_tool::proposal_of(arguments)
                        .map_err(ApprovalError::InvalidEdit)?;
                    if !kept.narrows(&shown.proposal) {
                        return Err(ApprovalError::NotThePlanShown);
                    }
                    self.deps.hub.resolve(self.chat, id, decision)
                }
                _ => Err(ApprovalError::NotThePlanShown),
            };
        }
        match (&decision, &pending.request) {
            (Decision::Execution(ExecutionDecision::EditAndAllow { arguments }), _) => {
                self.check_edited_arguments(&pending.tool, arguments)
                    .map_err(ApprovalError::InvalidEdit)?;
            }
            (
                Decision::Execution(ExecutionDecision::AlwaysAllow {
                    grant: RuleGrant::Matching { pattern },
                    ..
                }),
                ApprovalRequest::Execution { rule_subject, .. },
            ) => {
                check_pattern(*rule_subject, pattern)
                    .map_err(|e| ApprovalError::InvalidPattern(e.to_string()))?;
            }
            (
                Decision::Execution(ExecutionDecision::EndorseAndAllow { sources }),
                ApprovalRequest::Execution { guard, .. },
            ) => {
                let offered = guard.as_ref().map(|g| g.endorsable.as_slice());
                let all_offered =
                    offered.is_some_and(|offered| sources.iter().all(|s| offered.contains(s)));
                if sources.is_empty() || !all_offered {
                    return Err(ApprovalError::NotEndorsable);
                }
            }
            _ => {}
        }
        self.deps.hub.resolve(self.chat, id, decision)
    }

    /// The approvals waiting in this chat.
    pub fn pending(&self) -> Vec<PendingApproval> {
        self.deps.hub.pending_in(self.chat)
    }

    /// This chat's ask-once records.
    pub async fn records(&self) -> Result<Vec<ApprovalRecordRow>, ExecutorError> {
        Ok(self.deps.store.approval_records(self.chat).await?)
    }

    /// Revokes an ask-once record; returns whether it existed.
    pub async fn revoke_record(&self, tool: &str, args_hash: &str) -> Result<bool, ExecutorError> {
        let existed = self
            .deps
            .store
            .delete_approval_record(self.chat, tool.to_string(), args_hash.to_string())
            .await?;
        self.records
            .lock()
            .remove(&(tool.to_string(), args_hash.to_string()));
        Ok(existed)
    }

    /// The next call number (for tests and the UI's expectations).
    pub fn last_seq(&self) -> u64 {
        self.seq.load(Ordering::SeqCst)
    }
}

fn set_toggle(
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
                            crate::tools::ContentKind::Mcp { .. }
                        ) && settings.effects(&spec.name).is_none(),
                        targets: settings
                            .targets(&spec.name)
                            .map(crate::provenance::targets::declared)
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
