//! Writing an imported chat (F-62) in one transaction: the chat, its message tree and its
//! recorded tool calls. What would reach outside the conversation — a workspace folder, tool
//! switches, a provider of this machine, approval records, rules — is never imported.

use super::calls::RecordedCall;
use super::chats::{ChatParams, ChatRow};
use super::messages::{MessageStatus, Role};
use super::{Store, StoreResult};
use crate::policy::ExecutionPolicy;
use rusqlite::params;
use serde_json::Value;
use std::collections::HashMap;

/// A chat read from an export, ready to be written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportedChat {
    pub title: String,
    pub model: String,
    pub system_prompt: String,
    pub params: ChatParams,
    pub created_at: i64,
    pub updated_at: i64,
    /// Parents before their children; `key` and `parent` are the source's own ids.
    pub messages: Vec<ImportedMessage>,
    /// The source id of the last message of the branch to show.
    pub leaf: Option<i64>,
    /// Recorded calls; `message_id` is the source id of the message that made the call.
    pub calls: Vec<RecordedCall>,
}

/// A message read from an export.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedMessage {
    pub key: i64,
    pub parent: Option<i64>,
    pub role: Role,
    pub content: String,
    pub status: MessageStatus,
    pub payload: Option<Value>,
    pub usage: Option<Value>,
    pub created_at: i64,
}

impl Store {
    /// Writes `chat` as a new chat (a new id; every message and call with new ids) and returns it.
    pub async fn import_chat(&self, chat: ImportedChat) -> StoreResult<ChatRow> {
        let params_json = serde_json::to_string(&chat.params)?;
        let id = self
            .call(move |c| {
                let tx = c.transaction()?;
                tx.execute(
                    "INSERT INTO chats(id, title, model, system_prompt, params, created_at, updated_at)
                     VALUES ((SELECT last + 1 FROM id_sequence WHERE name = 'chats'), ?1, ?2, ?3, ?4, ?5, ?6)",
                    params![chat.title, chat.model, chat.system_prompt, params_json, chat.created_at, chat.updated_at],
                )?;
                let id = tx.last_insert_rowid();
                let mut ids: HashMap<i64, i64> = HashMap::new();
                {
                    let mut insert = tx.prepare(
                        "INSERT INTO messages(chat_id, role, content, status, payload, usage, created_at, parent_id)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    )?;
                    for m in &chat.messages {
                        // A parent the file never gave (or gave later) makes the message a root.
                        let parent = m.parent.and_then(|p| ids.get(&p).copied());
                        let status = match m.status {
                            MessageStatus::Streaming => MessageStatus::Interrupted,
                            other => other,
                        };
                        insert.execute(params![
                            id,
                            m.role.as_str(),
                            m.content,
                            status.as_str(),
                            m.payload.as_ref().map(Value::to_string),
                            m.usage.as_ref().map(Value::to_string),
                            m.created_at,
                            parent
                        ])?;
                        ids.insert(m.key, tx.last_insert_rowid());
                    }
                    let mut insert = tx.prepare(
                        "INSERT INTO tool_calls(chat_id, message_id, round, seq, call_id, requested_name, tool, group_name,
                            raw_args, resolved_args, policy, decision, decided_by, status, result_text, is_error, truncated,
                            result_var, args_var, started_at, ended_at, duration_ms)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
                    )?;
                    for (n, call) in chat.calls.iter().enumerate() {
                        insert.execute(params![
                            id,
                            call.message_id.and_then(|m| ids.get(&m).copied()),
                            call.round,
                            // Numbered again: a file may repeat or skip numbers.
                            i64::try_from(n).unwrap_or(i64::MAX) + 1,
                            call.call_id,
                            call.requested_name,
                            call.tool,
                            call.group,
                            call.raw_args,
                            call.resolved_args,
                            call.policy.map(ExecutionPolicy::as_str),
                            call.decision.to_db(),
                            call.decided_by.as_str(),
                            call.status.to_string(),
                            call.result_text,
                            call.is_error,
                            call.truncated,
                            call.result_var,
                            call.args_var,
                            call.started_at,
                            call.ended_at,
                            call.duration_ms
                        ])?;
                    }
                }
                let leaf = chat
                    .leaf
                    .and_then(|k| ids.get(&k).copied())
                    .or_else(|| chat.messages.last().and_then(|m| ids.get(&m.key).copied()));
                tx.execute("UPDATE chats SET leaf_id = ?2 WHERE id = ?1", params![id, leaf])?;
                tx.commit()?;
                Ok(id)
            })
            .await?;
        self.chat(crate::ids::ChatId(id)).await?.ok_or_else(|| {
            super::StoreError::Corrupt(format!("the imported chat {id} cannot be read back"))
        })
    }
}
