//! OpenAI Chat Completions streaming, as the API sends it: one `data: {chunk}` frame per delta,
//! tool-call arguments in fragments keyed by index, a finish chunk, a usage chunk, `data: [DONE]`.

use crate::{pieces, Reply};
use serde_json::{json, Value};

fn frame(chunk: Value) -> String {
    format!("data: {chunk}\n\n")
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "mock-large",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
    })
}

/// A tool call to stream: id, name, arguments text (sent in fragments, possibly invalid JSON).
pub type Call<'a> = (&'a str, &'a str, &'a str);

/// Frames for text and tool calls.
pub fn frames(text: &str, calls: &[Call<'_>]) -> Vec<String> {
    frames_in(text, 4, calls)
}

/// Frames for text streamed `chars` characters a chunk, and tool calls.
pub fn frames_in(text: &str, chars: usize, calls: &[Call<'_>]) -> Vec<String> {
    let mut out = vec![frame(chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    ))];
    for p in pieces(text, chars) {
        out.push(frame(chunk(json!({"content": p}), None)));
    }
    for (i, (id, name, args)) in calls.iter().enumerate() {
        out.push(frame(chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        )));
        for p in pieces(args, 7) {
            out.push(frame(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": p}}]}),
                None,
            )));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out.push(frame(chunk(json!({}), Some(finish))));
    out.push(frame(json!({
        "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "mock-large",
        "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    })));
    out.push("data: [DONE]\n\n".to_string());
    out
}

/// A streamed text answer.
pub fn text(text: &str) -> Reply {
    Reply::sse(frames(text, &[]))
}

/// A streamed text answer, `chars` characters a chunk (a long answer in as many chunks as a
/// model would send).
pub fn text_in(text: &str, chars: usize) -> Reply {
    Reply::sse(frames_in(text, chars, &[]))
}

/// A streamed answer with tool calls (and optional text before them).
pub fn calls(text: &str, calls: &[Call<'_>]) -> Reply {
    Reply::sse(frames(text, calls))
}

/// The contents of the tool results in a Chat Completions request `body`, in order: what the
/// model was told its calls came to.
pub fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| m["content"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}
