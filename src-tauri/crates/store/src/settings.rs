//! Key/value settings, each value a JSON document.

use super::{Store, StoreResult};
use rusqlite::{params, OptionalExtension};
use serde::{de::DeserializeOwned, Serialize};

impl Store {
    /// The setting stored under `key`, if any.
    pub async fn setting<T: DeserializeOwned + Send + 'static>(
        &self,
        key: &str,
    ) -> StoreResult<Option<T>> {
        let key = key.to_string();
        let raw: Option<String> = self
            .call(move |c| {
                Ok(
                    c.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                        r.get(0)
                    })
                    .optional()?,
                )
            })
            .await?;
        Ok(raw.map(|s| serde_json::from_str(&s)).transpose()?)
    }

    /// Stores `value` under `key`.
    pub async fn set_setting<T: Serialize>(&self, key: &str, value: &T) -> StoreResult<()> {
        let key = key.to_string();
        let json = serde_json::to_string(value)?;
        self.call(move |c| {
            c.execute(
                "INSERT INTO settings(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, json],
            )?;
            Ok(())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[tokio::test]
    async fn settings_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        assert_eq!(store.setting::<u32>("n").await.unwrap(), None);
        store.set_setting("n", &7u32).await.unwrap();
        store.set_setting("n", &8u32).await.unwrap();
        assert_eq!(store.setting::<u32>("n").await.unwrap(), Some(8));
        let m: BTreeMap<String, bool> = [("a".to_string(), true)].into();
        store.set_setting("m", &m).await.unwrap();
        assert_eq!(
            store.setting::<BTreeMap<String, bool>>("m").await.unwrap(),
            Some(m)
        );
        store.set_setting("bad", &"text").await.unwrap();
        assert!(store.setting::<u32>("bad").await.is_err());
    }
}
