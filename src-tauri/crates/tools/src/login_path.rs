//! The `PATH` a user's terminal has, for the programs the app starts. A desktop entry or the
//! Dock starts the app with the session's minimal `PATH` (often `/usr/bin:/bin`), so an MCP
//! server configured as `npx …` or `uvx …` — found in a terminal through `~/.profile`, nvm or
//! Homebrew — would not be found. The app asks the user's login shell for its `PATH` (as other
//! desktop apps do) and gives children its own `PATH` followed by the folders it lacks.
//!
//! Asking takes a login shell's start-up (a quarter of a second on a plain Debian, seconds with
//! a heavy `.bashrc`), so the app asks on a thread of its own once the
//! window has painted ([`ask`]); only a child started before the answer waits, at most [`WAIT`].
//! The app's own environment is never changed (other threads may be reading it).

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Marks the `PATH` in the shell's output, apart from anything its start-up files print.
const MARK: &str = "__TOLLGATE_PATH__";
/// A shell that takes longer than this is left alone, and children get the app's own `PATH`.
pub const WAIT: Duration = Duration::from_secs(3);

/// What asking the login shell found, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginPath {
    /// Folders from the login shell are added after the app's own.
    Added(Vec<String>),
    /// The login shell's `PATH` had nothing the app's lacked.
    Unchanged,
    /// The shell could not be asked; why.
    Skipped(String),
}

/// The `PATH` children get when it differs from the app's own; set once, by [`resolve`].
static CHILD_PATH: OnceLock<(Option<OsString>, LoginPath)> = OnceLock::new();

/// Asks the login shell (once: later calls get the same answer, waiting for the first) and
/// says what it found. Blocks for up to [`WAIT`]: the app calls it on a thread of its own once
/// the window has painted, so the answer is usually there before the first child needs it.
pub fn ask() -> &'static LoginPath {
    &resolve().1
}

/// The `PATH` a child should get, when it is not the app's own. Waits for the login shell's
/// answer if it is still on its way (at most [`WAIT`]; run it off the async threads).
pub fn for_children() -> Option<OsString> {
    resolve().0.clone()
}

/// [`for_children`] from async code: waits on a blocking thread, not on the runtime's.
pub async fn for_children_async() -> Option<OsString> {
    if let Some((path, _)) = CHILD_PATH.get() {
        return path.clone();
    }
    tokio::task::spawn_blocking(for_children)
        .await
        .unwrap_or_default()
}

/// Asks once; every caller gets the same answer, later callers wait for the first.
fn resolve() -> &'static (Option<OsString>, LoginPath) {
    CHILD_PATH.get_or_init(|| {
        if cfg!(windows) {
            return (None, LoginPath::Skipped("not needed on Windows".into()));
        }
        let Some(shell) = std::env::var_os("SHELL").filter(|s| !s.is_empty()) else {
            return (None, LoginPath::Skipped("SHELL is not set".into()));
        };
        let login = match login_shell_path(&shell) {
            Ok(p) => p,
            Err(why) => return (None, LoginPath::Skipped(why)),
        };
        let own = std::env::var_os("PATH").unwrap_or_default();
        let (merged, added) = merge(&own, &login);
        if added.is_empty() {
            (None, LoginPath::Unchanged)
        } else {
            (Some(merged), LoginPath::Added(added))
        }
    })
}

/// Runs `shell -ilc` to print its `PATH` between marks; stops it after [`WAIT`].
fn login_shell_path(shell: &OsStr) -> Result<String, String> {
    let script = format!("printf '\\n{MARK}%s{MARK}\\n' \"$PATH\"");
    let mut child = Command::new(shell)
        .args(["-ilc", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{} could not start: {e}", shell.to_string_lossy()))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < WAIT => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} did not answer within {WAIT:?}",
                    shell.to_string_lossy()
                ));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_string(&mut out).map_err(|e| e.to_string())?;
    }
    parse(&out).ok_or_else(|| "the shell printed no PATH".into())
}

/// The `PATH` between the marks.
fn parse(output: &str) -> Option<String> {
    let start = output.find(MARK)? + MARK.len();
    let len = output[start..].find(MARK)?;
    Some(output[start..start + len].to_string())
}

/// `own` followed by the folders of `login` it lacks (relative folders left out); and those.
fn merge(own: &OsStr, login: &str) -> (OsString, Vec<String>) {
    let mut folders: Vec<std::path::PathBuf> = std::env::split_paths(own).collect();
    let mut added = Vec::new();
    for folder in std::env::split_paths(login) {
        if folder.is_absolute() && !folders.contains(&folder) {
            added.push(folder.display().to_string());
            folders.push(folder);
        }
    }
    let merged = std::env::join_paths(folders).unwrap_or_else(|_| own.to_os_string());
    (merged, added)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_login_shells_folders_are_added_after_the_apps_own() {
        let (merged, added) = merge(
            OsStr::new("/usr/bin:/bin"),
            "/home/u/.nvm/versions/node/v20/bin:/usr/bin:relative:/opt/homebrew/bin",
        );
        assert_eq!(
            merged,
            "/usr/bin:/bin:/home/u/.nvm/versions/node/v20/bin:/opt/homebrew/bin"
        );
        assert_eq!(
            added,
            ["/home/u/.nvm/versions/node/v20/bin", "/opt/homebrew/bin"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_real_login_shell_is_asked_and_its_noise_ignored() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // A "shell" whose start-up prints a banner before running the script it is given.
        let shell = dir.path().join("fake-shell");
        std::fs::write(
            &shell,
            "#!/bin/sh\necho 'Welcome! PATH is wonderful'\nPATH=/opt/tools/bin:$PATH\nshift\nexec /bin/sh -c \"$1\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&shell, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = login_shell_path(shell.as_os_str()).unwrap();
        assert!(path.starts_with("/opt/tools/bin:"), "{path}");

        let slow = dir.path().join("slow-shell");
        std::fs::write(&slow, "#!/bin/sh\nsleep 30\n").unwrap();
        std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = login_shell_path(slow.as_os_str()).unwrap_err();
        assert!(err.contains("did not answer"), "{err}");
    }
}
