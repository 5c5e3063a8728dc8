//! The tests of `anthropic.rs`, kept beside it.

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
    let (c, _) =
        feed(&[r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#]);
    assert!(matches!(&c, Err(e @ ProviderError::Http { status: 529, .. }) if e.is_retryable()));
    let (c, _) =
        feed(&[r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"#]);
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
