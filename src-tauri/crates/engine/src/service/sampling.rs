//! The chat's model as MCP servers borrow it (sampling, F-99), once the user let the server and
//! agreed on the call's card: one request of the server's own text to the chat's provider and
//! model, without the chat's history or any tool, sealed through the secrets' door like every
//! request Tollgate sends. What the model writes goes back to the server, not into the chat.

use super::kept::CallKeeper;
use super::Tollgate;
use crate::mcp::sampling::{SampleRequest, Sampled, Sampler};
use crate::protocol::ids::ChatId;
use crate::protocol::{LentModel, SampledRole};
use crate::providers::{ChatMessage, ChatRequest, FinishReason, Outgoing};
use crate::secrets::door::SecretDoor;
use std::sync::{Arc, Weak};
use tokio_util::sync::CancellationToken;

/// The app's [`Sampler`]: the model of the chat the call belongs to.
pub(super) struct ChatModel {
    pub(super) app: Weak<Tollgate>,
    /// Where an exchange is kept with its call, and shown on its card.
    pub(super) kept: Arc<CallKeeper>,
}

/// `request` as a chat request for `model`: the server's messages alone.
fn chat_request(model: String, request: SampleRequest) -> ChatRequest {
    let messages = request
        .messages
        .into_iter()
        .map(|message| match message.role {
            SampledRole::User => ChatMessage::User {
                content: message.text,
                images: Vec::new(),
            },
            SampledRole::Assistant => ChatMessage::Assistant {
                content: message.text,
                tool_calls: Vec::new(),
                thinking: Vec::new(),
            },
        })
        .collect();
    ChatRequest {
        model,
        system: request.system.unwrap_or_default(),
        messages,
        tools: Vec::new(),
        max_tokens: request.max_tokens,
        temperature: request.temperature,
        ..ChatRequest::default()
    }
}

/// The provider (its id, if one is chosen) and model that answer in `chat`: those of the turn
/// running there (a model chosen for one turn included), else the chat's own; an empty model
/// is the provider's default.
async fn chosen(app: &Tollgate, chat: ChatId) -> Result<(Option<i64>, String), String> {
    if let Some(turn) = app.turns.lock().get(&chat) {
        return Ok((turn.provider, turn.model.clone()));
    }
    let row = app
        .store
        .chat(chat)
        .await
        .map_err(|e| format!("the chat could not be read: {e}"))?
        .ok_or_else(|| "the chat is gone".to_string())?;
    Ok((row.provider_id, row.model))
}

impl ChatModel {
    fn app(&self) -> Result<std::sync::Arc<Tollgate>, String> {
        self.app
            .upgrade()
            .ok_or_else(|| "Tollgate is closing".to_string())
    }
}

#[async_trait::async_trait]
impl Sampler for ChatModel {
    async fn model(&self, chat: ChatId) -> Result<String, String> {
        let app = self.app()?;
        let (provider, model) = chosen(&app, chat).await?;
        let config = app
            .providers
            .chosen(provider)
            .await
            .map_err(|e| format!("the providers could not be read: {e}"))?;
        Ok(match config {
            Some(c) if model.trim().is_empty() => format!("{} · {}", c.default_model, c.name),
            Some(c) => format!("{model} · {}", c.name),
            None => format!("{} · Demo", crate::providers::demo::DEMO_MODEL),
        })
    }

    async fn sample(
        &self,
        chat: ChatId,
        request: SampleRequest,
        cancel: CancellationToken,
    ) -> Result<Sampled, String> {
        let app = self.app()?;
        let (provider_id, model) = chosen(&app, chat).await?;
        let (provider, default_model) = app
            .providers
            .resolve(provider_id)
            .await
            .map_err(|e| format!("the chat's model could not be reached: {e}"))?;
        let model = if model.trim().is_empty() {
            default_model
        } else {
            model
        };
        // A door of its own: the server's text is no round of the chat's conversation.
        let outgoing = Outgoing::seal(chat_request(model, request), &mut SecretDoor::new());
        let completion = provider
            .complete(&outgoing, &mut |_| {}, &cancel)
            .await
            .map_err(|e| format!("the chat's model did not answer: {e}"))?;
        Ok(Sampled {
            // Nothing Tollgate keeps secret leaves with the answer either.
            text: crate::secrets::redact_known_owned(completion.text),
            model: outgoing.model.clone(),
            cut_short: completion.finish == FinishReason::Length,
            input_tokens: completion.usage.input_tokens,
            output_tokens: completion.usage.output_tokens,
        })
    }

    fn keep(&self, chat: ChatId, seq: u64, lent: LentModel) {
        self.kept.lent(chat, seq, lent);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::protocol::SampledText;

    #[test]
    fn the_model_is_sent_the_servers_text_and_nothing_else() {
        let request = chat_request(
            "m".into(),
            SampleRequest {
                system: Some("One line.".into()),
                messages: vec![
                    SampledText {
                        role: SampledRole::User,
                        text: "Summarise: rivers".into(),
                    },
                    SampledText {
                        role: SampledRole::Assistant,
                        text: "Which rivers?".into(),
                    },
                ],
                max_tokens: 100,
                temperature: Some(0.2),
            },
        );
        assert_eq!(request.model, "m");
        assert_eq!(request.system, "One line.");
        assert!(request.tools.is_empty());
        assert_eq!(request.max_tokens, 100);
        assert_eq!(request.temperature, Some(0.2));
        assert!(matches!(
            &request.messages[..],
            [ChatMessage::User { content: u, .. }, ChatMessage::Assistant { content: a, tool_calls, .. }]
                if u == "Summarise: rivers" && a == "Which rivers?" && tool_calls.is_empty()
        ));
    }
}
