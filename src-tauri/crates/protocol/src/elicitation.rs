//! An MCP server's question to the user (elicitation, SPEC §11): asked while one of its tools
//! runs, shown inline in the chat like an approval card, saying which server asks. Never
//! answered for the user.

use crate::ids::{ApprovalId, ChatId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the server asks for.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "camelCase")]
pub enum ElicitationKind {
    /// A form: the server's requested schema (an object of plain-typed properties).
    Form { schema: Value },
    /// A page to open in the browser (to sign in elsewhere, to pay, …): the full address is
    /// shown before anything opens.
    Url { url: String, host: String },
    /// A request to lend the chat's model to the server (MCP sampling, F-99): the server's own
    /// text, which is all the model is sent, and the most the model may write back. Asked only
    /// of a server the user lets use the model (its settings), on the card of the call it
    /// belongs to; accepted, the model's answer goes to the server.
    #[serde(rename_all = "camelCase")]
    Sampling {
        system: Option<String>,
        messages: Vec<SampledText>,
        max_tokens: u32,
        /// The model that would answer, as the chat's header names it ("model · provider").
        model: String,
    },
}

/// Who speaks in a message a server wants the chat's model to read.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SampledRole {
    User,
    Assistant,
}

/// One message of a sampling request, as the user sees it and the model reads it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SampledText {
    pub role: SampledRole,
    pub text: String,
}

/// A question waiting for the user.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingElicitation {
    pub id: ApprovalId,
    pub chat: ChatId,
    /// The call of the server's tool during which it asks.
    pub seq: u64,
    /// The server (and tool group) that asks.
    pub server: String,
    pub message: String,
    pub kind: ElicitationKind,
    pub created_at: i64,
}

/// One request of a server the chat's model answered (sampling, F-99), as the user allowed it:
/// what the model was sent, which model, and what went back to the server (with any secret
/// Tollgate keeps withheld). Kept with the call it belongs to.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LentModel {
    pub model: String,
    pub system: Option<String>,
    pub messages: Vec<SampledText>,
    pub answer: String,
    /// When the answer went back (Unix milliseconds).
    pub at: i64,
    /// What the request cost at the provider, as it reported it.
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
}

/// A server's question to the user during one of its calls (a form, a page to open, or a request
/// for the chat's model the user did not let through) and how it ended, kept with the call so
/// its card shows, after the fact and after a restart, what the server asked and what it got.
/// A request the model answered is kept as its [`LentModel`] instead.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AskedQuestion {
    /// The question's id while it waited: one question, however often it is told.
    pub id: ApprovalId,
    pub message: String,
    pub kind: ElicitationKind,
    pub outcome: ElicitationOutcome,
    /// Why it ended so, where the outcome alone does not say (the model was let answer, but no
    /// answer went back).
    #[serde(default)]
    pub note: Option<String>,
    /// The form as it went back to the server (with any secret Tollgate keeps withheld); none
    /// for a page, a request for the model, or a question not answered.
    #[serde(default)]
    pub answer: Option<Value>,
    /// When the question ended (Unix milliseconds).
    pub at: i64,
}

/// The user's answer.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum ElicitationAnswer {
    /// The form filled in (checked against the server's schema), or, for a page, consent to
    /// open it.
    Accept {
        #[serde(default)]
        content: Option<Value>,
    },
    /// Not this: the server may go on without it.
    Decline,
    /// Stop what the server is doing.
    Cancel,
}

/// How a question ended, for the chat's log.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElicitationOutcome {
    Accepted,
    Declined,
    Cancelled,
    /// The call it belonged to ended first.
    Withdrawn,
}
