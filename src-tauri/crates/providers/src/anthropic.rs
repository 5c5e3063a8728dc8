//! Anthropic Messages API (F-31): streaming events, `tool_use` / `tool_result` with `is_error`,
//! the system prompt as its own field, usage from `message_start` and `message_delta`; extended
//! thinking with its signed blocks sent back in later rounds (F-29); prompt caching of the
//! system prompt, the tools and the conversation so far (F-34).

use super::http::{self, Endpoint};
use super::{
    ApiKey, AssistantToolCall, ChatMessage, ChatRequest, Completion, FinishReason, Outgoing,
    Provider, ProviderError, StreamAssembler, StreamDelta, ThinkingBlock,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::{ProviderKind, Usage, MIN_THINKING_BUDGET};

/// The API version header Tollgate speaks.
pub const API_VERSION: &str = "2023-06-01";

/// An Anthropic endpoint.
#[derive(Debug, Clone, Default)]
pub struct AnthropicProvider {
    /// e.g. `https://api.anthropic.com`.
    pub base_url: String,
    pub api_key: ApiKey,
    /// Extended thinking with this token budget; `None` is off.
    pub thinking_budget: Option<u32>,
}

/// Marks a block as the end of a cached prefix: the next request that starts the same way reads
/// it from the cache instead of paying for it again.
fn cached(mut block: Value) -> Value {
    block["cache_control"] = json!({"type": "ephemeral"});
    block
}

fn thinking_block(block: &ThinkingBlock) -> Value {
    match block {
        ThinkingBlock::Thinking {
            thinking,
            signature,
        } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        ThinkingBlock::Redacted { data } => json!({"type": "redacted_thinking", "data": data}),
    }
}

fn push_blocks(messages: &mut Vec<Value>, role: &str, blocks: Vec<Value>) {
    if blocks.is_empty() {
        return;
    }
    // The API wants alternating roles: merge into the previous message of the same role.
    if let Some(last) = messages.last_mut() {
        if last["role"] == role {
            if let Some(content) = last["content"].as_array_mut() {
                content.extend(blocks);
                return;
            }
        }
    }
    messages.push(json!({"role": role, "content": blocks}));
}

/// The request body. With `thinking_budget`, extended thinking is on: the budget must stay below
/// `max_tokens` and the temperature cannot be set; earlier thinking blocks go back unchanged.
/// Cache breakpoints sit on the last tool, the system prompt and the last block of the
/// conversation, so each round of a tool-using turn reads everything before it from the cache.
pub fn request_body(req: &ChatRequest, thinking_budget: Option<u32>) -> Value {
    let thinking_budget = thinking_budget.map(|b| b.max(MIN_THINKING_BUDGET));
    let mut messages: Vec<Value> = Vec::new();
    for m in &req.messages {
        match m {
            ChatMessage::User { content, images } => {
                // Images first, then the text that asks about them (Anthropic's advice).
                let mut blocks: Vec<Value> = images
                    .iter()
                    .map(|i| json!({"type": "image", "source": {"type": "base64", "media_type": i.media_type, "data": i.data}}))
                    .collect();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                push_blocks(&mut messages, "user", blocks);
            }
            ChatMessage::Assistant {
                content,
                tool_calls,
                thinking,
            } => {
                let mut blocks = Vec::new();
                if thinking_budget.is_some() {
                    blocks.extend(thinking.iter().map(thinking_block));
                }
                if !content.trim().is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                for c in tool_calls {
                    // The API needs an object; arguments the model garbled are sent as {} (the
                    // tool result already told the model what was wrong).
                    let input = serde_json::from_str::<Value>(&c.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| Value::Object(Map::new()));
                    blocks.push(
                        json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}),
                    );
                }
                push_blocks(&mut messages, "assistant", blocks);
            }
            ChatMessage::Tool { results } => {
                let blocks = results
                    .iter()
                    .map(|r| json!({"type": "tool_result", "tool_use_id": r.call_id, "content": r.content, "is_error": r.is_error}))
                    .collect();
                push_blocks(&mut messages, "user", blocks);
            }
        }
    }
    if let Some(last) = messages
        .last_mut()
        .and_then(|m| m["content"].as_array_mut())
        .and_then(|blocks| blocks.last_mut())
    {
        *last = cached(last.take());
    }
    let mut body = json!({
        "model": req.model,
        "max_tokens": req.max_tokens,
        "messages": messages,
        "stream": true,
    });
    if !req.system.is_empty() {
        body["system"] = json!([cached(json!({"type": "text", "text": req.system}))]);
    }
    match thinking_budget {
        Some(budget) => {
            body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
            if req.max_tokens <= budget {
                body["max_tokens"] = json!(budget.saturating_add(req.max_tokens));
            }
        }
        None => {
            if let Some(t) = req.temperature {
                body["temperature"] = json!(t);
            }
        }
    }
    if !req.tools.is_empty() {
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        if let Some(last) = tools.last_mut() {
            *last = cached(last.take());
        }
        body["tools"] = Value::Array(tools);
    }
    body
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event<'a> {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: u32,
        #[serde(borrow)]
        content_block: BlockStart<'a>,
    },
    ContentBlockDelta {
        index: u32,
        #[serde(borrow)]
        delta: BlockDelta<'a>,
    },
    ContentBlockStop {
        #[allow(dead_code)]
        index: u32,
    },
    MessageDelta {
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: Option<UsageBody>,
    },
    MessageStop,
    Ping,
    Error {
        error: ErrorBody,
    },
}

#[derive(Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<UsageBody>,
}

#[derive(Deserialize, Default)]
struct UsageBody {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockStart<'a> {
    Text {
        #[serde(default, borrow)]
        text: Cow<'a, str>,
    },
    ToolUse {
        #[serde(borrow)]
        id: Cow<'a, str>,
        #[serde(borrow)]
        name: Cow<'a, str>,
    },
    Thinking {
        #[serde(default, borrow)]
        thinking: Cow<'a, str>,
        #[serde(default, borrow)]
        signature: Cow<'a, str>,
    },
    RedactedThinking {
        #[serde(default, borrow)]
        data: Cow<'a, str>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta<'a> {
    TextDelta {
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    InputJsonDelta {
        #[serde(borrow)]
        partial_json: Cow<'a, str>,
    },
    ThinkingDelta {
        #[serde(borrow)]
        thinking: Cow<'a, str>,
    },
    SignatureDelta {
        #[serde(borrow)]
        signature: Cow<'a, str>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct MessageDeltaBody {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    message: String,
}

impl UsageBody {
    /// The usage a `message_start` reports: cached input (read or written) counts as input.
    fn into_usage(self) -> Usage {
        let read = self.cache_read_input_tokens.unwrap_or(0);
        let written = self.cache_creation_input_tokens.unwrap_or(0);
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0) + read + written,
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_tokens: read,
            cache_write_tokens: written,
        }
    }
}

impl ErrorBody {
    /// The stream's `error` event as an error, retryable like the HTTP status Anthropic uses
    /// for its kind; its message with known secrets redacted.
    fn into_error(self) -> ProviderError {
        let message = tollgate_secrets::redact(&self.message).into_owned();
        let status = match self.kind.as_str() {
            "overloaded_error" => 529,
            "rate_limit_error" => 429,
            "api_error" => 500,
            _ => return ProviderError::Api(format!("{}: {message}", self.kind)),
        };
        ProviderError::Http {
            status,
            message,
            retry_after: None,
        }
    }
}

struct ToolBlock {
    id: String,
    name: String,
    input: String,
}

/// Assembles a completion from the stream's events.
#[derive(Default)]
pub struct AnthropicStream {
    text: String,
    reasoning: String,
    thinking: BTreeMap<u32, ThinkingBlock>,
    tools: BTreeMap<u32, ToolBlock>,
    stop_reason: Option<String>,
    usage: Usage,
    stopped: bool,
}

impl AnthropicStream {
    /// A content block begins: text and reasoning are shown at once, a tool call is announced.
    fn block_started(
        &mut self,
        index: u32,
        block: BlockStart<'_>,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) {
        match block {
            BlockStart::Text { text } => {
                if !text.is_empty() {
                    self.text.push_str(&text);
                    on_delta(StreamDelta::Text {
                        text: text.into_owned(),
                    });
                }
            }
            BlockStart::ToolUse { id, name } => {
                on_delta(StreamDelta::ToolCallStart {
                    index,
                    id: id.to_string(),
                    name: name.to_string(),
                });
                self.tools.insert(
                    index,
                    ToolBlock {
                        id: id.into_owned(),
                        name: name.into_owned(),
                        input: String::new(),
                    },
                );
            }
            BlockStart::Thinking {
                thinking,
                signature,
            } => {
                self.add_reasoning(&thinking, on_delta);
                self.thinking.insert(
                    index,
                    ThinkingBlock::Thinking {
                        thinking: thinking.into_owned(),
                        signature: signature.into_owned(),
                    },
                );
            }
            BlockStart::RedactedThinking { data } => {
                self.thinking.insert(
                    index,
                    ThinkingBlock::Redacted {
                        data: data.into_owned(),
                    },
                );
            }
            BlockStart::Other => {}
        }
    }

    /// More of block `index`; an error when the delta does not fit the block it names.
    fn block_delta(
        &mut self,
        index: u32,
        delta: BlockDelta<'_>,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<(), ProviderError> {
        match delta {
            BlockDelta::TextDelta { text } => {
                self.text.push_str(&text);
                on_delta(StreamDelta::Text {
                    text: text.into_owned(),
                });
            }
            BlockDelta::InputJsonDelta { partial_json } => {
                let block = self.tools.get_mut(&index).ok_or_else(|| {
                    ProviderError::Malformed(format!(
                        "input_json_delta for block {index}, which is not a tool_use block"
                    ))
                })?;
                block.input.push_str(&partial_json);
                on_delta(StreamDelta::ToolCallArgs {
                    index,
                    fragment: partial_json.into_owned(),
                });
            }
            BlockDelta::ThinkingDelta { thinking } => {
                self.add_reasoning(&thinking, on_delta);
                if let Some(ThinkingBlock::Thinking { thinking: all, .. }) =
                    self.thinking.get_mut(&index)
                {
                    all.push_str(&thinking);
                }
            }
            BlockDelta::SignatureDelta { signature } => match self.thinking.get_mut(&index) {
                Some(ThinkingBlock::Thinking { signature: all, .. }) => all.push_str(&signature),
                _ => {
                    return Err(ProviderError::Malformed(format!(
                        "signature_delta for block {index}, which is not a thinking block"
                    )))
                }
            },
            BlockDelta::Other => {}
        }
        Ok(())
    }

    fn add_reasoning(&mut self, text: &str, on_delta: &mut (dyn FnMut(StreamDelta) + Send)) {
        if !text.is_empty() {
            self.reasoning.push_str(text);
            on_delta(StreamDelta::Reasoning {
                text: text.to_string(),
            });
        }
    }
}

impl StreamAssembler for AnthropicStream {
    /// Whether `message_stop` was seen.
    fn is_done(&self) -> bool {
        self.stopped
    }

    /// Handles one event's data (the `type` inside the data names the event).
    fn on_data(
        &mut self,
        data: &str,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<(), ProviderError> {
        if data.trim().is_empty() {
            return Ok(());
        }
        let event: Event<'_> = serde_json::from_str(data).map_err(|e| {
            ProviderError::Malformed(format!(
                "{e} in {}",
                tollgate_protocol::parse::preview(data, 200)
            ))
        })?;
        match event {
            Event::MessageStart { message } => {
                if let Some(u) = message.usage {
                    self.usage = u.into_usage();
                }
            }
            Event::ContentBlockStart {
                index,
                content_block,
            } => self.block_started(index, content_block, on_delta),
            Event::ContentBlockDelta { index, delta } => {
                self.block_delta(index, delta, on_delta)?
            }
            Event::ContentBlockStop { .. } | Event::Ping => {}
            Event::MessageDelta { delta, usage } => {
                if delta.stop_reason.is_some() {
                    self.stop_reason = delta.stop_reason;
                }
                if let Some(out) = usage.and_then(|u| u.output_tokens) {
                    self.usage.output_tokens = out;
                }
            }
            Event::MessageStop => self.stopped = true,
            Event::Error { error } => return Err(error.into_error()),
        }
        Ok(())
    }

    /// The completion, or an error if `message_stop` never came.
    fn finish(self) -> Result<Completion, ProviderError> {
        if !self.stopped {
            return Err(ProviderError::Incomplete(
                "no message_stop event was received".into(),
            ));
        }
        let finish = match self.stop_reason.as_deref() {
            Some("end_turn") | Some("stop_sequence") | None => FinishReason::Stop,
            Some("tool_use") => FinishReason::ToolCalls,
            Some("max_tokens") => FinishReason::Length,
            Some("refusal") => FinishReason::ContentFilter,
            Some(other) => FinishReason::Other(other.to_string()),
        };
        let tool_calls = self
            .tools
            .into_values()
            .map(|t| AssistantToolCall {
                id: t.id,
                name: t.name,
                arguments: if t.input.trim().is_empty() {
                    "{}".into()
                } else {
                    t.input
                },
            })
            .collect();
        Ok(Completion {
            text: self.text,
            reasoning: self.reasoning,
            thinking: self.thinking.into_values().collect(),
            tool_calls,
            finish,
            usage: self.usage,
        })
    }
}

#[async_trait]
impl Provider for AnthropicProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    async fn complete(
        &self,
        request: &Outgoing,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let endpoint = Endpoint::new(&self.base_url, "v1/messages")?;
        let builder = http::client()?
            .post(endpoint.url())
            .headers(self.headers(&endpoint)?)
            .json(&request_body(request, self.thinking_budget));
        http::complete_stream(
            AnthropicStream::default(),
            builder,
            request.idle_timeout,
            on_delta,
            cancel,
        )
        .await
    }

    async fn models(&self) -> Result<Vec<String>, ProviderError> {
        let endpoint = Endpoint::new(&self.base_url, "v1/models")?;
        let headers = self.headers(&endpoint)?;
        http::list_model_ids(http::client()?.get(endpoint.url()).headers(headers)).await
    }
}

impl AnthropicProvider {
    /// The request's headers: the key, where it may go (`Endpoint::check_credential`).
    fn headers(&self, endpoint: &Endpoint) -> Result<reqwest::header::HeaderMap, ProviderError> {
        let mut h = reqwest::header::HeaderMap::new();
        if !self.api_key.is_empty() {
            endpoint.check_credential()?;
        }
        h.insert("x-api-key", http::secret_header(self.api_key.expose())?);
        h.insert(
            "anthropic-version",
            reqwest::header::HeaderValue::from_static(API_VERSION),
        );
        Ok(h)
    }
}

#[cfg(test)]
#[path = "anthropic_tests.rs"]
mod tests;
