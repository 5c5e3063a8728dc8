//! Rule vocabulary (F-08): what a rule does, where it applies, what its pattern matches.

use crate::ids::ChatId;
use serde::{Deserialize, Serialize};

/// What a rule does.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    Allow,
    Ask,
    Deny,
}

impl RuleAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }

    /// Precedence at equal specificity: deny, then ask, then allow.
    pub fn rank(self) -> u8 {
        match self {
            Self::Deny => 2,
            Self::Ask => 1,
            Self::Allow => 0,
        }
    }
}

/// Where a rule applies.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum RuleScope {
    /// Only in this chat.
    Chat { chat: ChatId },
    /// In every chat.
    Global,
}

/// What kind of subject a tool's rules match, so the approval card can say in plain words
/// what a pattern will allow.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleSubjectKind {
    Command,
    Path,
    Url,
    Args,
}

/// A rule.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: i64,
    pub tool: String,
    pub pattern: Option<String>,
    pub action: RuleAction,
    pub scope: RuleScope,
    pub created_at: i64,
}
