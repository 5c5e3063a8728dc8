//! The SQLite database (F-60): one file, one connection, owned by one thread. A crate of its
//! own: it stores the protocol's types and its own rows, depends only on `tollgate-protocol`,
//! and must never depend on the engine (the executor, the tools, the chat loop use it; it knows
//! none of them).
//!
//! Every query runs on the store's own thread, so no async task ever blocks on SQLite and no lock
//! is held across an `.await`. Two ways in:
//! - [`Store::call`] runs a closure and returns its result (reads, and writes whose outcome the
//!   caller needs);
//! - [`Store::write`] queues a write and returns at once. Queued writes are committed in batches
//!   (one transaction per burst), which keeps the per-call record cheap; [`Store::flush`] waits
//!   until everything queued so far is committed.
//!
//! Order is preserved across both: a `call` sees every `write` queued before it.

mod branches;
mod call_tasks;
mod calls;
mod chats;
mod facets;
mod import;
mod messages;
mod migrations;
mod presets;
mod providers;
mod rank;
mod records;
mod search;
mod settings;
mod taint;
mod variables;
mod views;

pub use branches::{BranchEnd, BranchPage};
pub use call_tasks::CallTask;
pub use calls::{CallFinish, CallStart, PastCall, RecordStatus, RecordedCall};
pub use chats::{ChatCursor, ChatParams, ChatRow, NewChat};
pub use facets::{
    Branches, Calls, GateRecords, Messages, PresetRows, SearchIndex, Taints, Variables, ViewRows,
};
pub use import::{ImportedChat, ImportedMessage};
pub use messages::{MessageRow, MessageStatus, Role, Under};
pub use presets::{Preset, PresetInput};
pub use providers::{ProviderConfig, ProviderInput};
pub use records::{ApprovalRecordRow, RuleRow};
pub use search::{fts_query, SearchHit, MATCH_END, MATCH_START, TEND_PAGES};
pub use variables::VariableRow;
pub use views::CallView;

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use thiserror::Error;
use tokio::sync::oneshot;

/// The file name of the database inside the data folder.
pub const DB_FILE: &str = "tollgate.sqlite3";
/// The environment variable that overrides the data folder (tests use a temp dir).
pub const DATA_DIR_ENV: &str = "TOLLGATE_DATA_DIR";
/// At most this many queued writes share one transaction.
const MAX_BATCH: usize = 512;

/// Errors from the store.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("could not open the database at {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("could not create the data folder {path}: {source}")]
    DataDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("stored JSON is invalid: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the database thread has stopped")]
    Closed,
    /// What the operation names does not exist.
    #[error("{0}")]
    NotFound(tollgate_protocol::Missing),
    /// The input was refused (e.g. an empty rule pattern).
    #[error("{0}")]
    Invalid(String),
    /// The database holds what this version cannot read, or could not start.
    #[error("{0}")]
    Corrupt(String),
}

/// The outcome type of store operations.
pub type StoreResult<T> = Result<T, StoreError>;

type CallJob = Box<dyn FnOnce(&mut Connection) + Send>;
type WriteJob = Box<dyn FnOnce(&mut Connection) -> rusqlite::Result<()> + Send>;

enum Msg {
    Call(CallJob),
    Write(WriteJob),
}

/// The data folder: `$TOLLGATE_DATA_DIR` if set, else `default` (the OS app-data folder, which
/// the app crate knows).
pub fn data_dir(default: impl Into<PathBuf>) -> PathBuf {
    choose_data_dir(std::env::var_os(DATA_DIR_ENV), default.into())
}

/// The data folder chosen with `$TOLLGATE_DATA_DIR` (tests, portable use), if any: the app
/// scopes its single instance, window state and log folder to it.
pub fn chosen_data_dir() -> Option<PathBuf> {
    chosen(std::env::var_os(DATA_DIR_ENV))
}

fn chosen(env: Option<std::ffi::OsString>) -> Option<PathBuf> {
    env.filter(|dir| !dir.is_empty()).map(PathBuf::from)
}

fn choose_data_dir(env: Option<std::ffi::OsString>, default: PathBuf) -> PathBuf {
    chosen(env).unwrap_or(default)
}

/// A handle to the database. Cheap to clone; the thread ends when the last handle is dropped.
#[derive(Clone)]
pub struct Store {
    tx: mpsc::Sender<Msg>,
    path: Arc<PathBuf>,
    failed_writes: Arc<AtomicU64>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// Sets `path`'s permission bits to `mode` (Unix; elsewhere the OS's per-user folders apply).
fn owner_only(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

/// Creates the database file readable and writable by its owner only, or narrows an existing
/// one (and its WAL and shared-memory files) to that.
fn create_owner_only(path: &Path) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts.open(path)?;
    owner_only(path, 0o600)?;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let side = std::path::PathBuf::from(side);
        if side.exists() {
            owner_only(&side, 0o600)?;
        }
    }
    Ok(())
}

impl Store {
    /// Opens (creating if needed) `tollgate.sqlite3` in `dir` and brings its schema up to date.
    pub fn open_in(dir: &Path) -> StoreResult<Self> {
        let dir_err = |source| StoreError::DataDir {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(dir_err)?;
        owner_only(dir, 0o700).map_err(dir_err)?;
        Self::open(&dir.join(DB_FILE))
    }

    /// Opens the database file at `path`: WAL, foreign keys, migrations, and recovery of calls
    /// that were running when the app last stopped.
    pub fn open(path: &Path) -> StoreResult<Self> {
        let open_err = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        // Chats, tool outputs and variables are private: the file (and the WAL and shared-memory
        // files SQLite creates beside it with the same mode) is readable by its owner only.
        create_owner_only(path).map_err(|source| StoreError::DataDir {
            path: path.to_path_buf(),
            source,
        })?;
        let mut conn = Connection::open(path).map_err(open_err)?;
        // A new database gives the pages of deleted chats back to the file system
        // (`purge_deleted_step`); the mode can only be chosen before the first table exists.
        // An older database keeps its free pages for new rows, so it does not grow either.
        let empty: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(open_err)?;
        if empty == 0 {
            conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")
                .map_err(open_err)?;
        }
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(open_err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(open_err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(open_err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(open_err)?;
        migrations::migrate(&mut conn)?;
        calls::recover_interrupted(&conn)?;
        messages::recover_interrupted(&conn)?;

        let (tx, rx) = mpsc::channel::<Msg>();
        let failed_writes = Arc::new(AtomicU64::new(0));
        let failed = Arc::clone(&failed_writes);
        std::thread::Builder::new()
            .name("tollgate-db".into())
            .spawn(move || run(conn, rx, &failed))
            .map_err(|e| {
                StoreError::Corrupt(format!("could not start the database thread: {e}"))
            })?;
        Ok(Self {
            tx,
            path: Arc::new(path.to_path_buf()),
            failed_writes,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the database thread and returns its result.
    pub async fn call<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> StoreResult<T> + Send + 'static,
    {
        let (reply, rx) = oneshot::channel();
        let asked = Instant::now();
        let job = timed(f, move |done| {
            let _ = reply.send(done);
        });
        self.tx
            .send(Msg::Call(job))
            .map_err(|_| StoreError::Closed)?;
        let (out, ran) = rx.await.map_err(|_| StoreError::Closed)?;
        note_slow_call::<F>(asked.elapsed(), ran);
        out
    }

    /// Runs `f` on the database thread, blocking this thread until it is done. For code that is
    /// not async (start-up, tests); never call it from inside an async task.
    pub fn call_blocking<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> StoreResult<T> + Send + 'static,
    {
        let (reply, rx) = mpsc::sync_channel(1);
        let asked = Instant::now();
        let job = timed(f, move |done| {
            let _ = reply.send(done);
        });
        self.tx
            .send(Msg::Call(job))
            .map_err(|_| StoreError::Closed)?;
        let (out, ran) = rx.recv().map_err(|_| StoreError::Closed)?;
        note_slow_call::<F>(asked.elapsed(), ran);
        out
    }

    /// Queues a write; it is committed with the writes around it. A failure is logged and
    /// counted ([`Store::failed_writes`]), never silently dropped.
    pub fn write<F>(&self, f: F)
    where
        F: FnOnce(&mut Connection) -> rusqlite::Result<()> + Send + 'static,
    {
        if self.tx.send(Msg::Write(Box::new(f))).is_err() {
            self.failed_writes.fetch_add(1, Ordering::Relaxed);
            tracing::error!("database thread stopped; a write was lost");
        }
    }

    /// Waits until every write queued before this call is committed.
    pub async fn flush(&self) -> StoreResult<()> {
        self.call(|_| Ok(())).await
    }

    /// How many queued writes have failed since the store was opened.
    pub fn failed_writes(&self) -> u64 {
        self.failed_writes.load(Ordering::Relaxed)
    }
}

/// `f` as a job for the database thread that hands `reply` its result and how long it ran.
fn timed<T, F>(f: F, reply: impl FnOnce((StoreResult<T>, Duration)) + Send + 'static) -> CallJob
where
    F: FnOnce(&mut Connection) -> StoreResult<T> + Send + 'static,
{
    Box::new(move |conn| {
        let started = Instant::now();
        let out = f(conn);
        reply((out, started.elapsed()));
    })
}

/// A call that takes longer than this, waiting included, is logged: the window waits for it.
const SLOW_CALL: Duration = Duration::from_millis(100);

/// Logs a slow database call with what it was (the closure's path names the store method) and
/// how much of the time it waited behind other work on the database thread.
fn note_slow_call<F>(total: Duration, ran: Duration) {
    if total >= SLOW_CALL {
        tracing::info!(
            "database: {} took {} ms ({} ms of it waiting for the database thread)",
            std::any::type_name::<F>(),
            total.as_millis(),
            total.saturating_sub(ran).as_millis()
        );
    }
}

fn run(mut conn: Connection, rx: mpsc::Receiver<Msg>, failed: &AtomicU64) {
    let mut pending: Option<Msg> = None;
    loop {
        let msg = match pending.take() {
            Some(m) => m,
            None => match rx.recv() {
                Ok(m) => m,
                Err(_) => return,
            },
        };
        match msg {
            Msg::Call(job) => run_guarded(|| job(&mut conn)),
            Msg::Write(first) => {
                let in_tx = conn.execute_batch("BEGIN").is_ok();
                run_write(&mut conn, first, failed);
                let mut n = 1;
                while n < MAX_BATCH {
                    match rx.try_recv() {
                        Ok(Msg::Write(job)) => {
                            run_write(&mut conn, job, failed);
                            n += 1;
                        }
                        Ok(call) => {
                            pending = Some(call);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                if in_tx {
                    if let Err(e) = conn.execute_batch("COMMIT") {
                        failed.fetch_add(n as u64, Ordering::Relaxed);
                        tracing::error!("committing {n} queued writes failed: {e}");
                        let _ = conn.execute_batch("ROLLBACK");
                    }
                }
            }
        }
    }
}

fn run_write(conn: &mut Connection, job: WriteJob, failed: &AtomicU64) {
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(conn)));
    match ok {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            failed.fetch_add(1, Ordering::Relaxed);
            tracing::error!("a queued database write failed: {e}");
        }
        Err(_) => {
            failed.fetch_add(1, Ordering::Relaxed);
            tracing::error!("a queued database write panicked");
        }
    }
}

fn run_guarded(f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        tracing::error!("a database call panicked; its caller sees the store as closed");
    }
}

/// Milliseconds since the Unix epoch: how every timestamp is stored.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[tokio::test]
    async fn the_database_and_its_folder_are_private_to_their_owner() {
        use std::os::unix::fs::PermissionsExt;
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("data");
        let store = Store::open_in(&dir).unwrap();
        store.create_chat(Default::default()).await.unwrap();
        store.flush().await.unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join(DB_FILE)), 0o600);
        let wal = dir.join(format!("{DB_FILE}-wal"));
        assert!(wal.exists());
        assert_eq!(
            mode(&wal),
            0o600,
            "SQLite gives the WAL the database's mode"
        );
        drop(store);
        // A database made earlier with default permissions is narrowed when opened.
        std::fs::set_permissions(dir.join(DB_FILE), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        let _again = Store::open_in(&dir).unwrap();
        assert_eq!(mode(&dir.join(DB_FILE)), 0o600);
    }

    #[tokio::test]
    async fn writes_are_ordered_before_later_calls() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        for i in 0..1000 {
            store.write(move |c| {
                c.execute(
                    "INSERT INTO settings(key, value) VALUES (?1, ?2)",
                    (format!("k{i}"), "v"),
                )
                .map(|_| ())
            });
        }
        let n: i64 = store
            .call(|c| Ok(c.query_row("SELECT COUNT(*) FROM settings", [], |r| r.get(0))?))
            .await
            .unwrap();
        assert_eq!(n, 1000);
        assert_eq!(store.failed_writes(), 0);
    }

    #[tokio::test]
    async fn a_failing_write_is_counted_and_does_not_sink_its_batch() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.write(|c| {
            c.execute("INSERT INTO settings(key, value) VALUES ('a', '1')", [])
                .map(|_| ())
        });
        store.write(|c| {
            c.execute("INSERT INTO no_such_table VALUES (1)", [])
                .map(|_| ())
        });
        store.write(|c| {
            c.execute("INSERT INTO settings(key, value) VALUES ('b', '2')", [])
                .map(|_| ())
        });
        store.flush().await.unwrap();
        assert_eq!(store.failed_writes(), 1);
        let n: i64 = store
            .call(|c| Ok(c.query_row("SELECT COUNT(*) FROM settings", [], |r| r.get(0))?))
            .await
            .unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn wal_and_foreign_keys_are_on_and_data_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open_in(dir.path()).unwrap();
            let mode: String = store
                .call_blocking(|c| Ok(c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?))
                .unwrap();
            assert_eq!(mode, "wal");
            let fk: i64 = store
                .call_blocking(|c| Ok(c.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?))
                .unwrap();
            assert_eq!(fk, 1);
            store
                .call_blocking(|c| {
                    c.execute("INSERT INTO settings(key, value) VALUES ('x', 'y')", [])?;
                    Ok(())
                })
                .unwrap();
        }
        let store = Store::open_in(dir.path()).unwrap();
        let v: String = store
            .call_blocking(|c| {
                Ok(c.query_row("SELECT value FROM settings WHERE key='x'", [], |r| r.get(0))?)
            })
            .unwrap();
        assert_eq!(v, "y");
    }

    #[test]
    fn data_dir_env_overrides_the_default() {
        let def = PathBuf::from("/default/place");
        assert_eq!(choose_data_dir(None, def.clone()), def);
        assert_eq!(choose_data_dir(Some("".into()), def.clone()), def);
        assert_eq!(
            choose_data_dir(Some("/tmp/x".into()), def),
            PathBuf::from("/tmp/x")
        );
    }
}
