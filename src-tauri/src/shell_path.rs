//! The `PATH` a user's terminal has, for an app started from the desktop. A desktop entry or the
//! Dock starts the app with the session's minimal `PATH` (often `/usr/bin:/bin`), so an MCP
//! server configured as `npx …` or `uvx …` — found in a terminal through `~/.profile`, nvm or
//! Homebrew — would not be found. At start the app asks the user's login shell for its `PATH`
//! (as other Tauri apps do) and adds the folders the app's own `PATH` lacks, after its own.

use std::ffi::OsString;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Marks the `PATH` in the shell's output, apart from anything its start-up files print.
const MARK: &str = "__TOLLGATE_PATH__";
/// A shell that takes longer than this is left alone, and the app keeps its own `PATH`.
const WAIT: Duration = Duration::from_secs(3);

/// What happened to `PATH`, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellPath {
    /// Folders from the login shell were added.
    Added(Vec<String>),
    /// The login shell's `PATH` had nothing the app's lacked.
    Unchanged,
    /// The shell could not be asked; why.
    Skipped(String),
}

/// Reads the login shell's `PATH` and adds what is missing to this process's `PATH`. Call before
/// any other thread starts (it sets an environment variable). Not on Windows, where GUI apps
/// get the user's full `PATH`.
pub fn extend_from_login_shell() -> ShellPath {
    if cfg!(windows) {
        return ShellPath::Skipped("not needed on Windows".into());
    }
    let Some(shell) = std::env::var_os("SHELL").filter(|s| !s.is_empty()) else {
        return ShellPath::Skipped("SHELL is not set".into());
    };
    let login = match login_shell_path(&shell) {
        Ok(p) => p,
        Err(why) => return ShellPath::Skipped(why),
    };
    let own = std::env::var_os("PATH").unwrap_or_default();
    let (merged, added) = merge(&own, &login);
    if added.is_empty() {
        return ShellPath::Unchanged;
    }
    std::env::set_var("PATH", merged);
    ShellPath::Added(added)
}

/// Runs `shell -ilc` to print its `PATH` between marks; stops it after [`WAIT`].
fn login_shell_path(shell: &std::ffi::OsStr) -> Result<String, String> {
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
            Ok(None) if started.elapsed() < WAIT => std::thread::sleep(Duration::from_millis(20)),
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
fn merge(own: &std::ffi::OsStr, login: &str) -> (OsString, Vec<String>) {
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
            std::ffi::OsStr::new("/usr/bin:/bin"),
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
