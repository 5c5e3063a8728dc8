//! Anthropic Messages API (F-31): streaming events, `tool_use` / `tool_result` with `is_error`,
//! the system prompt as its own field, usage from `message_start` and `message_delta`; extended
//! thinking with its signed blocks sent back in later rounds (F-29); prompt caching of the
//! system prompt, the tools and the conversation so far (F-34).

use super::http::{self, Endpoint};
use super::{
    ApiKey, AssistantToolCall, ChatMessage, ChatRequest, Completion, FinishReason, Provider,
    ProviderError, StreamAssembler, StreamDelta, ThinkingBlock,
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
                    let read = u.cache_read_input_tokens.unwrap_or(0);
                    let written = u.cache_creation_input_tokens.unwrap_or(0);
                    self.usage = Usage {
                        input_tokens: u.input_tokens.unwrap_or(0) + read + written,
                        output_tokens: u.output_tokens.unwrap_or(0),
                        cache_read_tokens: read,
                        cache_write_tokens: written,
                    };
                }
            }
            Event::ContentBlockStart {
                index,
                content_block,
            } => match content_block {
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
            },
            Event::ContentBlockDelta { index, delta } => match delta {
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
                    Some(ThinkingBlock::Thinking { signature: all, .. }) => {
                        all.push_str(&signature)
                    }
                    _ => {
                        return Err(ProviderError::Malformed(format!(
                            "signature_delta for block {index}, which is not a thinking block"
                        )))
                    }
                },
                BlockDelta::Other => {}
            },
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
            Event::Error { mut error } => {
                error.message = tollgate_secrets::redact(&error.message).into_owned();
                return Err(match error.kind.as_str() {
                    // Retryable like the HTTP status Anthropic uses for it.
                    "overloaded_error" => ProviderError::Http {
                        status: 529,
                        message: error.message,
                        retry_after: None,
                    },
                    "rate_limit_error" => ProviderError::Http {
                        status: 429,
                        message: error.message,
                        retry_after: None,
                    },
                    "api_error" => ProviderError::Http {
                        status: 500,
                        message: error.message,
                        retry_after: None,
                    },
                    _ => ProviderError::Api(format!("{}: {}", error.kind, error.message)),
                });
            }
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
        request: &ChatRequest,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let endpoint = Endpoint::new(&self.base_url, "v1/messages")?;
        let builder = http::client()?
            .post(endpoint.url())
            .headers(self.headers()?)
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
        http::list_model_ids(http::client()?.get(endpoint.url()).headers(self.headers()?)).await
    }
}

impl AnthropicProvider {
    fn headers(&self) -> Result<reqwest::header::HeaderMap, ProviderError> {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("x-api-key", http::secret_header(self.api_key.expose())?);
        h.insert(
            "anthropic-version",
            reqwest::header::HeaderValue::from_static(API_VERSION),
        );
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolResultMessage;

    fn feed(events: &[&str]) -> (Result<Completion, ProviderError>, Vec<StreamDelta>) {
        let mut s = AnthropicStream::default();
        let mut deltas = Vec::new();
        for e in events {
            if let Err(err) = s.on_data(e, &mut |d| deltas.push(d)) {
                return (Err(err), deltas);
            }
        }
        (s.finish(), deltas)
    }

    #[test]
    fn text_and_tool_use_assemble_with_usage() {
        let (c, deltas) = feed(&[
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":".txt\"}"}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        let c = c.unwrap();
        assert_eq!(c.text, "Checking");
        assert_eq!(c.finish, FinishReason::ToolCalls);
        assert_eq!(
            c.usage,
            Usage {
                input_tokens: 25,
                output_tokens: 40,
                ..Usage::default()
            }
        );
        assert_eq!(
            c.tool_calls,
            vec![AssistantToolCall {
                id: "toolu_1".into(),
                name: "read_file".into(),
                arguments: r#"{"path": "a.txt"}"#.into()
            }]
        );
        assert!(deltas.contains(&StreamDelta::ToolCallStart {
            index: 1,
            id: "toolu_1".into(),
            name: "read_file".into()
        }));
    }

    #[test]
    fn a_missing_message_stop_is_incomplete_and_errors_map_to_statuses() {
        let (c, _) = feed(&[
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"partial"}}"#,
        ]);
        assert!(matches!(c, Err(ProviderError::Incomplete(_))));
        let (c, _) = feed(&[
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ]);
        assert!(matches!(&c, Err(e @ ProviderError::Http { status: 529, .. }) if e.is_retryable()));
        let (c, _) = feed(&[
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"#,
        ]);
        assert!(matches!(c, Err(ProviderError::Malformed(_))));
    }

    #[test]
    fn thinking_blocks_are_ignored_and_unknown_block_deltas_pass() {
        let (c, _) = feed(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert_eq!(c.unwrap().text, "");
    }

    #[test]
    fn the_request_alternates_roles_and_carries_results_with_is_error() {
        let req = ChatRequest {
            model: "claude".into(),
            system: "sys".into(),
            messages: vec![
                ChatMessage::User {
                    content: "hi".into(),
                    images: Vec::new(),
                },
                ChatMessage::Assistant {
                    content: "ok".into(),
                    tool_calls: vec![
                        AssistantToolCall {
                            id: "t1".into(),
                            name: "a".into(),
                            arguments: r#"{"x":1}"#.into(),
                        },
                        AssistantToolCall {
                            id: "t2".into(),
                            name: "b".into(),
                            arguments: "{broken".into(),
                        },
                    ],
                    thinking: vec![],
                },
                ChatMessage::Tool {
                    results: vec![
                        ToolResultMessage {
                            call_id: "t1".into(),
                            name: "a".into(),
                            content: "r1".into(),
                            is_error: false,
                            sources: Vec::new(),
                        },
                        ToolResultMessage {
                            call_id: "t2".into(),
                            name: "b".into(),
                            content: "bad json".into(),
                            is_error: true,
                            sources: Vec::new(),
                        },
                    ],
                },
                ChatMessage::User {
                    content: "and then?".into(),
                    images: Vec::new(),
                },
            ],
            tools: vec![],
            max_tokens: 1024,
            temperature: Some(0.2),
            ..Default::default()
        };
        let body = request_body(&req, Default::default());
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}])
        );
        assert_eq!(body["temperature"], json!(0.2f32));
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(
            msgs.len(),
            3,
            "tool results and the next user text share one user message"
        );
        assert_eq!(
            msgs[1]["content"][1],
            json!({"type": "tool_use", "id": "t1", "name": "a", "input": {"x": 1}})
        );
        assert_eq!(msgs[1]["content"][2]["input"], json!({}));
        assert_eq!(
            msgs[2]["content"][1],
            json!({"type": "tool_result", "tool_use_id": "t2", "content": "bad json", "is_error": true})
        );
        assert_eq!(
            msgs[2]["content"][2],
            json!({"type": "text", "text": "and then?", "cache_control": {"type": "ephemeral"}}),
            "the conversation so far is a cached prefix for the next round"
        );
        assert!(body.get("tools").is_none());
        assert!(body.get("thinking").is_none());
    }

    fn tool(name: &str) -> tollgate_protocol::ToolDefinition {
        tollgate_protocol::ToolDefinition {
            name: name.into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }
    }

    #[test]
    fn thinking_streams_as_reasoning_and_its_signed_blocks_are_kept() {
        let (c, deltas) = feed(&[
            r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":900,"cache_creation_input_tokens":100,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Two and "}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"two."}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIARgC"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"ENCRYPTED"}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Four."}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        let c = c.unwrap();
        assert_eq!(c.text, "Four.", "thinking is never answer text");
        assert_eq!(c.reasoning, "Two and two.");
        assert_eq!(
            c.thinking,
            vec![
                ThinkingBlock::Thinking {
                    thinking: "Two and two.".into(),
                    signature: "EqQBCkYIARgC".into()
                },
                ThinkingBlock::Redacted {
                    data: "ENCRYPTED".into()
                }
            ]
        );
        assert_eq!(
            deltas
                .iter()
                .filter(|d| matches!(d, StreamDelta::Reasoning { .. }))
                .count(),
            2,
            "reasoning streams live"
        );
        assert_eq!(
            c.usage,
            Usage {
                input_tokens: 1_005,
                output_tokens: 30,
                cache_read_tokens: 900,
                cache_write_tokens: 100,
            }
        );
        let (bad, _) = feed(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x"}}"#,
        ]);
        assert!(matches!(bad, Err(ProviderError::Malformed(_))));
    }

    #[test]
    fn extended_thinking_sends_its_budget_no_temperature_and_the_blocks_back() {
        let signed = ThinkingBlock::Thinking {
            thinking: "plan".into(),
            signature: "sig-1".into(),
        };
        let req = ChatRequest {
            model: "claude".into(),
            messages: vec![
                ChatMessage::User {
                    content: "go".into(),
                    images: Vec::new(),
                },
                ChatMessage::Assistant {
                    content: String::new(),
                    tool_calls: vec![AssistantToolCall {
                        id: "t1".into(),
                        name: "a".into(),
                        arguments: "{}".into(),
                    }],
                    thinking: vec![
                        signed.clone(),
                        ThinkingBlock::Redacted {
                            data: "opaque".into(),
                        },
                    ],
                },
                ChatMessage::Tool {
                    results: vec![ToolResultMessage {
                        call_id: "t1".into(),
                        name: "a".into(),
                        content: "done".into(),
                        is_error: false,
                        sources: Vec::new(),
                    }],
                },
            ],
            tools: vec![tool("a"), tool("b")],
            max_tokens: 2_000,
            temperature: Some(0.3),
            ..Default::default()
        };
        let body = request_body(&req, Some(4_000));
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 4000})
        );
        assert_eq!(
            body["max_tokens"], 6_000,
            "the budget fits under max_tokens"
        );
        assert!(body.get("temperature").is_none());
        let assistant = &body["messages"][1]["content"];
        assert_eq!(
            assistant[0],
            json!({"type": "thinking", "thinking": "plan", "signature": "sig-1"}),
            "passed back unchanged, first"
        );
        assert_eq!(
            assistant[1],
            json!({"type": "redacted_thinking", "data": "opaque"})
        );
        assert_eq!(assistant[2]["type"], "tool_use");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(
            body["tools"][1]["cache_control"],
            json!({"type": "ephemeral"}),
            "the last tool ends the cached tool prefix"
        );
        let small = request_body(&req, Some(10));
        assert_eq!(
            small["thinking"]["budget_tokens"], 1_024,
            "the API's minimum budget"
        );
        let off = request_body(&req, None);
        assert!(off.get("thinking").is_none());
        assert_eq!(
            off["messages"][1]["content"][0]["type"], "tool_use",
            "blocks are only sent while thinking is on"
        );
    }
}
