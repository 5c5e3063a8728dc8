//! The first-sight review of an MCP server (SPEC §12): its instructions, every tool with its
//! description and declared effects, and what the review flags, on one screen. What the user
//! confirms there is what the gate takes as the server's word: until then the server's texts
//! count as untrusted content in every chat that offers them, and its tools' effects are only
//! claims.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the review flags in a server's texts: what MCP scanners flag before an install.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FindingKind {
    /// Invisible characters: the Unicode tag block, zero-width characters, bidi controls.
    HiddenText,
    /// Text addressed to the model ("before using any other tool…", "do not tell the user").
    AddressedToModel,
    /// Names another server's tool, or one of Tollgate's (steering calls elsewhere).
    Shadowing,
    /// Asks for secrets or private files (`~/.ssh`, `.env`, an API key).
    AsksForSecrets,
    /// A description far longer than its schema needs.
    LongerThanItsSchema,
    /// A parameter that asks for context no tool call needs: the conversation, the system
    /// prompt, the model's name, what other tools returned, the user's details.
    AsksForContext,
}

impl FindingKind {
    /// Whether text with this finding may steer the model (addressed to it, hidden from the
    /// user, naming another tool to call, asking for secrets): such text stays untrusted after
    /// any acknowledgement — a tick says "I saw it", not "this text may steer my model".
    pub fn steers(self) -> bool {
        match self {
            Self::HiddenText | Self::AddressedToModel | Self::Shadowing | Self::AsksForSecrets => {
                true
            }
            Self::LongerThanItsSchema | Self::AsksForContext => false,
        }
    }
}

/// One finding, and where.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerFinding {
    pub kind: FindingKind,
    /// The tool (its name on the server) whose text it is in; `None`: the instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool: Option<String>,
    /// The text around it, hidden characters shown as `U+XXXX`.
    pub excerpt: String,
}

/// A parameter of a tool whose own name or description the review flagged (F-97): a call's
/// card marks the argument given for it, so what the review found is in front of the user at the
/// moment that parameter's value would leave.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlaggedParameter {
    /// Where its value sits in the arguments, as property names from the top (`["context"]`,
    /// `["meta", "history"]`).
    pub path: Vec<String>,
    /// What the review found in it: asking for the model's context, for secrets, text addressed
    /// to the model, hidden characters.
    pub kind: FindingKind,
    /// The words that flagged it, for the card to quote.
    pub excerpt: String,
}

/// One tool as the review shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewedTool {
    /// Its name in Tollgate (`server__tool`).
    pub name: String,
    /// Its name on the server.
    pub remote: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    pub description: String,
    #[ts(type = "JsonValue")]
    pub input_schema: Value,
    /// What the server's annotations say a call may do.
    pub declared: super::ToolEffects,
    /// What the user confirmed or set, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub confirmed: Option<super::ToolEffects>,
}

/// Where a server's review stands.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ServerReviewState {
    /// Never confirmed: its texts expose every chat that offers them.
    Unreviewed,
    /// Confirmed once, changed since: back to unconfirmed until read again.
    Changed,
    /// What it says now is what the user confirmed.
    Confirmed,
}

/// A server's first-sight review.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReview {
    pub server: String,
    pub state: ServerReviewState,
    /// The instructions it sends when it starts (they reach the system prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub instructions: Option<String>,
    pub tools: Vec<ReviewedTool>,
    pub findings: Vec<ServerFinding>,
    /// Names what was shown: confirming it confirms exactly this, not what the server says
    /// after a change made while the user read.
    pub fingerprint: String,
}
