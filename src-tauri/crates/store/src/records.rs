//! Ask-once records (F-03) and rules (F-04) as stored.

use super::{now_ms, StoreResult};
use crate::facets::GateRecords;
use rusqlite::params;
use serde::{Deserialize, Serialize};
use tollgate_protocol::ids::ChatId;

/// One remembered decision for (chat, tool, argument hash).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRecordRow {
    pub chat: ChatId,
    pub tool: String,
    pub args_hash: String,
    /// The canonical JSON of the arguments, to show the user what the record covers.
    pub args: String,
    /// The workspace folder the decision was made for (part of the key, see
    /// [`tollgate_protocol::canonical::record_hash`]).
    pub workspace: Option<String>,
    pub allowed: bool,
    pub created_at: i64,
}

/// A rule as stored; `chat` is `None` for a global rule.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleRow {
    pub id: i64,
    pub tool: String,
    pub pattern: Option<String>,
    pub action: String,
    pub chat: Option<ChatId>,
    pub created_at: i64,
}

impl GateRecords<'_> {
    /// Every ask-once record of a chat.
    pub async fn approval_records(&self, chat: ChatId) -> StoreResult<Vec<ApprovalRecordRow>> {
        self.store.call(move |c| {
            let mut stmt = c.prepare_cached(
                "SELECT tool, args_hash, args, workspace, allowed, created_at FROM approval_records WHERE chat_id = ?1 ORDER BY created_at",
            )?;
            let rows = stmt
                .query_map([chat.0], |r| {
                    Ok(ApprovalRecordRow {
                        chat,
                        tool: r.get(0)?,
                        args_hash: r.get(1)?,
                        args: r.get(2)?,
                        workspace: r.get(3)?,
                        allowed: r.get(4)?,
                        created_at: r.get(5)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }

    /// Stores (or replaces) a record. Awaited: the decision must be durable before it is used.
    pub async fn put_approval_record(&self, rec: ApprovalRecordRow) -> StoreResult<()> {
        self.store.call(move |c| {
            c.execute(
                "INSERT INTO approval_records(chat_id, tool, args_hash, args, workspace, allowed, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(chat_id, tool, args_hash) DO UPDATE SET allowed = excluded.allowed, created_at = excluded.created_at",
                params![rec.chat.0, rec.tool, rec.args_hash, rec.args, rec.workspace, rec.allowed, rec.created_at],
            )?;
            Ok(())
        })
        .await
    }

    /// Deletes one record; returns whether it existed.
    pub async fn delete_approval_record(
        &self,
        chat: ChatId,
        tool: String,
        args_hash: String,
    ) -> StoreResult<bool> {
        self.store
            .call(move |c| {
                Ok(c.execute(
                "DELETE FROM approval_records WHERE chat_id = ?1 AND tool = ?2 AND args_hash = ?3",
                params![chat.0, tool, args_hash],
            )? > 0)
            })
            .await
    }

    /// Every rule: global ones and those of every chat.
    pub async fn rules(&self) -> StoreResult<Vec<RuleRow>> {
        self.store
            .call(|c| {
                let mut stmt = c.prepare_cached(
                    "SELECT id, tool, pattern, action, chat_id, created_at FROM rules ORDER BY id",
                )?;
                let rows = stmt
                    .query_map([], |r| {
                        Ok(RuleRow {
                            id: r.get(0)?,
                            tool: r.get(1)?,
                            pattern: r.get(2)?,
                            action: r.get(3)?,
                            chat: r.get::<_, Option<i64>>(4)?.map(ChatId),
                            created_at: r.get(5)?,
                        })
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .await
    }

    /// Adds a rule and returns its id.
    pub async fn insert_rule(
        &self,
        tool: String,
        pattern: Option<String>,
        action: String,
        chat: Option<ChatId>,
    ) -> StoreResult<RuleRow> {
        self.store.call(move |c| {
            let created_at = now_ms();
            c.execute(
                "INSERT INTO rules(tool, pattern, action, chat_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![tool, pattern, action, chat.map(|c| c.0), created_at],
            )?;
            Ok(RuleRow { id: c.last_insert_rowid(), tool, pattern, action, chat, created_at })
        })
        .await
    }

    /// Deletes a rule; returns whether it existed.
    pub async fn delete_rule(&self, id: i64) -> StoreResult<bool> {
        self.store
            .call(move |c| Ok(c.execute("DELETE FROM rules WHERE id = ?1", [id])? > 0))
            .await
    }
}
