//! The log a user can send: everything the app logs goes to stderr and to a file in the OS log
//! folder that rotates at 10 MB and keeps three files (`tollgate.log`, `.1`, `.2`). Every line is
//! scrubbed of API keys and MCP secrets on the way out (`tollgate_secrets::redact`), and a
//! panic in any thread is written there with its backtrace.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tollgate_secrets::redact;
use tracing_subscriber::fmt::MakeWriter;

/// The current file's name; older ones get `.1`, `.2`, … after it.
pub const FILE_NAME: &str = "tollgate.log";
/// A file is rotated when it reaches this size.
pub const MAX_BYTES: u64 = 10 * 1024 * 1024;
/// How many files are kept, the current one included.
pub const KEEP: usize = 3;

/// The folder the log is written to: `<TOLLGATE_DATA_DIR>/logs` when that is set (tests, portable
/// use), otherwise the OS log folder Tauri names for the app (`~/.local/share/<id>/logs` on
/// Linux, `~/Library/Logs/<id>` on macOS, `%LOCALAPPDATA%\<id>\logs` on Windows).
pub fn folder(identifier: &str) -> Option<PathBuf> {
    if let Some(dir) = tollgate_store::chosen_data_dir() {
        return Some(dir.join("logs"));
    }
    if cfg!(target_os = "macos") {
        dirs::home_dir().map(|h| h.join("Library/Logs").join(identifier))
    } else {
        dirs::data_local_dir().map(|d| d.join(identifier).join("logs"))
    }
}

/// A size-rotated log file. Each write is one formatted event; it is redacted, appended, and the
/// file rotated once it passes the size limit.
pub struct LogFile {
    inner: parking_lot::Mutex<Inner>,
}

struct Inner {
    dir: PathBuf,
    file: Option<File>,
    size: u64,
    max_bytes: u64,
    keep: usize,
}

fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    // The log can quote chats and file names: readable by its owner only.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

impl LogFile {
    /// Opens (or creates) `dir/tollgate.log` for appending.
    pub fn open(dir: &Path, max_bytes: u64, keep: usize) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let file = open_append(&dir.join(FILE_NAME))?;
        let size = file.metadata()?.len();
        Ok(Self {
            inner: parking_lot::Mutex::new(Inner {
                dir: dir.to_path_buf(),
                file: Some(file),
                size,
                max_bytes,
                keep: keep.max(1),
            }),
        })
    }

    /// The path of rotated file `n` (0 is the current one).
    pub fn path(dir: &Path, n: usize) -> PathBuf {
        if n == 0 {
            dir.join(FILE_NAME)
        } else {
            dir.join(format!("{FILE_NAME}.{n}"))
        }
    }

    fn append(&self, text: &str) -> io::Result<()> {
        let clean = redact(text);
        let mut inner = self.inner.lock();
        if inner.file.is_none() {
            let path = Self::path(&inner.dir, 0);
            inner.file = Some(open_append(&path)?);
        }
        if let Some(file) = inner.file.as_mut() {
            file.write_all(clean.as_bytes())?;
        }
        inner.size += clean.len() as u64;
        if inner.size >= inner.max_bytes {
            inner.rotate()?;
        }
        Ok(())
    }
}

impl Inner {
    /// `.2` → gone, `.1` → `.2`, current → `.1`, a new current file.
    fn rotate(&mut self) -> io::Result<()> {
        self.file = None;
        let last = LogFile::path(&self.dir, self.keep - 1);
        if self.keep == 1 {
            std::fs::remove_file(&last)?;
        } else {
            let _ = std::fs::remove_file(&last);
            for n in (0..self.keep - 1).rev() {
                let from = LogFile::path(&self.dir, n);
                if from.exists() {
                    std::fs::rename(&from, LogFile::path(&self.dir, n + 1))?;
                }
            }
        }
        self.file = Some(open_append(&LogFile::path(&self.dir, 0))?);
        self.size = 0;
        Ok(())
    }
}

impl Write for &LogFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.append(&String::from_utf8_lossy(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.inner.lock().file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl<'a> MakeWriter<'a> for LogFile {
    type Writer = &'a LogFile;

    fn make_writer(&'a self) -> Self::Writer {
        self
    }
}

/// Standard error, redacted like the file.
pub struct RedactedStderr;

/// One write to standard error.
pub struct StderrWriter;

impl Write for StderrWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        io::stderr().write_all(redact(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

impl<'a> MakeWriter<'a> for RedactedStderr {
    type Writer = StderrWriter;

    fn make_writer(&'a self) -> Self::Writer {
        StderrWriter
    }
}

/// The folder [`init`] writes the log file to.
static FOLDER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// The folder the log file is written to, once logging has started with one.
pub fn current_folder() -> Option<&'static Path> {
    FOLDER.get().map(PathBuf::as_path)
}

/// Directives added to every filter: the targets that would log OAuth secrets at debug level.
const QUIET_OAUTH: [&str; 2] = ["rmcp::transport::auth=info", "oauth2=info"];

/// Starts logging: to standard error, and to the rotating file in `folder` when there is one
/// (if it cannot be opened, standard error says why and logging goes on there). The filter is
/// `TOLLGATE_LOG` (default `warn,tollgate=info,tollgate_engine=info`). Every panic is logged from
/// now on. Returns the file's folder when the file is written.
pub fn init(folder: Option<&Path>) -> Option<PathBuf> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = tracing_subscriber::EnvFilter::try_from_env("TOLLGATE_LOG").unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("warn,tollgate=info,tollgate_engine=info")
    });
    // The OAuth code of rmcp and the oauth2 crate print authorization codes and token
    // responses at debug level, before Tollgate has seen (and can redact) them: whatever
    // `TOLLGATE_LOG` asks, they log at info at most (SPEC §11).
    let filter = QUIET_OAUTH
        .iter()
        .filter_map(|d| d.parse().ok())
        .fold(filter, tracing_subscriber::EnvFilter::add_directive);
    let file = folder.and_then(|dir| match LogFile::open(dir, MAX_BYTES, KEEP) {
        Ok(file) => Some((dir.to_path_buf(), file)),
        Err(e) => {
            eprintln!(
                "Tollgate cannot write its log file in {}: {e}",
                dir.display()
            );
            None
        }
    });
    let (written, file_layer) = match file {
        Some((dir, file)) => (
            Some(dir),
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(file),
            ),
        ),
        None => (None, None),
    };
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_target(false)
        .with_writer(RedactedStderr);
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(stderr_layer)
        .with(file_layer)
        .try_init();
    log_panics();
    if let Some(dir) = &written {
        let _ = FOLDER.set(dir.clone());
    }
    written
}

/// Writes every panic, from any thread, to the log with its backtrace, then lets the default
/// hook print it as before.
fn log_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("unnamed");
        let message = tollgate_executor::panics::panic_message(info.payload());
        let place = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_else(|| "an unknown place".into());
        let backtrace = std::backtrace::Backtrace::force_capture();
        tracing::error!("panic in thread '{name}' at {place}: {message}\n{backtrace}");
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_file_rotates_at_its_size_and_keeps_three() {
        let dir = tempfile::tempdir().unwrap();
        let log = LogFile::open(dir.path(), 100, KEEP).unwrap();
        for n in 0..7 {
            (&log)
                .write_all(format!("{n}{}\n", "x".repeat(58)).as_bytes())
                .unwrap();
        }
        // 60 bytes a line, rotated when a file reaches 100: two lines per file.
        let read = |n| std::fs::read_to_string(LogFile::path(dir.path(), n)).unwrap_or_default();
        assert!(read(0).starts_with('6'), "{}", read(0));
        assert!(
            read(1).starts_with('4') && read(1).contains("\n5"),
            "{}",
            read(1)
        );
        assert!(
            read(2).starts_with('2') && read(2).contains("\n3"),
            "{}",
            read(2)
        );
        assert!(
            !LogFile::path(dir.path(), 3).exists(),
            "only three files are kept"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(LogFile::path(dir.path(), 0))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn keys_never_reach_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let log = LogFile::open(dir.path(), MAX_BYTES, KEEP).unwrap();
        tollgate_secrets::remember("my-provider-key-0123456789");
        (&log)
            .write_all(b"request failed: invalid key my-provider-key-0123456789 (Authorization: Bearer abcdefghijkl)\n")
            .unwrap();
        let text = std::fs::read_to_string(LogFile::path(dir.path(), 0)).unwrap();
        assert_eq!(
            text,
            "request failed: invalid key [redacted] (Authorization: Bearer [redacted])\n"
        );
    }
}

#[cfg(test)]
mod identifier_tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn the_app_id_is_the_one_in_tauri_conf() {
        let conf: serde_json::Value =
            serde_json::from_str(include_str!("../../../tauri.conf.json")).unwrap();
        assert_eq!(conf["identifier"], crate::APP_ID);
    }
}
