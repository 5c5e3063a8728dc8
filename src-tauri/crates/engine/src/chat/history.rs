//! The conversation as the provider sees it, rebuilt from the stored messages.
//!
//! Stored messages may be incomplete (a crash, a provider error): failed assistant attempts are
//! left out so Retry regenerates them, and a tool call without results gets an explicit "not
//! executed" result so every provider accepts the history.

use crate::providers::{AssistantToolCall, ChatMessage, ThinkingBlock, ToolResultMessage};
use crate::store::{MessageRow, MessageStatus, Role};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The payload of an assistant message.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AssistantPayload {
    pub tool_calls: Vec<AssistantToolCall>,
    /// The model's reasoning, shown in the answer's "Thinking" section (F-29).
    #[serde(skip_serializing_if = "String::is_empty")]
    #[ts(as = "Option<String>", optional)]
    pub reasoning: String,
    /// Anthropic thinking blocks, sent back unchanged in the turn's later rounds (F-29).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<ThinkingBlock>>", optional)]
    pub thinking: Vec<ThinkingBlock>,
    /// Set while the answer's stream is being tried again: the broken attempt's text was
    /// dropped, and this says why and which retry is under way (F-26).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub retry: Option<RetryNotice>,
    /// The model that wrote this answer (versions of an answer may come from different ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    /// Why the turn failed on this message, so a reopened chat still says why and offers Retry.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub failure: Option<TurnFailure>,
    /// Where the answer came from when another model wrote it elsewhere: an imported chat
    /// (F-80).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<crate::protocol::Source>>")]
    pub sources: Vec<crate::protocol::Source>,
}

/// A failed turn, as stored with its last message.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnFailure {
    pub message: String,
    /// What kind of failure (none in answers saved before kinds were kept).
    #[serde(default)]
    pub kind: Option<crate::protocol::FailureKind>,
    pub retryable: bool,
}

/// A broken stream being tried again, as stored with its answer while the retry runs.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryNotice {
    /// Which retry this is (1-based), of `max_retries`.
    pub attempt: u32,
    pub max_retries: u32,
    /// What broke the previous attempt.
    pub error: String,
}

/// The payload of a tool message.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolPayload {
    pub results: Vec<ToolResultMessage>,
}

/// The result given for a call whose result was never stored.
pub const NOT_EXECUTED: &str = "Not executed: the turn ended before this call ran.";

/// A tool message's payload with `late` (a call that went on after its turn, F-99) in place of
/// what its call's result said before. A payload that does not read as a tool message's is left
/// as it is (the message's other results are never lost).
pub fn with_result_in_place(
    stored: Option<&Value>,
    late: &crate::executor::ToolCallResult,
) -> Option<Value> {
    let Some(Ok(mut p)) = stored.map(|v| serde_json::from_value::<ToolPayload>(v.clone())) else {
        return stored.cloned();
    };
    for r in p.results.iter_mut().filter(|r| r.call_id == late.call_id) {
        r.content = late.content.clone();
        r.is_error = late.is_error;
        r.sources = late.sources.clone();
    }
    serde_json::to_value(p).ok()
}

/// A stored payload as `T`; a missing or unreadable one (an older version's row) is the default.
pub fn payload<T: serde::de::DeserializeOwned + Default>(v: &Option<Value>) -> T {
    v.as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// Rebuilds the provider-neutral history from stored messages.
pub fn from_rows(rows: &[MessageRow]) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(rows.len());
    for row in rows {
        match row.role {
            Role::User => {
                let p: super::attachments::UserPayload = payload(&row.payload);
                out.push(super::attachments::user_message(
                    &row.content,
                    &p.attachments,
                ));
            }
            Role::Assistant => {
                let p: AssistantPayload = payload(&row.payload);
                let failed = matches!(
                    row.status,
                    MessageStatus::Error | MessageStatus::Interrupted | MessageStatus::Streaming
                );
                if failed && p.tool_calls.is_empty() {
                    continue;
                }
                if row.content.trim().is_empty() && p.tool_calls.is_empty() {
                    continue;
                }
                out.push(ChatMessage::Assistant {
                    content: row.content.clone(),
                    tool_calls: p.tool_calls,
                    thinking: p.thinking,
                });
            }
            Role::Tool => {
                let p: ToolPayload = payload(&row.payload);
                out.push(ChatMessage::Tool { results: p.results });
            }
        }
    }
    repair(out)
}

/// Makes every assistant tool call be answered by exactly one result in the next message.
fn repair(messages: Vec<ChatMessage>) -> Vec<ChatMessage> {
    let mut out = Vec::with_capacity(messages.len());
    let mut iter = messages.into_iter().peekable();
    while let Some(m) = iter.next() {
        match m {
            ChatMessage::Assistant {
                content,
                tool_calls,
                thinking,
            } if !tool_calls.is_empty() => {
                let given: Vec<ToolResultMessage> = match iter.peek() {
                    Some(ChatMessage::Tool { .. }) => match iter.next() {
                        Some(ChatMessage::Tool { results }) => results,
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                let results = tool_calls
                    .iter()
                    .map(|c| {
                        given
                            .iter()
                            .find(|r| r.call_id == c.id)
                            .cloned()
                            .unwrap_or_else(|| ToolResultMessage {
                                call_id: c.id.clone(),
                                name: c.name.clone(),
                                content: NOT_EXECUTED.into(),
                                is_error: true,
                                sources: Vec::new(),
                            })
                    })
                    .collect();
                out.push(ChatMessage::Assistant {
                    content,
                    tool_calls,
                    thinking,
                });
                out.push(ChatMessage::Tool { results });
            }
            // Results with no calls before them cannot be sent.
            ChatMessage::Tool { .. } => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ChatId;
    use serde_json::json;

    fn row(role: Role, content: &str, status: MessageStatus, payload: Option<Value>) -> MessageRow {
        MessageRow {
            id: 0,
            chat: ChatId(1),
            role,
            content: content.into(),
            status,
            payload,
            usage: None,
            created_at: 0,
            parent_id: None,
            siblings: Vec::new(),
        }
    }

    #[test]
    fn failed_attempts_are_dropped_and_missing_results_filled_in() {
        let call = json!({"toolCalls": [{"id": "c1", "name": "t", "arguments": "{}"}, {"id": "c2", "name": "u", "arguments": "{}"}]});
        let rows = vec![
            row(Role::User, "q", MessageStatus::Complete, None),
            row(Role::Assistant, "half", MessageStatus::Error, None),
            row(
                Role::Assistant,
                "calling",
                MessageStatus::Complete,
                Some(call),
            ),
            row(
                Role::Tool,
                "",
                MessageStatus::Complete,
                Some(
                    json!({"results": [{"callId": "c1", "name": "t", "content": "ok", "isError": false}]}),
                ),
            ),
            row(
                Role::Assistant,
                "stopped answ",
                MessageStatus::Stopped,
                None,
            ),
            row(Role::User, "again", MessageStatus::Complete, None),
        ];
        let h = from_rows(&rows);
        assert_eq!(h.len(), 5);
        let ChatMessage::Tool { results } = &h[2] else {
            panic!("{h:?}")
        };
        assert_eq!(results.len(), 2);
        assert_eq!(results[0].content, "ok");
        assert_eq!(results[1].content, NOT_EXECUTED);
        assert!(results[1].is_error);
        assert_eq!(
            h[3],
            ChatMessage::Assistant {
                content: "stopped answ".into(),
                tool_calls: vec![],
                thinking: vec![],
            }
        );
    }
}
