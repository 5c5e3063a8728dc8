//! Signing in to remote MCP servers as the app manages it (SPEC §11): which servers the user is
//! signed in to (settings key [`SIGN_INS_KEY`], no secret in it; the tokens are in the
//! keychain), the sign-in itself (one at a time per server, cancellable), and signing out.
//! A record stays bound to the URL it was made for: a server edited to point elsewhere loses
//! it, so a token is never sent to another host.

use super::services::McpServers;
use super::ServiceError;
use crate::mcp::oauth::{self, Browser, OAuthAccess, OAuthRecord, SignIn};
use crate::mcp::{McpServerConfig, McpTransport};
use crate::protocol::{Invalid, Missing};
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;

/// The settings key of the sign-ins, by server name.
pub const SIGN_INS_KEY: &str = "mcp-sign-ins";

/// The URL of a remote server's settings (as stored: secrets in it are placeholders).
fn remote_url(config: &McpServerConfig) -> Option<&str> {
    match &config.transport {
        McpTransport::Http { url, .. } => Some(url.trim()),
        McpTransport::Stdio { .. } => None,
    }
}

impl McpServers<'_> {
    /// Reads the saved sign-ins (at start).
    pub(super) async fn load_sign_ins(&self) -> Result<(), ServiceError> {
        let records: BTreeMap<String, OAuthRecord> = self
            .app
            .store
            .setting(SIGN_INS_KEY)
            .await?
            .unwrap_or_default();
        *self.app.mcp_state.sign_ins.lock() = records;
        Ok(())
    }

    async fn save_sign_ins(&self) -> Result<(), ServiceError> {
        let records = self.app.mcp_state.sign_ins.lock().clone();
        self.app.store.set_setting(SIGN_INS_KEY, &records).await?;
        Ok(())
    }

    /// The sign-in a server's connection uses: only for the URL it was made for.
    pub(super) fn sign_in_of(&self, stored: &McpServerConfig) -> Option<OAuthAccess> {
        let url = remote_url(stored)?;
        let records = self.app.mcp_state.sign_ins.lock();
        let record = records.get(&stored.name).filter(|r| r.resource == url)?;
        Some(OAuthAccess {
            keychain: self.app.keychain.clone(),
            account: record.account(),
        })
    }

    /// The record shown in a server's settings.
    /// The settings of server `name`, as stored (secrets as placeholders).
    fn stored_mcp_server(&self, name: &str) -> Result<McpServerConfig, ServiceError> {
        self.app
            .mcp_state
            .configs
            .lock()
            .iter()
            .find(|c| c.name == name)
            .cloned()
            .ok_or_else(|| {
                ServiceError::NotFound(Missing::McpServer {
                    name: name.to_string(),
                })
            })
    }

    pub(super) fn sign_in_record(&self, name: &str) -> Option<OAuthRecord> {
        self.app.mcp_state.sign_ins.lock().get(name).cloned()
    }

    /// Whether a sign-in to `name` is waiting for the browser.
    pub(super) fn signing_in(&self, name: &str) -> bool {
        self.app.mcp_state.signing_in.lock().contains_key(name)
    }

    /// Forgets a server's sign-in: its tokens leave the keychain, its record the settings.
    pub(super) async fn forget_sign_in(&self, name: &str) -> Result<(), ServiceError> {
        let Some(record) = self.app.mcp_state.sign_ins.lock().remove(name) else {
            return Ok(());
        };
        if let Err(e) = self.app.keychain.delete(&record.account()).await {
            tracing::warn!("the sign-in tokens of {name} were not removed: {e}");
        }
        self.save_sign_ins().await
    }

    /// A server renamed keeps its sign-in.
    pub(super) async fn rename_sign_in(&self, from: &str, to: &str) -> Result<(), ServiceError> {
        let moved = {
            let mut records = self.app.mcp_state.sign_ins.lock();
            match records.remove(from) {
                Some(r) => {
                    records.insert(to.to_string(), r);
                    true
                }
                None => false,
            }
        };
        if moved {
            self.save_sign_ins().await?;
        }
        Ok(())
    }

    /// Signs in to the remote server `name`: `browser` opens the authorization server's page;
    /// when the browser comes back, the tokens are in the keychain and the server starts with
    /// them. Resolves when the sign-in is over (up to [`oauth::SIGN_IN_TIMEOUT`]), or cancelled
    /// with [`Self::cancel_mcp_sign_in`].
    pub async fn sign_in_mcp_server(
        &self,
        name: &str,
        browser: Browser,
    ) -> Result<OAuthRecord, ServiceError> {
        let stored = self.stored_mcp_server(name)?;
        let Some(stored_url) = remote_url(&stored).map(str::to_string) else {
            return Err(ServiceError::Invalid(Invalid::McpNotRemote {
                server: name.to_string(),
            }));
        };
        let cancel = CancellationToken::new();
        {
            let mut waiting = self.app.mcp_state.signing_in.lock();
            if waiting.contains_key(name) {
                return Err(ServiceError::Invalid(Invalid::McpSignInUnderWay {
                    server: name.to_string(),
                }));
            }
            waiting.insert(name.to_string(), cancel.clone());
        }
        self.app.mcp.touch();
        let launch = self.launch_of(&stored).await;
        let url = remote_url(&launch.config)
            .unwrap_or(&stored_url)
            .to_string();
        let challenge = self.app.mcp.sign_in_challenge(name);
        let result = oauth::sign_in(SignIn {
            url: &url,
            stored_url: &stored_url,
            client_id: stored.oauth_client_id.as_deref(),
            client_secret: launch.config.oauth_client_secret.as_deref(),
            client_metadata_url: launch.config.oauth_client_metadata_url.as_deref(),
            challenge: challenge.as_deref(),
            keychain: &self.app.keychain,
            browser: &browser,
            cancel: &cancel,
        })
        .await;
        self.app.mcp_state.signing_in.lock().remove(name);
        self.app.mcp.touch();
        let record = result.map_err(|e| {
            ServiceError::Invalid(Invalid::McpSignIn {
                server: name.to_string(),
                reason: crate::mcp::inline_secrets::scrub(&e.to_string(), &launch.config.transport),
            })
        })?;
        let replaced = self
            .app
            .mcp_state
            .sign_ins
            .lock()
            .insert(name.to_string(), record.clone());
        // Signed in again with another authorization server: the old tokens go.
        if let Some(old) = replaced.filter(|old| old.account() != record.account()) {
            if let Err(e) = self.app.keychain.delete(&old.account()).await {
                tracing::warn!("the earlier sign-in tokens of {name} were not removed: {e}");
            }
        }
        self.save_sign_ins().await?;
        let launch = self.launch_of(&stored).await;
        self.app.mcp.upsert(launch);
        Ok(record)
    }

    /// Stops a sign-in waiting for the browser; whether one was.
    pub fn cancel_mcp_sign_in(&self, name: &str) -> bool {
        match self.app.mcp_state.signing_in.lock().get(name) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Signs out of a remote server: its tokens leave the keychain, and it starts again without
    /// them (asking to sign in, if it needs a user).
    pub async fn sign_out_mcp_server(&self, name: &str) -> Result<(), ServiceError> {
        let stored = self.stored_mcp_server(name)?;
        self.forget_sign_in(name).await?;
        let launch = self.launch_of(&stored).await;
        self.app.mcp.upsert(launch);
        Ok(())
    }
}
