//! Files written from untrusted content (SPEC §12): the sources of what went into a file, kept
//! by its workspace, its path and the hash of its content. A file read later — in another chat,
//! on another branch, after a restart — carries those sources; a file whose content changed by
//! other means (the user edited it) no longer does, and its record goes.

use super::{now_ms, StoreResult};
use crate::facets::Taints;
use rusqlite::{params, OptionalExtension};
use tollgate_protocol::{Source, WrittenFile};

impl Taints<'_> {
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
        self.store.call(move |c| {
            c.execute(
                "INSERT INTO file_taint(workspace, path, content_hash, sources, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(workspace, path) DO UPDATE SET content_hash = excluded.content_hash, sources = excluded.sources, created_at = excluded.created_at",
                params![workspace, path, hash, sources, now_ms()],
            )?;
            Ok(())
        })
        .await
    }

    /// The record of `path` in `workspace`, if any: the hash of the content written and its
    /// sources. Asked before the file is hashed, so a file with no record is never read twice.
    pub async fn file_taint(
        &self,
        workspace: &str,
        path: &str,
    ) -> StoreResult<Option<(String, Vec<Source>)>> {
        let (workspace, path) = (workspace.to_string(), path.to_string());
        let row: Option<(String, String)> = self
            .store.call(move |c| {
                Ok(c.query_row(
                    "SELECT content_hash, sources FROM file_taint WHERE workspace = ?1 AND path = ?2",
                    params![workspace, path],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?)
            })
            .await?;
        row.map(|(hash, sources)| Ok((hash, serde_json::from_str(&sources)?)))
            .transpose()
    }

    /// Every file written from untrusted content, newest first, for the user to see and trust.
    pub async fn written_files(&self) -> StoreResult<Vec<WrittenFile>> {
        let rows: Vec<(String, String, String, i64)> = self
            .store.call(|c| {
                let mut q = c.prepare(
                    "SELECT workspace, path, sources, created_at FROM file_taint ORDER BY created_at DESC, workspace, path",
                )?;
                let rows = q
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .await?;
        rows.into_iter()
            .map(|(workspace, path, sources, written_at)| {
                Ok(WrittenFile {
                    workspace,
                    path,
                    sources: serde_json::from_str(&sources)?,
                    written_at,
                })
            })
            .collect()
    }

    /// The record of the file whose real path (symlinks followed) is `real`, whatever workspace
    /// string reached it when it was written: its workspace and path as recorded, the hash of
    /// the content written and its sources.
    pub async fn file_taint_at(
        &self,
        real: &str,
    ) -> StoreResult<Option<(String, String, String, Vec<Source>)>> {
        let real = real.to_string();
        let row: Option<(String, String, String, String)> = self
            .store
            .call(move |c| {
                Ok(c.query_row(
                    "SELECT workspace, path, content_hash, sources FROM file_taint
                     WHERE rtrim(workspace, '/') || '/' || path = ?1
                     ORDER BY created_at DESC LIMIT 1",
                    params![real],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .optional()?)
            })
            .await?;
        row.map(|(workspace, path, hash, sources)| {
            Ok((workspace, path, hash, serde_json::from_str(&sources)?))
        })
        .transpose()
    }

    /// Records that the lines with these `hashes` were written from content of `sources`
    /// (joining the sources an earlier write gave the same line).
    pub async fn taint_lines(&self, hashes: Vec<String>, sources: &[Source]) -> StoreResult<()> {
        if hashes.is_empty() || sources.is_empty() {
            return Ok(());
        }
        let sources = sources.to_vec();
        self.store
            .call(move |c| {
                let tx = c.transaction()?;
                {
                    let mut get =
                        tx.prepare_cached("SELECT sources FROM tainted_lines WHERE hash = ?1")?;
                    let mut put = tx.prepare_cached(
                        "INSERT INTO tainted_lines(hash, sources, created_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT(hash) DO UPDATE SET sources = excluded.sources",
                    )?;
                    for hash in hashes {
                        let mut all: Vec<Source> = get
                            .query_row(params![hash], |r| r.get::<_, String>(0))
                            .optional()?
                            .and_then(|s| serde_json::from_str(&s).ok())
                            .unwrap_or_default();
                        for s in &sources {
                            if !all.contains(s) {
                                all.push(s.clone());
                            }
                        }
                        put.execute(params![hash, serde_json::to_string(&all)?, now_ms()])?;
                    }
                }
                tx.commit()?;
                Ok(())
            })
            .await
    }

    /// The sources of the lines among `hashes` that were written from untrusted content.
    pub async fn lines_taint(&self, hashes: Vec<String>) -> StoreResult<Vec<Source>> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        self.store
            .call(move |c| {
                let mut out: Vec<Source> = Vec::new();
                let mut get =
                    c.prepare_cached("SELECT sources FROM tainted_lines WHERE hash = ?1")?;
                for hash in hashes {
                    let found: Option<String> =
                        get.query_row(params![hash], |r| r.get(0)).optional()?;
                    for s in found
                        .and_then(|s| serde_json::from_str::<Vec<Source>>(&s).ok())
                        .unwrap_or_default()
                    {
                        if !out.contains(&s) {
                            out.push(s);
                        }
                    }
                }
                Ok(out)
            })
            .await
    }

    /// Forgets the lines with these `hashes`: the user trusts the file that holds them.
    pub async fn forget_lines(&self, hashes: Vec<String>) -> StoreResult<()> {
        self.store
            .call(move |c| {
                let mut del = c.prepare_cached("DELETE FROM tainted_lines WHERE hash = ?1")?;
                for hash in hashes {
                    del.execute(params![hash])?;
                }
                Ok(())
            })
            .await
    }

    /// Forgets the record of `path` in `workspace`: its content changed by other means, or the
    /// user trusts the file.
    pub async fn forget_file_taint(&self, workspace: &str, path: &str) -> StoreResult<()> {
        let (workspace, path) = (workspace.to_string(), path.to_string());
        self.store
            .call(move |c| {
                c.execute(
                    "DELETE FROM file_taint WHERE workspace = ?1 AND path = ?2",
                    params![workspace, path],
                )?;
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    #[tokio::test]
    async fn a_taint_is_kept_per_file_and_forgotten_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let page = Source::Web {
            url: "https://evil.example/p".into(),
            host: "evil.example".into(),
        };
        assert_eq!(store.taint().file_taint("/w", "a.md").await.unwrap(), None);
        store
            .taint()
            .set_file_taint("/w", "a.md", "h1", std::slice::from_ref(&page))
            .await
            .unwrap();
        let kept = Some(("h1".to_string(), vec![page.clone()]));
        assert_eq!(store.taint().file_taint("/w", "a.md").await.unwrap(), kept);
        assert_eq!(
            store.taint().file_taint("/other", "a.md").await.unwrap(),
            None
        );
        // Reopened: it survives a restart.
        drop(store);
        let store = Store::open_in(dir.path()).unwrap();
        assert_eq!(store.taint().file_taint("/w", "a.md").await.unwrap(), kept);
        // Written again: the record follows the new content.
        store
            .taint()
            .set_file_taint("/w", "a.md", "h2", std::slice::from_ref(&page))
            .await
            .unwrap();
        assert_eq!(
            store
                .taint()
                .file_taint("/w", "a.md")
                .await
                .unwrap()
                .map(|(h, _)| h),
            Some("h2".to_string())
        );
        store
            .taint()
            .set_file_taint("/other", "b.md", "h3", std::slice::from_ref(&page))
            .await
            .unwrap();
        let listed = store.taint().written_files().await.unwrap();
        let mut files: Vec<_> = listed
            .iter()
            .map(|f| (f.workspace.as_str(), f.path.as_str()))
            .collect();
        files.sort();
        assert_eq!(files, vec![("/other", "b.md"), ("/w", "a.md")]);
        assert!(listed.iter().all(|f| f.sources == vec![page.clone()]));
        store
            .taint()
            .forget_file_taint("/other", "b.md")
            .await
            .unwrap();
        store.taint().forget_file_taint("/w", "a.md").await.unwrap();
        assert!(store.taint().written_files().await.unwrap().is_empty());
        assert_eq!(store.taint().file_taint("/w", "a.md").await.unwrap(), None);
    }
}
