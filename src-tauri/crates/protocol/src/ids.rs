//! Identifiers that cross the engine's boundary.

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

/// A pending approval's id: 128 random bits, hex encoded (made by `tollgate_tools::new_approval_id`).
///
/// Random rather than sequential so that a decision can never be aimed at an approval by
/// guessing; the id is bound to its chat in the engine's `ApprovalHub`.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ApprovalId(String);

impl ApprovalId {
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
