//! Signing in to a remote MCP server (SPEC §11), as the MCP authorization spec has it, through
//! rmcp's `auth`: protected resource metadata (RFC 9728), found from the server's
//! `WWW-Authenticate` challenge where it sent one (its `resource_metadata` address and `scope`,
//! F-96); the authorization server's metadata (RFC 8414 / OpenID) with its issuer checked;
//! client registration (a client id the user entered, with its secret where it has one, else
//! Dynamic Client Registration, RFC 7591); PKCE S256; the system browser with a loopback redirect (RFC 8252); the `resource`
//! parameter (RFC 8707) and the `iss` of the answer (RFC 9207). The tokens go to the keychain,
//! under the issuer and the server.

use super::credentials::{account, KeychainCredentials};
use super::loopback::{Loopback, Redirect};
use super::OAuthRecord;
use oauth2::TokenResponse;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession, CredentialStore,
};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_secrets::{redact_known_owned, Keychain};

/// Opens a URL in the user's browser (the system browser in the app).
pub type Browser = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// How long the browser may take to come back.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);

/// The client name Tollgate registers under.
const CLIENT_NAME: &str = "Tollgate";

/// What a sign-in needs.
pub struct SignIn<'a> {
    /// The MCP server's URL (the protected resource), with any secret in it filled in.
    pub url: &'a str,
    /// The URL as the settings store it (secrets in it replaced by placeholders): names the
    /// tokens in the keychain and in the record.
    pub stored_url: &'a str,
    /// A client id the user registered with the authorization server themselves; without one,
    /// Tollgate registers itself where the server allows it.
    pub client_id: Option<&'a str>,
    /// The secret of that client, if the authorization server gave it one.
    pub client_secret: Option<&'a str>,
    /// The address of a Client ID Metadata Document describing Tollgate, if the settings have
    /// one: the client id where the authorization server reads such documents.
    pub client_metadata_url: Option<&'a str>,
    /// The `WWW-Authenticate` header of the server's answer that asked for the sign-in, if
    /// any: discovery starts at its `resource_metadata` address, and its `scope` is asked for.
    pub challenge: Option<&'a str>,
    pub keychain: &'a Keychain,
    pub browser: &'a Browser,
    pub cancel: &'a CancellationToken,
}

/// Why a sign-in did not happen, in the user's words. No message carries a token or a code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInError {
    #[error("{url} does not say where to sign in: it publishes no OAuth metadata (RFC 9728 / RFC 8414). If it takes an API key instead, add it as a header in the server's settings.")]
    NoMetadata { url: String },
    #[error("the authorization server's metadata names another issuer ({received}, expected {expected}); Tollgate does not sign in there")]
    IssuerMismatch { expected: String, received: String },
    #[error("the authorization server's metadata names no issuer (expected {expected}); Tollgate does not sign in there")]
    IssuerMissing { expected: String },
    #[error("the sign-in's answer came from another authorization server ({received}, expected {expected}); Tollgate did not use it")]
    AnswerIssuerMismatch { expected: String, received: String },
    #[error("the sign-in's answer did not say which authorization server sent it (RFC 9207 `iss`), though {expected} says it always does; Tollgate did not use it")]
    AnswerIssuerMissing { expected: String },
    #[error("finding where to sign in failed at {url}: {reason}")]
    Discovery { url: String, reason: String },
    #[error("the authorization server does not support PKCE with S256, which Tollgate requires")]
    NoPkce,
    #[error("the authorization server did not register Tollgate as a client ({0}); register a client there and enter its id in the server's settings")]
    Registration(String),
    #[error("the authorization server sent Tollgate to {0}, which is not a web address it opens")]
    UnsafeAddress(String),
    #[error("the browser could not be opened: {0}")]
    Browser(String),
    #[error("the sign-in was not finished in the browser within {0} minutes")]
    TimedOut(u64),
    #[error("the sign-in was cancelled")]
    Cancelled,
    #[error("the authorization server refused the sign-in: {0}")]
    Refused(String),
    #[error("the authorization server did not give a token for the code: {0}")]
    Token(String),
    #[error("the sign-in could not be completed: {0}")]
    Other(String),
}

/// An address the authorization server may send the browser to: https anywhere, http only to
/// this machine (a server run locally), as every address Tollgate opens is checked
/// ([`tollgate_names::open`]).
fn openable(address: &str) -> bool {
    tollgate_names::check_open(address, tollgate_names::Opening::SignIn).is_ok()
}

/// rmcp's error in the user's words.
pub(crate) fn from_auth(e: AuthError, url: &str) -> SignInError {
    match e {
        AuthError::AuthorizationServerMismatch {
            expected_issuer,
            received_issuer,
        } => SignInError::IssuerMismatch {
            expected: expected_issuer,
            received: received_issuer,
        },
        AuthError::AuthorizationServerMissingIssuer { expected_issuer } => {
            SignInError::IssuerMissing {
                expected: expected_issuer,
            }
        }
        AuthError::NoAuthorizationSupport => SignInError::NoMetadata {
            url: url.to_string(),
        },
        AuthError::PkceUnsupported => SignInError::NoPkce,
        AuthError::RegistrationFailed(m) => SignInError::Registration(redact_known_owned(m)),
        AuthError::TokenExchangeFailed(m) => SignInError::Token(redact_known_owned(m)),
        AuthError::DiscoveryRequestFailed { url, source } => SignInError::Discovery {
            url: url.to_string(),
            reason: redact_known_owned(source.to_string()),
        },
        AuthError::ProtectedResourceMetadataInvalid { url, reason } => SignInError::Discovery {
            url: url.to_string(),
            reason: reason.to_string(),
        },
        other => SignInError::Other(redact_known_owned(other.to_string())),
    }
}

/// rmcp's error about the browser's answer in the user's words: the issuer it names (RFC 9207)
/// is checked against the authorization server's, and required where its metadata says it
/// sends one (F-99).
fn from_answer(e: AuthError, url: &str) -> SignInError {
    match e {
        AuthError::AuthorizationServerMismatch {
            expected_issuer,
            received_issuer,
        } => SignInError::AnswerIssuerMismatch {
            expected: expected_issuer,
            received: received_issuer,
        },
        AuthError::AuthorizationServerMissingIssuer { expected_issuer } => {
            SignInError::AnswerIssuerMissing {
                expected: expected_issuer,
            }
        }
        other => from_auth(other, url),
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// What the sign-in asks the server's authorization endpoint for: the scopes (the challenge's
/// where it named some, else what the server's metadata lists), the client as the user set it
/// up (a metadata document's address, or a registered id and secret).
fn authorization_request(req: &SignIn<'_>, redirect_uri: String) -> AuthorizationRequest {
    let mut request = AuthorizationRequest::new(redirect_uri)
        .with_client_name(CLIENT_NAME)
        .with_initial_scope_selection();
    if let Some(challenge) = req.challenge {
        request = request.with_challenge(challenge);
    }
    if let Some(address) = req
        .client_metadata_url
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        request = request.with_client_metadata_url(address);
    }
    if let Some(id) = req.client_id.map(str::trim).filter(|s| !s.is_empty()) {
        request = request.with_preregistered_client(id);
        if let Some(secret) = req.client_secret.filter(|s| !s.is_empty()) {
            request = request.with_client_secret(secret);
        }
    }
    request
}

/// The scopes of `before` and then those of `wanted` not among them, in order.
fn scope_union(before: Vec<String>, wanted: Vec<String>) -> Vec<String> {
    let mut scopes = before;
    for scope in wanted {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes
}

/// Signs in to the server at `req.url`: the user's browser opens at the authorization server,
/// and when it comes back the tokens are in the keychain. Returns what the settings show.
pub async fn sign_in(req: SignIn<'_>) -> Result<OAuthRecord, SignInError> {
    let url = req.url.trim();
    let auth = |e| from_auth(e, url);
    let mut manager = AuthorizationManager::new(url).await.map_err(auth)?;
    let resolution = manager
        .resolve_metadata_from_challenge(req.challenge)
        .await
        .map_err(auth)?;
    if !resolution.source.is_discovered() {
        return Err(SignInError::NoMetadata {
            url: url.to_string(),
        });
    }
    let issuer = resolution
        .metadata
        .issuer
        .clone()
        .unwrap_or_else(|| resolution.metadata.authorization_endpoint.clone());
    manager.set_metadata(resolution.metadata);
    let store = KeychainCredentials::new(req.keychain.clone(), account(&issuer, req.stored_url));
    manager.set_credential_store(store.clone());
    let loopback = Loopback::bind().await.map_err(|e| {
        SignInError::Other(format!(
            "Tollgate could not listen for the browser's answer: {e}"
        ))
    })?;
    let mut request = authorization_request(&req, loopback.redirect_uri());
    // A sign-in again at the same issuer (a step-up: the server wants more scope) asks for what
    // was granted before as well as what the server wants now, so a token for one operation
    // does not cost the others (SEP-2350).
    if let Ok(Some(before)) = store.load().await {
        if !before.granted_scopes.is_empty() {
            let wanted = manager.select_initial_scopes(&[]).await;
            request = request.with_scopes(scope_union(before.granted_scopes, wanted));
        }
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| from_auth(e, url))?;
    let address = session.get_authorization_url();
    if !openable(address) {
        return Err(SignInError::UnsafeAddress(address.to_string()));
    }
    // The answer must carry this request's state, a refusal too (SPEC §12).
    let state = url::Url::parse(address)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .unwrap_or_default();
    (req.browser)(address).map_err(SignInError::Browser)?;
    let redirect = tokio::select! {
        r = tokio::time::timeout(SIGN_IN_TIMEOUT, loopback.next_redirect(&state)) => match r {
            Err(_) => return Err(SignInError::TimedOut(SIGN_IN_TIMEOUT.as_secs() / 60)),
            Ok(Err(e)) => return Err(SignInError::Other(format!("the browser's answer could not be read: {e}"))),
            Ok(Ok(redirect)) => redirect,
        },
        () = req.cancel.cancelled() => return Err(SignInError::Cancelled),
    };
    let callback = match redirect {
        Redirect::Refused { error, description } => {
            return Err(SignInError::Refused(match description {
                Some(d) => format!("{error}: {d}"),
                None => error,
            }))
        }
        Redirect::Code { url } => url,
    };
    let tokens = session
        .handle_callback_url(&callback)
        .await
        .map_err(|e| from_answer(e, url))?;
    let signed_in_at = now_ms();
    let scopes = match store.load().await {
        Ok(Some(stored)) => stored.granted_scopes,
        Ok(None) => {
            return Err(SignInError::Other(
                "the token was not found in the keychain after it was saved".into(),
            ))
        }
        Err(e) => return Err(SignInError::Other(e.to_string())),
    };
    Ok(OAuthRecord {
        issuer,
        resource: req.stored_url.trim().to_string(),
        scopes,
        signed_in_at,
        expires_at: tokens
            .expires_in()
            .map(|d| signed_in_at.saturating_add(i64::try_from(d.as_millis()).unwrap_or(i64::MAX))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_or_with_another_issuer_is_said_as_such() {
        let missing = from_answer(
            AuthError::AuthorizationServerMissingIssuer {
                expected_issuer: "https://as.example".into(),
            },
            "https://mcp.example/mcp",
        );
        assert!(missing
            .to_string()
            .contains("did not say which authorization server sent it"));
        let other = from_answer(
            AuthError::AuthorizationServerMismatch {
                expected_issuer: "https://as.example".into(),
                received_issuer: "https://evil.example".into(),
            },
            "https://mcp.example/mcp",
        );
        assert_eq!(
            other,
            SignInError::AnswerIssuerMismatch {
                expected: "https://as.example".into(),
                received: "https://evil.example".into()
            }
        );
    }

    #[test]
    fn a_sign_in_again_asks_for_what_was_granted_and_what_is_wanted_now() {
        let union = scope_union(
            vec!["mcp:basic".into(), "offline_access".into()],
            vec!["mcp:write".into(), "offline_access".into()],
        );
        assert_eq!(union, ["mcp:basic", "offline_access", "mcp:write"]);
    }

    #[test]
    fn only_web_addresses_are_opened() {
        assert!(openable("https://auth.example.com/authorize?x=1"));
        assert!(openable("http://localhost:3001/authorize"));
        assert!(openable("http://127.0.0.1:3001/authorize"));
        assert!(!openable("http://auth.example.com/authorize"));
        assert!(!openable("file:///etc/passwd"));
        assert!(!openable("javascript:alert(1)"));
        assert!(!openable("not a url"));
    }

    #[test]
    fn rmcp_errors_read_as_what_went_wrong() {
        let e = from_auth(
            AuthError::AuthorizationServerMismatch {
                expected_issuer: "https://a.example".into(),
                received_issuer: "https://evil.example".into(),
            },
            "https://mcp.example/mcp",
        );
        assert_eq!(
            e.to_string(),
            "the authorization server's metadata names another issuer (https://evil.example, expected https://a.example); Tollgate does not sign in there"
        );
        assert!(matches!(
            from_auth(AuthError::NoAuthorizationSupport, "u"),
            SignInError::NoMetadata { .. }
        ));
    }
}
