//! Driving the real app window through WebDriver: `tauri-driver` in front of WebKitWebDriver,
//! with the app started on its own data folder.

use crate::{app_binary, capture_display, seat, E2eError};
use fantoccini::{Client, ClientBuilder, Locator};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How often a wait for an element asks the window again: WebDriver's usual 250 ms added an
/// eighth of a second on average to each of the hundreds of waits a run makes; a lookup costs
/// the window a few milliseconds.
pub const ELEMENT_POLL: Duration = Duration::from_millis(50);

/// WebKitWebDriver from Debian's webkit2gtk-driver package.
pub const NATIVE_DRIVER: &str = "/usr/bin/WebKitWebDriver";

fn free_port() -> Result<u16, E2eError> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|source| E2eError::Io {
        what: "finding a free port".into(),
        source,
    })?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|source| E2eError::Io {
            what: "finding a free port".into(),
            source,
        })
}

fn tauri_driver() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|c| c.join("bin/tauri-driver"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("tauri-driver"))
}

/// How many times a session is tried before the start fails.
const SESSION_ATTEMPTS: usize = 3;

/// Starts tauri-driver on fresh ports, the app's data in `data_dir`, and waits until it
/// listens; returns it and its URL.
fn spawn_driver(
    data_dir: &std::path::Path,
    env: &[(&str, &str)],
) -> Result<(Child, String), E2eError> {
    let port = free_port()?;
    let native_port = free_port()?;
    let mut cmd = Command::new(tauri_driver());
    cmd.args([
        "--port",
        &port.to_string(),
        "--native-port",
        &native_port.to_string(),
        "--native-driver",
        NATIVE_DRIVER,
    ])
    .env("TOLLGATE_DATA_DIR", data_dir)
    .env("DISPLAY", seat::display())
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    // TOLLGATE_E2E_STDERR=1 shows the driver's and the app's log (debugging a test).
    .stderr(if std::env::var_os("TOLLGATE_E2E_STDERR").is_some() {
        Stdio::inherit()
    } else {
        Stdio::null()
    });
    for (k, v) in env {
        cmd.env(k, v);
    }
    // Its own process group: a failed attempt ends the driver with everything it started, even
    // an app it was still starting (forked, not yet the app), which could otherwise come up
    // beside the next attempt's.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let driver = cmd.spawn().map_err(|source| E2eError::Io {
        what: "starting tauri-driver (cargo install tauri-driver --locked)".into(),
        source,
    })?;
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err(E2eError::Timeout(
                "tauri-driver did not start listening".into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((driver, url))
}

/// A WebDriver session on a fresh app; the driver and app are stopped on drop.
pub struct Session {
    pub client: Client,
    driver: Child,
    data_dir: Option<tempfile::TempDir>,
    /// How long the session took from request to a usable window.
    pub startup: Duration,
}

/// How long one attempt at starting tauri-driver, the app and a WebDriver session may take: a
/// bound, never a wait. An attempt that is still not up then (a fresh-clone run of 2026-12-07
/// saw one session request hang for the whole minute the start then had, under load, with
/// nothing to retry) is ended, driver and app, and the next attempt starts afresh.
pub const ATTEMPT_LIMIT: Duration = Duration::from_secs(60);

/// How long starting a session may take in all, every attempt included.
pub const START_LIMIT: Duration = Duration::from_secs(60 * SESSION_ATTEMPTS as u64);

impl Session {
    /// Starts tauri-driver and the app with a fresh data folder (plus `env`).
    pub async fn start(env: &[(&str, &str)]) -> Result<Self, E2eError> {
        Self::start_in(data_folder()?, env).await
    }

    /// Starts the app on an existing data folder (a restart: see [`Self::close_keeping_data`]),
    /// failing if the session is not up within [`START_LIMIT`].
    pub async fn start_in(
        data_dir: tempfile::TempDir,
        env: &[(&str, &str)],
    ) -> Result<Self, E2eError> {
        tokio::time::timeout(START_LIMIT, Self::launch_in(data_dir, env))
            .await
            .map_err(|_| {
                E2eError::Timeout(format!("no session within {} s", START_LIMIT.as_secs()))
            })?
    }

    async fn launch_in(
        data_dir: tempfile::TempDir,
        env: &[(&str, &str)],
    ) -> Result<Self, E2eError> {
        if std::env::var_os("DISPLAY").is_none() {
            return Err(E2eError::NoDisplay);
        }
        let bin = app_binary()?;
        // A session that cannot be opened is retried with a fresh driver on fresh ports: the
        // ports are chosen free but released before the driver binds them, and a driver or
        // WebKitWebDriver of the test before may still be going away (seen once in a full run:
        // "webdriver server did not respond"). The session's own steps are never retried.
        let mut last = None;
        for _ in 0..SESSION_ATTEMPTS {
            let (driver, url) = spawn_driver(data_dir.path(), env)?;
            // Ended when dropped: a start that runs out of time midway leaves no driver behind.
            let mut driver = DriverGuard(Some(driver));
            let mut caps = serde_json::Map::new();
            caps.insert(
                "tauri:options".into(),
                serde_json::json!({"application": bin}),
            );
            caps.insert("browserName".into(), serde_json::json!("wry"));
            let started = Instant::now();
            let mut builder = ClientBuilder::rustls()
                .map_err(|e| E2eError::Timeout(format!("WebDriver client: {e}")))?;
            let connect = builder.capabilities(caps).connect(&url);
            let connected = match tokio::time::timeout(ATTEMPT_LIMIT, connect).await {
                Ok(connected) => connected.map_err(|e| e.to_string()),
                Err(_) => Err(format!(
                    "the session was not up within {} s",
                    ATTEMPT_LIMIT.as_secs()
                )),
            };
            match connected {
                Ok(client) => {
                    let driver = driver
                        .0
                        .take()
                        .ok_or_else(|| E2eError::Timeout("the driver went away".into()))?;
                    return Ok(Self {
                        client,
                        driver,
                        data_dir: Some(data_dir),
                        startup: started.elapsed(),
                    });
                }
                Err(e) => {
                    drop(driver);
                    last = Some(e);
                    // The attempt's app can outlive its driver (a loaded machine: fresh-clone
                    // run 3 of 2026-11-27 found two apps, two windows, on one data folder):
                    // it is ended, and the next attempt starts once it is gone.
                    end_apps_on(data_dir.path()).await;
                }
            }
        }
        Err(E2eError::Timeout(format!(
            "could not open a WebDriver session in {SESSION_ATTEMPTS} attempts: {}",
            last.unwrap_or_default()
        )))
    }

    /// Waits until `css` matches a displayed element and returns its text.
    pub async fn wait_text(&self, css: &str, timeout: Duration) -> Result<String, E2eError> {
        let el = self
            .client
            .wait()
            .at_most(timeout)
            .every(ELEMENT_POLL)
            .for_element(Locator::Css(css))
            .await
            .map_err(|e| {
                E2eError::Timeout(format!("no element \"{css}\" within {timeout:?}: {e}"))
            })?;
        el.text()
            .await
            .map_err(|e| E2eError::Timeout(format!("reading \"{css}\": {e}")))
    }

    /// Lets in-page scripts (`execute`, `execute_async`) run up to `limit`; the WebDriver
    /// default is 30 s, too short for a script that waits on a long chat or session.
    pub async fn script_timeout(&self, limit: Duration) -> Result<(), E2eError> {
        self.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(limit),
                None,
                None,
            ))
            .await
            .map_err(|e| E2eError::Timeout(format!("setting the script timeout: {e}")))
    }

    /// Saves a PNG of the window to `target/e2e-screenshots/<name>.png`. Taken from the X display:
    /// WebKitWebDriver's own screenshot command can wait forever on some pages.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf, E2eError> {
        let (display, name) = (seat::display(), name.to_string());
        tokio::task::spawn_blocking(move || capture_display(&display, &name))
            .await
            .map_err(|e| E2eError::Timeout(format!("screenshot task: {e}")))?
    }

    /// Every byte of the app's database as it stands (the file and its write-ahead log), to
    /// search for what must never be in it.
    pub fn database_bytes(&self) -> Vec<u8> {
        let db = self.data_path().join("tollgate.sqlite3");
        let mut bytes = std::fs::read(&db).unwrap_or_default();
        bytes.extend(std::fs::read(db.with_extension("sqlite3-wal")).unwrap_or_default());
        bytes
    }

    /// The app's data folder (its database lives here).
    pub fn data_path(&self) -> &std::path::Path {
        self.data_dir
            .as_ref()
            .map_or_else(|| std::path::Path::new(""), |d| d.path())
    }

    /// The process id of tauri-driver, whose descendants are the app and its WebKit processes
    /// (for measuring them).
    pub fn driver_pid(&self) -> u32 {
        self.driver.id()
    }

    /// Ends the session and waits for the app to exit (see [`Self::end_app`]), then stops the
    /// driver: the next test finds only its own window.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        if let Some(data) = &self.data_dir {
            end_app(data.path()).await;
        }
        end_group(&mut self.driver);
    }

    /// Ends a session whose WebDriver session died with the web process it drove (a test that
    /// had the app end its window's web process): the window cannot be closed through it, so
    /// the app is ended at once instead of waited for.
    pub async fn end_after_driver_lost(mut self) {
        if let Some(data) = &self.data_dir {
            end_apps_on(data.path()).await;
        }
        end_group(&mut self.driver);
    }

    /// Quits the app the way a user does (closing its window) and keeps its data folder.
    pub async fn close_keeping_data(mut self) -> Option<tempfile::TempDir> {
        let _ = self.client.clone().close().await;
        if let Some(data) = &self.data_dir {
            end_app(data.path()).await;
        }
        end_group(&mut self.driver);
        self.data_dir.take()
    }
}

/// Waits for the app on `data` to exit once its window closed (it saves what it holds on the
/// way out); one that has not gone after a minute (a loaded machine) is ended, so the next start
/// on this folder is never handed over to it and the next test never sees its window.
async fn end_app(data: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while app_running_on(data) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for pid in crate::apps_on(data) {
        eprintln!("the app ({pid}) had not exited a minute after its window closed");
    }
    end_apps_on(data).await;
}

/// A tauri-driver (and with it the app it started) that is ended when dropped.
struct DriverGuard(Option<Child>);

impl Drop for DriverGuard {
    fn drop(&mut self) {
        if let Some(mut driver) = self.0.take() {
            end_group(&mut driver);
        }
    }
}

/// Ends tauri-driver with its whole process group (it was started in a group of its own):
/// WebKitWebDriver and whatever it started. Killing tauri-driver alone left WebKitWebDriver
/// running, one more for every session of the run, and a failed attempt's app could come up
/// beside the next attempt's.
fn end_group(driver: &mut Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", driver.id())])
        .status();
    let _ = driver.kill();
    let _ = driver.wait();
}

/// Ends every app running on `data` and waits until none is left.
async fn end_apps_on(data: &std::path::Path) {
    for pid in crate::apps_on(data) {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    while app_running_on(data) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether an app process runs on the data folder `data` (its `TOLLGATE_DATA_DIR`).
fn app_running_on(data: &std::path::Path) -> bool {
    !crate::apps_on(data).is_empty()
}

impl Drop for Session {
    fn drop(&mut self) {
        end_group(&mut self.driver);
        // A test that failed midway leaves its app up (the driver's death does not end it): it
        // goes too, so the next test finds only its own window.
        if let Some(data) = &self.data_dir {
            for pid in crate::apps_on(data.path()) {
                let _ = Command::new("kill").args(["-KILL", &pid]).status();
            }
        }
    }
}

/// A fresh data folder for an app a test starts (removed when dropped).
pub fn data_folder() -> Result<tempfile::TempDir, E2eError> {
    tempfile::tempdir().map_err(|source| E2eError::Io {
        what: "creating the data folder".into(),
        source,
    })
}
