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
