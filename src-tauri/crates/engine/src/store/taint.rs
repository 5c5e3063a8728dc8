//! Files written from untrusted content (issue 45): the sources of what went into a file, kept
//! by its workspace, its path and the hash of its content. A file read later — in another chat,
//! on another branch, after a restart — carries those sources; a file whose content changed by
//! other means (the user edited it) no longer does, and its record goes.

use super::{now_ms, Store, StoreResult};
use crate::protocol::Source;
use rusqlite::{params, OptionalExtension};

impl Store {
    /// Records that `path` in `workspace`, now holding content with `hash`, was written from
    /// content of `sources` (replacing an earlier record of the same file).
    pub async fn set_file_taint(
        &self,
        workspace: &str,
        path: &str,
        hash: &str,
        sources: &[Source],
    ) -> StoreResult<()> {
        let (workspace, path, hash) = (workspace.to_string(), path.to_string(), hash.to_string());
        let sources = serde_json::to_string(sources)?;
        self.call(move |c| {
            c.execute(
                "INSERT INTO file_taint(workspace, path, content_hash, sources, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(workspace, path) DO UPDATE SET content_hash = excluded.content_hash, sources = excluded.sources, created_at = excluded.created_at",
                params![workspace, path, hash, sources, now_ms()],
            )?;
            Ok(())
        })
        .await
    }

    /// The sources `path` in `workspace` carries if its content still has `hash`. A record for
    /// other content is removed: the file changed by other means.
    pub async fn file_taint(
        &self,
        workspace: &str,
        path: &str,
        hash: &str,
    ) -> StoreResult<Vec<Source>> {
        let hash_read = hash.to_string();
        let (workspace, path, hash) = (workspace.to_string(), path.to_string(), hash.to_string());
        let row: Option<(String, String)> = self
            .call(move |c| {
                let row = c
                    .query_row(
                        "SELECT content_hash, sources FROM file_taint WHERE workspace = ?1 AND path = ?2",
                        params![workspace, path],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                if row.as_ref().is_some_and(|(h, _)| *h != hash) {
                    c.execute(
                        "DELETE FROM file_taint WHERE workspace = ?1 AND path = ?2",
                        params![workspace, path],
                    )?;
                }
                Ok(row)
            })
            .await?;
        Ok(match row {
            Some((h, sources)) if h == hash_read => serde_json::from_str(&sources)?,
            _ => Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_taint_holds_for_its_content_and_goes_when_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let page = Source::Web {
            url: "https://evil.example/p".into(),
            host: "evil.example".into(),
        };
        assert!(store
            .file_taint("/w", "a.md", "h1")
            .await
            .unwrap()
            .is_empty());
        store
            .set_file_taint("/w", "a.md", "h1", std::slice::from_ref(&page))
            .await
            .unwrap();
        assert_eq!(
            store.file_taint("/w", "a.md", "h1").await.unwrap(),
            std::slice::from_ref(&page)
        );
        assert!(store
            .file_taint("/other", "a.md", "h1")
            .await
            .unwrap()
            .is_empty());
        // Reopened: it survives a restart.
        drop(store);
        let store = Store::open_in(dir.path()).unwrap();
        assert_eq!(store.file_taint("/w", "a.md", "h1").await.unwrap(), [page]);
        // Changed by other means: the record goes, and stays gone for the old content too.
        assert!(store
            .file_taint("/w", "a.md", "h2")
            .await
            .unwrap()
            .is_empty());
        assert!(store
            .file_taint("/w", "a.md", "h1")
            .await
            .unwrap()
            .is_empty());
    }
}
