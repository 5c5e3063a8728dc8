//! Reading chats to import (F-62): Tollgate's own JSON export (every branch and every recorded
//! tool call come back) and ChatGPT's `conversations.json` (each conversation with its
//! branches; text only: tool traffic and hidden messages are left out, images are named).

use crate::chat::history::{AssistantPayload, ToolPayload};
use crate::providers::{AssistantToolCall, ToolResultMessage};
use crate::store::{
    ChatRow, ImportedChat, ImportedMessage, MessageStatus, RecordStatus, RecordedCall, Role,
};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use thiserror::Error;

/// What an imported call that went on as its server's task says (F-99): its result stayed
/// where the chat was exported.
const TASK_LEFT_BEHIND: &str = "This call went on as a task on its server where the chat was exported; its result is not in this copy.";

/// Why a file cannot be imported.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ImportError {
    #[error("the file is not JSON: {0}")]
    NotJson(String),
    #[error("the file is neither a Tollgate chat export nor a ChatGPT conversations.json")]
    UnknownFormat,
    #[error("the Tollgate export is version {0}, newer than this Tollgate reads (2)")]
    TooNew(u64),
    #[error("the file has the right shape but unreadable content: {0}")]
    Invalid(String),
    #[error("the file holds no conversation to import")]
    Empty,
}

/// The chats in `bytes`, ready to be written.
pub fn parse(bytes: &[u8]) -> Result<Vec<ImportedChat>, ImportError> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| ImportError::NotJson(e.to_string()))?;
    let chats = if value.get("format").and_then(Value::as_str) == Some("tollgate-chat") {
        vec![tollgate(value)?]
    } else if is_chatgpt(&value) {
        chatgpt(&value)
    } else {
        return Err(ImportError::UnknownFormat);
    };
    if chats.iter().all(|c| c.messages.is_empty()) {
        return Err(ImportError::Empty);
    }
    let mut chats = chats;
    for chat in &mut chats {
        mark_imported(chat);
    }
    Ok(chats
        .into_iter()
        .filter(|c| !c.messages.is_empty())
        .collect())
}

/// Marks every message of an imported chat as coming from the import (F-80): what another
/// model wrote elsewhere, or a file someone sent, can carry instructions like a web page can.
fn mark_imported(chat: &mut ImportedChat) {
    let title = if chat.title.trim().is_empty() {
        "an imported chat".to_string()
    } else {
        chat.title.clone()
    };
    let Ok(sources) = serde_json::to_value(vec![crate::protocol::Source::Import { title }]) else {
        return;
    };
    for m in &mut chat.messages {
        let payload = m
            .payload
            .get_or_insert_with(|| Value::Object(serde_json::Map::new()));
        let Some(object) = payload.as_object_mut() else {
            continue;
        };
        match m.role {
            Role::Tool => {
                let results = object.get_mut("results").and_then(Value::as_array_mut);
                for result in results.into_iter().flatten() {
                    if let Some(result) = result.as_object_mut() {
                        result.insert("sources".into(), sources.clone());
                    }
                }
            }
            Role::User | Role::Assistant => {
                object.insert("sources".into(), sources.clone());
            }
        }
    }
}

// ---- Tollgate's own export ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TollgateExport {
    version: u64,
    chat: ChatRow,
    #[serde(default)]
    leaf_id: Option<i64>,
    messages: Vec<TollgateMessage>,
    #[serde(default)]
    tool_calls: Vec<RecordedCall>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TollgateMessage {
    id: i64,
    /// Absent in version 1 (one line of messages).
    #[serde(default)]
    parent_id: Option<i64>,
    role: Role,
    #[serde(default)]
    content: String,
    status: MessageStatus,
    #[serde(default)]
    created_at: i64,
    #[serde(default)]
    tool_calls: Vec<AssistantToolCall>,
    #[serde(default)]
    reasoning: String,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    results: Vec<ToolResultMessage>,
    #[serde(default)]
    attachments: Vec<crate::protocol::Attachment>,
}

fn tollgate(value: Value) -> Result<ImportedChat, ImportError> {
    let version = value.get("version").and_then(Value::as_u64).unwrap_or(1);
    if version > 2 {
        return Err(ImportError::TooNew(version));
    }
    let export: TollgateExport =
        serde_json::from_value(value).map_err(|e| ImportError::Invalid(e.to_string()))?;
    let linear = export.version < 2;
    // The calls going on as tasks where the chat was exported: nobody follows them here, and
    // the model is told so where it was told their result would come.
    let going_on: HashSet<String> = export
        .tool_calls
        .iter()
        .filter(|c| c.status == RecordStatus::InBackground)
        .map(|c| c.call_id.clone())
        .collect();
    let mut previous = None;
    let mut messages = Vec::with_capacity(export.messages.len());
    for m in export.messages {
        let parent = if linear { previous } else { m.parent_id };
        previous = Some(m.id);
        let payload = match m.role {
            Role::Assistant => serde_json::to_value(AssistantPayload {
                tool_calls: m.tool_calls,
                reasoning: m.reasoning,
                model: m.model,
                ..Default::default()
            })
            .ok(),
            Role::Tool => {
                let mut results = m.results;
                for r in results.iter_mut().filter(|r| going_on.contains(&r.call_id)) {
                    r.content = TASK_LEFT_BEHIND.into();
                    r.is_error = true;
                }
                serde_json::to_value(ToolPayload { results }).ok()
            }
            // Files are checked again before they are stored, as if just attached.
            Role::User if m.attachments.is_empty() => None,
            Role::User => {
                let attachments = crate::chat::attachments::check(m.attachments)
                    .map_err(|e| ImportError::Invalid(format!("message {}: {e}", m.id)))?;
                serde_json::to_value(crate::protocol::UserPayload {
                    attachments,
                    sources: Vec::new(),
                })
                .ok()
            }
        };
        messages.push(ImportedMessage {
            key: m.id,
            parent,
            role: m.role,
            content: m.content,
            status: m.status,
            payload,
            usage: m.usage.filter(|u| !u.is_null()),
            created_at: m.created_at,
        });
    }
    let calls = export
        .tool_calls
        .into_iter()
        .map(|mut c| {
            // A call that was running, or going on as a task on the exporting machine, is
            // followed by nobody here.
            if c.status == RecordStatus::InBackground {
                c.result_text = Some(TASK_LEFT_BEHIND.into());
                c.is_error = true;
            }
            if matches!(c.status, RecordStatus::Running | RecordStatus::InBackground) {
                c.status = RecordStatus::Cancelled;
            }
            c.result_images = checked_result_images(std::mem::take(&mut c.result_images));
            // What a file says about a sandbox is not this machine's word: a planted "blocked"
            // line must not offer an unsandboxed run (F-46).
            c.sandbox = None;
            c
        })
        .collect();
    let chat = export.chat;
    Ok(ImportedChat {
        title: chat.title,
        model: chat.model,
        system_prompt: chat.system_prompt,
        params: chat.params,
        created_at: chat.created_at,
        updated_at: chat.updated_at,
        messages,
        leaf: export.leaf_id,
        calls,
    })
}

/// A recorded call's images from a file, kept only when they are images by their bytes (the
/// format taken from them), and no more than a tool result may show. Resource links are not
/// kept: an imported chat's servers are not this machine's.
fn checked_result_images(
    images: Vec<crate::protocol::Attachment>,
) -> Vec<crate::protocol::Attachment> {
    images
        .into_iter()
        .filter(|a| a.kind == crate::protocol::AttachmentKind::Image)
        .filter_map(|mut a| {
            let image = crate::images::check_base64(&a.data).ok()?;
            a.media_type = image.media_type.to_string();
            Some(a)
        })
        .take(crate::mcp::MAX_RESULT_IMAGES)
        .collect()
}

// ---- ChatGPT's conversations.json ----

fn is_chatgpt(value: &Value) -> bool {
    let one = |c: &Value| c.get("mapping").is_some_and(Value::is_object);
    match value {
        Value::Array(items) => !items.is_empty() && items.iter().all(one),
        other => one(other),
    }
}

fn chatgpt(value: &Value) -> Vec<ImportedChat> {
    match value {
        Value::Array(items) => items.iter().map(conversation).collect(),
        one => vec![conversation(one)],
    }
}

fn millis(v: Option<&Value>) -> i64 {
    // Seconds as a float; an absent or absurd time reads as 0.
    v.and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e11)
        .map_or(0, |s| (s * 1000.0) as i64)
}

/// The text of a ChatGPT message a reader would see, or `None` for what is not conversation.
fn visible_text(message: &Value) -> Option<(Role, String)> {
    let role = match message.pointer("/author/role").and_then(Value::as_str)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    let hidden = message
        .pointer("/metadata/is_visually_hidden_from_conversation")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    // An assistant message addressed to a tool (`recipient` other than "all") is tool traffic.
    let to_tool = message
        .get("recipient")
        .and_then(Value::as_str)
        .is_some_and(|r| r != "all");
    if hidden || to_tool {
        return None;
    }
    let content = message.get("content")?;
    let text = match content.get("content_type").and_then(Value::as_str) {
        Some("text" | "multimodal_text") => content
            .get("parts")
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|p| match p {
                        Value::String(s) => Some(s.clone()),
                        Value::Object(o)
                            if o.get("content_type").and_then(Value::as_str)
                                == Some("image_asset_pointer") =>
                        {
                            Some("[image]".to_string())
                        }
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default(),
        Some("code") => {
            let code = content
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            format!("```\n{code}\n```")
        }
        _ => return None,
    };
    (!text.trim().is_empty()).then_some((role, text))
}

/// The ids of a ChatGPT export's `mapping`, parents before children: breadth first from the
/// roots (nodes whose parent is missing), each node once however the children lists repeat it.
fn parents_first(mapping: &serde_json::Map<String, Value>) -> Vec<&str> {
    let parent_of = |id: &str| {
        mapping
            .get(id)
            .and_then(|n| n.get("parent"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut order: Vec<&str> = Vec::with_capacity(mapping.len());
    let mut queue: VecDeque<&str> = mapping
        .keys()
        .filter(|id| parent_of(id).is_none_or(|p| !mapping.contains_key(&p)))
        .map(String::as_str)
        .collect();
    let mut seen: HashSet<&str> = queue.iter().copied().collect();
    while let Some(id) = queue.pop_front() {
        order.push(id);
        let children = mapping
            .get(id)
            .and_then(|n| n.get("children"))
            .and_then(Value::as_array);
        for child in children.into_iter().flatten().filter_map(Value::as_str) {
            if mapping.contains_key(child) && seen.insert(child) {
                queue.push_back(child);
            }
        }
    }
    order
}

fn conversation(c: &Value) -> ImportedChat {
    let empty = serde_json::Map::new();
    let mapping = c
        .get("mapping")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let order = parents_first(mapping);
    // Keep what a reader sees; a kept message hangs under its nearest kept ancestor.
    let mut keys: HashMap<&str, i64> = HashMap::new();
    let mut kept_parent: HashMap<&str, Option<i64>> = HashMap::new();
    let mut messages = Vec::new();
    for id in order {
        let node = &mapping[id];
        let inherited = node.get("parent").and_then(Value::as_str).and_then(|p| {
            keys.get(p)
                .copied()
                .or_else(|| kept_parent.get(p).copied().flatten())
        });
        let message = node.get("message").filter(|m| m.is_object());
        match message.and_then(visible_text) {
            Some((role, content)) => {
                let key = i64::try_from(messages.len()).unwrap_or(i64::MAX);
                let model = message
                    .and_then(|m| m.pointer("/metadata/model_slug"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let payload = (role == Role::Assistant)
                    .then(|| {
                        serde_json::to_value(AssistantPayload {
                            model,
                            ..Default::default()
                        })
                        .ok()
                    })
                    .flatten();
                messages.push(ImportedMessage {
                    key,
                    parent: inherited,
                    role,
                    content,
                    status: MessageStatus::Complete,
                    payload,
                    usage: None,
                    created_at: millis(message.and_then(|m| m.get("create_time"))),
                });
                keys.insert(id, key);
            }
            None => {
                kept_parent.insert(id, inherited);
            }
        }
    }
    let leaf = c
        .get("current_node")
        .and_then(Value::as_str)
        .and_then(|id| {
            keys.get(id)
                .copied()
                .or_else(|| kept_parent.get(id).copied().flatten())
        });
    let title = c
        .get("title")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or("Imported from ChatGPT")
        .to_string();
    let created_at = millis(c.get("create_time"));
    ImportedChat {
        title,
        created_at,
        updated_at: millis(c.get("update_time")).max(created_at),
        messages,
        leaf,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(id: &str, parent: Option<&str>, children: &[&str], message: Value) -> (String, Value) {
        (
            id.to_string(),
            json!({"id": id, "parent": parent, "children": children, "message": message}),
        )
    }

    fn said(role: &str, text: &str) -> Value {
        json!({"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}, "recipient": "all", "create_time": 1_700_000_000.5})
    }

    #[test]
    fn a_chatgpt_conversation_keeps_its_branches_and_leaves_out_what_is_not_conversation() {
        let mapping: serde_json::Map<String, Value> = [
            node("root", None, &["sys"], Value::Null),
            node("sys", Some("root"), &["u1"], json!({"author": {"role": "system"}, "content": {"content_type": "text", "parts": [""]}, "metadata": {"is_visually_hidden_from_conversation": true}})),
            node("u1", Some("sys"), &["a1", "a1b"], said("user", "Plan a trip")),
            node("a1", Some("u1"), &[], said("assistant", "Go to Rome")),
            node("a1b", Some("u1"), &["tool"], json!({"author": {"role": "assistant"}, "content": {"content_type": "code", "text": "search('Paris')"}, "recipient": "browser"})),
            node("tool", Some("a1b"), &["a2"], json!({"author": {"role": "tool"}, "content": {"content_type": "text", "parts": ["results"]}})),
            node("a2", Some("tool"), &[], json!({"author": {"role": "assistant"}, "content": {"content_type": "multimodal_text", "parts": ["Go to Paris", {"content_type": "image_asset_pointer"}]}, "recipient": "all", "metadata": {"model_slug": "gpt-4o"}})),
        ]
        .into_iter()
        .collect();
        let file = json!([{"title": "Trip", "create_time": 1_700_000_000.0, "update_time": 1_700_000_100.0, "mapping": mapping, "current_node": "a2"}]);
        let chats = parse(file.to_string().as_bytes()).unwrap();
        assert_eq!(chats.len(), 1);
        let chat = &chats[0];
        assert_eq!(chat.title, "Trip");
        assert_eq!(chat.created_at, 1_700_000_000_000);
        let shown: Vec<(&str, Option<i64>)> = chat
            .messages
            .iter()
            .map(|m| (m.content.as_str(), m.parent))
            .collect();
        // Both answers hang under the question; the tool call and result are left out.
        assert_eq!(
            shown,
            [
                ("Plan a trip", None),
                ("Go to Rome", Some(0)),
                ("Go to Paris\n[image]", Some(0))
            ]
        );
        assert_eq!(chat.leaf, Some(2));
        assert_eq!(
            chat.messages[2].payload.as_ref().unwrap()["model"],
            "gpt-4o"
        );
    }

    #[test]
    fn a_calls_images_from_a_file_are_kept_only_when_their_bytes_are_images() {
        use crate::protocol::{Attachment, AttachmentKind};
        let dot = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
        let file = |kind, media: &str, data: &str| Attachment {
            name: "image 1".into(),
            kind,
            media_type: media.into(),
            data: data.into(),
            source: None,
        };
        let mut images = vec![
            file(AttachmentKind::Image, "image/jpeg", dot),
            // An SVG can carry script; a "text" image is not an image at all.
            file(
                AttachmentKind::Image,
                "image/svg+xml",
                "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+",
            ),
            file(AttachmentKind::Text, "image/png", dot),
        ];
        images.extend(std::iter::repeat_n(
            file(AttachmentKind::Image, "image/png", dot),
            20,
        ));
        let kept = checked_result_images(images);
        assert_eq!(kept.len(), crate::mcp::MAX_RESULT_IMAGES);
        assert!(kept
            .iter()
            .all(|a| a.media_type == "image/png" && a.data == dot));
    }

    #[test]
    fn what_is_not_an_export_is_refused_with_a_reason() {
        assert!(matches!(parse(b"not json"), Err(ImportError::NotJson(_))));
        assert_eq!(parse(b"{\"a\": 1}"), Err(ImportError::UnknownFormat));
        assert_eq!(parse(b"[]"), Err(ImportError::UnknownFormat));
        assert_eq!(
            parse(br#"{"format": "tollgate-chat", "version": 9, "chat": {}, "messages": []}"#)
                .map(|_| ()),
            Err(ImportError::TooNew(9))
        );
        assert!(matches!(
            parse(br#"{"format": "tollgate-chat", "version": 2, "chat": {}, "messages": []}"#),
            Err(ImportError::Invalid(_))
        ));
        assert_eq!(
            parse(br#"[{"title": "x", "mapping": {}}]"#).map(|_| ()),
            Err(ImportError::Empty)
        );
    }
}
