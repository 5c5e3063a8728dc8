//! Retries with backoff for provider faults (F-26): 429, 5xx, connection errors and broken
//! streams, with exponential backoff and full jitter, honouring the server's `Retry-After` up to
//! a ceiling, bounded in count.

use crate::providers::ProviderError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How failed requests are retried.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so at most `max_retries + 1` requests).
    pub max_retries: u32,
    /// The backoff of the first retry; it doubles with every further one.
    pub base_delay_ms: u64,
    /// The longest wait: backoff stops growing here, and a server asking for longer is not
    /// waited for (the turn fails and says how long the server asked for).
    pub max_delay_ms: u64,
    /// Full jitter: each backoff wait is drawn uniformly from zero to its exponential ceiling,
    /// so many clients failing together do not come back together. Off only where a test
    /// measures the backoff itself.
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay_ms: 1_000,
            max_delay_ms: 60_000,
            jitter: true,
        }
    }
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// Wait this long, then send the same request again.
    RetryAfter(Duration),
    /// The server asked for a longer wait than the policy allows: fail, saying how long.
    WaitTooLong(Duration),
    /// Retrying will not help, or the retries are used up.
    GiveUp,
}

impl RetryPolicy {
    /// What to do after failed attempt number `attempt` (1-based).
    pub fn next_step(&self, attempt: u32, error: &ProviderError) -> NextStep {
        if attempt > self.max_retries || !error.is_retryable() {
            return NextStep::GiveUp;
        }
        let max = Duration::from_millis(self.max_delay_ms);
        match error.retry_after() {
            Some(asked) if asked > max => NextStep::WaitTooLong(asked),
            Some(asked) => NextStep::RetryAfter(asked),
            None => NextStep::RetryAfter(self.backoff(attempt, rand::random::<f64>())),
        }
    }

    /// The exponential ceiling of retry `attempt`: base × 2^(attempt−1), at most the maximum.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let exp = self
            .base_delay_ms
            .saturating_mul(1u64 << attempt.saturating_sub(1).min(30));
        Duration::from_millis(exp.min(self.max_delay_ms))
    }

    /// The wait before retry `attempt`, given a uniform random draw in [0, 1).
    fn backoff(&self, attempt: u32, draw: f64) -> Duration {
        let ceiling = self.ceiling(attempt);
        if self.jitter {
            ceiling.mul_f64(draw.clamp(0.0, 1.0))
        } else {
            ceiling
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, retry_after: Option<Duration>) -> ProviderError {
        ProviderError::Http {
            status,
            message: "x".into(),
            retry_after,
        }
    }

    fn exact() -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            base_delay_ms: 100,
            max_delay_ms: 1_000,
            jitter: false,
        }
    }

    #[test]
    fn backoff_doubles_honours_retry_after_and_stops() {
        let p = exact();
        let wait = |d| NextStep::RetryAfter(Duration::from_millis(d));
        assert_eq!(p.next_step(1, &http(500, None)), wait(100));
        assert_eq!(p.next_step(3, &http(503, None)), wait(400));
        assert_eq!(p.next_step(4, &http(503, None)), NextStep::GiveUp);
        assert_eq!(
            p.next_step(1, &http(429, Some(Duration::from_millis(250)))),
            wait(250)
        );
        assert_eq!(p.next_step(1, &http(400, None)), NextStep::GiveUp);
        assert_eq!(
            p.next_step(1, &ProviderError::Connect("refused".into())),
            wait(100)
        );
    }

    #[test]
    fn broken_streams_are_retried_and_api_errors_are_not() {
        let p = exact();
        for broken in [
            ProviderError::Incomplete("no finish_reason".into()),
            ProviderError::Malformed("EOF".into()),
            ProviderError::Stalled(Duration::from_secs(90)),
            ProviderError::Timeout,
        ] {
            assert!(
                matches!(p.next_step(1, &broken), NextStep::RetryAfter(_)),
                "{broken}"
            );
        }
        assert_eq!(
            p.next_step(1, &ProviderError::Api("invalid model".into())),
            NextStep::GiveUp
        );
        assert_eq!(p.next_step(1, &ProviderError::Cancelled), NextStep::GiveUp);
    }

    #[test]
    fn a_wait_longer_than_the_maximum_is_not_sat_through() {
        let p = exact();
        assert_eq!(
            p.next_step(1, &http(429, Some(Duration::from_secs(3600)))),
            NextStep::WaitTooLong(Duration::from_secs(3600))
        );
    }

    #[test]
    fn full_jitter_stays_under_the_ceiling_which_grows_to_the_maximum() {
        let p = RetryPolicy {
            jitter: true,
            ..exact()
        };
        assert_eq!(p.backoff(2, 0.0), Duration::ZERO);
        assert_eq!(p.backoff(2, 0.5), Duration::from_millis(100));
        assert!(p.backoff(2, 0.999) < p.ceiling(2));
        let ceilings: Vec<u128> = (1..=6).map(|a| p.ceiling(a).as_millis()).collect();
        assert_eq!(ceilings, [100, 200, 400, 800, 1_000, 1_000]);
        assert_eq!(p.ceiling(u32::MAX), Duration::from_millis(1_000));
        let draws: Vec<Duration> = (0..50)
            .filter_map(|_| match p.next_step(3, &http(503, None)) {
                NextStep::RetryAfter(d) => Some(d),
                _ => None,
            })
            .collect();
        assert_eq!(draws.len(), 50);
        assert!(draws.iter().all(|d| *d <= p.ceiling(3)));
        assert!(
            draws.iter().any(|d| *d != draws[0]),
            "jittered waits differ"
        );
    }
}
