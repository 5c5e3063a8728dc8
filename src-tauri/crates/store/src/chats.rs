//! Chats: the rows every other table hangs off.

use super::{now_ms, Store, StoreError, StoreResult};
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::ChatToolOverrides;
use tollgate_protocol::Missing;

/// Where a page of chats ends: the last row's `updated_at` and id (see
/// [`Store::list_chats_page`]).
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCursor {
    pub updated_at: i64,
    pub id: ChatId,
}

/// Rows a purge step removes: about 15 ms of work, short enough for a read to wait on.
const PURGE_STEP: usize = 1_000;

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

    /// The chat's revision (see migration V11): it grows with every write to the chat's messages,
    /// tool calls or shown branch. `None` when the chat does not exist.
    pub async fn chat_revision(&self, id: ChatId) -> StoreResult<Option<i64>> {
        self.call(move |c| {
            Ok(
                c.query_row("SELECT revision FROM chats WHERE id = ?1", [id.0], |r| {
                    r.get(0)
                })
                .optional()?,
            )
        })
        .await
    }

    /// A page of chats, most recently updated first: the `limit` after `after` (from the top
    /// when `None`). The sidebar reads its list this way, so a year of chats costs no more to
    /// show than its first screen.
    pub async fn list_chats_page(
        &self,
        after: Option<ChatCursor>,
        limit: usize,
    ) -> StoreResult<Vec<ChatRow>> {
        self.call(move |c| {
            let (updated_at, id) = after.map_or((i64::MAX, i64::MAX), |a| (a.updated_at, a.id.0));
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM chats WHERE (updated_at, id) < (?1, ?2)
                 ORDER BY updated_at DESC, id DESC LIMIT ?3"
            ))?;
            let rows = stmt
                .query_map(params![updated_at, id, limit as i64], from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            rows.into_iter().map(with_overrides).collect()
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
    ///
    /// The chat's row goes at once, with its rules; its messages, calls, records and variables
    /// stay behind, unreachable (every read starts from the chat), until
    /// [`Store::purge_deleted`] removes them in small steps. A 10,000-message chat would
    /// otherwise hold the database for the length of one long cascade (F-71).
    pub async fn delete_chat(&self, id: ChatId) -> StoreResult<()> {
        let deleted = self
            .call(move |c| {
                // The cascades are what the purge does later: off for this one transaction (the
                // pragma has no effect inside one, so it is set around it).
                c.pragma_update(None, "foreign_keys", "OFF")?;
                let deleted = (|| {
                    let tx = c.transaction()?;
                    let n = tx.execute("DELETE FROM chats WHERE id = ?1", [id.0])?;
                    if n > 0 {
                        tx.execute("DELETE FROM rules WHERE chat_id = ?1", [id.0])?;
                        // Its tasks are followed no more.
                        tx.execute("DELETE FROM call_tasks WHERE chat_id = ?1", [id.0])?;
                        tx.execute(
                            "INSERT OR IGNORE INTO chat_purges(chat_id) VALUES (?1)",
                            [id.0],
                        )?;
                    }
                    tx.commit()?;
                    Ok::<_, rusqlite::Error>(n)
                })();
                c.pragma_update(None, "foreign_keys", "ON")?;
                Ok(deleted?)
            })
            .await?;
        if deleted == 0 {
            return Err(StoreError::NotFound(Missing::Chat { chat: id }));
        }
        Ok(())
    }

    /// Removes up to `batch` rows left behind by deleted chats, in one short transaction, and
    /// gives the freed pages back to the file system (on a database made with incremental
    /// vacuum). Returns whether rows are left for another step.
    pub async fn purge_deleted_step(&self, batch: usize) -> StoreResult<bool> {
        self.call(move |c| {
            let Some(chat) = c
                .query_row("SELECT chat_id FROM chat_purges LIMIT 1", [], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()?
            else {
                return Ok(false);
            };
            let tx = c.transaction()?;
            let mut left = batch;
            for table in ["tool_calls", "messages"] {
                if left == 0 {
                    break;
                }
                left -= tx.execute(
                    &format!(
                        "DELETE FROM {table} WHERE id IN \
                         (SELECT id FROM {table} WHERE chat_id = ?1 LIMIT ?2)"
                    ),
                    params![chat, left as i64],
                )?;
            }
            if left > 0 {
                // The chat's calls and messages are gone: the small rest, and the chat is done.
                for table in ["variables", "approval_records", "rules", "chat_purges"] {
                    tx.execute(&format!("DELETE FROM {table} WHERE chat_id = ?1"), [chat])?;
                }
            }
            tx.commit()?;
            // The pragma frees a page for each step it is run: all of them, up to 16 MB a time.
            let mut vacuum = c.prepare_cached("PRAGMA incremental_vacuum(4096)")?;
            let mut freed = vacuum.query([])?;
            while freed.next()?.is_some() {}
            drop(freed);
            drop(vacuum);
            Ok(
                c.query_row("SELECT EXISTS (SELECT 1 FROM chat_purges)", [], |r| {
                    r.get(0)
                })?,
            )
        })
        .await
    }

    /// Purges everything deleted chats left behind, a step at a time so that other reads and
    /// writes go between the steps.
    pub async fn purge_deleted(&self) -> StoreResult<()> {
        while self.purge_deleted_step(PURGE_STEP).await? {}
        Ok(())
    }

    async fn update_chat<F>(&self, id: ChatId, f: F) -> StoreResult<()>
    where
        F: FnOnce(&rusqlite::Connection) -> rusqlite::Result<usize> + Send + 'static,
    {
        let changed = self.call(move |c| Ok(f(c)?)).await?;
        if changed == 0 {
            return Err(StoreError::NotFound(Missing::Chat { chat: id }));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tollgate_protocol::ChatToolOverrides;

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

    /// A window skips reading a chat again when its revision is unchanged (F-71): every write
    /// to what the history shows must raise it, or the window would show a stale chat.
    #[tokio::test]
    async fn every_write_to_a_chats_history_raises_its_revision_and_only_its() {
        use crate::{CallStart, MessageStatus, Role, Under};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(NewChat::default()).await.unwrap().id;
        let other = store.create_chat(NewChat::default()).await.unwrap().id;
        let other_before = store.chat_revision(other).await.unwrap();
        let mut last = store.chat_revision(chat).await.unwrap().unwrap();
        let mut raised = |now: Option<i64>, what: &str| {
            let now = now.unwrap();
            assert!(now > last, "{what} left the revision at {last}");
            last = now;
        };

        let question = store
            .messages()
            .insert_message(chat, Role::User, "q".into(), MessageStatus::Complete, None)
            .await
            .unwrap();
        raised(store.chat_revision(chat).await.unwrap(), "a new message");
        let answer = store
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
        raised(
            store.chat_revision(chat).await.unwrap(),
            "an answer starting",
        );
        store
            .messages()
            .save_streamed_text(answer, "partial".into());
        store.flush().await.unwrap();
        raised(
            store.chat_revision(chat).await.unwrap(),
            "streamed text saved",
        );
        store
            .messages()
            .finish_message(answer, "done".into(), MessageStatus::Complete, None, None)
            .await
            .unwrap();
        raised(
            store.chat_revision(chat).await.unwrap(),
            "an answer finished",
        );
        store.calls().record_call_start(CallStart {
            chat,
            message_id: Some(answer),
            round: 0,
            seq: 1,
            call_id: "c1".into(),
            requested_name: "read_file".into(),
            raw_args: "{}".into(),
            started_at: 0,
            view_of: None,
        });
        store.flush().await.unwrap();
        raised(store.chat_revision(chat).await.unwrap(), "a call starting");
        store
            .call(move |c| {
                Ok(c.execute(
                    "UPDATE tool_calls SET status = 'success' WHERE chat_id = ?1",
                    [chat.0],
                )?)
            })
            .await
            .unwrap();
        raised(store.chat_revision(chat).await.unwrap(), "a call ending");
        // A second version of the question: its own branch, then the first shown again.
        store
            .messages()
            .insert_message_under(
                chat,
                Under::Parent(None),
                Role::User,
                "q2".into(),
                MessageStatus::Complete,
                None,
            )
            .await
            .unwrap();
        raised(store.chat_revision(chat).await.unwrap(), "a new version");
        store.branches().show_branch(chat, question).await.unwrap();
        raised(
            store.chat_revision(chat).await.unwrap(),
            "another branch shown",
        );
        store
            .call(move |c| Ok(c.execute("DELETE FROM tool_calls WHERE chat_id = ?1", [chat.0])?))
            .await
            .unwrap();
        raised(store.chat_revision(chat).await.unwrap(), "a call deleted");
        store
            .call(move |c| Ok(c.execute("DELETE FROM messages WHERE id = ?1", [answer])?))
            .await
            .unwrap();
        raised(
            store.chat_revision(chat).await.unwrap(),
            "a message deleted",
        );

        assert_eq!(store.chat_revision(other).await.unwrap(), other_before);
        store.delete_chat(chat).await.unwrap();
        assert_eq!(store.chat_revision(chat).await.unwrap(), None);
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

    #[tokio::test]
    async fn pages_of_chats_cover_the_list_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        for _ in 0..25 {
            store.create_chat(NewChat::default()).await.unwrap();
        }
        // Ties in updated_at are broken by id, so no row is skipped or shown twice.
        store
            .call(|c| Ok(c.execute("UPDATE chats SET updated_at = 5 WHERE id % 3 = 0", [])?))
            .await
            .unwrap();
        let all: Vec<ChatId> = store
            .list_chats()
            .await
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect();
        let mut paged = Vec::new();
        let mut after = None;
        loop {
            let page = store.list_chats_page(after, 7).await.unwrap();
            assert!(page.len() <= 7);
            let Some(last) = page.last() else { break };
            after = Some(ChatCursor {
                updated_at: last.updated_at,
                id: last.id,
            });
            paged.extend(page.iter().map(|c| c.id));
        }
        assert_eq!(paged, all);
        assert_eq!(paged.len(), 25);
    }
}
