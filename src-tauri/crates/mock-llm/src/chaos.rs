//! Random faults for a soak test: a seeded share of replies is broken in one of the ways real
//! providers break — cut before the finish event, connection dropped, a malformed chunk, a
//! stalled stream, 429 with `Retry-After`, 503 without. The same seed breaks the same replies.

use crate::Reply;
use std::time::Duration;

/// The kinds of fault, in the order [`Chaos::counts`] reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// The stream ends cleanly after some frames, without its finish events.
    Cut,
    /// The connection is dropped mid-stream.
    Drop,
    /// One frame is not valid JSON.
    Malformed,
    /// The stream goes silent mid-answer for [`Chaos::stall`].
    Stall,
    /// 429 with a short `Retry-After` (in `retry-after-ms`).
    RateLimited,
    /// 503 with no `Retry-After`.
    Unavailable,
}

impl FaultKind {
    pub const ALL: [FaultKind; 6] = [
        FaultKind::Cut,
        FaultKind::Drop,
        FaultKind::Malformed,
        FaultKind::Stall,
        FaultKind::RateLimited,
        FaultKind::Unavailable,
    ];
}

/// Breaks `rate` of the replies (0.0–1.0), each with a kind drawn uniformly.
#[derive(Debug, Clone)]
pub struct Chaos {
    rate: f64,
    /// How long a stalled stream stays silent (longer than the client's idle timeout).
    pub stall: Duration,
    state: u64,
    counts: [u64; 6],
}

impl Chaos {
    pub fn new(seed: u64, rate: f64, stall: Duration) -> Self {
        Self {
            rate,
            stall,
            // xorshift64* must not start at zero.
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
            counts: [0; 6],
        }
    }

    /// A uniform draw in [0, 1).
    fn draw(&mut self) -> f64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let x = self.state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        ((self.draw() * n as f64) as usize).min(n.saturating_sub(1))
    }

    /// The reply as served: unchanged, or broken.
    pub fn apply(&mut self, reply: Reply) -> Reply {
        if reply.body.is_some() || self.draw() >= self.rate {
            return reply;
        }
        let kind = FaultKind::ALL[self.below(FaultKind::ALL.len())];
        self.counts[FaultKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)] += 1;
        // Break somewhere after the first frame and before the finish, so some of the answer
        // has been shown when it breaks.
        let finish = reply.frames_before_finish().max(2);
        let at = 1 + self.below(finish - 1);
        match kind {
            FaultKind::Cut => reply.cut_after(at),
            FaultKind::Drop => reply.drop_after(at),
            FaultKind::Malformed => reply.malformed_at(at),
            FaultKind::Stall => reply.stall_at(at, self.stall),
            FaultKind::RateLimited => {
                Reply::status(429, "rate limited (chaos)").header("retry-after-ms", "15")
            }
            FaultKind::Unavailable => Reply::status(503, "unavailable (chaos)"),
        }
    }

    /// Faults injected so far, per kind.
    pub fn counts(&self) -> Vec<(FaultKind, u64)> {
        FaultKind::ALL.iter().copied().zip(self.counts).collect()
    }
}
