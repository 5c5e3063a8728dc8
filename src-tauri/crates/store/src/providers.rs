//! Provider configurations (F-30, F-31) as stored: never the key, only whether one is saved in
//! the keychain.

use super::{now_ms, Store, StoreError, StoreResult};
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use tollgate_protocol::Missing;
use tollgate_protocol::{ProviderKind, ProviderOptions, ToolCalling};

/// A configured provider.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    pub id: i64,
    pub kind: ProviderKind,
    pub name: String,
    pub base_url: String,
    pub default_model: String,
    /// Whether a key for it is saved in the keychain.
    pub has_key: bool,
    pub tool_calling: ToolCalling,
    /// Request options: parameters for reasoning models, extended thinking.
    pub options: ProviderOptions,
    pub created_at: i64,
}

/// What the user enters for a provider.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInput {
    pub kind: ProviderKind,
    #[serde(default)]
    pub name: String,
    /// Empty means the kind's usual address.
    #[serde(default)]
    pub base_url: String,
    #[serde(default)]
    pub default_model: String,
    /// Native tool calls unless the model is served without them.
    #[serde(default)]
    pub tool_calling: ToolCalling,
    #[serde(default)]
    pub options: ProviderOptions,
}

const COLUMNS: &str =
    "id, kind, name, base_url, default_model, has_key, created_at, tool_calling, options";

fn from_row(r: &Row<'_>) -> rusqlite::Result<(ProviderConfig, String)> {
    Ok((
        ProviderConfig {
            id: r.get(0)?,
            kind: ProviderKind::Demo,
            name: r.get(2)?,
            base_url: r.get(3)?,
            default_model: r.get(4)?,
            has_key: r.get(5)?,
            created_at: r.get(6)?,
            // An unknown value reads as native: text calls are only ever opted into.
            tool_calling: ToolCalling::parse(&r.get::<_, String>(7)?).unwrap_or_default(),
            // Options a newer version wrote, or a hand-edited row, read as the defaults.
            options: serde_json::from_str(&r.get::<_, String>(8)?).unwrap_or_default(),
        },
        r.get(1)?,
    ))
}

fn options_json(options: &ProviderOptions) -> StoreResult<String> {
    Ok(serde_json::to_string(options)?)
}

fn with_kind((mut p, kind): (ProviderConfig, String)) -> StoreResult<ProviderConfig> {
    p.kind = ProviderKind::parse(&kind).ok_or_else(|| {
        StoreError::Corrupt(format!("provider {} has an unknown kind \"{kind}\"", p.id))
    })?;
    Ok(p)
}

impl Store {
    /// Every configured provider, oldest first.
    pub async fn providers(&self) -> StoreResult<Vec<ProviderConfig>> {
        self.call(|c| {
            let mut stmt =
                c.prepare_cached(&format!("SELECT {COLUMNS} FROM providers ORDER BY id"))?;
            let rows = stmt
                .query_map([], from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            rows.into_iter().map(with_kind).collect()
        })
        .await
    }

    /// One provider.
    pub async fn provider(&self, id: i64) -> StoreResult<Option<ProviderConfig>> {
        self.call(move |c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM providers WHERE id = ?1"),
                [id],
                from_row,
            )
            .optional()?
            .map(with_kind)
            .transpose()
        })
        .await
    }

    /// Adds a provider.
    pub async fn insert_provider(&self, input: ProviderInput) -> StoreResult<ProviderConfig> {
        let id = self
            .call(move |c| {
                c.execute(
                    "INSERT INTO providers(kind, name, base_url, default_model, has_key, created_at, tool_calling, options) VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7)",
                    params![input.kind.as_str(), input.name, input.base_url, input.default_model, now_ms(), input.tool_calling.as_str(), options_json(&input.options)?],
                )?;
                Ok(c.last_insert_rowid())
            })
            .await?;
        self.provider(id)
            .await?
            .ok_or_else(|| StoreError::Corrupt("the new provider vanished".into()))
    }

    /// Changes a provider's settings (not its key).
    pub async fn update_provider(&self, id: i64, input: ProviderInput) -> StoreResult<()> {
        let n = self
            .call(move |c| {
                Ok(c.execute(
                    "UPDATE providers SET kind = ?2, name = ?3, base_url = ?4, default_model = ?5, tool_calling = ?6, options = ?7 WHERE id = ?1",
                    params![id, input.kind.as_str(), input.name, input.base_url, input.default_model, input.tool_calling.as_str(), options_json(&input.options)?],
                )?)
            })
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(Missing::Provider { provider: id }));
        }
        Ok(())
    }

    /// Records whether a key is saved in the keychain.
    pub async fn set_provider_has_key(&self, id: i64, has_key: bool) -> StoreResult<()> {
        self.call(move |c| {
            c.execute(
                "UPDATE providers SET has_key = ?2 WHERE id = ?1",
                params![id, has_key],
            )?;
            Ok(())
        })
        .await
    }

    /// Removes a provider (its chats keep their messages and fall back to no provider).
    pub async fn delete_provider(&self, id: i64) -> StoreResult<bool> {
        self.call(move |c| Ok(c.execute("DELETE FROM providers WHERE id = ?1", [id])? > 0))
            .await
    }
}
