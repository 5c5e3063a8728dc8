//! A request as it may leave for a model (F-46; SECURITY.md, "Redaction"). A provider sends only
//! an [`Outgoing`], and the only way to make one is [`Outgoing::seal`], which passes every text
//! of the request through the secrets' door ([`SecretDoor`]): the system prompt, every tool's
//! name, description and schema, the user's messages, the model's own answers and calls, and
//! every tool result. A route that adds text to a request — today's or the next one — cannot
//! reach a provider around it.

use crate::{ChatMessage, ChatRequest};
use tollgate_protocol::ToolDefinition;
use tollgate_secrets::door::{Prepared, SecretDoor};

/// Every text of `messages` the door passes, in the order a request carries them: what the
/// user wrote, the model's answers and calls, every tool result (thinking blocks aside, see
/// [`Outgoing::seal`]).
fn message_texts(messages: &mut [ChatMessage]) -> Vec<&mut String> {
    let mut texts: Vec<&mut String> = Vec::new();
    for message in messages {
        match message {
            ChatMessage::User { content, images: _ } => texts.push(content),
            ChatMessage::Assistant {
                content,
                tool_calls,
                thinking: _,
            } => {
                texts.push(content);
                for call in tool_calls {
                    texts.push(&mut call.name);
                    texts.push(&mut call.arguments);
                }
            }
            ChatMessage::Tool { results } => {
                for result in results {
                    texts.push(&mut result.name);
                    texts.push(&mut result.content);
                }
            }
        }
    }
    texts
}

/// A [`ChatRequest`] whose every text has passed the secrets' door. Read it as a request
/// (it dereferences to one); it cannot be changed or built any other way.
#[derive(Debug, Clone)]
pub struct Outgoing(ChatRequest);

impl Outgoing {
    /// `request` with every secret Tollgate keeps withheld from every text in it. `door`
    /// remembers what it let through, so the next round of the same conversation redacts only
    /// what is new.
    ///
    /// Extended-thinking blocks are sent back as they came: Anthropic checks their signatures,
    /// and the model wrote them from requests that had already passed the door.
    pub fn seal(mut request: ChatRequest, door: &mut SecretDoor) -> Self {
        door.begin();
        door.pass(&mut request.system);
        for tool in &mut request.tools {
            door.pass(&mut tool.name);
            door.pass(&mut tool.description);
            door.pass_json(&mut tool.parameters);
        }
        // The messages' texts in order, passed together: on a chat's first request after the
        // app starts they are the whole history, redacted on every core.
        door.pass_many(&mut message_texts(&mut request.messages));
        door.end();
        Self(request)
    }

    /// Redacts the texts a request of `messages` and `tools` would carry, ahead of it (a chat's
    /// history when the chat is opened): what [`SecretDoor::take`] makes ready for the chat's
    /// next [`Self::seal`].
    pub fn prepare(mut messages: Vec<ChatMessage>, tools: &[ToolDefinition]) -> Prepared {
        let mut texts: Vec<String> = message_texts(&mut messages)
            .into_iter()
            .map(std::mem::take)
            .collect();
        for tool in tools {
            texts.push(tool.name.clone());
            texts.push(tool.description.clone());
            SecretDoor::json_strings(&tool.parameters, &mut texts);
        }
        SecretDoor::prepare(texts)
    }

    /// The request as it leaves.
    pub fn request(&self) -> &ChatRequest {
        &self.0
    }
}

impl std::ops::Deref for Outgoing {
    type Target = ChatRequest;

    fn deref(&self) -> &ChatRequest {
        &self.0
    }
}

/// A request sealed with a door of its own (a single request, as tests and one-off calls send):
/// it still passes the door.
impl From<ChatRequest> for Outgoing {
    fn from(request: ChatRequest) -> Self {
        Self::seal(request, &mut SecretDoor::new())
    }
}
