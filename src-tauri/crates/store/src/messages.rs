//! Messages (F-61): the user's message is written before the request goes out, the assistant's
//! text is saved in batches while it streams, and a message left streaming by a crash is marked
//! as interrupted at the next start.
//!
//! Messages form a tree (F-56): each has a parent (the message before it), and the chat's
//! `leaf_id` is the end of the branch on screen. A new message goes under the leaf and becomes
//! it, so a turn appends to whichever branch is shown; editing or regenerating forks instead
//! (`branches`).

use super::{now_ms, StoreError, StoreResult};
use crate::facets::Messages;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::Missing;

/// Where a new message goes in the chat's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Under {
    /// At the end of the branch on screen.
    Leaf,
    /// Under this message (`None`: as a first message), beside any children it has.
    Parent(Option<i64>),
}

/// Who wrote a message.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "user" => Some(Self::User),
            "assistant" => Some(Self::Assistant),
            "tool" => Some(Self::Tool),
            _ => None,
        }
    }
}

/// Where a message stands.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Text is still arriving.
    Streaming,
    Complete,
    /// The user pressed Stop; the text is what had arrived.
    Stopped,
    /// The provider failed; the text is what had arrived.
    Error,
    /// The app stopped while the text was arriving.
    Interrupted,
}

impl MessageStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Streaming => "streaming",
            Self::Complete => "complete",
            Self::Stopped => "stopped",
            Self::Error => "error",
            Self::Interrupted => "interrupted",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "streaming" => Self::Streaming,
            "stopped" => Self::Stopped,
            "error" => Self::Error,
            "interrupted" => Self::Interrupted,
            _ => Self::Complete,
        }
    }
}

/// A message as stored. `payload` holds the tool calls (assistant) or results (tool).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRow {
    pub id: i64,
    pub chat: ChatId,
    pub role: Role,
    pub content: String,
    pub status: MessageStatus,
    /// An assistant's `AssistantPayload` or a tool message's `ToolPayload` (chat::history), as
    /// stored; every field may be missing in rows older versions wrote.
    #[ts(type = "Partial<AssistantPayload & ToolPayload & UserPayload> | null")]
    pub payload: Option<Value>,
    #[ts(as = "Option<tollgate_protocol::Usage>")]
    pub usage: Option<Value>,
    pub created_at: i64,
    /// The message before this one on its branch (none for a chat's first message).
    pub parent_id: Option<i64>,
    /// Every version of this message (it and its siblings, oldest first) when there is more
    /// than one: edits of a user message, regenerated answers. Empty otherwise.
    pub siblings: Vec<i64>,
}

/// The columns `from_row` reads, in its order.
pub(super) const MESSAGE_COLUMNS: &str =
    "id, chat_id, role, content, status, payload, usage, created_at, parent_id";

pub(super) fn from_row(
    r: &Row<'_>,
) -> rusqlite::Result<(MessageRow, String, Option<String>, Option<String>)> {
    Ok((
        MessageRow {
            id: r.get(0)?,
            chat: ChatId(r.get(1)?),
            role: Role::User,
            content: r.get(3)?,
            status: MessageStatus::parse(&r.get::<_, String>(4)?),
            payload: None,
            usage: None,
            created_at: r.get(7)?,
            parent_id: r.get(8)?,
            siblings: Vec::new(),
        },
        r.get(2)?,
        r.get(5)?,
        r.get(6)?,
    ))
}

pub(super) fn finish_row(
    (mut m, role, payload, usage): (MessageRow, String, Option<String>, Option<String>),
) -> StoreResult<MessageRow> {
    m.role = Role::parse(&role).ok_or_else(|| {
        StoreError::Corrupt(format!("message {} has an unknown role \"{role}\"", m.id))
    })?;
    m.payload = payload.map(|p| serde_json::from_str(&p)).transpose()?;
    m.usage = usage.map(|u| serde_json::from_str(&u)).transpose()?;
    Ok(m)
}

/// Marks messages left streaming by a previous process as interrupted.
/// Marks the answers a crash left streaming. The status is written into the query: only then can
/// SQLite use the partial index of streaming messages (V9) instead of reading every message.
pub(super) const RECOVER_STREAMING: &str =
    "UPDATE messages SET status = ?1 WHERE status = 'streaming'";

pub(super) fn recover_interrupted(conn: &Connection) -> StoreResult<()> {
    conn.execute(RECOVER_STREAMING, [MessageStatus::Interrupted.as_str()])?;
    Ok(())
}

impl Messages<'_> {
    /// Writes a message now at the end of the branch on screen (awaited: the caller needs its
    /// id, and a user message must be on disk before the request is sent). It becomes the
    /// chat's leaf; touches the chat's `updated_at`.
    pub async fn insert_message(
        &self,
        chat: ChatId,
        role: Role,
        content: String,
        status: MessageStatus,
        payload: Option<Value>,
    ) -> StoreResult<i64> {
        self.insert_message_under(chat, Under::Leaf, role, content, status, payload)
            .await
    }

    /// Writes a message under `under` (the leaf, or a chosen parent: a new version of a
    /// message is its sibling); it becomes the chat's leaf.
    pub async fn insert_message_under(
        &self,
        chat: ChatId,
        under: Under,
        role: Role,
        content: String,
        status: MessageStatus,
        payload: Option<Value>,
    ) -> StoreResult<i64> {
        let payload = payload.map(|p| p.to_string());
        self.store.call(move |c| {
            let now = now_ms();
            let tx = c.transaction()?;
            let parent: Option<i64> = match under {
                Under::Leaf => tx
                    .query_row("SELECT leaf_id FROM chats WHERE id = ?1", [chat.0], |r| r.get(0))
                    .optional()?
                    .ok_or_else(|| StoreError::NotFound(Missing::Chat { chat }))?,
                Under::Parent(parent) => parent,
            };
            tx.execute(
                "INSERT INTO messages(chat_id, role, content, status, payload, created_at, parent_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![chat.0, role.as_str(), content, status.as_str(), payload, now, parent],
            )?;
            let id = tx.last_insert_rowid();
            tx.execute(
                "UPDATE chats SET updated_at = ?2, leaf_id = ?3 WHERE id = ?1",
                params![chat.0, now, id],
            )?;
            tx.commit()?;
            Ok(id)
        })
        .await
    }

    /// Marks the chat's messages still streaming as interrupted (their turn's task died); the
    /// text saved so far stays.
    pub async fn interrupt_streaming(&self, chat: ChatId) -> StoreResult<()> {
        self.store
            .call(move |c| {
                c.execute(
                    "UPDATE messages SET status = ?1 WHERE chat_id = ?2 AND status = ?3",
                    params![
                        MessageStatus::Interrupted.as_str(),
                        chat.0,
                        MessageStatus::Streaming.as_str()
                    ],
                )?;
                Ok(())
            })
            .await
    }

    /// Rewrites the payload of the tool message that answers the assistant message `answered`
    /// in `chat` with `rewrite` (given the payload as stored), in one transaction: a result that
    /// arrives after its turn (F-99) takes the place of what the model was told meanwhile.
    /// Returns whether there was such a message.
    pub async fn rewrite_tool_payload(
        &self,
        chat: ChatId,
        answered: i64,
        rewrite: impl FnOnce(Option<Value>) -> Option<Value> + Send + 'static,
    ) -> StoreResult<bool> {
        self.store
            .call(move |c| {
                let tx = c.transaction()?;
                let found: Option<(i64, Option<String>)> = tx
                    .query_row(
                        "SELECT id, payload FROM messages WHERE chat_id = ?1 AND parent_id = ?2 AND role = 'tool' ORDER BY id LIMIT 1",
                        params![chat.0, answered],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                let Some((id, payload)) = found else {
                    return Ok(false);
                };
                let before = payload.map(|p| serde_json::from_str(&p)).transpose()?;
                let after = rewrite(before).map(|p| p.to_string());
                tx.execute(
                    "UPDATE messages SET payload = ?2 WHERE id = ?1",
                    params![id, after],
                )?;
                tx.commit()?;
                Ok(true)
            })
            .await
    }

    /// Queues an update of a streaming message's text (bounded batching is the caller's).
    pub fn save_streamed_text(&self, id: i64, content: String) {
        self.store.write(move |c| {
            c.prepare_cached("UPDATE messages SET content = ?2 WHERE id = ?1")?
                .execute(params![id, content])
                .map(|_| ())
        });
    }

    /// Starts a streaming message over: its text is emptied and `payload` (what the window
    /// shows in its place, e.g. a retry notice) stored. Ordered after every queued text save.
    pub async fn restart_streaming(&self, id: i64, payload: Option<Value>) -> StoreResult<()> {
        let payload = payload.map(|p| p.to_string());
        self.store
            .call(move |c| {
                c.execute(
                    "UPDATE messages SET content = '', payload = ?2 WHERE id = ?1",
                    params![id, payload],
                )?;
                Ok(())
            })
            .await
    }

    /// Completes a message: final text, status, payload and usage. Awaited.
    pub async fn finish_message(
        &self,
        id: i64,
        content: String,
        status: MessageStatus,
        payload: Option<Value>,
        usage: Option<Value>,
    ) -> StoreResult<()> {
        let payload = payload.map(|p| p.to_string());
        let usage = usage.map(|u| u.to_string());
        self.store.call(move |c| {
            c.execute(
                "UPDATE messages SET content = ?2, status = ?3, payload = ?4, usage = ?5 WHERE id = ?1",
                params![id, content, status.as_str(), payload, usage],
            )?;
            Ok(())
        })
        .await
    }

    /// Every message of a chat on every branch, in the order they were written.
    pub async fn all_chat_messages(&self, chat: ChatId) -> StoreResult<Vec<MessageRow>> {
        self.store
            .call(move |c| {
                let mut stmt = c.prepare_cached(&format!(
                    "SELECT {MESSAGE_COLUMNS} FROM messages WHERE chat_id = ?1 ORDER BY id"
                ))?;
                let rows = stmt
                    .query_map([chat.0], from_row)?
                    .collect::<Result<Vec<_>, _>>()?;
                rows.into_iter().map(finish_row).collect()
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;
    use serde_json::json;

    #[tokio::test]
    async fn messages_round_trip_and_streaming_ones_are_recovered() {
        let dir = tempfile::tempdir().unwrap();
        let chat;
        {
            let store = Store::open_in(dir.path()).unwrap();
            chat = store.create_chat(Default::default()).await.unwrap().id;
            store
                .messages()
                .insert_message(chat, Role::User, "hi".into(), MessageStatus::Complete, None)
                .await
                .unwrap();
            let a = store
                .messages()
                .insert_message(
                    chat,
                    Role::Assistant,
                    String::new(),
                    MessageStatus::Streaming,
                    None,
                )
                .await
                .unwrap();
            store.messages().save_streamed_text(a, "partial ans".into());
            let done = store
                .messages()
                .insert_message(
                    chat,
                    Role::Assistant,
                    String::new(),
                    MessageStatus::Streaming,
                    None,
                )
                .await
                .unwrap();
            store
                .messages()
                .finish_message(
                    done,
                    "full".into(),
                    MessageStatus::Complete,
                    Some(json!({"toolCalls": []})),
                    Some(json!({"inputTokens": 1})),
                )
                .await
                .unwrap();
            store.flush().await.unwrap();
        }
        let store = Store::open_in(dir.path()).unwrap();
        let msgs = store.branches().chat_messages(chat).await.unwrap();
        assert_eq!(msgs.len(), 3);
        assert_eq!(msgs[0].role, Role::User);
        assert_eq!(msgs[1].content, "partial ans");
        assert_eq!(msgs[1].status, MessageStatus::Interrupted);
        assert_eq!(msgs[2].status, MessageStatus::Complete);
        assert_eq!(msgs[2].payload, Some(json!({"toolCalls": []})));
    }
}
