//! Retries with backoff for provider faults (F-26): 429, 5xx and connection errors, honouring
//! the server's `Retry-After`, bounded in count and in wait.

use crate::providers::ProviderError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How failed requests are retried.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay_ms: 1_000,
            max_delay_ms: 60_000,
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (1-based), or `None` if no retry is due.
    pub fn delay(&self, attempt: u32, error: &ProviderError) -> Option<Duration> {
        if attempt > self.max_retries || !error.is_retryable() {
            return None;
        }
        let max = Duration::from_millis(self.max_delay_ms);
        let wait = match error.retry_after() {
            Some(after) => after,
            None => {
                let exp = self
                    .base_delay_ms
                    .saturating_mul(1u64 << (attempt - 1).min(16));
                Duration::from_millis(exp)
            }
        };
        Some(wait.min(max))
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

    #[test]
    fn backoff_doubles_honours_retry_after_and_stops() {
        let p = RetryPolicy {
            max_retries: 3,
            base_delay_ms: 100,
            max_delay_ms: 1_000,
        };
        assert_eq!(
            p.delay(1, &http(500, None)),
            Some(Duration::from_millis(100))
        );
        assert_eq!(
            p.delay(3, &http(503, None)),
            Some(Duration::from_millis(400))
        );
        assert_eq!(p.delay(4, &http(503, None)), None);
        assert_eq!(
            p.delay(1, &http(429, Some(Duration::from_millis(250)))),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            p.delay(1, &http(429, Some(Duration::from_secs(3600)))),
            Some(Duration::from_millis(1_000))
        );
        assert_eq!(p.delay(1, &http(400, None)), None);
        assert_eq!(p.delay(1, &ProviderError::Malformed("x".into())), None);
        assert_eq!(
            p.delay(1, &ProviderError::Connect("refused".into())),
            Some(Duration::from_millis(100))
        );
    }
}
