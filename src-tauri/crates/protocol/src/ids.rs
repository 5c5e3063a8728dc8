//! Identifiers that cross the engine's boundary.

use rand::RngCore;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A chat's database id. Every executor, approval and record is bound to one.
#[derive(
    ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct ChatId(pub i64);

impl fmt::Display for ChatId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A pending approval's id: 128 random bits, hex encoded.
///
/// Random rather than sequential so that a decision can never be aimed at an approval by
/// guessing; the id is bound to its chat in the engine's `ApprovalHub`.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ApprovalId(String);

impl ApprovalId {
    /// A fresh id from the operating system's random source.
    pub fn random() -> Self {
        let mut bytes = [0u8; 16];
        rand::rng().fill_bytes(&mut bytes);
        Self(hex::encode(bytes))
    }

    /// Wraps an id received from the UI. No validation: an id that was never issued is simply
    /// unknown to the hub.
    pub fn from_string(s: impl Into<String>) -> Self {
        Self(s.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ApprovalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_ids_are_128_bit_hex_and_distinct() {
        let a = ApprovalId::random();
        let b = ApprovalId::random();
        assert_eq!(a.as_str().len(), 32);
        assert!(a.as_str().chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
