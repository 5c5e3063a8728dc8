//! Provider-neutral conversation types and the errors providers report.

use serde::{Deserialize, Serialize};
use std::time::Duration;
use thiserror::Error;
use tollgate_protocol::Usage;
use tollgate_protocol::{says_context_too_long, FailureKind, ToolDefinition};

/// A tool call as the assistant made it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model sent them: JSON text (possibly invalid).
    pub arguments: String,
}

/// A tool result going back to the model (F-18).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    pub call_id: String,
    pub name: String,
    pub content: String,
    pub is_error: bool,
    /// Where the result came from (F-80), kept with the stored message so a chat's exposure
    /// can be read back from the branch it shows. Never sent to the model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<tollgate_protocol::Source>>")]
    pub sources: Vec<tollgate_protocol::Source>,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum ChatMessage {
    User {
        content: String,
        /// Images attached to the message (F-57), sent as image parts after its text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImagePart>,
    },
    #[serde(rename_all = "camelCase")]
    Assistant {
        content: String,
        tool_calls: Vec<AssistantToolCall>,
        /// Extended-thinking blocks of the answer, sent back unchanged (Anthropic checks their
        /// signatures); empty for other providers.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        thinking: Vec<ThinkingBlock>,
    },
    /// The results of one round's calls, in the model's order.
    Tool { results: Vec<ToolResultMessage> },
}

/// An image in a user message, as the providers take it: base64 data and its media type.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePart {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The image's bytes in standard base64.
    pub data: String,
}

/// A block of an Anthropic model's extended thinking. The API requires the blocks of a
/// tool-using turn to come back unchanged in its later rounds, signature and all.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ThinkingBlock {
    Thinking {
        thinking: String,
        signature: String,
    },
    /// Thinking the provider encrypted (flagged by its safety systems): kept, never shown.
    Redacted {
        data: String,
    },
}

/// How long a stream may stay silent before it counts as stalled, unless settings say otherwise.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// What is sent for one completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRequest {
    pub model: String,
    pub system: String,
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolDefinition>,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    /// How long the stream may stay silent (between bytes, and before the response starts).
    /// Not a limit on the whole answer: long answers are normal.
    #[serde(skip, default = "default_idle_timeout")]
    pub idle_timeout: Duration,
}

fn default_idle_timeout() -> Duration {
    DEFAULT_IDLE_TIMEOUT
}

impl Default for ChatRequest {
    fn default() -> Self {
        Self {
            model: String::new(),
            system: String::new(),
            messages: Vec::new(),
            tools: Vec::new(),
            max_tokens: 4_096,
            temperature: None,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// A fragment of a streamed completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum StreamDelta {
    Text {
        text: String,
    },
    /// The model's reasoning ("thinking"), shown apart from the answer and never counted as it.
    Reasoning {
        text: String,
    },
    ToolCallStart {
        index: u32,
        id: String,
        name: String,
    },
    ToolCallArgs {
        index: u32,
        fragment: String,
    },
}

/// Why the model stopped.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Other(String),
}

/// One assembled completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    pub text: String,
    /// The reasoning shown with the answer (all formats: `reasoning_content`, `reasoning`,
    /// thinking blocks, `<think>` text).
    #[serde(default)]
    pub reasoning: String,
    /// Anthropic thinking blocks to send back in the next round.
    #[serde(default)]
    pub thinking: Vec<ThinkingBlock>,
    pub tool_calls: Vec<AssistantToolCall>,
    pub finish: FinishReason,
    pub usage: Usage,
}

/// Why a completion failed. Messages are shown to the user as they are: they never contain a key
/// (a server's own message passes `secrets::redact` first, as some quote the key they refused).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    #[error("the provider answered {status}: {message}")]
    Http {
        status: u16,
        message: String,
        retry_after: Option<Duration>,
    },
    #[error("could not reach the provider: {0}")]
    Connect(String),
    #[error("the provider did not answer in time")]
    Timeout,
    #[error("the stream stalled: nothing arrived for {}", tollgate_protocol::parse::duration_words(*.0))]
    Stalled(Duration),
    /// The server asked for a wait longer than Tollgate waits on its own.
    #[error("{cause} — the provider asks to wait {}, longer than Tollgate waits by itself; try again after that", tollgate_protocol::parse::duration_words(*.wait))]
    WaitTooLong { wait: Duration, cause: String },
    #[error("the response stream ended before the model finished ({0}); the answer is incomplete")]
    Incomplete(String),
    #[error("the provider sent a malformed chunk: {0}")]
    Malformed(String),
    #[error("the provider reported an error: {0}")]
    Api(String),
    #[error("stopped")]
    Cancelled,
    #[error("{0}")]
    Config(String),
}

impl ProviderError {
    /// Whether trying the same request again may help (F-26): rate limits, server errors,
    /// connection failures, and broken streams (cut, stalled, or with a malformed chunk).
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, .. } => *status == 429 || *status == 408 || *status >= 500,
            Self::Connect(_)
            | Self::Timeout
            | Self::Stalled(_)
            | Self::Incomplete(_)
            | Self::Malformed(_) => true,
            Self::WaitTooLong { .. } | Self::Api(_) | Self::Cancelled | Self::Config(_) => false,
        }
    }

    /// What kind of failure this is, for the window to act on (a key to fix, a wait, a
    /// conversation too long for the model).
    pub fn kind(&self) -> FailureKind {
        match self {
            Self::Http {
                status, message, ..
            } => match status {
                401 | 403 => FailureKind::Auth,
                429 => FailureKind::RateLimited,
                408 | 500.. => FailureKind::Server,
                _ if says_context_too_long(message) => FailureKind::ContextTooLong,
                _ => FailureKind::Refused,
            },
            Self::WaitTooLong { .. } => FailureKind::RateLimited,
            Self::Connect(_) | Self::Timeout => FailureKind::Network,
            Self::Stalled(_) => FailureKind::Stalled,
            Self::Incomplete(_) | Self::Malformed(_) => FailureKind::Incomplete,
            Self::Api(message) if says_context_too_long(message) => FailureKind::ContextTooLong,
            Self::Api(_) => FailureKind::Refused,
            // A stop is not a failure; it never reaches a failed turn.
            Self::Cancelled => FailureKind::Internal,
            Self::Config(_) => FailureKind::Setup,
        }
    }

    /// Whether the user's Retry may help once automatic retries gave up.
    pub fn worth_retrying_later(&self) -> bool {
        self.is_retryable() || matches!(self, Self::WaitTooLong { .. })
    }

    /// The wait the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
/// An API key in memory. Its `Debug` never shows the key, so a provider or config printed in a
/// log, a panic message or a test failure cannot leak it; the text is reached only through
/// [`ApiKey::expose`], where a request header is built.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            f.write_str("ApiKey(none)")
        } else {
            f.write_str("ApiKey(<redacted>)")
        }
    }
}

impl From<String> for ApiKey {
    fn from(key: String) -> Self {
        Self(key)
    }
}

impl From<&str> for ApiKey {
    fn from(key: &str) -> Self {
        Self(key.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_error_has_the_kind_the_window_acts_on() {
        let http = |status, message: &str| ProviderError::Http {
            status,
            message: message.into(),
            retry_after: None,
        };
        let cases = [
            (http(401, "no"), FailureKind::Auth),
            (http(429, "slow down"), FailureKind::RateLimited),
            (http(408, "timeout"), FailureKind::Server),
            (http(502, "bad gateway"), FailureKind::Server),
            (
                http(413, "the context window is full"),
                FailureKind::ContextTooLong,
            ),
            (http(422, "unprocessable"), FailureKind::Refused),
            (
                ProviderError::Connect("refused".into()),
                FailureKind::Network,
            ),
            (ProviderError::Timeout, FailureKind::Network),
            (
                ProviderError::Stalled(Duration::from_secs(90)),
                FailureKind::Stalled,
            ),
            (
                ProviderError::Incomplete("cut".into()),
                FailureKind::Incomplete,
            ),
            (
                ProviderError::Malformed("{".into()),
                FailureKind::Incomplete,
            ),
            (
                ProviderError::Api("context_length_exceeded".into()),
                FailureKind::ContextTooLong,
            ),
            (
                ProviderError::Api("overloaded_error".into()),
                FailureKind::Refused,
            ),
            (
                ProviderError::WaitTooLong {
                    wait: Duration::from_secs(600),
                    cause: "429".into(),
                },
                FailureKind::RateLimited,
            ),
            (ProviderError::Config("no key".into()), FailureKind::Setup),
        ];
        for (error, kind) in cases {
            assert_eq!(error.kind(), kind, "{error}");
        }
    }
}
