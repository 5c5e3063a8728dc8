//! Files attached to a user message (F-57), as the window sends them and the store keeps them.
//! Checking them and sending them to the model is `chat::attachments`.

use serde::{Deserialize, Serialize};

/// What a file is to the model.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AttachmentKind {
    /// Sent as an image part: `data` is base64.
    Image,
    /// Inlined into the message: `data` is the text.
    Text,
    /// A link to an MCP server's resource that a tool's result gave (SPEC §11), not read yet:
    /// `data` is its URI and `source` names the server. Shown with the result for the user to
    /// attach; never part of a message itself.
    ResourceLink,
}

/// A file attached to a user message, as sent by the window and stored with the message.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub name: String,
    pub kind: AttachmentKind,
    /// For images, the format read from the bytes; for text, what the window said.
    pub media_type: String,
    /// Base64 (images) or the text itself.
    pub data: String,
    /// Where the file came from when not from the user's disk: an MCP server's resource
    /// (F-80). A file the user picked is an attachment by its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source: Option<super::Source>,
}

impl Attachment {
    /// The source its content counts as (F-80).
    pub fn origin(&self) -> super::Source {
        self.source
            .clone()
            .unwrap_or_else(|| super::Source::Attachment {
                name: self.name.clone(),
            })
    }
}

/// The payload of a user message.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UserPayload {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<Attachment>>")]
    pub attachments: Vec<Attachment>,
    /// Where the message's text came from besides the user's typing: an MCP prompt filled in,
    /// an imported chat (F-80).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<super::Source>>")]
    pub sources: Vec<super::Source>,
}
