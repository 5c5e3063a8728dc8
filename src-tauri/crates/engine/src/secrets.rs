//! API keys in the OS keychain (F-32): Secret Service on Linux, Keychain on macOS, Credential
//! Manager on Windows, through the `keyring` crate. Keys never touch the database, a log, an
//! error message or an event; errors name the fix, never the key.
//!
//! Every secret this process reads from or writes to the keychain is also remembered, so that
//! text leaving the process — the log file and stderr — can be scrubbed of it ([`redact`]), along
//! with anything shaped like a well-known token.

use parking_lot::RwLock;
use std::borrow::Cow;
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
        remember(secret);
        self.entry(account)?.set_password(secret).map_err(map)
    }

    /// The stored secret, if any. Blocking.
    pub fn get_blocking(&self, account: &str) -> Result<Option<String>, SecretError> {
        match self.entry(account)?.get_password() {
            Ok(s) => {
                remember(&s);
                Ok(Some(s))
            }
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

/// What a secret is replaced with in text that leaves the process.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not remembered: replacing every "1234" in a log would hide more
/// than it protects, and no real key is that short.
const MIN_REMEMBERED: usize = 8;

/// The prefixes of well-known token formats (OpenAI and Anthropic `sk-`, GitHub, GitLab, Slack,
/// AWS access keys, JWTs).
pub const TOKEN_PREFIXES: [&str; 10] = [
    "sk-",
    "sk_",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xox",
    "AKIA",
    "eyJ",
];

/// Whether a value is shaped like a token: a well-known prefix and at least 16 characters, or a
/// `Bearer …` credential.
pub fn looks_like_token(value: &str) -> bool {
    let v = value.trim();
    (v.len() >= 16 && TOKEN_PREFIXES.iter().any(|p| v.starts_with(p)))
        || v.to_ascii_lowercase().starts_with("bearer ")
}

/// The secrets this process has seen, longest first (so a key containing another is replaced
/// whole).
static KNOWN: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Remembers a secret so [`redact`] replaces it from now on.
pub fn remember(secret: &str) {
    let secret = secret.trim();
    if secret.len() < MIN_REMEMBERED {
        return;
    }
    let mut known = KNOWN.write();
    if !known.iter().any(|k| k == secret) {
        known.push(secret.to_string());
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    }
}

/// `text` without any secret this process holds (provider keys, MCP secrets), each replaced by
/// [`REDACTED`]: what a tool result goes through before it is stored, shown, put in a variable
/// or sent (issue 33). Unlike [`redact`], nothing else is touched: a token shape in a file the
/// model reads is the file's, not Tollgate's. Borrowed when there was nothing to hide.
pub fn redact_known(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for secret in KNOWN.read().iter() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
        }
    }
    out
}

/// [`redact_known`] of an owned text, without a copy when there was nothing to hide.
pub fn redact_known_owned(text: String) -> String {
    match redact_known(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(redacted) => redacted,
    }
}

/// A character that can be part of a token.
fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// `text` without any secret this process has seen, and without anything shaped like a token
/// (also the credential after `Bearer `). Borrowed when there was nothing to hide.
pub fn redact(text: &str) -> Cow<'_, str> {
    let out = redact_known(text);
    if !needs_token_scan(&out) {
        return out;
    }
    let mut result = String::with_capacity(out.len());
    let mut rest: &str = &out;
    let mut after_bearer = false;
    while let Some(start) = rest.find(token_char) {
        result.push_str(&rest[..start]);
        let word_len = rest[start..]
            .find(|c: char| !token_char(c))
            .unwrap_or(rest.len() - start);
        let word = &rest[start..start + word_len];
        let hide = (after_bearer && word.len() >= MIN_REMEMBERED)
            || (word.len() >= 16 && TOKEN_PREFIXES.iter().any(|p| word.starts_with(p)));
        result.push_str(if hide { REDACTED } else { word });
        after_bearer = word.eq_ignore_ascii_case("bearer");
        rest = &rest[start + word_len..];
    }
    result.push_str(rest);
    if result == *out {
        out
    } else {
        Cow::Owned(result)
    }
}

/// Whether `text` may hold a token shape at all (a cheap check before the word scan).
fn needs_token_scan(text: &str) -> bool {
    TOKEN_PREFIXES.iter().any(|p| text.contains(p)) || text.to_ascii_lowercase().contains("bearer")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn remembered_secrets_and_token_shapes_are_hidden() {
        remember("hunter2-but-longer-Zq9");
        remember("short");
        let text = "key=hunter2-but-longer-Zq9 pin=short auth: Bearer abcdefgh12345678 token sk-proj-0123456789abcdef, id=task-1234567890123456";
        assert_eq!(
            redact(text),
            "key=[redacted] pin=short auth: Bearer [redacted] token [redacted], id=task-1234567890123456"
        );
        assert!(matches!(redact("nothing to hide here"), Cow::Borrowed(_)));
        // A JWT and a GitHub token inside JSON and a URL.
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
        assert_eq!(
            redact(&format!(
                "{{\"t\":\"{jwt}\"}} https://x.test/?k=ghp_abcdefghijklmnop1234"
            )),
            "{\"t\":\"[redacted]\"} https://x.test/?k=[redacted]"
        );
    }

    #[test]
    fn a_longer_secret_is_hidden_whole_when_it_contains_a_shorter_one() {
        remember("abcdefgh-inner");
        remember("outer-abcdefgh-inner-tail");
        assert_eq!(
            redact("x outer-abcdefgh-inner-tail y abcdefgh-inner"),
            "x [redacted] y [redacted]"
        );
    }
}
