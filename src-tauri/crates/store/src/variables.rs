//! Variables as stored (F-16, F-40). The engine's in-memory `VarStore` is authoritative
//! while a chat is open; these writes keep the database in step behind it.

use super::{now_ms, StoreResult};
use crate::facets::Variables;
use rusqlite::params;
use std::sync::Arc;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::Source;

/// A variable as loaded from the database.
#[derive(Debug, Clone)]
pub struct VariableRow {
    pub name: String,
    pub kind: String,
    pub value: Arc<str>,
    pub last_used: i64,
    /// Where its content came from (F-80); empty for the user's own and older rows.
    pub sources: Vec<Source>,
}

/// A list of sources as stored: JSON, or nothing for none.
pub(crate) fn sources_to_db(sources: &[Source]) -> Option<String> {
    if sources.is_empty() {
        None
    } else {
        serde_json::to_string(sources).ok()
    }
}

/// Reads [`sources_to_db`]'s form; what it cannot read is no source.
pub(crate) fn sources_from_db(text: Option<String>) -> Vec<Source> {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

impl Variables<'_> {
    /// Every stored variable of a chat, least recently used first.
    pub async fn chat_variables(&self, chat: ChatId) -> StoreResult<Vec<VariableRow>> {
        self.store.call(move |c| {
            let mut stmt = c.prepare_cached(
                "SELECT name, kind, value, last_used, sources FROM variables WHERE chat_id = ?1 ORDER BY last_used, rowid",
            )?;
            let rows = stmt
                .query_map([chat.0], |r| {
                    Ok(VariableRow {
                        name: r.get(0)?,
                        kind: r.get(1)?,
                        value: Arc::from(r.get::<_, String>(2)?),
                        last_used: r.get(3)?,
                        sources: sources_from_db(r.get(4)?),
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }

    /// Queues an insert or replacement of a variable.
    pub fn put_variable(
        &self,
        chat: ChatId,
        name: String,
        kind: &'static str,
        value: Arc<str>,
        last_used: i64,
        sources: &[Source],
    ) {
        let sources = sources_to_db(sources);
        self.store.write(move |c| {
            c.prepare_cached(
                "INSERT INTO variables(chat_id, name, kind, value, last_used, created_at, sources) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(chat_id, name) DO UPDATE SET kind = excluded.kind, value = excluded.value, last_used = excluded.last_used, sources = excluded.sources",
            )?
            .execute(params![chat.0, name, kind, &*value, last_used, now_ms(), sources])
            .map(|_| ())
        });
    }

    /// Queues an update of a variable's last use (its LRU position).
    pub fn touch_variable(&self, chat: ChatId, name: String, last_used: i64) {
        self.store.write(move |c| {
            c.prepare_cached(
                "UPDATE variables SET last_used = ?3 WHERE chat_id = ?1 AND name = ?2",
            )?
            .execute(params![chat.0, name, last_used])
            .map(|_| ())
        });
    }

    /// Queues the deletion of variables.
    pub fn delete_variables(&self, chat: ChatId, names: Vec<String>) {
        self.store.write(move |c| {
            let mut stmt =
                c.prepare_cached("DELETE FROM variables WHERE chat_id = ?1 AND name = ?2")?;
            for name in names {
                stmt.execute(params![chat.0, name])?;
            }
            Ok(())
        });
    }
}
