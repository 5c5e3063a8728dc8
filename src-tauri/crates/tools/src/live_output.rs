//! A running command's output as the tool-chain log receives it (F-43, F-71). The log shows a
//! bounded tail, and the window pays for every event it receives: so a stream goes out at most
//! once every [`LIVE_EVERY`], each time with at most the last [`LIVE_TAIL_BYTES`] of what arrived
//! since, and a count of the characters left out before it. A command that prints 10 MB in a
//! second then costs the window about twenty small updates instead of hundreds of large ones.
//! The result (and the call's variable) still gets every byte: this is only the live view.

use std::time::Duration;
use tokio::time::Instant;

/// The shortest time between two events of one stream. Output after a quiet spell goes out at
/// once; a burst waits at most this long.
pub const LIVE_EVERY: Duration = Duration::from_millis(50);

/// The most text one event carries: the UI keeps 16 Ki characters of live output, so more than
/// this would be dropped on arrival.
pub const LIVE_TAIL_BYTES: usize = 16 * 1024;

/// Text waiting to go to the log, and how much of the stream was left out before it.
#[derive(Debug, Default)]
pub struct LiveOutput {
    pending: String,
    skipped: u64,
    last_sent: Option<Instant>,
}

/// One event's worth: the characters left out since the last event, then the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveChunk {
    pub skipped: u64,
    pub text: String,
}

impl LiveOutput {
    /// Adds text that arrived. Only a tail is ever held, however much arrives between events.
    pub fn push(&mut self, text: &str) {
        self.pending.push_str(text);
        // Trimmed once the pending text is twice the tail, so each byte is moved at most a few
        // times however small the pieces.
        if self.pending.len() > 2 * LIVE_TAIL_BYTES {
            self.trim();
        }
    }

    /// When what is pending should go out: at once after a quiet spell, else [`LIVE_EVERY`]
    /// after the last event; `None` with nothing pending.
    pub fn due(&self) -> Option<Instant> {
        if self.pending.is_empty() && self.skipped == 0 {
            return None;
        }
        Some(self.last_sent.map_or_else(Instant::now, |t| t + LIVE_EVERY))
    }

    /// What is pending, as of `now` (which becomes the time of the last event); `None` when
    /// nothing is.
    pub fn take(&mut self, now: Instant) -> Option<LiveChunk> {
        self.due()?;
        self.trim();
        self.last_sent = Some(now);
        Some(LiveChunk {
            skipped: std::mem::take(&mut self.skipped),
            text: std::mem::take(&mut self.pending),
        })
    }

    /// Keeps the last [`LIVE_TAIL_BYTES`] of the pending text (whole characters) and counts the
    /// characters left out.
    fn trim(&mut self) {
        if self.pending.len() <= LIVE_TAIL_BYTES {
            return;
        }
        let mut cut = self.pending.len() - LIVE_TAIL_BYTES;
        while !self.pending.is_char_boundary(cut) {
            cut += 1;
        }
        self.skipped += self.pending[..cut].chars().count() as u64;
        self.pending.drain(..cut);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn output_after_a_quiet_spell_goes_at_once_and_a_burst_waits_its_turn() {
        let mut live = LiveOutput::default();
        assert_eq!(live.due(), None);
        live.push("first\n");
        assert!(live.due().unwrap() <= Instant::now());
        let now = Instant::now();
        assert_eq!(
            live.take(now),
            Some(LiveChunk {
                skipped: 0,
                text: "first\n".into()
            })
        );
        assert_eq!(live.take(now), None);
        // Right after an event, more output waits until LIVE_EVERY has passed.
        live.push("second\n");
        live.push("third\n");
        assert_eq!(live.due(), Some(now + LIVE_EVERY));
        let later = now + LIVE_EVERY;
        assert_eq!(live.take(later).unwrap().text, "second\nthird\n");
    }

    #[test]
    fn a_flood_keeps_only_a_tail_of_whole_characters_and_counts_the_rest() {
        let mut live = LiveOutput::default();
        // 1,000,000 characters of 2 bytes each, in odd-sized pieces.
        let piece = "é".repeat(333);
        let mut sent = 0u64;
        while sent < 1_000_000 {
            let n = (1_000_000 - sent).min(333);
            live.push(&piece[..n as usize * 2]);
            sent += n;
        }
        let chunk = live.take(Instant::now()).unwrap();
        assert!(chunk.text.len() <= LIVE_TAIL_BYTES);
        assert!(chunk.text.len() >= LIVE_TAIL_BYTES - 1);
        assert!(chunk.text.chars().all(|c| c == 'é'));
        assert_eq!(chunk.skipped + chunk.text.chars().count() as u64, 1_000_000);
        // Nothing is left over, and the count starts again.
        live.push("x");
        let next = live.take(Instant::now()).unwrap();
        assert_eq!((next.skipped, next.text.as_str()), (0, "x"));
    }
}
