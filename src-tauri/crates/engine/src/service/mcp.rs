//! MCP servers as the app manages them: settings persisted under `"mcp"` (secret values — the
//! environment of stdio servers, the headers of HTTP ones — only in the keychain), started at
//! open, and the registry of every chat swapped whenever a server's tools change.

use super::refused;
use super::services::McpServers;
use super::{ServiceError, Tollgate};
use crate::mcp::review::AcceptError;
use crate::mcp::{
    catalog, import_json, inline_secrets, FilledPrompt, McpLaunch, McpPromptView, McpResourceView,
    McpReviewError, McpServerConfig, McpServerState, McpStatus, ReviewBook, REVIEW_SETTINGS_KEY,
};
use crate::protocol::Attachment;
use crate::protocol::{Invalid, Missing};
use crate::tools::questions;
use crate::tools::{Registry, RegistryError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

/// The settings key of the server list.
pub const MCP_SETTINGS_KEY: &str = "mcp";

/// A server as the settings screen shows it: its settings with secret values blanked (their
/// names stay), and where it is.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    pub config: McpServerConfig,
    pub state: McpServerState,
    /// The user's sign-in to this remote server (SPEC §11); the tokens stay in the keychain.
    pub sign_in: Option<crate::mcp::oauth::OAuthRecord>,
    /// A sign-in is waiting for the browser.
    pub signing_in: bool,
}

/// The keychain account of a server's secret values.
fn secret_account(name: &str) -> String {
    format!("mcp-server-{name}")
}

/// What of a keychain entry is remembered as secrets no result may carry.
#[derive(Clone, Copy)]
enum Remembered {
    /// Every value (environment, headers, a client secret), and an authorization header's
    /// credential without its scheme.
    Values,
    /// The secret parts of the arguments and URL taken out of a server's settings
    /// (`inline_secrets::secrets_in`): never a whole URL.
    Inline,
}

impl Remembered {
    fn remember(self, secrets: &BTreeMap<String, String>) {
        match self {
            Self::Values => {
                for value in secrets.values() {
                    crate::secrets::remember(value);
                    // `Bearer …`, `Basic …`, `Token …`: the credential after its scheme too.
                    if let Some((scheme, credential)) = value.trim().split_once(' ') {
                        if scheme.chars().all(|c| c.is_ascii_alphabetic()) {
                            crate::secrets::remember(credential.trim());
                        }
                    }
                }
            }
            Self::Inline => inline_secrets::secrets_in(secrets)
                .iter()
                .for_each(|v| crate::secrets::remember(v)),
        }
    }
}

/// The keychain account of the secrets taken out of a server's command line or URL.
fn inline_account(name: &str) -> String {
    format!("mcp-server-{name}-inline")
}

/// The keychain account of a server's OAuth client secret (F-96).
fn client_secret_account(name: &str) -> String {
    format!("mcp-server-{name}-client-secret")
}

/// The key of the client secret in its keychain entry.
const CLIENT_SECRET_KEY: &str = "client_secret";

/// The settings with every secret value replaced by "".
fn blanked(config: &McpServerConfig) -> McpServerConfig {
    let mut c = config.clone();
    for v in c.transport.secrets_mut().values_mut() {
        v.clear();
    }
    if let Some(secret) = &mut c.oauth_client_secret {
        secret.clear();
    }
    c
}

/// What the MCP servers' service keeps between calls: the servers' saved settings (secrets
/// blanked), the remote servers the user signed in to, the sign-ins waiting for the browser,
/// and the turn of review-book saves (saves land in the order taken).
#[derive(Default)]
pub(super) struct McpState {
    pub(super) configs: parking_lot::Mutex<Vec<McpServerConfig>>,
    pub(super) review_saves: tokio::sync::Mutex<()>,
    pub(super) sign_ins:
        parking_lot::Mutex<std::collections::BTreeMap<String, crate::mcp::oauth::OAuthRecord>>,
    pub(super) signing_in:
        parking_lot::Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>,
}

impl Tollgate {
    // On the app itself: the registry the MCP servers' tools join.
    /// The built-in groups plus one group per ready MCP server.
    pub(super) fn build_registry(
        questions: &Arc<questions::QuestionHub>,
        mcp_groups: Vec<crate::tools::ToolGroup>,
    ) -> Result<Registry, RegistryError> {
        let mut registry = Registry::with_builtins(questions)?;
        for group in mcp_groups {
            let name = group.name.clone();
            if let Err(e) = registry.register_group(group) {
                tracing::warn!("the tools of MCP server {name} were not added: {e}");
            }
        }
        Ok(registry)
    }

    /// Rebuilds the registry from the current MCP groups and gives it to every open chat.
    pub(super) async fn sync_registry(&self) {
        match Self::build_registry(&self.questions, self.mcp.groups()) {
            Ok(registry) => {
                let registry = Arc::new(registry);
                *self.registry.write() = Arc::clone(&registry);
                for exec in self.executors.lock().await.values() {
                    exec.set_registry(Arc::clone(&registry));
                }
            }
            Err(e) => tracing::error!("the tool registry could not be rebuilt: {e}"),
        }
    }

    /// Loads the saved servers and their secrets, starts the enabled ones, and keeps the
    /// registry in step with them from now on.
    pub(super) async fn start_mcp(self: &Arc<Self>) -> Result<(), ServiceError> {
        let configs: Vec<McpServerConfig> = self
            .store
            .setting(MCP_SETTINGS_KEY)
            .await?
            .unwrap_or_default();
        self.mcp_servers().load_sign_ins().await?;
        let mut launches = Vec::with_capacity(configs.len());
        for config in &configs {
            launches.push(self.mcp_servers().launch_of(config).await);
        }
        *self.mcp_state.configs.lock() = configs;
        let book: ReviewBook = self
            .store
            .setting(REVIEW_SETTINGS_KEY)
            .await?
            .unwrap_or_default();
        self.mcp.set_review_book(book);
        let weak: Weak<Self> = Arc::downgrade(self);
        let mut changes = self.mcp.subscribe();
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                let Some(this) = weak.upgrade() else { break };
                this.sync_registry().await;
                if let Err(e) = this.mcp_servers().save_review_book().await {
                    tracing::error!("the accepted MCP tool definitions were not saved: {e}");
                }
            }
        });
        self.mcp.configure(launches);
        Ok(())
    }
}

impl McpServers<'_> {
    /// Saves the book of accepted MCP tool definitions (SPEC §11) if it changed. Saves are
    /// serialised, so an older book never lands after a newer one.
    pub(super) async fn save_review_book(&self) -> Result<(), ServiceError> {
        let _turn = self.app.mcp_state.review_saves.lock().await;
        if let Some(book) = self.app.mcp.take_changed_book() {
            self.app
                .store
                .set_setting(REVIEW_SETTINGS_KEY, &book)
                .await?;
        }
        Ok(())
    }

    /// The settings with secrets filled in from the keychain (a keychain failure blocks the
    /// server with the reason rather than starting it without its secrets).
    pub(super) async fn launch_of(&self, stored: &McpServerConfig) -> McpLaunch {
        let mut config = stored.clone();
        let oauth = self.sign_in_of(stored);
        match self.fill_secrets(&mut config, &stored.name).await {
            Ok(()) => McpLaunch {
                config,
                blocked: None,
                oauth,
            },
            Err(e) => McpLaunch {
                config,
                blocked: Some(e.to_string()),
                oauth,
            },
        }
    }

    /// Fills the secret values of `config` from the keychain entries of server `name`: its
    /// environment or headers, and what was taken out of its command line or URL.
    async fn fill_secrets(
        &self,
        config: &mut McpServerConfig,
        name: &str,
    ) -> Result<(), ServiceError> {
        if !config.transport.secrets().is_empty() {
            let secrets = self.secrets_of(&secret_account(name)).await?;
            for (k, v) in config.transport.secrets_mut() {
                if v.is_empty() {
                    if let Some(s) = secrets.get(k) {
                        v.clone_from(s);
                    }
                }
            }
        }
        if inline_secrets::has_placeholders(&config.transport) {
            let inline = self
                .secrets_of_kind(&inline_account(name), Remembered::Inline)
                .await?;
            inline_secrets::restore(&mut config.transport, &inline);
        }
        if config.oauth_client_secret.as_deref() == Some("") {
            let stored = self.secrets_of(&client_secret_account(name)).await?;
            config.oauth_client_secret = stored.get(CLIENT_SECRET_KEY).cloned();
        }
        Ok(())
    }

    /// Removes a keychain entry that is no longer needed. A server without secrets must not need
    /// a keychain, so a failure here is logged, not returned: a leftover entry is never used,
    /// since secrets are only read where a placeholder or a named value asks for them.
    async fn forget_secrets(&self, account: &str) {
        if let Err(e) = self.app.keychain.delete(account).await {
            tracing::warn!("keychain entry {account} not removed: {e}");
        }
    }

    /// The secret values stored under `account`; each becomes a known secret that no tool
    /// result carries (F-46).
    async fn secrets_of(&self, account: &str) -> Result<BTreeMap<String, String>, ServiceError> {
        self.secrets_of_kind(account, Remembered::Values).await
    }

    /// [`Self::secrets_of`], remembering what `kind` says holds the secrets.
    async fn secrets_of_kind(
        &self,
        account: &str,
        kind: Remembered,
    ) -> Result<BTreeMap<String, String>, ServiceError> {
        let secrets: BTreeMap<String, String> = self
            .app
            .keychain
            .get(account)
            .await?
            .and_then(|json| serde_json::from_str(&json).ok())
            .unwrap_or_default();
        kind.remember(&secrets);
        Ok(secrets)
    }

    /// Stores `secrets` under `account`, or removes the entry when there are none.
    async fn put_secrets(
        &self,
        account: &str,
        secrets: &BTreeMap<String, String>,
        kind: Remembered,
    ) -> Result<(), ServiceError> {
        if secrets.is_empty() {
            self.forget_secrets(account).await;
            return Ok(());
        }
        let json = serde_json::to_string(secrets)
            .map_err(|e| refused(format!("the secrets could not be saved: {e}")))?;
        kind.remember(secrets);
        self.app.keychain.set(account, &json).await?;
        Ok(())
    }

    /// Every configured server with its state, by name.
    pub fn list(&self) -> Vec<McpServerView> {
        let configs = self.app.mcp_state.configs.lock().clone();
        let mut states: std::collections::HashMap<String, McpServerState> = self
            .app
            .mcp
            .states()
            .into_iter()
            .map(|s| (s.name.clone(), s))
            .collect();
        configs
            .into_iter()
            .map(|config| {
                let state = states.remove(&config.name).unwrap_or(McpServerState {
                    name: config.name.clone(),
                    status: McpStatus::Disabled,
                    server_name: None,
                    server_version: None,
                    protocol_version: None,
                    instructions: None,
                    tools: Vec::new(),
                    resources: 0,
                    prompts: 0,
                    review: crate::protocol::ServerReviewState::Unreviewed,
                });
                McpServerView {
                    sign_in: self.sign_in_record(&config.name),
                    signing_in: self.signing_in(&config.name),
                    config,
                    state,
                }
            })
            .collect()
    }

    /// Adds a server, or changes the one called `previous` (which may rename it). A secret
    /// value left empty keeps the value stored before.
    pub async fn save_mcp_server(
        &self,
        config: McpServerConfig,
        previous: Option<&str>,
    ) -> Result<(), ServiceError> {
        self.save_server(config, previous, false).await
    }

    /// [`Self::save_mcp_server`]; `replacing`: the settings come from elsewhere (an import), so
    /// what was granted to the server before does not vouch for this one (SPEC §11).
    async fn save_server(
        &self,
        mut config: McpServerConfig,
        previous: Option<&str>,
        replacing: bool,
    ) -> Result<(), ServiceError> {
        config.validate()?;
        let old_name = previous.unwrap_or(&config.name).to_string();
        let existing = existing_server(&self.app.mcp_state.configs.lock(), &config, previous)?;
        // Secret values left empty (or still hidden) keep the stored ones — but only while the
        // server is reached the same way: a token stored for one host or program is never sent
        // to another because its field was left blank.
        if let Some(old) = &existing {
            let same_destination = inline_secrets::destination(&old.transport)
                == inline_secrets::destination(&config.transport);
            if same_destination {
                self.fill_secrets(&mut config, &old_name).await?;
            } else {
                refuse_blank_secrets(old, &config)?;
            }
        }
        // Another program or address under the same name is another server: its tools start
        // under review. A rename keeps what was accepted for the server.
        let moved = existing.as_ref().is_some_and(|old| {
            inline_secrets::destination(&old.transport)
                != inline_secrets::destination(&config.transport)
        });
        if old_name != config.name {
            self.app.mcp.rename_server(&old_name, &config.name);
            self.rename_sign_in(&old_name, &config.name).await?;
        }
        if (replacing && existing.is_some()) || moved {
            self.app.mcp.replace_server(&config.name);
        }
        // A token is for the server it was given for: a server pointed elsewhere signs in anew.
        if moved {
            self.forget_sign_in(&config.name).await?;
        }
        // A client secret goes with its client id, and an empty one is none.
        if config.oauth_client_id.is_none() || config.oauth_client_secret.as_deref() == Some("") {
            config.oauth_client_secret = None;
        }
        let mut stored = blanked(&config);
        let inline = inline_secrets::take(&mut stored.transport);
        self.put_secrets(
            &secret_account(&config.name),
            config.transport.secrets(),
            Remembered::Values,
        )
        .await?;
        self.put_secrets(&inline_account(&config.name), &inline, Remembered::Inline)
            .await?;
        let client_secret: BTreeMap<String, String> = config
            .oauth_client_secret
            .iter()
            .map(|s| (CLIENT_SECRET_KEY.to_string(), s.clone()))
            .collect();
        self.put_secrets(
            &client_secret_account(&config.name),
            &client_secret,
            Remembered::Values,
        )
        .await?;
        if old_name != config.name {
            self.forget_secrets(&secret_account(&old_name)).await;
            self.forget_secrets(&inline_account(&old_name)).await;
            self.forget_secrets(&client_secret_account(&old_name)).await;
        }
        let oauth = self.sign_in_of(&stored);
        let mut configs = self.app.mcp_state.configs.lock().clone();
        configs.retain(|c| c.name != old_name);
        configs.push(stored);
        configs.sort_by(|a, b| a.name.cmp(&b.name));
        self.app
            .store
            .set_setting(MCP_SETTINGS_KEY, &configs)
            .await?;
        *self.app.mcp_state.configs.lock() = configs;
        if old_name != config.name {
            self.app.mcp.remove(&old_name);
        }
        self.app.mcp.upsert(McpLaunch {
            config,
            blocked: None,
            oauth,
        });
        Ok(())
    }

    /// Adds (or replaces, by name) the servers of an `mcpServers` JSON document; returns their
    /// names.
    pub async fn import_mcp_servers(&self, json: &str) -> Result<Vec<String>, ServiceError> {
        let servers = import_json(json)?;
        let mut names = Vec::with_capacity(servers.len());
        for server in servers {
            let exists = self
                .app
                .mcp_state
                .configs
                .lock()
                .iter()
                .any(|c| c.name == server.name);
            names.push(server.name.clone());
            let previous = exists.then(|| server.name.clone());
            self.save_server(server, previous.as_deref(), true).await?;
        }
        Ok(names)
    }

    /// Stops a server and forgets it and its secrets.
    pub async fn remove_mcp_server(&self, name: &str) -> Result<(), ServiceError> {
        if !self
            .app
            .mcp_state
            .configs
            .lock()
            .iter()
            .any(|c| c.name == name)
        {
            return Err(ServiceError::NotFound(Missing::McpServer {
                name: name.to_string(),
            }));
        }
        self.forget_secrets(&secret_account(name)).await;
        self.forget_secrets(&inline_account(name)).await;
        self.forget_secrets(&client_secret_account(name)).await;
        self.forget_sign_in(name).await?;
        self.app
            .store
            .views()
            .forget_view_resources(name.to_string())
            .await?;
        let mut configs = self.app.mcp_state.configs.lock().clone();
        configs.retain(|c| c.name != name);
        self.app
            .store
            .set_setting(MCP_SETTINGS_KEY, &configs)
            .await?;
        *self.app.mcp_state.configs.lock() = configs;
        self.app.mcp.remove(name);
        self.save_review_book().await
    }

    /// Accepts an MCP tool as it is now, after its change was read (SPEC §11): the rules,
    /// records and policy set for it apply again. `fingerprint` names the definition the user
    /// read; if the server changed the tool again since, nothing is accepted.
    pub async fn accept_mcp_tool_change(
        &self,
        server: &str,
        tool: &str,
        fingerprint: &str,
    ) -> Result<(), ServiceError> {
        self.app
            .mcp
            .accept_change(server, tool, fingerprint)
            .map_err(|e| match e {
                McpReviewError::NotRunning(server) => {
                    ServiceError::Invalid(Invalid::McpNotRunning { server })
                }
                McpReviewError::Accept(AcceptError::NotUnderReview { server, tool }) => {
                    ServiceError::Invalid(Invalid::McpToolNotUnderReview { server, tool })
                }
                McpReviewError::Accept(AcceptError::ChangedAgain { server, tool }) => {
                    ServiceError::Invalid(Invalid::McpToolChangedAgain { server, tool })
                }
                McpReviewError::TextsChanged(server) => {
                    ServiceError::Invalid(Invalid::McpTextsChanged { server })
                }
            })?;
        self.app.sync_registry().await;
        self.save_review_book().await
    }

    /// Starts a server again (after it failed, or to pick up new tools).
    pub fn restart_mcp_server(&self, name: &str) -> Result<(), ServiceError> {
        if self.app.mcp.restart(name) {
            Ok(())
        } else {
            Err(ServiceError::NotFound(Missing::McpServer {
                name: name.to_string(),
            }))
        }
    }
}

impl McpServers<'_> {
    /// Every resource the ready servers offer (F-45), to attach to a message.
    pub fn mcp_resources(&self) -> Vec<McpResourceView> {
        self.app.mcp.resources()
    }

    /// Every prompt the ready servers offer (F-45), for the composer's `/`.
    pub fn mcp_prompts(&self) -> Vec<McpPromptView> {
        self.app.mcp.prompts()
    }

    /// A ready server's connection, or why there is none.
    pub(super) fn ready_server(
        &self,
        server: &str,
    ) -> Result<(Arc<crate::mcp::McpConnection>, McpServerConfig), ServiceError> {
        self.app.mcp.connection(server).ok_or_else(|| {
            ServiceError::Invalid(Invalid::McpNotRunning {
                server: server.to_string(),
            })
        })
    }

    /// Reads a server's resource as attachments for the next message (text as a text file, an
    /// image as an image), checked like any attached file.
    pub async fn read_mcp_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Vec<Attachment>, ServiceError> {
        let (conn, config) = self.ready_server(server)?;
        let name = self.app.mcp.resource_title(server, uri);
        let contents = conn.read_resource(uri).await.map_err(|e| {
            refused(inline_secrets::scrub(
                &format!("Reading {uri} from \"{server}\" failed: {e}"),
                &config.transport,
            ))
        })?;
        let mut files = catalog::attachments(name.as_deref(), contents).map_err(refused)?;
        for file in &mut files {
            file.source = Some(crate::protocol::Source::McpResource {
                server: server.to_string(),
                uri: uri.to_string(),
            });
        }
        crate::chat::attachments::check(files).map_err(refused)
    }

    /// Fills in a server's prompt with `arguments` for the composer: its text and its files.
    pub async fn get_mcp_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<FilledPrompt, ServiceError> {
        let (conn, config) = self.ready_server(server)?;
        let arguments = arguments
            .into_iter()
            .map(|(k, v)| (k, serde_json::Value::String(v)))
            .collect();
        let result = conn.get_prompt(name, arguments).await.map_err(|e| {
            refused(inline_secrets::scrub(
                &format!("The prompt \"{name}\" of \"{server}\" failed: {e}"),
                &config.transport,
            ))
        })?;
        let mut filled = catalog::filled(result).map_err(refused)?;
        let source = crate::protocol::Source::McpPrompt {
            server: server.to_string(),
            name: name.to_string(),
        };
        for file in &mut filled.attachments {
            file.source = Some(source.clone());
        }
        filled.sources = vec![source];
        filled.attachments =
            crate::chat::attachments::check(filled.attachments).map_err(refused)?;
        Ok(filled)
    }
}

/// The stored server a save replaces (`previous`, else the one of the new name), checked: a new
/// name must not be another server's, and a server named to be edited must exist.
fn existing_server(
    configs: &[McpServerConfig],
    config: &McpServerConfig,
    previous: Option<&str>,
) -> Result<Option<McpServerConfig>, ServiceError> {
    let old_name = previous.unwrap_or(&config.name);
    let existing = configs.iter().find(|c| c.name == old_name).cloned();
    if old_name != config.name && configs.iter().any(|c| c.name == config.name) {
        return Err(ServiceError::Invalid(Invalid::McpNameTaken {
            name: config.name.clone(),
        }));
    }
    if previous.is_some() && existing.is_none() {
        return Err(ServiceError::NotFound(Missing::McpServer {
            name: old_name.to_string(),
        }));
    }
    Ok(existing)
}

/// Refuses a save that points a server elsewhere while leaving a stored secret's field blank
/// (or a placeholder in its command line): a token stored for one host or program is never sent
/// to another because its field was left empty.
fn refuse_blank_secrets(
    old: &McpServerConfig,
    config: &McpServerConfig,
) -> Result<(), ServiceError> {
    let mut blank: Vec<String> = config
        .transport
        .secrets()
        .iter()
        .filter(|(k, v)| v.is_empty() && old.transport.secrets().contains_key(*k))
        .map(|(k, _)| k.clone())
        .collect();
    if config.oauth_client_secret.as_deref() == Some("") && old.oauth_client_secret.is_some() {
        blank.push("OAuth client secret".into());
    }
    if !blank.is_empty() || inline_secrets::has_placeholders(&config.transport) {
        return Err(ServiceError::Invalid(Invalid::McpSecretsNotReused {
            server: config.name.clone(),
            secrets: blank,
        }));
    }
    Ok(())
}
