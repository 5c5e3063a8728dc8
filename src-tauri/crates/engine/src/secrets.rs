//! API keys in the OS keychain (F-32): Secret Service on Linux, Keychain on macOS, Credential
//! Manager on Windows, through the `keyring` crate. Keys never touch the database, a log, an
//! error message or an event; errors name the fix, never the key.

use thiserror::Error;

/// The keychain service name Tollgate's entries live under.
pub const SERVICE: &str = "app.tollgate.desktop";

/// Why the keychain could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SecretError {
    #[error(
        "No system keychain is available ({0}). Tollgate keeps API keys only in the keychain: on Linux, install and start a Secret Service provider (for example the gnome-keyring package, or KeePassXC with Secret Service enabled) and unlock it, then try again."
    )]
    Unavailable(String),
    #[error("The keychain is locked or refused access ({0}). Unlock it and try again.")]
    Locked(String),
    #[error("The keychain failed: {0}")]
    Failed(String),
}

fn map(e: keyring::Error) -> SecretError {
    match e {
        keyring::Error::NoDefaultStore => {
            let detail = match keyring::Entry::store_status() {
                Err(inner) => inner.to_string(),
                Ok(()) => "no credential store".into(),
            };
            SecretError::Unavailable(detail)
        }
        keyring::Error::NoStorageAccess(inner) => SecretError::Locked(inner.to_string()),
        keyring::Error::PlatformFailure(inner) => SecretError::Unavailable(inner.to_string()),
        other => SecretError::Failed(other.to_string()),
    }
}

/// Entries under one service name (tests use their own).
#[derive(Debug, Clone)]
pub struct Keychain {
    service: String,
}

impl Default for Keychain {
    fn default() -> Self {
        Self::new(SERVICE)
    }
}

impl Keychain {
    pub fn new(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
        }
    }

    fn entry(&self, account: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(&self.service, account).map_err(map)
    }

    /// Stores a secret (replacing any earlier one). Blocking: call from a blocking context.
    pub fn set_blocking(&self, account: &str, secret: &str) -> Result<(), SecretError> {
        self.entry(account)?.set_password(secret).map_err(map)
    }

    /// The stored secret, if any. Blocking.
    pub fn get_blocking(&self, account: &str) -> Result<Option<String>, SecretError> {
        match self.entry(account)?.get_password() {
            Ok(s) => Ok(Some(s)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map(e)),
        }
    }

    /// Deletes a secret; returns whether one existed. Blocking.
    pub fn delete_blocking(&self, account: &str) -> Result<bool, SecretError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(map(e)),
        }
    }

    /// [`Self::set_blocking`] off the async threads.
    pub async fn set(&self, account: &str, secret: &str) -> Result<(), SecretError> {
        let (this, account, secret) = (self.clone(), account.to_string(), secret.to_string());
        run_blocking(move || this.set_blocking(&account, &secret)).await
    }

    /// [`Self::get_blocking`] off the async threads.
    pub async fn get(&self, account: &str) -> Result<Option<String>, SecretError> {
        let (this, account) = (self.clone(), account.to_string());
        run_blocking(move || this.get_blocking(&account)).await
    }

    /// [`Self::delete_blocking`] off the async threads.
    pub async fn delete(&self, account: &str) -> Result<bool, SecretError> {
        let (this, account) = (self.clone(), account.to_string());
        run_blocking(move || this.delete_blocking(&account)).await
    }
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| SecretError::Failed(format!("the keychain task failed: {e}")))?
}

/// The keychain account of a provider's key.
pub fn provider_account(provider_id: i64) -> String {
    format!("provider-{provider_id}")
}
