//! Shared set-up for the engine's integration tests: the executor's harness from
//! `tollgate-test-support`, with shell commands run under the real supervisor (this crate's
//! `tollgate-supervise` binary), as in the app, for every harness the tests open.
#![allow(dead_code)]

use std::ops::{Deref, DerefMut};
use tollgate_protocol::ToolSettings;
pub use tollgate_test_support::executor::*;

/// The executor's harness, its shell commands under the real supervisor.
pub struct Harness(tollgate_test_support::executor::Harness);

impl Harness {
    pub async fn new() -> Self {
        Self::with_settings(ToolSettings::default()).await
    }

    pub async fn with_settings(settings: ToolSettings) -> Self {
        supervised();
        Self(tollgate_test_support::executor::Harness::with_settings(settings).await)
    }

    /// Closes this state and opens a fresh one on the same database (an app restart).
    pub async fn restart(self) -> Self {
        Self(self.0.restart().await)
    }
}

impl Deref for Harness {
    type Target = tollgate_test_support::executor::Harness;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for Harness {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// Shell commands in this test binary run under the real supervisor, as in the app.
pub fn supervised() {
    tollgate_tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
}

/// How every engine test opens the app: on its data folder `dir`, with a keychain of that
/// folder's own (tests side by side never share an entry such as `provider-1`), events of chats
/// with no running turn dropped, the chat loop of `tollgate-turn`, and the real home folder's
/// secret folders hidden from sandboxed commands. Change what a test needs, then [`Self::open`].
pub struct OpenApp<'a> {
    dir: &'a std::path::Path,
    keychain: Option<tollgate_secrets::Keychain>,
    sink: std::sync::Arc<dyn tollgate_protocol::EventSink>,
    home: Option<&'a std::path::Path>,
}

/// [`OpenApp`] on `dir`.
pub fn app_in(dir: &std::path::Path) -> OpenApp<'_> {
    OpenApp {
        dir,
        keychain: None,
        sink: std::sync::Arc::new(tollgate_protocol::NullSink),
        home: None,
    }
}

/// The keychain the app opened by [`app_in`] on `dir` keeps its secrets in, for a test to read.
pub fn keychain_of(dir: &std::path::Path) -> tollgate_secrets::Keychain {
    tollgate_secrets::Keychain::new(format!("app.tollgate.test {}", dir.display()))
}

impl<'a> OpenApp<'a> {
    /// Keeps the app's secrets in `keychain` rather than the folder's own.
    pub fn keychain(mut self, keychain: tollgate_secrets::Keychain) -> Self {
        self.keychain = Some(keychain);
        self
    }

    /// Sends the events of chats with no running turn to `sink`.
    pub fn sink(mut self, sink: std::sync::Arc<dyn tollgate_protocol::EventSink>) -> Self {
        self.sink = sink;
        self
    }

    /// Takes `home` as the user's home folder (its secret folders are hidden from sandboxed
    /// commands).
    pub fn home(mut self, home: &'a std::path::Path) -> Self {
        self.home = Some(home);
        self
    }

    /// Opens the app.
    pub async fn open(self) -> std::sync::Arc<tollgate_engine::service::Tollgate> {
        let keychain = self.keychain.unwrap_or_else(|| keychain_of(self.dir));
        let home = match self.home {
            Some(home) => Some(home.to_path_buf()),
            None => std::env::home_dir(),
        };
        tollgate_engine::service::Tollgate::open_for_home(
            self.dir,
            keychain,
            self.sink,
            tollgate_turn::start_turn,
            home.as_deref(),
        )
        .await
        .unwrap()
    }
}

/// A new chat of `app` with the defaults, as the window's New chat makes it.
pub async fn new_chat(app: &tollgate_engine::service::Tollgate) -> tollgate_protocol::ids::ChatId {
    app.store()
        .create_chat(tollgate_store::NewChat::default())
        .await
        .unwrap()
        .id
}
