//! Harness for end-to-end tests: starts the real app binary with its own data folder on the
//! current X display, finds its window, and takes screenshots of it.
//!
//! The tests run under `xvfb-run` (the README's test command does that); the app binary must be
//! built first (`cargo test --workspace --no-run`, which `.ci/test.sh` runs); a binary older than
//! the sources it is built from is refused.

pub mod a11y;
pub mod node_servers;
pub mod notifications;
pub mod recorder;
pub mod seat;
pub mod steps;
pub mod webdriver;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Why the app could not be driven.
#[derive(Debug, thiserror::Error)]
pub enum E2eError {
    #[error("no X display: run the end-to-end tests under xvfb-run (see README)")]
    NoDisplay,
    #[error("the app binary was not found at {0}; build it first with `cargo test --workspace --no-run`")]
    NoBinary(PathBuf),
    #[error(
        "the app binary {binary} is older than {newer}: it would test code that is not there any \
         more; build it first with `cargo test --workspace --no-run` (.ci/test.sh does)"
    )]
    Stale { binary: PathBuf, newer: PathBuf },
    #[error("{what} failed: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Timeout(String),
    #[error("the app exited early with {status}; stderr:\n{stderr}")]
    Exited { status: String, stderr: String },
}

pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> E2eError {
    let what = what.into();
    move |source| E2eError::Io { what, source }
}

/// The app binary next to the test executable (`target/<profile>/tollgate`).
pub fn app_binary() -> Result<PathBuf, E2eError> {
    // The install test drives the installed package (/usr/bin/tollgate) instead.
    if let Some(app) = std::env::var_os("TOLLGATE_E2E_APP").filter(|a| !a.is_empty()) {
        let app = PathBuf::from(app);
        return if app.exists() {
            Ok(app)
        } else {
            Err(E2eError::NoBinary(app))
        };
    }
    let exe = std::env::current_exe().map_err(io("locating the test binary"))?;
    // target/<profile>/deps/<test> → target/<profile>/tollgate
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| E2eError::NoBinary(exe.clone()))?;
    let bin = profile_dir.join(format!("tollgate{}", std::env::consts::EXE_SUFFIX));
    let built = std::fs::metadata(&bin)
        .and_then(|m| m.modified())
        .map_err(|_| E2eError::NoBinary(bin.clone()))?;
    if let Some(source) = newer_source(built) {
        return Err(E2eError::Stale {
            binary: bin,
            newer: source,
        });
    }
    Ok(bin)
}

/// The first file the app is built from (its Rust sources, those of every crate of the engine,
/// the built UI it embeds) changed after `built`, if any.
fn newer_source(built: std::time::SystemTime) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut folders: Vec<PathBuf> = ["src-tauri/src", "ui/dist"]
        .iter()
        .map(|f| root.join(f))
        .collect();
    // Each crate's own sources (its tests and benches are not part of the app).
    if let Ok(crates) = std::fs::read_dir(root.join("src-tauri/crates")) {
        folders.extend(crates.flatten().map(|c| c.path().join("src")));
    }
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if meta.is_dir() {
                folders.push(entry.path());
            } else if meta.modified().is_ok_and(|m| m > built) {
                return Some(entry.path());
            }
        }
    }
    None
}

/// Where tests save screenshots: `target/e2e-screenshots/`.
pub fn screenshot_dir() -> Result<PathBuf, E2eError> {
    let exe = std::env::current_exe().map_err(io("locating the test binary"))?;
    // target/<profile>/deps/<test> → target
    let target = exe
        .ancestors()
        .nth(3)
        .ok_or_else(|| E2eError::NoBinary(exe.clone()))?;
    let dir = target.join("e2e-screenshots");
    std::fs::create_dir_all(&dir).map_err(io("creating the screenshot folder"))?;
    Ok(dir)
}

/// A running app with its own folder for its log (and its data, unless started on one of its
/// own with [`App::launch_on`]); killed on drop.
pub struct App {
    child: Child,
    pub data_dir: tempfile::TempDir,
    stderr_path: PathBuf,
}

impl App {
    /// Starts the app on `$DISPLAY` with a fresh data folder.
    pub fn launch() -> Result<Self, E2eError> {
        Self::spawn(None)
    }

    /// Starts the app on `$DISPLAY` with the data in `data` (left in place when it stops).
    pub fn launch_on(data: &Path) -> Result<Self, E2eError> {
        Self::spawn(Some(data))
    }

    fn spawn(data: Option<&Path>) -> Result<Self, E2eError> {
        if std::env::var_os("DISPLAY").is_none() {
            return Err(E2eError::NoDisplay);
        }
        let bin = app_binary()?;
        let data_dir = tempfile::tempdir().map_err(io("creating the data folder"))?;
        let stderr_path = data_dir.path().join("app-stderr.log");
        let stderr = std::fs::File::create(&stderr_path).map_err(io("creating the log file"))?;
        let child = seat::x_command(&bin.to_string_lossy())
            .env("TOLLGATE_DATA_DIR", data.unwrap_or(data_dir.path()))
            .env("TOLLGATE_LOG", "info")
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .map_err(io(format!("starting {}", bin.display())))?;
        Ok(Self {
            child,
            data_dir,
            stderr_path,
        })
    }

    /// The app's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The app's log so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// Fails if the app has exited.
    pub fn check_alive(&mut self) -> Result<(), E2eError> {
        match self
            .child
            .try_wait()
            .map_err(io("checking the app process"))?
        {
            Some(status) => Err(E2eError::Exited {
                status: status.to_string(),
                stderr: self.stderr(),
            }),
            None => Ok(()),
        }
    }

    /// Waits until a visible window titled exactly `title` exists; returns its X id.
    pub fn wait_for_window(&mut self, title: &str, timeout: Duration) -> Result<String, E2eError> {
        let deadline = Instant::now() + timeout;
        loop {
            self.check_alive()?;
            if let Some(id) = visible_window(title)? {
                return Ok(id);
            }
            if Instant::now() > deadline {
                return Err(E2eError::Timeout(format!(
                    "no visible window \"{title}\" after {timeout:?}; app log:\n{}",
                    self.stderr()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the app's log holds `needle` (a state the app reports, e.g. "first paint"
    /// once the page is drawn), instead of guessing how long that takes.
    pub fn wait_for_log(&mut self, needle: &str, timeout: Duration) -> Result<(), E2eError> {
        let deadline = Instant::now() + timeout;
        while !self.stderr().contains(needle) {
            self.check_alive()?;
            if Instant::now() > deadline {
                return Err(E2eError::Timeout(format!(
                    "the log never said \"{needle}\" in {timeout:?}:\n{}",
                    self.stderr()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// Saves a PNG of the whole screen to `target/e2e-screenshots/<name>.png`.
    pub fn screenshot(&self, name: &str) -> Result<PathBuf, E2eError> {
        capture_screen(name)
    }
}

/// Hides the window titled exactly `title` (unmaps it: the display has no window manager to
/// minimise it) and returns its X id, for [`map_window`].
pub fn unmap_window(title: &str) -> Result<String, E2eError> {
    let id = visible_window(title)?
        .ok_or_else(|| E2eError::Timeout(format!("no visible window \"{title}\"")))?;
    xdotool(&["windowunmap", "--sync", &id])?;
    Ok(id)
}

/// Shows a window hidden by [`unmap_window`] again.
pub fn map_window(id: &str) -> Result<(), E2eError> {
    xdotool(&["windowmap", "--sync", id])
}

fn xdotool(args: &[&str]) -> Result<(), E2eError> {
    let status = seat::x_command("xdotool")
        .args(args)
        .status()
        .map_err(io("running xdotool"))?;
    if !status.success() {
        return Err(E2eError::Timeout(format!(
            "xdotool {args:?} failed with {status}"
        )));
    }
    Ok(())
}

/// The app processes running on the data folder `data` (its `TOLLGATE_DATA_DIR`).
pub fn apps_on(data: &Path) -> Vec<String> {
    let wanted = format!("TOLLGATE_DATA_DIR={}", data.display());
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .filter_map(Result::ok)
        .filter(|p| {
            let is_app = std::fs::read_link(p.path().join("exe"))
                .ok()
                .and_then(|exe| {
                    exe.file_name()
                        .map(|n| n.to_string_lossy().starts_with("tollgate"))
                })
                .unwrap_or(false);
            is_app
                && std::fs::read(p.path().join("environ"))
                    .map(|env| env.split(|b| *b == 0).any(|v| v == wanted.as_bytes()))
                    .unwrap_or(false)
        })
        .map(|p| p.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The visible windows titled "Tollgate" of the apps running on `data` (by their `_NET_WM_PID`):
/// a test counts its own app's windows, never the window of an app an earlier test ended that
/// the display has not taken down yet (a loaded machine: fresh-clone run 3).
pub fn app_windows_on(data: &Path) -> Vec<String> {
    let mut windows: Vec<String> = apps_on(data)
        .iter()
        .flat_map(|pid| {
            let out = seat::x_command("xdotool")
                // `--all`: the window must have this pid *and* this title. xdotool's default is
                // `--any`, which matched every "Tollgate" window on the display, so any other
                // app's window (most likely one an earlier test's app was still taking down)
                // counted as this app's second one: three loaded fresh-clone runs failed so.
                .args([
                    "search",
                    "--all",
                    "--onlyvisible",
                    "--pid",
                    pid,
                    "--name",
                    "^Tollgate$",
                ])
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            out.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    // The app's own children run on its folder too (the sandbox probe, at the lowest priority,
    // can still be running): each finds no window of its own, and one window is counted once.
    windows.sort();
    windows.dedup();
    windows
}

/// Whether a window titled exactly `title` is shown right now.
pub fn window_shown(title: &str) -> Result<bool, E2eError> {
    Ok(visible_window(title)?.is_some())
}

/// The X id of a visible window titled exactly `title`, if there is one.
fn visible_window(title: &str) -> Result<Option<String>, E2eError> {
    let out = seat::x_command("xdotool")
        .args(["search", "--onlyvisible", "--name", &format!("^{title}$")])
        .output()
        .map_err(io("running xdotool (install the xdotool package)"))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string))
}

/// Answers a native dialog (a GTK window titled exactly `title`, e.g. the save dialog) from the
/// keyboard: waits until it shows and something in it has the keyboard (a text field holding
/// the name it offers), gives it the X input focus, and presses `keys` there (xdotool key
/// names, e.g. `Return`). The dialog is outside the web page, so WebDriver cannot reach it.
pub fn answer_native_dialog(title: &str, keys: &[&str], timeout: Duration) -> Result<(), E2eError> {
    answer_native_dialog_typing(title, &[], None, keys, timeout)
}

/// Like [`answer_native_dialog`], first pressing `before` (e.g. `ctrl+l` for a file dialog's
/// location field) until a text field has the keyboard, and typing `text` there until the field
/// holds it, as a user does who looks before pressing on.
///
/// Each step waits for the state the dialog tells the accessibility bus ([`a11y::focus_in`]),
/// never for a time: the dialog takes keys before it is ready for them, and nothing outside it
/// shows when it is. Every key goes to the dialog only: it is given the X input focus, and the
/// bus says it has a focused part, right before each press.
pub fn answer_native_dialog_typing(
    title: &str,
    before: &[&str],
    text: Option<&str>,
    keys: &[&str],
    timeout: Duration,
) -> Result<(), E2eError> {
    let dialog = NativeDialog {
        title,
        deadline: Instant::now() + timeout,
        timeout,
    };
    let mut focus = dialog.ready()?;
    if let Some(text) = text {
        // The location field: opened (once per time it is not there), then filled.
        let mut presses = 0;
        while !focus.in_text() {
            presses += 1;
            if presses > 1 {
                eprintln!("the dialog \"{title}\": {before:?} pressed again ({presses})");
            }
            dialog.press_all(before)?;
            // A dialog still loading drops the keys: pressed again if no field comes.
            if let Some(now) = dialog.within(a11y::Focus::in_text, PRESS_AGAIN_AFTER)? {
                focus = now;
            }
        }
        // Typed over whatever the field holds until it holds the text (keys typed into a field
        // that just came may be dropped too).
        let holds = |f: &a11y::Focus| f.in_text() && f.text.as_deref() == Some(text);
        let mut typed = 0;
        while !holds(&focus) {
            typed += 1;
            if typed > 1 {
                eprintln!(
                    "the dialog \"{title}\": {text:?} typed again ({typed}); it held {:?}",
                    focus.text
                );
            }
            dialog.press_all(&["ctrl+a"])?;
            dialog.type_text(text)?;
            if let Some(now) = dialog.within(holds, PRESS_AGAIN_AFTER)? {
                focus = now;
            }
        }
    }
    dialog.press_all(keys)?;
    // The answer took when the dialog goes.
    while visible_window(title)?.is_some() {
        dialog.check_time(&format!(
            "the dialog \"{title}\" was still open after its answer"
        ))?;
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// How many readings of a dialog's focus a step waits for before it presses its keys again (a
/// dialog still loading drops them).
const PRESS_AGAIN_AFTER: usize = 40;

/// A native dialog being answered, within its time.
struct NativeDialog<'a> {
    title: &'a str,
    deadline: Instant,
    timeout: Duration,
}

impl NativeDialog<'_> {
    fn check_time(&self, what: &str) -> Result<(), E2eError> {
        if Instant::now() > self.deadline {
            return Err(E2eError::Timeout(format!("{what} ({:?})", self.timeout)));
        }
        Ok(())
    }

    /// Once the dialog shows with something in it that has the keyboard (a text field: once it
    /// holds what the dialog offers), what it has focused.
    fn ready(&self) -> Result<a11y::Focus, E2eError> {
        loop {
            let focus = a11y::focus_in(self.title)?;
            let offered = focus.text.as_deref().is_some_and(|t| !t.is_empty());
            if focus.window && focus.role.is_some() && (!focus.in_text() || offered) {
                return Ok(focus);
            }
            self.check_time(&format!(
                "the dialog \"{}\" was not ready for keys; last {focus:?}",
                self.title
            ))?;
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What the dialog has focused once `done` says so, read at most `readings` times on the
    /// accessibility bus; `None` if it never did.
    fn within(
        &self,
        done: impl Fn(&a11y::Focus) -> bool,
        readings: usize,
    ) -> Result<Option<a11y::Focus>, E2eError> {
        for _ in 0..readings {
            let focus = a11y::focus_in(self.title)?;
            if focus.window && done(&focus) {
                return Ok(Some(focus));
            }
            self.check_time(&format!(
                "the dialog \"{}\" did not come to what it was asked; last {focus:?}",
                self.title
            ))?;
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(None)
    }

    /// Gives the dialog the X input focus, and says whether it (still) shows with a focused part.
    fn focused(&self) -> Result<bool, E2eError> {
        let Some(id) = visible_window(self.title)? else {
            return Ok(false);
        };
        let status = seat::x_command("xdotool")
            .args(["windowfocus", "--sync", &id])
            .status()
            .map_err(io("running xdotool"))?;
        Ok(status.success() && a11y::focus_in(self.title)?.role.is_some())
    }

    /// Presses each of `keys` in the dialog, each right after the dialog was found focused.
    fn press_all(&self, keys: &[&str]) -> Result<(), E2eError> {
        for key in keys {
            while !self.focused()? {
                self.check_time(&format!(
                    "the dialog \"{}\" lost the keyboard before {key}",
                    self.title
                ))?;
                std::thread::sleep(Duration::from_millis(50));
            }
            let status = seat::x_command("xdotool")
                .args(["key", "--clearmodifiers", key])
                .status()
                .map_err(io("running xdotool"))?;
            if !status.success() {
                return Err(E2eError::Timeout(format!("could not press {key}")));
            }
        }
        Ok(())
    }

    /// Types `text` in the dialog's focused field.
    fn type_text(&self, text: &str) -> Result<(), E2eError> {
        if !self.focused()? {
            return Err(E2eError::Timeout(format!(
                "the dialog \"{}\" lost the keyboard before typing",
                self.title
            )));
        }
        let status = seat::x_command("xdotool")
            .args(["type", "--delay", "15", text])
            .status()
            .map_err(io("running xdotool"))?;
        if !status.success() {
            return Err(E2eError::Timeout(format!("could not type {text:?}")));
        }
        Ok(())
    }
}

/// Saves a PNG of the X display (the real window's pixels) to `target/e2e-screenshots/<name>.png`.
pub fn capture_screen(name: &str) -> Result<PathBuf, E2eError> {
    capture_display(&seat::display(), name)
}

/// [`capture_screen`] of `display`, from any thread.
pub fn capture_display(display: &str, name: &str) -> Result<PathBuf, E2eError> {
    let path = screenshot_dir()?.join(format!("{name}.png"));
    let status = Command::new("import")
        .env("DISPLAY", display)
        .args(["-window", "root"])
        .arg(&path)
        .status()
        .map_err(io("running import (install the imagemagick package)"))?;
    if !status.success() {
        return Err(E2eError::Timeout(format!("import failed with {status}")));
    }
    Ok(path)
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
