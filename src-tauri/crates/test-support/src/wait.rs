//! Waiting for a state in a test, never for a guessed number of milliseconds: a flag a test
//! tool raises, a bound on every wait ([`PATIENCE`]) and polling for states with no event.

use std::sync::Arc;
use std::time::Duration;

/// A flag a test tool raises and a test waits for: a state, never a guessed number of
/// milliseconds.
#[derive(Clone)]
pub struct Flag(Arc<tokio::sync::watch::Sender<bool>>);

impl Default for Flag {
    fn default() -> Self {
        Self(Arc::new(tokio::sync::watch::Sender::new(false)))
    }
}

impl Flag {
    pub fn raise(&self) {
        self.0.send_replace(true);
    }

    /// Waits until the flag is raised (a minute at most, then the test fails).
    pub async fn raised(&self, what: &str) {
        let mut seen = self.0.subscribe();
        tokio::time::timeout(PATIENCE, seen.wait_for(|up| *up))
            .await
            .unwrap_or_else(|_| panic!("never happened: {what}"))
            .unwrap();
    }
}

/// How long a test waits for a state before it fails: long enough that only a state that never
/// comes reaches it, however busy the machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The moment a wait gives up: [`PATIENCE`] from now.
pub fn deadline() -> std::time::Instant {
    std::time::Instant::now() + PATIENCE
}

/// Waits until `done` holds, checking every 10 ms (a minute at most, then the test fails):
/// for states with no event to wait on.
pub async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    eventually_some(what, || done().then_some(())).await
}

/// Waits until `found` gives something (a minute at most, then the test fails), and returns it.
pub async fn eventually_some<T>(what: &str, mut found: impl FnMut() -> Option<T>) -> T {
    eventually_some_async(what, || std::future::ready(found())).await
}

/// Waits until `found` gives a value, asking again every 10 ms (a minute at most, then the test
/// fails): for a state only a try can tell, such as a server that has begun to listen. The one
/// polling loop the other waits share.
pub async fn eventually_some_async<T, F, Fut>(what: &str, mut found: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = deadline();
    loop {
        if let Some(v) = found().await {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
