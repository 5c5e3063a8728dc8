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
