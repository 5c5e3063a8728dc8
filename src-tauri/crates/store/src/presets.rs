//! Presets ("assistants", F-58): a name, a system prompt, a provider and model, request
//! parameters and which tool groups are on — chosen when a chat starts, edited in Settings.

use super::{now_ms, ChatParams, StoreError, StoreResult};
use crate::facets::PresetRows;
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tollgate_protocol::Missing;

/// What the user enters for a preset.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PresetInput {
    pub name: String,
    pub system_prompt: String,
    /// `None`: the first configured provider, as for any new chat.
    #[ts(optional)]
    pub provider_id: Option<i64>,
    /// Empty: the provider's default model.
    pub model: String,
    pub params: ChatParams,
    /// Tool groups turned on (`true`) or off (`false`) in chats started from the preset; groups
    /// not named follow the app-wide setting.
    pub groups: BTreeMap<String, bool>,
}

/// A stored preset.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    pub id: i64,
    #[serde(flatten)]
    pub input: PresetInput,
    pub created_at: i64,
}

const COLUMNS: &str = "id, name, system_prompt, provider_id, model, params, groups, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<(Preset, String, String)> {
    Ok((
        Preset {
            id: r.get(0)?,
            input: PresetInput {
                name: r.get(1)?,
                system_prompt: r.get(2)?,
                provider_id: r.get(3)?,
                model: r.get(4)?,
                params: ChatParams::default(),
                groups: BTreeMap::new(),
            },
            created_at: r.get(7)?,
        },
        r.get(5)?,
        r.get(6)?,
    ))
}

fn with_json((mut p, params, groups): (Preset, String, String)) -> StoreResult<Preset> {
    p.input.params = serde_json::from_str(&params)?;
    p.input.groups = serde_json::from_str(&groups)?;
    Ok(p)
}

impl PresetRows<'_> {
    /// Every preset, by name.
    pub async fn presets(&self) -> StoreResult<Vec<Preset>> {
        self.store
            .call(|c| {
                let mut stmt = c.prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM presets ORDER BY name COLLATE NOCASE, id"
                ))?;
                let rows = stmt
                    .query_map([], from_row)?
                    .collect::<Result<Vec<_>, _>>()?;
                rows.into_iter().map(with_json).collect()
            })
            .await
    }

    /// One preset.
    pub async fn preset(&self, id: i64) -> StoreResult<Option<Preset>> {
        self.store
            .call(move |c| {
                c.query_row(
                    &format!("SELECT {COLUMNS} FROM presets WHERE id = ?1"),
                    [id],
                    from_row,
                )
                .optional()?
                .map(with_json)
                .transpose()
            })
            .await
    }

    /// Adds a preset (`id: None`) or replaces one; returns it as stored.
    pub async fn save_preset(&self, id: Option<i64>, input: PresetInput) -> StoreResult<Preset> {
        let params = serde_json::to_string(&input.params)?;
        let groups = serde_json::to_string(&input.groups)?;
        let id = self
            .store.call(move |c| match id {
                None => {
                    c.execute(
                        "INSERT INTO presets(name, system_prompt, provider_id, model, params, groups, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![input.name, input.system_prompt, input.provider_id, input.model, params, groups, now_ms()],
                    )?;
                    Ok(c.last_insert_rowid())
                }
                Some(id) => {
                    let n = c.execute(
                        "UPDATE presets SET name = ?2, system_prompt = ?3, provider_id = ?4, model = ?5, params = ?6, groups = ?7 WHERE id = ?1",
                        params![id, input.name, input.system_prompt, input.provider_id, input.model, params, groups],
                    )?;
                    if n == 0 {
                        return Err(StoreError::NotFound(Missing::Preset { preset: id }));
                    }
                    Ok(id)
                }
            })
            .await?;
        self.preset(id)
            .await?
            .ok_or_else(|| StoreError::Corrupt("the saved preset vanished".into()))
    }

    /// Removes a preset; `false` if there was none with this id. Chats started from it keep
    /// what they were given.
    pub async fn delete_preset(&self, id: i64) -> StoreResult<bool> {
        self.store
            .call(move |c| Ok(c.execute("DELETE FROM presets WHERE id = ?1", [id])? > 0))
            .await
    }
}
