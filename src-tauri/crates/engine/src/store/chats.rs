//! Chats: the rows every other table hangs off.

use super::{now_ms, Store, StoreError, StoreResult};
use crate::ids::ChatId;
use crate::protocol::ChatToolOverrides;
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

/// What a new chat starts with.
#[derive(ts_rs::TS, Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[ts(optional_fields)]
pub struct NewChat {
    pub title: String,
    pub provider_id: Option<i64>,
    pub model: String,
    pub system_prompt: String,
    pub workspace: Option<String>,
    /// Temperature and answer length (a chat started from a preset).
    #[ts(as = "Option<ChatParams>", optional)]
    pub params: ChatParams,
}

/// A chat's own request parameters (F-58); `None` uses the app's setting.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatParams {
    /// Sampling temperature, 0–2.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub temperature: Option<f32>,
    /// The longest answer, in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_tokens: Option<u32>,
}

/// A chat as stored.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRow {
    pub id: ChatId,
    pub title: String,
    pub provider_id: Option<i64>,
    pub model: String,
    pub system_prompt: String,
    pub workspace: Option<String>,
    pub tool_overrides: ChatToolOverrides,
    /// Temperature and answer length for this chat only.
    pub params: ChatParams,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, title, provider_id, model, system_prompt, workspace, tool_overrides, created_at, updated_at, params";

fn from_row(row: &Row<'_>) -> rusqlite::Result<(ChatRow, String)> {
    Ok((
        ChatRow {
            id: ChatId(row.get(0)?),
            title: row.get(1)?,
            provider_id: row.get(2)?,
            model: row.get(3)?,
            system_prompt: row.get(4)?,
            workspace: row.get(5)?,
            tool_overrides: ChatToolOverrides::default(),
            // Parameters a newer version wrote, or a hand-edited row, read as the defaults.
            params: serde_json::from_str(&row.get::<_, String>(9)?).unwrap_or_default(),
            created_at: row.get(7)?,
            updated_at: row.get(8)?,
        },
        row.get(6)?,
    ))
}

fn with_overrides((mut chat, json): (ChatRow, String)) -> StoreResult<ChatRow> {
    chat.tool_overrides = serde_json::from_str(&json)?;
    Ok(chat)
}

impl Store {
    /// Creates a chat and returns it.
    pub async fn create_chat(&self, new: NewChat) -> StoreResult<ChatRow> {
        let params = serde_json::to_string(&new.params)?;
        self.call(move |c| {
            let now = now_ms();
            c.execute(
                "INSERT INTO chats(id, title, provider_id, model, system_prompt, workspace, params, created_at, updated_at)
                 VALUES ((SELECT last + 1 FROM id_sequence WHERE name = 'chats'), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                params![new.title, new.provider_id, new.model, new.system_prompt, new.workspace, params, now],
            )?;
            let id = c.last_insert_rowid();
            let row = c.query_row(&format!("SELECT {COLUMNS} FROM chats WHERE id = ?1"), [id], from_row)?;
            with_overrides(row)
        })
        .await
    }

    /// The chat with `id`, if it exists.
    pub async fn chat(&self, id: ChatId) -> StoreResult<Option<ChatRow>> {
        self.call(move |c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM chats WHERE id = ?1"),
                [id.0],
                from_row,
            )
            .optional()?
            .map(with_overrides)
            .transpose()
        })
        .await
    }

    /// Every chat, most recently updated first.
    pub async fn list_chats(&self) -> StoreResult<Vec<ChatRow>> {
        self.call(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {COLUMNS} FROM chats ORDER BY updated_at DESC, id DESC"
            ))?;
            let rows = stmt
                .query_map([], from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            rows.into_iter().map(with_overrides).collect()
        })
        .await
    }

    /// Renames a chat.
    pub async fn rename_chat(&self, id: ChatId, title: String) -> StoreResult<()> {
        self.update_chat(id, move |c| {
            c.execute(
                "UPDATE chats SET title = ?2, updated_at = ?3 WHERE id = ?1",
                params![id.0, title, now_ms()],
            )
        })
        .await
    }

    /// Sets the chat's provider (`None`: the first configured one) and model (empty: the
    /// provider's default model).
    pub async fn set_chat_model(
        &self,
        id: ChatId,
        provider_id: Option<i64>,
        model: String,
    ) -> StoreResult<()> {
        self.update_chat(id, move |c| {
            c.execute(
                "UPDATE chats SET provider_id = ?2, model = ?3, updated_at = ?4 WHERE id = ?1",
                params![id.0, provider_id, model, now_ms()],
            )
        })
        .await
    }

    /// Sets the chat's own system prompt and request parameters (F-58).
    pub async fn set_chat_prompt(
        &self,
        id: ChatId,
        system_prompt: String,
        params: ChatParams,
    ) -> StoreResult<()> {
        let params = serde_json::to_string(&params)?;
        self.update_chat(id, move |c| {
            c.execute(
                "UPDATE chats SET system_prompt = ?2, params = ?3, updated_at = ?4 WHERE id = ?1",
                params![id.0, system_prompt, params, now_ms()],
            )
        })
        .await
    }

    /// Sets (or clears) the chat's workspace folder.
    pub async fn set_chat_workspace(
        &self,
        id: ChatId,
        workspace: Option<String>,
    ) -> StoreResult<()> {
        self.update_chat(id, move |c| {
            c.execute(
                "UPDATE chats SET workspace = ?2, updated_at = ?3 WHERE id = ?1",
                params![id.0, workspace, now_ms()],
            )
        })
        .await
    }

    /// Stores the chat's own tool toggles (F-54).
    pub async fn set_chat_tool_overrides(
        &self,
        id: ChatId,
        overrides: &ChatToolOverrides,
    ) -> StoreResult<()> {
        let json = serde_json::to_string(overrides)?;
        self.update_chat(id, move |c| {
            c.execute(
                "UPDATE chats SET tool_overrides = ?2 WHERE id = ?1",
                params![id.0, json],
            )
        })
        .await
    }

    /// Deletes a chat with its messages, calls, records, chat rules and variables.
    pub async fn delete_chat(&self, id: ChatId) -> StoreResult<()> {
        self.update_chat(id, move |c| {
            c.execute("DELETE FROM chats WHERE id = ?1", [id.0])
        })
        .await
    }

    async fn update_chat<F>(&self, id: ChatId, f: F) -> StoreResult<()>
    where
        F: FnOnce(&rusqlite::Connection) -> rusqlite::Result<usize> + Send + 'static,
    {
        let changed = self.call(move |c| Ok(f(c)?)).await?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("chat {id} does not exist")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ChatToolOverrides;

    #[tokio::test]
    async fn chats_round_trip_and_cascade() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let a = store
            .create_chat(NewChat {
                title: "first".into(),
                workspace: Some("/w".into()),
                ..Default::default()
            })
            .await
            .unwrap();
        let b = store
            .create_chat(NewChat {
                title: "second".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        store
            .call(
                move |c| Ok(c.execute("UPDATE chats SET updated_at = 0 WHERE id = ?1", [b.id.0])?),
            )
            .await
            .unwrap();
        store.rename_chat(a.id, "renamed".into()).await.unwrap();
        let mut o = ChatToolOverrides::default();
        o.groups.insert("basic".into(), false);
        store.set_chat_tool_overrides(a.id, &o).await.unwrap();
        let got = store.chat(a.id).await.unwrap().unwrap();
        assert_eq!(got.title, "renamed");
        assert_eq!(got.workspace.as_deref(), Some("/w"));
        assert_eq!(got.tool_overrides, o);
        let list = store.list_chats().await.unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].id, a.id, "most recently updated first");
        store.delete_chat(b.id).await.unwrap();
        assert!(store.chat(b.id).await.unwrap().is_none());
        assert!(store.rename_chat(b.id, "x".into()).await.is_err());
    }

    #[tokio::test]
    async fn a_deleted_chats_id_is_never_given_to_a_new_chat() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let a = store.create_chat(NewChat::default()).await.unwrap();
        let b = store.create_chat(NewChat::default()).await.unwrap();
        store.delete_chat(b.id).await.unwrap();
        let c = store.create_chat(NewChat::default()).await.unwrap();
        assert!(c.id.0 > b.id.0, "{} reused after {}", c.id, b.id);
        store.delete_chat(c.id).await.unwrap();
        store.delete_chat(a.id).await.unwrap();
        drop(store);
        // Not after a restart either, with every chat gone.
        let store = Store::open_in(dir.path()).unwrap();
        let d = store.create_chat(NewChat::default()).await.unwrap();
        assert!(d.id.0 > c.id.0, "{} reused after {}", d.id, c.id);
    }
}
