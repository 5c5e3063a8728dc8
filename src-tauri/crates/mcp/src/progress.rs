//! Progress a server reports while one of its tools runs (`notifications/progress`, SPEC §11):
//! routed by the call's progress token to whoever shows that call, and thinned so that a
//! server flooding notifications cannot flood the window.

use parking_lot::Mutex;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use std::collections::HashMap;
use std::sync::Arc;

/// The longest progress message passed on (a server writes it; the card shows one line).
const MAX_MESSAGE_CHARS: usize = 200;

/// How far a call has got, as its server says.
#[derive(Debug, Clone, PartialEq)]
pub struct CallProgress {
    /// Increases with every report, whether or not `total` is known.
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

impl CallProgress {
    /// A server's report, made fit to show: a finite, non-negative progress, a total only when
    /// it is a positive finite number, and a message of one short line. `None` for a report
    /// with no number.
    fn read(params: ProgressNotificationParam) -> Option<Self> {
        if !params.progress.is_finite() || params.progress < 0.0 {
            return None;
        }
        let total = params.total.filter(|t| t.is_finite() && *t > 0.0);
        let message = params.message.as_deref().and_then(one_line);
        Some(Self {
            progress: params.progress,
            total,
            message,
        })
    }

    /// A task's status said by its server (the Tasks extension, F-99), made one short line: how
    /// the task stands, not how far it is (no amount). `None` when it says nothing.
    pub fn task_status(message: &str) -> Option<Self> {
        Some(Self {
            progress: 0.0,
            total: None,
            message: Some(one_line(message)?),
        })
    }

    /// Whole percent done, when the total is known.
    fn percent(&self) -> Option<u64> {
        self.total
            .map(|t| ((self.progress / t).clamp(0.0, 1.0) * 100.0).floor() as u64)
    }

    /// Whether this report is worth passing on after `last`: progress must increase (the
    /// protocol says it does), and a report that changes neither the message nor the whole
    /// percent shown is dropped.
    fn is_news_after(&self, last: Option<&CallProgress>) -> bool {
        let Some(last) = last else { return true };
        if self.progress <= last.progress {
            return false;
        }
        if self.message != last.message || self.total != last.total {
            return true;
        }
        match self.percent() {
            Some(p) => Some(p) != last.percent(),
            // Without a total every step is news (a count of items done).
            None => true,
        }
    }
}

/// A server's message as one line of at most [`MAX_MESSAGE_CHARS`] characters (cut with "…");
/// `None` when nothing is left.
fn one_line(message: &str) -> Option<String> {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut short: String = line.chars().take(MAX_MESSAGE_CHARS).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    (!short.is_empty()).then_some(short)
}

/// Who is told of one call's progress.
pub type ProgressListener = Arc<dyn Fn(CallProgress) + Send + Sync>;

/// One registered call: its listener and what it was last told.
struct Route {
    listener: ProgressListener,
    last: Option<CallProgress>,
}

/// The calls of one connection that want their progress, by progress token. Shared by the
/// connection (which registers a call while it sends it) and the session's handler (which
/// receives the notifications).
#[derive(Clone, Default)]
pub struct ProgressRoutes {
    routes: Arc<Mutex<HashMap<ProgressToken, Route>>>,
    /// Held while a call is sent and registered; a report waits for it, so the first report of
    /// a call cannot arrive before the call's route exists.
    sending: Arc<tokio::sync::Mutex<()>>,
}

/// A call's route, removed when dropped (a late report of a finished call goes nowhere).
pub struct RouteGuard {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes.routes.lock().remove(&self.token);
    }
}

impl ProgressRoutes {
    /// Sends a request with `send` and routes the reports of the progress token it was given
    /// (`token_of`) to `listener`, before any report can be read.
    pub async fn send<T, E, Fut>(
        &self,
        send: Fut,
        token_of: impl FnOnce(&T) -> ProgressToken,
        listener: ProgressListener,
    ) -> Result<(T, RouteGuard), E>
    where
        Fut: std::future::Future<Output = Result<T, E>>,
    {
        let _sending = self.sending.lock().await;
        let sent = send.await?;
        let token = token_of(&sent);
        self.routes.lock().insert(
            token.clone(),
            Route {
                listener,
                last: None,
            },
        );
        Ok((
            sent,
            RouteGuard {
                routes: self.clone(),
                token,
            },
        ))
    }

    /// A report from the server: passed to its call's listener if it is news.
    pub async fn report(&self, params: ProgressNotificationParam) {
        // A call being sent now may be the one this report is for.
        drop(self.sending.lock().await);
        let token = params.progress_token.clone();
        let Some(progress) = CallProgress::read(params) else {
            return;
        };
        let listener = {
            let mut routes = self.routes.lock();
            let Some(route) = routes.get_mut(&token) else {
                return;
            };
            if !progress.is_news_after(route.last.as_ref()) {
                return;
            }
            route.last = Some(progress.clone());
            Arc::clone(&route.listener)
        };
        listener(progress);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use rmcp::model::NumberOrString;

    fn report(
        token: i64,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> ProgressNotificationParam {
        let mut p =
            ProgressNotificationParam::new(ProgressToken(NumberOrString::Number(token)), progress);
        p.total = total;
        p.message = message.map(str::to_string);
        p
    }

    #[tokio::test]
    async fn reports_reach_their_own_call_thinned_and_not_after_it_ends() {
        let routes = ProgressRoutes::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let (token, guard) = routes
            .send(
                async { Ok::<_, ()>(ProgressToken(NumberOrString::Number(7))) },
                Clone::clone,
                Arc::new(move |p: CallProgress| sink.lock().push(p)),
            )
            .await
            .unwrap_or_else(|()| panic!("sent"));
        assert_eq!(token, ProgressToken(NumberOrString::Number(7)));
        routes.report(report(8, 1.0, Some(10.0), None)).await; // another call's
        routes
            .report(report(7, 1.0, Some(10.0), Some("reading\n  files")))
            .await;
        routes
            .report(report(7, 1.001, Some(10.0), Some("reading files")))
            .await; // same percent
        routes
            .report(report(7, 0.5, Some(10.0), Some("back")))
            .await; // goes backwards
        routes.report(report(7, f64::NAN, None, None)).await;
        routes
            .report(report(7, 5.0, Some(10.0), Some("reading files")))
            .await;
        routes
            .report(report(7, 6.0, None, Some(&"x".repeat(500))))
            .await;
        drop(guard);
        routes.report(report(7, 9.0, Some(10.0), None)).await;
        let seen = seen.lock().clone();
        assert_eq!(seen.len(), 3, "{seen:?}");
        assert_eq!(seen[0].message.as_deref(), Some("reading files"));
        assert_eq!(seen[0].percent(), Some(10));
        assert_eq!(seen[1].percent(), Some(50));
        assert_eq!(seen[2].total, None);
        assert_eq!(
            seen[2].message.as_ref().map(|m| m.chars().count()),
            Some(MAX_MESSAGE_CHARS + 1)
        );
    }
}
