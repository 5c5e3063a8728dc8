//! How a failed command reaches the UI: a [`CommandError`] with a [`ErrorKind`] the UI switches
//! on (to word it in the user's language, or to react, e.g. "busy" keeps the composer's text) and
//! the message for the details. The service turns every engine error into one
//! (`service::errors`).

use serde::Serialize;

/// What kind of failure a command met.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// A reply is already being written in this chat: wait for it or press Stop.
    Busy,
    /// What the command names does not exist (any more): a chat, provider, rule, record, MCP
    /// server, approval or question.
    NotFound,
    /// The input was refused: an empty message, an invalid pattern or configuration, a decision
    /// of the wrong kind, a name already taken.
    Invalid,
    /// The system keychain could not be used.
    Keychain,
    /// The provider (or the network to it) failed.
    Provider,
    /// The database failed, or a file (an export) could not be written.
    Storage,
    /// Anything else: a bug, reported with its message.
    Internal,
}

/// A failed command, as the UI receives it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}
