//! The secrets' door's price (the target: ≤ 2 ms added to a request of 100 tools and
//! 1,000 messages): sealing such a request the first time (a door that has seen nothing), and
//! the next round's request — the same conversation with one more result — through the door
//! that let the first through, as every round after a turn's first is sealed; and the first
//! request of a chat whose history was made ready when it was opened.
#![allow(clippy::expect_used)] // benchmark set-up: a failure should stop the run

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;
use tollgate_protocol::ToolDefinition;
use tollgate_providers::{
    AssistantToolCall, ChatMessage, ChatRequest, Outgoing, ToolResultMessage,
};
use tollgate_secrets::door::SecretDoor;

/// 100 tools and 1,000 messages of ordinary length: questions, answers with a call, results of
/// about a kilobyte (listings, code, a base64 blob now and then).
fn conversation() -> ChatRequest {
    let tools = (0..100)
        .map(|i| ToolDefinition {
            name: format!("server{}__tool_{i}", i % 7),
            description: format!("Does thing {i} with the given path and options; returns text. ")
                .repeat(3),
            parameters: json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "A path inside the workspace."},
                "limit": {"type": "integer"}
            }}),
        })
        .collect();
    let mut messages = Vec::new();
    for i in 0..250 {
        messages.push(ChatMessage::User {
            content: format!("Please look at file {i} and tell me what it does."),
            images: Vec::new(),
        });
        messages.push(ChatMessage::Assistant {
            content: "Let me read it.".into(),
            tool_calls: vec![AssistantToolCall {
                id: format!("c{i}"),
                name: "read_file".into(),
                arguments: format!(r#"{{"path":"src/file{i}.rs"}}"#),
            }],
            thinking: Vec::new(),
        });
        messages.push(result(i));
        messages.push(ChatMessage::Assistant {
            content: format!("File {i} parses the configuration and returns its fields. ")
                .repeat(4),
            tool_calls: Vec::new(),
            thinking: Vec::new(),
        });
    }
    ChatRequest {
        model: "m".into(),
        system: "You are a careful assistant. ".repeat(40),
        tools,
        messages,
        ..Default::default()
    }
}

fn result(i: usize) -> ChatMessage {
    let body = if i.is_multiple_of(10) {
        // A blob that looks encoded, decoded every way by the door.
        let bytes: Vec<u8> = (0..700).map(|b| (b * 31 + i) as u8).collect();
        base64_of(&bytes)
    } else {
        format!("fn parse_{i}(input: &str) -> Config {{\n    let mut fields = Vec::new();\n    for line in input.lines() {{ fields.push(line.trim()); }}\n}}\n").repeat(5)
    };
    ChatMessage::Tool {
        results: vec![ToolResultMessage {
            call_id: format!("c{i}"),
            name: "read_file".into(),
            content: body,
            is_error: false,
            sources: Vec::new(),
        }],
    }
}

fn base64_of(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    bytes
        .chunks(3)
        .flat_map(|c| {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            (0..4).map(move |k| char::from(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize]))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    // The secrets a user has: two provider keys and an MCP server's token.
    for key in [
        "sk-proj-Tq8vN3pL0wXy7RbT4mKd9sHc2JfGuE6aQe",
        "sk-ant-api03-Zq8vN3pL0wXy7RbT4mKd9sHc2JfGuE6aQeLp",
        "ghp_Wm4kR8tY2pL6vN0qX3zB7cJ5hF9dS1aG",
    ] {
        tollgate_secrets::remember(key);
    }
    let request = conversation();
    let mut next = request.clone();
    next.messages.push(result(999));
    let mut group = c.benchmark_group("secrets' door");
    group.bench_function("seal 100 tools + 1,000 messages, first round", |b| {
        b.iter(|| {
            let mut door = SecretDoor::new();
            black_box(Outgoing::seal(request.clone(), &mut door))
        })
    });
    let prepared = Outgoing::prepare(request.messages.clone(), &request.tools);
    group.bench_function(
        "seal 100 tools + 1,000 messages, first round, the chat made ready when opened",
        |b| {
            b.iter_batched(
                || {
                    let mut door = SecretDoor::new();
                    door.take(prepared.clone());
                    (door, request.clone())
                },
                |(mut door, request)| black_box(Outgoing::seal(request, &mut door)),
                criterion::BatchSize::SmallInput,
            )
        },
    );
    group.bench_function("make the chat ready (off the request's path)", |b| {
        b.iter(|| black_box(Outgoing::prepare(request.messages.clone(), &request.tools)))
    });
    group.bench_function("seal the next round (one new result)", |b| {
        let mut door = SecretDoor::new();
        let _ = Outgoing::seal(request.clone(), &mut door);
        b.iter(|| black_box(Outgoing::seal(next.clone(), &mut door)))
    });
    group.bench_function(
        "clone the request (what sending costs without the door)",
        |b| b.iter(|| black_box(next.clone())),
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
