//! The chat's model, lent to an MCP server that asks for it (sampling, F-99). Only a server the
//! user lets use the model (`McpServerConfig::share_model`) is answered, and only once the user
//! agrees on the card of the call the request belongs to. The model is sent the server's own
//! text and nothing of the chat: no history, no tools, no context from other servers. What it
//! writes back goes to the server, never into the chat.
//!
//! The client crate does not know the providers: whoever opens the servers (the app) gives a
//! [`Sampler`] that sends the request to the chat's model.

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::{LentModel, SampledRole, SampledText};

/// The most a server's request may have the model write: a server's sub-task, not a chat's
/// answer. A request for more is answered with this much.
pub const MAX_SAMPLED_TOKENS: u32 = 4_096;
/// The most text a request may carry (its instructions and messages together): more is no
/// request a person reads on a card before it is sent and billed.
pub const MAX_SAMPLED_BYTES: usize = 64 * 1024;
/// The most messages a request may carry.
pub const MAX_SAMPLED_MESSAGES: usize = 32;
/// The most times one call's server may borrow the model: each exchange is kept with the call,
/// and a call is no conversation of its own.
pub const MAX_LENT_PER_CALL: usize = 20;

/// What the model is asked, as the user agreed to it on the call's card.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRequest {
    pub system: Option<String>,
    pub messages: Vec<SampledText>,
    /// At most [`MAX_SAMPLED_TOKENS`].
    pub max_tokens: u32,
    pub temperature: Option<f32>,
}

/// What the model wrote back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampled {
    pub text: String,
    /// The model that wrote it, as the server is told.
    pub model: String,
    /// The answer stopped at `max_tokens`, not where the model ended it.
    pub cut_short: bool,
    /// What it cost at the provider, as it reported it.
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Sends a server's request to the model of `chat`. The app's side of sampling.
#[async_trait]
pub trait Sampler: Send + Sync {
    /// The model that would answer in `chat`, as the card names it ("model · provider").
    async fn model(&self, chat: ChatId) -> Result<String, String>;

    /// The model's answer to `request`, or why there is none (shown to the server).
    /// Cancelling `cancel` stops the model.
    async fn sample(
        &self,
        chat: ChatId,
        request: SampleRequest,
        cancel: CancellationToken,
    ) -> Result<Sampled, String>;

    /// Keeps, with call `seq` of `chat`, an exchange whose answer goes back to the server, and
    /// tells the window.
    fn keep(&self, chat: ChatId, seq: u64, lent: LentModel);
}

/// The request a server sent, as Tollgate lends the model: text messages only, no tools, at
/// most [`MAX_SAMPLED_TOKENS`], every secret Tollgate keeps withheld; anything else is refused
/// with why, before the user is asked.
/// Its stop sequences are not passed on (the providers' requests have none): the server reads
/// the whole answer and cuts it itself.
#[allow(deprecated)]
pub(crate) fn request_of(
    params: rmcp::model::CreateMessageRequestParams,
) -> Result<SampleRequest, String> {
    use rmcp::model::{Role, SamplingMessageContentBlock};
    if params.tools.as_ref().is_some_and(|tools| !tools.is_empty()) {
        return Err(
            "Tollgate does not give the model tools when a server asks it something".into(),
        );
    }
    if params.messages.is_empty() {
        return Err("the request has no message for the model".into());
    }
    if params.messages.len() > MAX_SAMPLED_MESSAGES {
        return Err(format!(
            "the request has {} messages; Tollgate lends the model at most {MAX_SAMPLED_MESSAGES}",
            params.messages.len()
        ));
    }
    let mut messages = Vec::with_capacity(params.messages.len());
    let mut size = params.system_prompt.as_ref().map_or(0, String::len);
    for message in params.messages {
        let mut texts = Vec::new();
        for block in message.content.into_vec() {
            match block {
                SamplingMessageContentBlock::Text(text) => texts.push(text.text),
                _ => {
                    return Err(
                        "Tollgate lends the model text only: the request carried an image, a sound or a tool's part"
                            .into(),
                    )
                }
            }
        }
        // As the model would read it: a secret Tollgate keeps is withheld already on the card
        // and in what the call keeps, not only in what is sent.
        let text = tollgate_secrets::redact_known_owned(texts.join("\n\n"));
        size += text.len();
        messages.push(SampledText {
            role: match message.role {
                Role::User => SampledRole::User,
                Role::Assistant => SampledRole::Assistant,
            },
            text,
        });
    }
    if size > MAX_SAMPLED_BYTES {
        return Err(format!(
            "the request carries {} KiB of text; Tollgate lends the model at most {} KiB",
            size.div_ceil(1024),
            MAX_SAMPLED_BYTES / 1024
        ));
    }
    Ok(SampleRequest {
        system: params
            .system_prompt
            .filter(|s| !s.trim().is_empty())
            .map(tollgate_secrets::redact_known_owned),
        messages,
        max_tokens: params.max_tokens.clamp(1, MAX_SAMPLED_TOKENS),
        temperature: params.temperature,
    })
}

/// The exchange as the call keeps it: what the model was sent, with every secret Tollgate keeps
/// withheld again (one learnt while the card waited included), and what it wrote.
pub(crate) fn kept(request: &SampleRequest, sampled: &Sampled) -> LentModel {
    let pass = |text: &str| tollgate_secrets::redact_known_owned(text.to_string());
    LentModel {
        model: sampled.model.clone(),
        system: request.system.as_deref().map(pass),
        messages: request
            .messages
            .iter()
            .map(|m| SampledText {
                role: m.role,
                text: pass(&m.text),
            })
            .collect(),
        answer: pass(&sampled.text),
        at: chrono::Utc::now().timestamp_millis(),
        input_tokens: sampled.input_tokens,
        output_tokens: sampled.output_tokens,
    }
}

/// The answer as the server reads it.
#[allow(deprecated)]
pub(crate) fn result_of(sampled: Sampled) -> rmcp::model::CreateMessageResult {
    use rmcp::model::{CreateMessageResult, SamplingMessage};
    let stop = if sampled.cut_short {
        CreateMessageResult::STOP_REASON_END_MAX_TOKEN
    } else {
        CreateMessageResult::STOP_REASON_END_TURN
    };
    CreateMessageResult::new(SamplingMessage::assistant_text(sampled.text), sampled.model)
        .with_stop_reason(stop)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, deprecated)]
    use super::*;
    use rmcp::model::{CreateMessageRequestParams, SamplingMessage};
    use serde_json::json;

    fn params(value: serde_json::Value) -> CreateMessageRequestParams {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_text_request_is_lent_as_it_came_within_the_limit() {
        let asked = request_of(params(json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarise: rivers"}},
                {"role": "assistant", "content": [{"type": "text", "text": "Which"}, {"type": "text", "text": "rivers?"}]}
            ],
            "systemPrompt": "One line.",
            "maxTokens": 1_000_000,
            "temperature": 0.5,
            "stopSequences": ["END"]
        })))
        .unwrap();
        assert_eq!(
            asked,
            SampleRequest {
                system: Some("One line.".into()),
                messages: vec![
                    SampledText {
                        role: SampledRole::User,
                        text: "Summarise: rivers".into()
                    },
                    SampledText {
                        role: SampledRole::Assistant,
                        text: "Which\n\nrivers?".into()
                    },
                ],
                max_tokens: MAX_SAMPLED_TOKENS,
                temperature: Some(0.5),
            }
        );
    }

    #[test]
    fn images_tools_and_empty_requests_are_refused_with_why() {
        let image = params(json!({
            "messages": [{"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}}],
            "maxTokens": 10
        }));
        assert!(request_of(image).unwrap_err().contains("text only"));
        let mut tools =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hello")], 10);
        tools.tools = Some(vec![serde_json::from_value(json!({
            "name": "t", "inputSchema": {"type": "object"}
        }))
        .unwrap()]);
        assert!(request_of(tools).unwrap_err().contains("tools"));
        let empty = CreateMessageRequestParams::new(Vec::new(), 10);
        assert!(request_of(empty).unwrap_err().contains("no message"));
    }

    #[test]
    fn a_request_too_long_to_read_on_a_card_is_refused() {
        let many = CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text("hi"); MAX_SAMPLED_MESSAGES + 1],
            10,
        );
        assert!(request_of(many).unwrap_err().contains("at most 32"));
        let half = "x".repeat(MAX_SAMPLED_BYTES / 2);
        let mut long =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text(half.clone())], 10);
        assert!(request_of(long.clone()).is_ok());
        // The instructions count with the messages.
        long.system_prompt = Some(half + "y");
        assert!(request_of(long).unwrap_err().contains("at most 64 KiB"));
    }

    #[test]
    fn an_answer_cut_at_the_limit_says_so() {
        let result = serde_json::to_value(result_of(Sampled {
            text: "a summary".into(),
            model: "m".into(),
            cut_short: true,
            input_tokens: 0,
            output_tokens: 0,
        }))
        .unwrap();
        assert_eq!(result["stopReason"], "maxTokens");
        assert_eq!(result["content"]["text"], "a summary");
        assert_eq!(result["role"], "assistant");
    }
}
