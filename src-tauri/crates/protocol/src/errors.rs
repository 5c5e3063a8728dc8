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
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub kind: ErrorKind,
    /// The whole failure in English (the log, and words no catalogue has).
    pub message: String,
    /// What was missing, as data: the window words it in the user's language.
    pub missing: Option<Missing>,
    /// What was refused, as data: the window words it in the user's language.
    pub invalid: Option<Invalid>,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            missing: None,
            invalid: None,
        }
    }
}

/// What a command named that is not there (any more).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Missing {
    Chat {
        chat: crate::ids::ChatId,
    },
    Provider {
        provider: i64,
    },
    Preset {
        preset: i64,
    },
    /// A message the chat does not hold (on no branch of it).
    Message {
        chat: crate::ids::ChatId,
        message: i64,
    },
    /// Call `c<seq>` of a chat (a rerun of a call the chat no longer has).
    Call {
        chat: crate::ids::ChatId,
        seq: u64,
    },
    McpServer {
        name: String,
    },
    /// A tool no group has (any more).
    Tool {
        tool: String,
    },
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Chat { chat } => write!(f, "chat {chat} does not exist"),
            Self::Provider { provider } => write!(f, "provider {provider} does not exist"),
            Self::Preset { preset } => write!(f, "preset {preset} does not exist"),
            Self::Message { chat, message } => {
                write!(f, "message {message} is not in chat {chat}")
            }
            Self::Call { chat, seq } => write!(f, "chat {chat} has no call c{seq}"),
            Self::McpServer { name } => write!(f, "there is no MCP server called \"{name}\""),
            Self::Tool { tool } => write!(f, "there is no tool called \"{tool}\""),
        }
    }
}

/// What a command was given that it does not take.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Invalid {
    EmptyMessage,
    EmptyTitle,
    PresetWithoutName,
    /// A temperature outside 0–2.
    Temperature {
        value: f32,
    },
    /// A longest answer under one token.
    MaxTokens,
    /// A provider id that names no provider.
    NoSuchProvider {
        provider: i64,
    },
    McpNameTaken {
        name: String,
    },
    McpNotRunning {
        server: String,
    },
    /// An MCP tool's change to accept is not under review (any more).
    McpToolNotUnderReview {
        server: String,
        tool: String,
    },
    /// An MCP tool changed again after the change the user read: nothing was accepted.
    McpToolChangedAgain {
        server: String,
        tool: String,
    },
    /// An MCP server said something else after its review was shown (SPEC §12): nothing was
    /// confirmed.
    McpTextsChanged {
        server: String,
    },
    /// Tool settings saved from a copy older than the ones in force (another window, a review
    /// confirmed meanwhile): refused rather than written over the newer ones.
    SettingsChanged,
    /// An answer to an MCP server's form that does not fit its schema (SPEC §11).
    ElicitationAnswer {
        reason: String,
    },
    /// Signing in to a remote MCP server failed (SPEC §11); `reason` says why.
    McpSignIn {
        server: String,
        reason: String,
    },
    /// Only a remote (streamable HTTP) server signs in.
    McpNotRemote {
        server: String,
    },
    /// A sign-in to this server is already waiting for the browser.
    McpSignInUnderWay {
        server: String,
    },
    /// A server edited to reach somewhere else: its stored secrets are not sent there.
    McpSecretsNotReused {
        server: String,
        secrets: Vec<String>,
    },
    /// Views are paused in this run of the app (F-96): the window stopped answering, or its
    /// page ended, while views of `servers` were shown in it, and it loaded again without them.
    McpViewsPaused {
        servers: Vec<String>,
    },
    /// Turning a chat's sandbox off without the user's confirmation.
    SandboxOffUnconfirmed,
    /// A rerun without the sandbox of call `c<seq>`, which the sandbox did not block.
    NotBlocked {
        seq: u64,
    },
    /// A file that is not a chat export Tollgate reads.
    Import {
        reason: String,
    },
    /// Refused further down (an attachment, a server's answer), in words no catalogue has.
    Other {
        message: String,
    },
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::EmptyMessage => write!(f, "The message is empty."),
            Self::EmptyTitle => write!(f, "a chat's title cannot be empty"),
            Self::PresetWithoutName => write!(f, "a preset needs a name"),
            Self::Temperature { value } => {
                write!(f, "the temperature must be between 0 and 2, not {value}")
            }
            Self::MaxTokens => write!(f, "the longest answer must be at least 1 token"),
            Self::NoSuchProvider { provider } => write!(
                f,
                "there is no provider with id {provider}; choose one from Settings → Providers"
            ),
            Self::McpNameTaken { name } => {
                write!(f, "an MCP server called \"{name}\" exists already")
            }
            Self::McpNotRunning { server } => write!(
                f,
                "The MCP server \"{server}\" is not running; start it in Settings → MCP servers."
            ),
            Self::McpToolNotUnderReview { server, tool } => write!(
                f,
                "the tool \"{tool}\" of \"{server}\" has no change to accept"
            ),
            Self::McpToolChangedAgain { server, tool } => write!(
                f,
                "the tool \"{tool}\" of \"{server}\" changed again after the change shown; read the new change"
            ),
            Self::McpTextsChanged { server } => write!(
                f,
                "the MCP server \"{server}\" changed what it says after its review was shown; read it again"
            ),
            Self::SettingsChanged => write!(
                f,
                "the tool settings changed elsewhere since they were shown; they were read again, so make the change again"
            ),
            Self::ElicitationAnswer { reason } => {
                write!(f, "the answer does not fit what the server asked: {reason}")
            }
            Self::McpSignIn { server, reason } => {
                write!(f, "signing in to \"{server}\" failed: {reason}")
            }
            Self::McpNotRemote { server } => write!(
                f,
                "\"{server}\" is a local server: only remote (HTTP) servers sign in"
            ),
            Self::McpSignInUnderWay { server } => write!(
                f,
                "a sign-in to \"{server}\" is already waiting for the browser"
            ),
            Self::McpSecretsNotReused { server, secrets } => write!(
                f,
                "server \"{server}\" now points somewhere else, so its stored secrets are not reused; enter {} again",
                if secrets.is_empty() {
                    "the hidden parts of its command line or URL".to_string()
                } else {
                    secrets.join(", ")
                }
            ),
            Self::McpViewsPaused { servers } => write!(
                f,
                "views are paused: the window stopped responding while views of {} were shown, and loaded again without them",
                servers.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ")
            ),
            Self::SandboxOffUnconfirmed => {
                write!(f, "turning the sandbox off needs the user's confirmation")
            }
            Self::NotBlocked { seq } => write!(
                f,
                "c{seq} was not blocked by the sandbox, so there is nothing to run again without it"
            ),
            Self::Import { reason } => write!(f, "This file cannot be imported: {reason}."),
            Self::Other { message } => f.write_str(message),
        }
    }
}
