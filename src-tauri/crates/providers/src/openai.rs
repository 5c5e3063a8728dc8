//! OpenAI Chat Completions and every compatible server (F-30): Ollama, LM Studio, llama.cpp,
//! vLLM, OpenRouter, DeepSeek, …
//!
//! Tool calls stream as deltas keyed by `index`: the first delta of a call carries its id and
//! name, the arguments arrive as string fragments. The assembler joins them per index.

use super::http::{self, Endpoint};
use super::think::{Part, ThinkSplitter};
use super::{
    ApiKey, AssistantToolCall, ChatMessage, ChatRequest, Completion, FinishReason, Outgoing,
    Provider, ProviderError, StreamAssembler, StreamDelta,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::{ProviderKind, RequestStyle, ToolCalling, Usage};

/// An OpenAI-compatible server.
#[derive(Debug, Clone, Default)]
pub struct OpenAiProvider {
    /// e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub base_url: String,
    /// Empty for servers without keys (local models).
    pub api_key: ApiKey,
    /// Native tool calls, or calls written as text for models served without them.
    pub tool_calling: ToolCalling,
    /// Which token and sampling parameters requests carry (F-34).
    pub request_style: RequestStyle,
}

/// Whether a model is one of OpenAI's reasoning families, which take `max_completion_tokens`
/// and refuse `temperature`: o1, o3, o4-mini, gpt-5 and their dated or suffixed variants, also
/// behind a router's `openai/` prefix.
pub fn is_reasoning_model(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let family = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.', ':']))
    };
    [
        "o1", "o3", "o4", "o4-mini", "o3-mini", "o1-mini", "o1-pro", "o3-pro",
    ]
    .iter()
    .any(|p| family(p))
        || name.starts_with("gpt-5")
}

/// The request body (F-20): system prompt first, tools only when there are any; the token limit
/// and temperature in the form the model takes (F-34).
pub fn request_body(req: &ChatRequest, style: RequestStyle) -> Value {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        messages.push(json!({"role": "system", "content": req.system}));
    }
    for m in &req.messages {
        match m {
            ChatMessage::User { content, images } if images.is_empty() => {
                messages.push(json!({"role": "user", "content": content}))
            }
            ChatMessage::User { content, images } => {
                // With images the content is a list of parts: the text, then each image as a
                // data URL.
                let mut parts = Vec::with_capacity(images.len() + 1);
                if !content.is_empty() {
                    parts.push(json!({"type": "text", "text": content}));
                }
                parts.extend(images.iter().map(|i| {
                    json!({"type": "image_url", "image_url": {"url": format!("data:{};base64,{}", i.media_type, i.data)}})
                }));
                messages.push(json!({"role": "user", "content": parts}))
            }
            ChatMessage::Assistant {
                content,
                tool_calls,
                ..
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
    });
    let reasoning = match style {
        RequestStyle::Auto => is_reasoning_model(&req.model),
        RequestStyle::Classic => false,
        RequestStyle::Reasoning => true,
    };
    if reasoning {
        body["max_completion_tokens"] = json!(req.max_tokens);
    } else {
        body["max_tokens"] = json!(req.max_tokens);
        if let Some(t) = req.temperature {
            body["temperature"] = json!(t);
        }
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
    /// DeepSeek and compatible servers (vLLM, SGLang, LM Studio).
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    /// OpenRouter and Ollama.
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
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
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's name for cached prompt tokens.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

/// One piece of a streamed tool call: its id and name the first time they come (announced
/// once both may be known), then its arguments fragment by fragment.
fn call_delta(
    calls: &mut BTreeMap<u32, PartialCall>,
    tc: ToolCallDelta<'_>,
    on_delta: &mut (dyn FnMut(StreamDelta) + Send),
) {
    let call = calls.entry(tc.index).or_default();
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

impl ChunkUsage {
    /// The usage the chunk reports, with cache reads as OpenAI or DeepSeek report them.
    fn into_usage(self) -> Usage {
        Usage {
            input_tokens: self.prompt_tokens,
            output_tokens: self.completion_tokens,
            cache_read_tokens: self
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .or(self.prompt_cache_hit_tokens)
                .unwrap_or(0),
            cache_write_tokens: 0,
        }
    }
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
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
    reasoning: String,
    think: ThinkSplitter,
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

/// Adds a split piece of content to the answer or the reasoning, and reports it.
fn take_part(
    part: Part,
    answer: &mut String,
    reasoning: &mut String,
    on_delta: &mut (dyn FnMut(StreamDelta) + Send),
) {
    match part {
        Part::Answer(text) => {
            answer.push_str(&text);
            on_delta(StreamDelta::Text { text });
        }
        Part::Reasoning(text) => {
            reasoning.push_str(&text);
            on_delta(StreamDelta::Reasoning { text });
        }
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
            ProviderError::Malformed(format!(
                "{e} in {}",
                tollgate_protocol::parse::preview(data, 200)
            ))
        })?;
        if let Some(err) = chunk.error {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            return Err(ProviderError::Api(
                tollgate_secrets::redact(&msg).into_owned(),
            ));
        }
        if let Some(u) = chunk.usage {
            self.usage = u.into_usage();
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta
                    .reasoning_content
                    .or(delta.reasoning)
                    .filter(|t| !t.is_empty())
                {
                    self.reasoning.push_str(&text);
                    on_delta(StreamDelta::Reasoning {
                        text: text.into_owned(),
                    });
                }
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    let (answer, reasoning) = (&mut self.text, &mut self.reasoning);
                    self.think.push(&text, &mut |part| {
                        take_part(part, answer, reasoning, on_delta)
                    });
                }
                for tc in delta.tool_calls.unwrap_or_default() {
                    call_delta(&mut self.calls, tc, on_delta);
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(finish_reason(&reason));
                // The content is over: text held back as a possible tag is what it is.
                let (answer, reasoning) = (&mut self.text, &mut self.reasoning);
                self.think
                    .finish(&mut |part| take_part(part, answer, reasoning, on_delta));
            }
        }
        Ok(())
    }

    /// The completion, or an error if the stream never said it was finished.
    fn finish(mut self) -> Result<Completion, ProviderError> {
        let (answer, reasoning) = (&mut self.text, &mut self.reasoning);
        self.think
            .finish(&mut |part| take_part(part, answer, reasoning, &mut |_| {}));
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
            reasoning: self.reasoning,
            thinking: Vec::new(),
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
        request: &Outgoing,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let endpoint = Endpoint::new(&self.base_url, "chat/completions")?;
        let builder = http::client()?
            .post(endpoint.url())
            .headers(self.headers(&endpoint)?)
            .json(&request_body(request, self.request_style));
        http::complete_stream(
            OpenAiStream::default(),
            builder,
            request.idle_timeout,
            on_delta,
            cancel,
        )
        .await
    }

    async fn models(&self) -> Result<Vec<String>, ProviderError> {
        let endpoint = Endpoint::new(&self.base_url, "models")?;
        let headers = self.headers(&endpoint)?;
        http::list_model_ids(http::client()?.get(endpoint.url()).headers(headers)).await
    }
}

impl OpenAiProvider {
    /// The request's headers: the key, where it may go (`Endpoint::check_credential`).
    fn headers(&self, endpoint: &Endpoint) -> Result<reqwest::header::HeaderMap, ProviderError> {
        let mut h = reqwest::header::HeaderMap::new();
        if !self.api_key.is_empty() {
            endpoint.check_credential()?;
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
    use crate::ToolResultMessage;

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
                output_tokens: 34,
                ..Usage::default()
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
                    images: Vec::new(),
                },
                ChatMessage::Assistant {
                    content: String::new(),
                    tool_calls: vec![AssistantToolCall {
                        id: "c1".into(),
                        name: "t".into(),
                        arguments: "{}".into(),
                    }],
                    thinking: Vec::new(),
                },
                ChatMessage::Tool {
                    results: vec![ToolResultMessage {
                        call_id: "c1".into(),
                        name: "t".into(),
                        content: "ok".into(),
                        is_error: false,
                        sources: Vec::new(),
                    }],
                },
            ],
            tools: vec![tollgate_protocol::ToolDefinition {
                name: "t".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            max_tokens: 100,
            temperature: None,
            ..Default::default()
        };
        let body = request_body(&req, Default::default());
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

    /// A key is never sent over plain http to another machine: the call is refused before
    /// anything leaves (192.0.2.1 is a documentation address nothing answers on).
    #[tokio::test]
    async fn a_key_is_not_sent_over_plain_http_to_another_machine() {
        let provider = OpenAiProvider {
            base_url: "http://192.0.2.1/v1".into(),
            api_key: "sk-test-never-sent".into(),
            ..OpenAiProvider::default()
        };
        let err = provider.models().await.unwrap_err();
        assert!(matches!(err, ProviderError::Config(_)), "{err}");
        assert!(err.to_string().contains("https://"), "{err}");
    }

    #[test]
    fn reasoning_models_get_max_completion_tokens_and_no_temperature() {
        for model in [
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "gpt-5",
            "gpt-5-mini",
            "openai/o3",
            "O1-preview",
        ] {
            assert!(is_reasoning_model(model), "{model}");
        }
        for model in [
            "gpt-4o",
            "gpt-4.1-mini",
            "o",
            "oss-20b",
            "llama3.1",
            "deepseek-r1",
            "o1x",
        ] {
            assert!(!is_reasoning_model(model), "{model}");
        }
        let req = |model: &str| ChatRequest {
            model: model.into(),
            max_tokens: 500,
            temperature: Some(0.7),
            ..Default::default()
        };
        let body = request_body(&req("gpt-5-mini"), RequestStyle::Auto);
        assert_eq!(body["max_completion_tokens"], 500);
        assert!(body.get("max_tokens").is_none() && body.get("temperature").is_none());
        let body = request_body(&req("gpt-4o"), RequestStyle::Auto);
        assert_eq!(body["max_tokens"], 500);
        assert_eq!(body["temperature"], json!(0.7f32));
        let pinned = request_body(&req("my-finetune"), RequestStyle::Reasoning);
        assert_eq!(pinned["max_completion_tokens"], 500);
        let classic = request_body(&req("o3"), RequestStyle::Classic);
        assert_eq!(
            classic["max_tokens"], 500,
            "a provider can pin the classic form"
        );
    }

    #[test]
    fn reasoning_fields_and_think_tags_are_reasoning_not_answer() {
        let (c, deltas) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Deep "}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning":"thought."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Answer."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":8}}}"#,
            "[DONE]",
        ]);
        let c = c.unwrap();
        assert_eq!(
            (c.text.as_str(), c.reasoning.as_str()),
            ("Answer.", "Deep thought.")
        );
        assert_eq!(c.usage.cache_read_tokens, 8);
        assert_eq!(
            deltas
                .iter()
                .filter(|d| matches!(d, StreamDelta::Reasoning { .. }))
                .count(),
            2
        );
        let (c, deltas) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"content":"<thi"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"nk>Let me see</th"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"ink>\n\nIt is 4."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ]);
        let c = c.unwrap();
        assert_eq!(
            (c.text.as_str(), c.reasoning.as_str()),
            ("It is 4.", "Let me see")
        );
        let shown: String = deltas
            .iter()
            .filter_map(|d| match d {
                StreamDelta::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            shown, "It is 4.",
            "the window never sees the tags as answer text"
        );
        let (c, deltas) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"content":"<th"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ]);
        assert_eq!(c.unwrap().text, "<th");
        assert_eq!(
            deltas,
            vec![StreamDelta::Text { text: "<th".into() }],
            "text held back as a possible tag is shown when the answer ends"
        );
    }
}
