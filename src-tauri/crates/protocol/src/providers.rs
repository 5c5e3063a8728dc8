//! Provider vocabulary the store and the UI share: wire formats, how tools are called, token counts.

use serde::{Deserialize, Serialize};

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

/// Which request parameters an OpenAI-compatible model takes (F-34). Reasoning models (OpenAI's
/// o-series and gpt-5 families) refuse `max_tokens` and any `temperature` but the default; they
/// want `max_completion_tokens`. `Auto` decides by the model's name; a provider can pin either.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RequestStyle {
    #[default]
    Auto,
    /// `max_tokens` and `temperature`, as most servers take them.
    Classic,
    /// `max_completion_tokens`, no `temperature`.
    Reasoning,
}

/// Per-provider request options beyond the address and the model, stored with the provider.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderOptions {
    /// OpenAI-compatible providers: which parameters requests carry.
    pub request_style: RequestStyle,
    /// Anthropic: extended thinking with this many tokens of budget; `None` turns it off.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub thinking_budget: Option<u32>,
}

/// The smallest thinking budget Anthropic accepts.
pub const MIN_THINKING_BUDGET: u32 = 1_024;

/// Token counts (F-27). `input_tokens` counts every input token, cached or not; the cache
/// figures say how many of them were read from or written to the provider's prompt cache.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens served from the prompt cache (cheaper and faster).
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache by this request.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

#[cfg(test)]
mod tests {
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

/// Why a turn (or one of its requests) failed, as the UI acts on it: a key to fix, a wait, a
/// conversation too long for the model, or something to try again. The English text stays in
/// the error for the log; the window words each kind in the user's language.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FailureKind {
    /// The provider refused the key (401, 403): the provider's settings can fix it.
    Auth,
    /// Too many requests (429), or a wait asked for that is longer than Tollgate waits.
    RateLimited,
    /// The conversation (with its tool results) is longer than the model reads.
    ContextTooLong,
    /// The provider's server failed (5xx, 408).
    Server,
    /// The provider could not be reached, or did not answer in time.
    Network,
    /// The answer's stream went silent.
    Stalled,
    /// The stream broke or ended before the answer was whole.
    Incomplete,
    /// The provider answered with an error of its own (another 4xx, an error in the stream).
    Refused,
    /// The chat's provider or model is not set up (no provider, no key).
    Setup,
    /// The answer could not be saved.
    Storage,
    /// Tollgate itself failed (a bug).
    Internal,
}

/// Words providers use for a request longer than the model's context window (OpenAI's
/// `context_length_exceeded`, Anthropic's "prompt is too long", llama.cpp, vLLM, Ollama).
const CONTEXT_WORDS: [&str; 7] = [
    "context_length_exceeded",
    "context length",
    "context window",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "exceeds the available context",
];

/// Whether a provider's error message says the request is longer than the model's context.
pub fn says_context_too_long(message: &str) -> bool {
    let message = message.to_lowercase();
    CONTEXT_WORDS.iter().any(|w| message.contains(w))
}
