//! A call's clock: its timeout counts the time the tool works, not the time the user takes to
//! answer a question the tool put to them (an MCP server's form, a page it needs opened). A
//! user reading a form for two minutes does not time out a call with a one-minute limit.

use parking_lot::Mutex;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

#[derive(Debug, Default)]
struct Pauses {
    /// Time paused before the current pause.
    total: Duration,
    /// How many pauses are open, and since when the first of them.
    open: usize,
    since: Option<Instant>,
}

/// The clock of one call, shared by everything that times it.
#[derive(Debug, Default)]
pub struct CallClock {
    pauses: Mutex<Pauses>,
    changed: tokio::sync::Notify,
}

/// Stops the clock until dropped.
pub struct Paused(Arc<CallClock>);

impl Drop for Paused {
    fn drop(&mut self) {
        {
            let mut p = self.0.pauses.lock();
            p.open = p.open.saturating_sub(1);
            if p.open == 0 {
                if let Some(since) = p.since.take() {
                    p.total += since.elapsed();
                }
            }
        }
        self.0.changed.notify_waiters();
    }
}

/// The call took longer than its time (not counting pauses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

impl CallClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Stops the clock while the user is asked something (pauses may overlap).
    pub fn pause(self: &Arc<Self>) -> Paused {
        {
            let mut p = self.pauses.lock();
            if p.open == 0 {
                p.since = Some(Instant::now());
            }
            p.open += 1;
        }
        self.changed.notify_waiters();
        Paused(Arc::clone(self))
    }

    /// Time paused so far, and whether the clock is stopped now.
    fn paused(&self) -> (Duration, bool) {
        let p = self.pauses.lock();
        let current = p.since.map(|s| s.elapsed()).unwrap_or_default();
        (p.total + current, p.open > 0)
    }

    /// Runs `work` with `limit` of working time: the time the clock is stopped does not count.
    pub async fn limit<T>(
        &self,
        limit: Duration,
        work: impl Future<Output = T>,
    ) -> Result<T, TimedOut> {
        let start = Instant::now();
        let (paused_before, _) = self.paused();
        let expired = async {
            loop {
                let changed = self.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                let (paused, stopped) = self.paused();
                if stopped {
                    changed.await;
                    continue;
                }
                let end = start + limit + paused.saturating_sub(paused_before);
                if Instant::now() >= end {
                    return;
                }
                tokio::select! {
                    () = tokio::time::sleep_until(end) => {}
                    () = changed => {}
                }
            }
        };
        tokio::select! {
            biased;
            out = work => Ok(out),
            () = expired => Err(TimedOut),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn time_the_user_is_asked_does_not_count() {
        let clock = CallClock::new();
        let work = async {
            tokio::time::sleep(Duration::from_secs(50)).await;
            // The user takes two minutes over a form.
            let asked = clock.pause();
            tokio::time::sleep(Duration::from_secs(120)).await;
            drop(asked);
            tokio::time::sleep(Duration::from_secs(9)).await;
            "done"
        };
        assert_eq!(clock.limit(Duration::from_secs(60), work).await, Ok("done"));
    }

    #[tokio::test(start_paused = true)]
    async fn working_time_past_the_limit_times_out_even_around_pauses() {
        let clock = CallClock::new();
        let work = async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            let first = clock.pause();
            let second = clock.pause();
            tokio::time::sleep(Duration::from_secs(10)).await;
            drop(first);
            tokio::time::sleep(Duration::from_secs(10)).await;
            drop(second);
            tokio::time::sleep(Duration::from_secs(31)).await;
            "too late"
        };
        let started = Instant::now();
        assert_eq!(
            clock.limit(Duration::from_secs(60), work).await,
            Err(TimedOut)
        );
        // 60 s of work and 20 s stopped.
        assert_eq!(started.elapsed(), Duration::from_secs(80));
    }

    #[tokio::test(start_paused = true)]
    async fn a_pause_before_the_timer_started_is_not_credited_to_it() {
        let clock = CallClock::new();
        drop({
            let p = clock.pause();
            tokio::time::sleep(Duration::from_secs(100)).await;
            p
        });
        let work = tokio::time::sleep(Duration::from_secs(61));
        assert_eq!(
            clock.limit(Duration::from_secs(60), work).await,
            Err(TimedOut)
        );
    }
}
