//! Export a chat (F-55) as Markdown for reading and as JSON with every tool call for tools.

use crate::chat::fence::fence;
use crate::chat::history::{payload, AssistantPayload, ToolPayload};
use crate::ids::ChatId;
use crate::protocol::UserPayload;
use crate::protocol::{AskedQuestion, Missing};
use crate::store::{ChatRow, MessageStatus, RecordedCall, Role, Store, StoreError};
use serde_json::{json, Value};

fn pretty_args(raw: &str) -> String {
    serde_json::from_str::<Value>(raw)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| raw.to_string())
}

fn call_markdown(call: &RecordedCall) -> String {
    let tool = call.tool.as_deref().unwrap_or(&call.requested_name);
    let mut head = format!("**Tool call** `{tool}` — {}", call.status);
    if let Some(d) = call.decision.to_db() {
        head.push_str(&format!(" ({d}, by {})", call.decided_by));
    }
    if let Some(ms) = call.duration_ms {
        head.push_str(&format!(" · {ms} ms"));
    }
    let args = call.resolved_args.as_deref().unwrap_or(&call.raw_args);
    let mut out = format!(
        "{head}\n\nArguments:\n\n{}\n\nResult:\n\n{}\n",
        fence(&pretty_args(args), "json"),
        fence(call.result_text.as_deref().unwrap_or(""), "")
    );
    // What the chat's model answered the call's server (F-99), each text under who it speaks as.
    for lent in &call.lent {
        out.push_str(&format!(
            "\nThe server asked the chat's model ({}, {} in · {} out):\n",
            lent.model, lent.input_tokens, lent.output_tokens
        ));
        let asked = lent
            .system
            .iter()
            .map(|s| ("Instructions", s.as_str()))
            .chain(lent.messages.iter().map(|m| match m.role {
                crate::protocol::SampledRole::User => ("The server", m.text.as_str()),
                crate::protocol::SampledRole::Assistant => ("As if the model", m.text.as_str()),
            }))
            .chain([("The model's answer", lent.answer.as_str())]);
        for (who, text) in asked {
            out.push_str(&format!("\n{who}:\n\n{}\n", fence(text, "")));
        }
    }
    for asked in &call.asked {
        out.push_str(&asked_markdown(asked));
    }
    out
}

/// A question the call's server asked the user (F-99), how it ended, and the form's answer.
fn asked_markdown(asked: &AskedQuestion) -> String {
    use crate::protocol::{ElicitationKind, ElicitationOutcome};
    let ended = match (&asked.kind, asked.outcome) {
        (ElicitationKind::Url { .. }, ElicitationOutcome::Accepted) => "opened",
        (_, ElicitationOutcome::Accepted) => "answered",
        (_, ElicitationOutcome::Declined) => "declined",
        (_, ElicitationOutcome::Cancelled) => "cancelled",
        (_, ElicitationOutcome::Withdrawn) => "withdrawn: the call ended first",
    };
    let what = match &asked.kind {
        ElicitationKind::Form { .. } => "to fill in a form",
        ElicitationKind::Url { .. } => "to open a page",
        ElicitationKind::Sampling { .. } => "to use the chat's model",
    };
    // Every text of the server's is fenced: none of it reads as the export's own lines.
    let mut out = format!(
        "\nThe server asked the user {what} ({ended}):\n\n{}\n",
        fence(&asked.message, "")
    );
    if let ElicitationKind::Url { url, .. } = &asked.kind {
        out.push_str(&format!("\nThe page:\n\n{}\n", fence(url, "")));
    }
    if let Some(note) = &asked.note {
        out.push_str(&format!("\n{}\n", fence(note, "")));
    }
    if let Some(answer) = &asked.answer {
        let answer = serde_json::to_string_pretty(answer).unwrap_or_default();
        out.push_str(&format!(
            "\nThe user's answer:\n\n{}\n",
            fence(&answer, "json")
        ));
    }
    out
}

/// The model's reasoning as a quoted "Thinking" block, so it reads apart from the answer.
fn thinking_markdown(reasoning: &str) -> String {
    let quoted: Vec<String> = reasoning
        .trim()
        .lines()
        .map(|l| format!("> {l}").trim_end().to_string())
        .collect();
    format!("> **Thinking**\n>\n{}\n\n", quoted.join("\n"))
}

/// The chat as Markdown: messages in order, each assistant turn followed by its tool calls.
pub async fn markdown(store: &Store, chat: ChatId) -> Result<String, StoreError> {
    let (row, messages, calls) = load(store, chat).await?;
    let title = if row.title.trim().is_empty() {
        "Untitled chat"
    } else {
        row.title.trim()
    };
    let mut out = format!("# {title}\n\n");
    if !row.model.is_empty() {
        out.push_str(&format!("_Model: {}_\n\n", row.model));
    }
    for m in &messages {
        if let Some(i) = m.siblings.iter().position(|&s| s == m.id) {
            out.push_str(&format!("_Version {} of {}_\n\n", i + 1, m.siblings.len()));
        }
        match m.role {
            Role::User => {
                out.push_str(&format!("## You\n\n{}\n\n", m.content.trim()));
                let p: UserPayload = payload(&m.payload);
                if !p.attachments.is_empty() {
                    let names: Vec<String> = p
                        .attachments
                        .iter()
                        .map(|a| format!("`{}`", a.name))
                        .collect();
                    out.push_str(&format!("_Attached: {}_\n\n", names.join(", ")));
                }
            }
            Role::Assistant => {
                let p: AssistantPayload = payload(&m.payload);
                if !p.reasoning.trim().is_empty() {
                    out.push_str(&thinking_markdown(&p.reasoning));
                }
                if !m.content.trim().is_empty() {
                    let note = match m.status {
                        MessageStatus::Stopped => " _(stopped)_",
                        MessageStatus::Error => " _(failed)_",
                        MessageStatus::Interrupted => " _(interrupted)_",
                        MessageStatus::Complete | MessageStatus::Streaming => "",
                    };
                    out.push_str(&format!("## Assistant{note}\n\n{}\n\n", m.content.trim()));
                }
                for call in calls.iter().filter(|c| c.message_id == Some(m.id)) {
                    out.push_str(&call_markdown(call));
                    out.push('\n');
                }
            }
            Role::Tool => {}
        }
    }
    Ok(out)
}

/// The chat as JSON: the chat, every message of every branch (with tool calls, results and
/// its parent) and every recorded call; `leafId` is the end of the branch that was on screen.
pub async fn json(store: &Store, chat: ChatId) -> Result<Value, StoreError> {
    let (row, branch, calls) = load(store, chat).await?;
    let leaf = branch.last().map(|m| m.id);
    let messages: Vec<Value> = store
        .messages().all_chat_messages(chat)
        .await?
        .iter()
        .map(|m| {
            let mut v = json!({"id": m.id, "parentId": m.parent_id, "role": m.role, "content": m.content, "status": m.status, "createdAt": m.created_at});
            match m.role {
                Role::Assistant => {
                    let p: AssistantPayload = payload(&m.payload);
                    v["toolCalls"] = json!(p.tool_calls);
                    if !p.reasoning.is_empty() {
                        v["reasoning"] = json!(p.reasoning);
                    }
                    v["usage"] = m.usage.clone().unwrap_or(Value::Null);
                    if let Some(model) = p.model {
                        v["model"] = json!(model);
                    }
                }
                Role::Tool => {
                    let p: ToolPayload = payload(&m.payload);
                    v["results"] = json!(p.results);
                }
                Role::User => {
                    let p: UserPayload = payload(&m.payload);
                    if !p.attachments.is_empty() {
                        v["attachments"] = json!(p.attachments);
                    }
                }
            }
            v
        })
        .collect();
    Ok(
        json!({"format": "tollgate-chat", "version": 2, "chat": row, "leafId": leaf, "messages": messages, "toolCalls": calls}),
    )
}

async fn load(
    store: &Store,
    chat: ChatId,
) -> Result<(ChatRow, Vec<crate::store::MessageRow>, Vec<RecordedCall>), StoreError> {
    let row = store
        .chat(chat)
        .await?
        .ok_or_else(|| StoreError::NotFound(Missing::Chat { chat }))?;
    Ok((
        row,
        store.branches().chat_messages(chat).await?,
        store.calls().chat_calls(chat).await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_is_quoted_apart_from_the_answer() {
        assert_eq!(
            thinking_markdown("First.\n\nThen.\n"),
            "> **Thinking**\n>\n> First.\n>\n> Then.\n\n"
        );
    }

    #[test]
    fn a_call_says_what_its_server_asked_the_model_and_the_user_and_what_came_back() {
        let call: RecordedCall = serde_json::from_value(serde_json::json!({
            "chat": 1, "messageId": null, "round": 0, "seq": 1, "callId": "c1",
            "requestedName": "era__summarise", "tool": "era__summarise", "group": "era",
            "rawArgs": "{}", "resolvedArgs": null, "policy": null,
            "decision": {"execution": "allow", "result": null}, "decidedBy": "user",
            "status": "success", "resultText": "summary: Short.", "isError": false,
            "truncated": false, "resultVar": null, "argsVar": null, "startedAt": 0,
            "endedAt": 1, "durationMs": 1,
            "lent": [{"model": "m", "system": "One line.",
                      "messages": [{"role": "user", "text": "Summarise"}],
                      "answer": "Short.", "at": 1, "inputTokens": 3, "outputTokens": 2}],
            "asked": [{"id": "q1", "message": "Who?", "kind": {"mode": "form", "schema": {"type": "object"}},
                       "outcome": "accepted", "answer": {"name": "Ada"}, "at": 2},
                      {"id": "q2", "message": "Pay?", "kind": {"mode": "url", "url": "https://pay.example/\n\n![](https://tracker.example/t)",
                       "host": "pay.example"}, "outcome": "declined", "at": 3}]
        }))
        .unwrap();
        let text = call_markdown(&call);
        assert!(
            text.contains(
                "\nThe server asked the chat's model (m, 3 in · 2 out):\n\nInstructions:\n\n```\nOne line.\n```\n\nThe server:\n\n```\nSummarise\n```\n\nThe model's answer:\n\n```\nShort.\n```\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                "\nThe server asked the user to fill in a form (answered):\n\n```\nWho?\n```\n\nThe user's answer:\n\n```json\n{\n  \"name\": \"Ada\"\n}\n```\n\nThe server asked the user to open a page (declined):\n\n```\nPay?\n```\n\nThe page:\n\n```\nhttps://pay.example/\n\n![](https://tracker.example/t)\n```\n"
            ),
            "{text}"
        );
    }
}
