//! A stand-in for the desktop's notification server (`org.freedesktop.Notifications`) on the
//! test's own D-Bus session: it records every notification the app shows and can click one as a
//! user would (the `ActionInvoked` signal the real servers send).

use crate::E2eError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";

/// A notification as the app sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub id: u32,
    pub app: String,
    pub summary: String,
    pub body: String,
    /// Action keys and labels, alternating (the wire format).
    pub actions: Vec<String>,
}

struct Server {
    shown: Arc<Mutex<Vec<Shown>>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    fn get_capabilities(&self) -> Vec<String> {
        vec!["actions".into(), "body".into(), "body-markup".into()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "tollgate-e2e".into(),
            "tollgate".into(),
            "1.0".into(),
            "1.2".into(),
        )
    }

    #[allow(clippy::too_many_arguments)] // the D-Bus method's signature
    fn notify(
        &self,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, zbus::OwnedVariant>,
        _expire_timeout: i32,
    ) -> u32 {
        let mut shown = self.shown.lock().unwrap_or_else(|p| p.into_inner());
        let id = u32::try_from(shown.len()).unwrap_or(u32::MAX - 1) + 1;
        shown.push(Shown {
            id,
            app: app_name,
            summary,
            body,
            actions,
        });
        id
    }

    fn close_notification(&self, _id: u32) {}
}

/// The running stand-in server; it leaves the bus when dropped.
pub struct FakeNotifications {
    conn: zbus::Connection,
    shown: Arc<Mutex<Vec<Shown>>>,
}

fn bus(what: &str) -> impl FnOnce(zbus::Error) -> E2eError + '_ {
    move |e| E2eError::Timeout(format!("{what}: {e}"))
}

impl FakeNotifications {
    /// Takes the notification server's name on the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    pub async fn start() -> Result<Self, E2eError> {
        let shown = Arc::new(Mutex::new(Vec::new()));
        let server = Server {
            shown: Arc::clone(&shown),
        };
        let conn = zbus::connection::Builder::session()
            .name(INTERFACE)
            .serve_at(PATH, server)
            .build()
            .await
            .map_err(bus("starting the notification server"))?;
        Ok(Self { conn, shown })
    }

    /// Every notification shown so far.
    pub fn shown(&self) -> Vec<Shown> {
        self.shown.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Waits for the `n`th notification (1-based) and returns it.
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Result<Shown, E2eError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(s) = self.shown().get(n - 1) {
                return Ok(s.clone());
            }
            if Instant::now() > deadline {
                return Err(E2eError::Timeout(format!(
                    "notification {n} never came (shown: {:?})",
                    self.shown()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks notification `id`: its default action is invoked and it closes, as a server does.
    pub async fn click(&self, id: u32) -> Result<(), E2eError> {
        self.conn
            .emit_signal(
                None::<&str>,
                PATH,
                INTERFACE,
                "ActionInvoked",
                &(id, "default"),
            )
            .await
            .map_err(bus("invoking the notification's action"))?;
        // Reason 2: dismissed by the user.
        self.conn
            .emit_signal(
                None::<&str>,
                PATH,
                INTERFACE,
                "NotificationClosed",
                &(id, 2u32),
            )
            .await
            .map_err(bus("closing the notification"))
    }
}
