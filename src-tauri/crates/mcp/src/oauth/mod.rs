//! OAuth 2.1 for remote MCP servers (SPEC §11): signing in through the system browser, the
//! tokens in the OS keychain under the issuer and the server, and the connection that sends
//! them (refreshing once after a `401`) — rmcp's `auth` does the protocol; this module keeps
//! the tokens where Tollgate keeps secrets and says what went wrong in the user's words.

mod credentials;
mod loopback;
mod sign_in;

pub use credentials::{account, KeychainCredentials};
pub use sign_in::{sign_in, Browser, SignIn, SignInError, SIGN_IN_TIMEOUT};

use serde::{Deserialize, Serialize};

/// What Tollgate keeps about a server the user signed in to, outside the keychain: where the
/// token came from and for what. No secret is in it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthRecord {
    /// The authorization server that issued the token.
    pub issuer: String,
    /// The MCP server's URL the token is for (the RFC 8707 resource).
    pub resource: String,
    pub scopes: Vec<String>,
    /// When the user signed in (ms since the epoch).
    pub signed_in_at: i64,
    /// When the access token expires (ms since the epoch), if the server said; a refresh
    /// token, where there is one, renews it without the user.
    pub expires_at: Option<i64>,
}

impl OAuthRecord {
    /// The keychain account of the tokens.
    pub fn account(&self) -> String {
        account(&self.issuer, &self.resource)
    }
}

/// The tokens a connection sends: where in the keychain they are.
#[derive(Debug, Clone)]
pub struct OAuthAccess {
    pub keychain: tollgate_secrets::Keychain,
    pub account: String,
}

impl PartialEq for OAuthAccess {
    fn eq(&self, other: &Self) -> bool {
        self.account == other.account
    }
}
