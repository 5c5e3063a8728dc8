//! Provider-neutral conversation types and the errors providers report.

use crate::executor::ToolDefinition;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use thiserror::Error;

/// Which wire format a provider speaks.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    OpenAi,
    Anthropic,
    Demo,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Demo => "demo",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "openai" => Some(Self::OpenAi),
            "anthropic" => Some(Self::Anthropic),
            "demo" => Some(Self::Demo),
            _ => None,
        }
    }
}

/// How a model calls tools (F-35). `Native` uses the API's own tool calls; `Text` is for
/// models served without them: tools are described in the system prompt and calls are read from
/// the answer's text — outside Markdown code, for enabled tools only. Answers from a `Native`
/// model are never searched for calls, so an example or a quoted line cannot run anything.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolCalling {
    #[default]
    Native,
    Text,
}

impl ToolCalling {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Text => "text",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "native" => Some(Self::Native),
            "text" => Some(Self::Text),
            _ => None,
        }
    }
}

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
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum ChatMessage {
    User {
        content: String,
    },
    #[serde(rename_all = "camelCase")]
    Assistant {
        content: String,
        tool_calls: Vec<AssistantToolCall>,
    },
    /// The results of one round's calls, in the model's order.
    Tool {
        results: Vec<ToolResultMessage>,
    },
}

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
}

/// A fragment of a streamed completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum StreamDelta {
    Text {
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

/// Token counts (F-27).
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// One assembled completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    pub text: String,
    pub tool_calls: Vec<AssistantToolCall>,
    pub finish: FinishReason,
    pub usage: Usage,
}

/// Why a completion failed. Messages are shown to the user as they are: they never contain a key.
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
    /// Whether trying again may help (F-26): rate limits, server errors, connection failures.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, .. } => *status == 429 || *status == 408 || *status >= 500,
            Self::Connect(_) | Self::Timeout => true,
            Self::Incomplete(_)
            | Self::Malformed(_)
            | Self::Api(_)
            | Self::Cancelled
            | Self::Config(_) => false,
        }
    }

    /// The wait the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

#[cfg(test)]
mod kind_tests {
    #![allow(clippy::unwrap_used)]
    use super::ProviderKind;

    #[test]
    fn the_ui_the_database_and_serde_use_the_same_names() {
        for kind in [
            ProviderKind::OpenAi,
            ProviderKind::Anthropic,
            ProviderKind::Demo,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
            assert_eq!(ProviderKind::parse(kind.as_str()), Some(kind));
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
