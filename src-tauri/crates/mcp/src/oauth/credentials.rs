//! A signed-in server's OAuth credentials in the OS keychain (SPEC §11), as rmcp's
//! [`CredentialStore`]: one entry per authorization server (issuer) and MCP server, so a token
//! minted for one server is never at hand for another. The tokens it reads or writes become
//! known secrets, scrubbed from the log and from what tools return.

use oauth2::TokenResponse;
use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use tollgate_secrets::Keychain;

/// The keychain account of the credentials `issuer` gave for the server at `url` (as the
/// settings store it). The URL is hashed: an account name is not a secret, and a URL may carry
/// one.
pub fn account(issuer: &str, url: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(url.trim().as_bytes());
    format!("mcp-oauth {issuer} {}", hex::encode(&digest[..12]))
}

/// The credentials of one (issuer, server) pair in the keychain.
#[derive(Debug, Clone)]
pub struct KeychainCredentials {
    keychain: Keychain,
    account: String,
}

impl KeychainCredentials {
    pub fn new(keychain: Keychain, account: String) -> Self {
        Self { keychain, account }
    }

    /// Removes the entry (sign out); whether there was one.
    pub async fn forget(&self) -> Result<bool, tollgate_secrets::SecretError> {
        self.keychain.delete(&self.account).await
    }
}

/// Remembers the tokens of `credentials` as secrets no log line or tool result may carry.
fn remember_tokens(credentials: &StoredCredentials) {
    if let Some(tokens) = &credentials.token_response {
        tollgate_secrets::remember(tokens.access_token().secret());
        if let Some(refresh) = tokens.refresh_token() {
            tollgate_secrets::remember(refresh.secret());
        }
    }
}

fn store_error(e: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(e.to_string())
}

#[async_trait::async_trait]
impl CredentialStore for KeychainCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(json) = self
            .keychain
            .get(&self.account)
            .await
            .map_err(store_error)?
        else {
            return Ok(None);
        };
        // An entry that no longer reads (written by another version) is as good as none: the
        // user signs in again.
        let credentials: Option<StoredCredentials> = serde_json::from_str(&json).ok();
        if let Some(c) = &credentials {
            remember_tokens(c);
        }
        Ok(credentials)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        remember_tokens(&credentials);
        let json = serde_json::to_string(&credentials).map_err(store_error)?;
        self.keychain
            .set(&self.account, &json)
            .await
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.keychain
            .delete(&self.account)
            .await
            .map(|_| ())
            .map_err(store_error)
    }
}
