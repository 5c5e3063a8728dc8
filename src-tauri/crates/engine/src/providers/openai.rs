//! OpenAI Chat Completions and every compatible server (F-30): Ollama, LM Studio, llama.cpp,
//! vLLM, OpenRouter, DeepSeek, …
//!
//! Tool calls stream as deltas keyed by `index`: the first delta of a call carries its id and
//! name, the arguments arrive as string fragments. The assembler joins them per index.

use super::http::{self, Endpoint};
use super::{
    ApiKey, AssistantToolCall, ChatMessage, ChatRequest, Completion, FinishReason, Provider,
    ProviderError, StreamAssembler, StreamDelta,
};
use crate::protocol::{ProviderKind, ToolCalling, Usage};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;

/// An OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct OpenAiProvider {
    /// e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub base_url: String,
    /// Empty for servers without keys (local models).
    pub api_key: ApiKey,
    /// Native tool calls, or calls written as text for models served without them.
    pub tool_calling: ToolCalling,
}

/// The request body (F-20): system prompt first, tools only when there are any.
pub fn request_body(req: &ChatRequest) -> Value {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        messages.push(json!({"role": "system", "content": req.system}));
    }
    for m in &req.messages {
        match m {
            ChatMessage::User { content } => {
                messages.push(json!({"role": "user", "content": content}))
            }
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => {
                let mut msg = json!({"role": "assistant", "content": if content.is_empty() { Value::Null } else { json!(content) }});
                if !tool_calls.is_empty() {
                    msg["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                        .collect();
                }
                messages.push(msg);
            }
            ChatMessage::Tool { results } => {
                for r in results {
                    messages.push(
                        json!({"role": "tool", "tool_call_id": r.call_id, "content": r.content}),
                    );
                }
            }
        }
    }
    let mut body = json!({
        "model": req.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
        "max_tokens": req.max_tokens,
    });
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
            .collect();
    }
    body
}

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolCallDelta<'a> {
    #[serde(default)]
    index: u32,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Assembles a completion from the stream's `data:` payloads.
#[derive(Default)]
pub struct OpenAiStream {
    text: String,
    calls: BTreeMap<u32, PartialCall>,
    finish: Option<FinishReason>,
    usage: Usage,
    done: bool,
}

fn finish_reason(s: &str) -> FinishReason {
    match s {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    }
}

impl StreamAssembler for OpenAiStream {
    /// Whether `[DONE]` was seen.
    fn is_done(&self) -> bool {
        self.done
    }

    /// Handles one event's data.
    fn on_data(
        &mut self,
        data: &str,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<(), ProviderError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(|e| {
            ProviderError::Malformed(format!("{e} in {}", crate::parse::preview(data, 200)))
        })?;
        if let Some(err) = chunk.error {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            return Err(ProviderError::Api(msg));
        }
        if let Some(u) = chunk.usage {
            self.usage = Usage {
                input_tokens: u.prompt_tokens,
                output_tokens: u.completion_tokens,
            };
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    self.text.push_str(&text);
                    on_delta(StreamDelta::Text {
                        text: text.into_owned(),
                    });
                }
                for tc in delta.tool_calls.unwrap_or_default() {
                    let call = self.calls.entry(tc.index).or_default();
                    let started = !call.id.is_empty() || !call.name.is_empty();
                    if let Some(id) = tc.id.filter(|i| !i.is_empty()) {
                        if call.id.is_empty() {
                            call.id = id.into_owned();
                        }
                    }
                    let mut args_fragment = None;
                    if let Some(f) = tc.function {
                        if let Some(name) = f.name.filter(|n| !n.is_empty()) {
                            if call.name.is_empty() {
                                call.name = name.into_owned();
                            }
                        }
                        args_fragment = f.arguments.filter(|a| !a.is_empty());
                    }
                    if !started && (!call.id.is_empty() || !call.name.is_empty()) {
                        on_delta(StreamDelta::ToolCallStart {
                            index: tc.index,
                            id: call.id.clone(),
                            name: call.name.clone(),
                        });
                    }
                    if let Some(fragment) = args_fragment {
                        call.arguments.push_str(&fragment);
                        on_delta(StreamDelta::ToolCallArgs {
                            index: tc.index,
                            fragment: fragment.into_owned(),
                        });
                    }
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(finish_reason(&reason));
            }
        }
        Ok(())
    }

    /// The completion, or an error if the stream never said it was finished.
    fn finish(self) -> Result<Completion, ProviderError> {
        let Some(finish) = self.finish else {
            return Err(ProviderError::Incomplete(
                "no finish_reason was received".into(),
            ));
        };
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(index, c)| AssistantToolCall {
                id: if c.id.is_empty() {
                    format!("call_{index}")
                } else {
                    c.id
                },
                name: c.name,
                arguments: c.arguments,
            })
            .collect();
        Ok(Completion {
            text: self.text,
            tool_calls,
            finish,
            usage: self.usage,
        })
    }
}

#[async_trait]
impl Provider for OpenAiProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenAi
    }

    fn tool_calling(&self) -> ToolCalling {
        self.tool_calling
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let endpoint = Endpoint::new(&self.base_url, "chat/completions")?;
        let builder = http::client()?
            .post(endpoint.url())
            .headers(self.headers()?)
            .json(&request_body(request));
        http::complete_stream::<OpenAiStream>(builder, on_delta, cancel).await
    }

    async fn models(&self) -> Result<Vec<String>, ProviderError> {
        let endpoint = Endpoint::new(&self.base_url, "models")?;
        http::list_model_ids(http::client()?.get(endpoint.url()).headers(self.headers()?)).await
    }
}

impl OpenAiProvider {
    fn headers(&self) -> Result<reqwest::header::HeaderMap, ProviderError> {
        let mut h = reqwest::header::HeaderMap::new();
        if !self.api_key.is_empty() {
            h.insert(
                reqwest::header::AUTHORIZATION,
                http::secret_header(&format!("Bearer {}", self.api_key.expose()))?,
            );
        }
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::ToolResultMessage;

    fn feed(chunks: &[&str]) -> (Result<Completion, ProviderError>, Vec<StreamDelta>) {
        let mut s = OpenAiStream::default();
        let mut deltas = Vec::new();
        for c in chunks {
            if let Err(e) = s.on_data(c, &mut |d| deltas.push(d)) {
                return (Err(e), deltas);
            }
        }
        (s.finish(), deltas)
    }

    #[test]
    fn text_and_fragmented_parallel_tool_calls_assemble_by_index() {
        let (c, deltas) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me "}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"check."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"calculate","arguments":"{\"expr"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.txt\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"ession\":\"1+1\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}}"#,
            "[DONE]",
        ]);
        let c = c.unwrap();
        assert_eq!(c.text, "Let me check.");
        assert_eq!(c.finish, FinishReason::ToolCalls);
        assert_eq!(
            c.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 34
            }
        );
        assert_eq!(
            c.tool_calls,
            vec![
                AssistantToolCall {
                    id: "call_a".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"a.txt"}"#.into()
                },
                AssistantToolCall {
                    id: "call_b".into(),
                    name: "calculate".into(),
                    arguments: r#"{"expression":"1+1"}"#.into()
                },
            ]
        );
        assert!(deltas.contains(&StreamDelta::ToolCallStart {
            index: 1,
            id: "call_b".into(),
            name: "calculate".into()
        }));
        assert_eq!(
            deltas
                .iter()
                .filter(|d| matches!(d, StreamDelta::Text { .. }))
                .count(),
            2
        );
    }

    #[test]
    fn a_stream_without_finish_reason_is_incomplete() {
        let (c, _) = feed(&[r#"{"choices":[{"index":0,"delta":{"content":"half an ans"}}]}"#]);
        assert!(matches!(c, Err(ProviderError::Incomplete(_))));
        let (c, _) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"content":"x"}}]}"#,
            "[DONE]",
        ]);
        assert!(
            matches!(c, Err(ProviderError::Incomplete(_))),
            "[DONE] alone is not a finish"
        );
    }

    #[test]
    fn malformed_chunks_and_error_objects_are_errors() {
        let (c, _) = feed(&[r#"{"choices":[{"index":0,"delta":{"content":"x"}"#]);
        assert!(matches!(c, Err(ProviderError::Malformed(m)) if m.contains("EOF")));
        let (c, _) = feed(&[r#"{"error":{"message":"model overloaded"}}"#]);
        assert_eq!(c, Err(ProviderError::Api("model overloaded".into())));
    }

    #[test]
    fn the_request_carries_system_history_tools_and_results() {
        let req = ChatRequest {
            model: "m".into(),
            system: "sys".into(),
            messages: vec![
                ChatMessage::User {
                    content: "hi".into(),
                },
                ChatMessage::Assistant {
                    content: String::new(),
                    tool_calls: vec![AssistantToolCall {
                        id: "c1".into(),
                        name: "t".into(),
                        arguments: "{}".into(),
                    }],
                },
                ChatMessage::Tool {
                    results: vec![ToolResultMessage {
                        call_id: "c1".into(),
                        name: "t".into(),
                        content: "ok".into(),
                        is_error: false,
                    }],
                },
            ],
            tools: vec![crate::protocol::ToolDefinition {
                name: "t".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            max_tokens: 100,
            temperature: None,
        };
        let body = request_body(&req);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "sys"})
        );
        assert_eq!(body["messages"][2]["content"], Value::Null);
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["name"],
            "t"
        );
        assert_eq!(
            body["messages"][3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "ok"})
        );
        assert_eq!(
            body["tools"][0]["function"]["parameters"],
            json!({"type": "object"})
        );
        assert_eq!(body["stream"], true);
        assert!(body.get("temperature").is_none());
    }
}
