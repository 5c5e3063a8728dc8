//! Writing an imported chat (F-62) in one transaction: the chat, its message tree and its
//! recorded tool calls. What would reach outside the conversation — a workspace folder, tool
//! switches, a provider of this machine, approval records, rules — is never imported.

use super::calls::{insert_recorded_call, RecordedCall};
use super::chats::{ChatParams, ChatRow};
use super::messages::{MessageStatus, Role};
use super::{Store, StoreResult};
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
                    for (n, call) in chat.calls.iter().enumerate() {
                        insert_recorded_call(
                            &tx,
                            &RecordedCall {
                                chat: tollgate_protocol::ids::ChatId(id),
                                message_id: call.message_id.and_then(|m| ids.get(&m).copied()),
                                // Numbered again: a file may repeat or skip numbers.
                                seq: u64::try_from(n).unwrap_or(u64::MAX).saturating_add(1),
                                // A view is never shown from a file: its page would run on
                                // what someone else wrote (F-96).
                                view: None,
                                view_of: None,
                                ..call.clone()
                            },
                        )?;
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
        self.chat(tollgate_protocol::ids::ChatId(id))
            .await?
            .ok_or_else(|| {
                super::StoreError::Corrupt(format!("the imported chat {id} cannot be read back"))
            })
    }
}
