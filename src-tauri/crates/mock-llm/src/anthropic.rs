//! Anthropic Messages streaming, as the API sends it: named events (`message_start`,
//! `content_block_start`, `content_block_delta` with `text_delta` / `input_json_delta`,
//! `content_block_stop`, `message_delta`, `message_stop`) with a `ping` among them.

use crate::{pieces, Reply};
use serde_json::{json, Value};

fn frame(event: &str, data: Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// A tool use to stream: id, name, input JSON text (sent in fragments).
pub type Call<'a> = (&'a str, &'a str, &'a str);

/// Frames for text and tool uses.
pub fn frames(text: &str, calls: &[Call<'_>]) -> Vec<String> {
    let mut out = vec![
        frame(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message", "role": "assistant", "content": [],
                "model": "mock-claude", "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 21, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        ),
        frame("ping", json!({"type": "ping"})),
    ];
    let mut index = 0;
    if !text.is_empty() {
        out.push(frame("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
        for p in pieces(text, 4) {
            out.push(frame("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}})));
        }
        out.push(frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for (id, name, input) in calls {
        out.push(frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        ));
        out.push(frame("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": ""}})));
        for p in pieces(input, 6) {
            out.push(frame("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}})));
        }
        out.push(frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    out.push(frame("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 9}})));
    out.push(frame("message_stop", json!({"type": "message_stop"})));
    out
}

/// A streamed text answer.
pub fn text(text: &str) -> Reply {
    Reply::sse(frames(text, &[]))
}

/// A streamed answer with tool uses.
pub fn calls(text: &str, calls: &[Call<'_>]) -> Reply {
    Reply::sse(frames(text, calls))
}
