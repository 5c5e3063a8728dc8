//! Policies, statuses and who decided: the enums every stage of the pipeline speaks.

use serde::{Deserialize, Serialize};
use std::fmt;

/// F-01: whether a call may run without asking.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExecutionPolicy {
    /// Runs without asking.
    Auto,
    /// Asks once per identical (tool, arguments); the answer is remembered for the chat.
    AskOnce,
    /// Asks every time.
    AskAlways,
    /// Never runs; the tool is hidden from the model.
    Deny,
}

/// F-02: whether the user reviews a result before the model sees it.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultPolicy {
    Never,
    OnError,
    Always,
}

/// F-14: how a call ended.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    Success,
    Error,
    InvalidArgs,
    NotFound,
    ExecutionRejected,
    ResultRejected,
    Cancelled,
    TimedOut,
}

/// Who made the execution decision recorded with a call (F-17).
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The tool's policy is `auto`.
    Auto,
    /// The user answered an approval card.
    User,
    /// A persisted rule matched.
    Rule,
    /// An ask-once record for the same arguments matched.
    Record,
    /// The tool's policy is `deny`.
    Policy,
    /// Nobody: the call failed before the permission stage, or was cancelled while waiting.
    None,
}

macro_rules! str_enum {
    ($ty:ty { $($variant:ident => $s:literal),+ $(,)? }) => {
        impl $ty {
            /// The stable string used in the database and on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $s),+ }
            }
            /// Parses the string written by [`Self::as_str`].
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(Self::$variant),)+ _ => None }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

str_enum!(ExecutionPolicy { Auto => "auto", AskOnce => "ask-once", AskAlways => "ask-always", Deny => "deny" });
str_enum!(ResultPolicy { Never => "never", OnError => "on-error", Always => "always" });
str_enum!(CallStatus {
    Success => "success", Error => "error", InvalidArgs => "invalid_args", NotFound => "not_found",
    ExecutionRejected => "execution_rejected", ResultRejected => "result_rejected",
    Cancelled => "cancelled", TimedOut => "timed_out",
});
str_enum!(DecidedBy { Auto => "auto", User => "user", Rule => "rule", Record => "record", Policy => "policy", None => "none" });

impl CallStatus {
    /// Whether the model should see this result as an error (`is_error` in F-18).
    pub fn is_error(self) -> bool {
        !matches!(self, Self::Success)
    }
}

impl ResultPolicy {
    /// Whether a result with the given error flag needs the user's review.
    pub fn needs_review(self, is_error: bool) -> bool {
        match self {
            Self::Never => false,
            Self::OnError => is_error,
            Self::Always => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_and_match_serde() {
        for p in [
            ExecutionPolicy::Auto,
            ExecutionPolicy::AskOnce,
            ExecutionPolicy::AskAlways,
            ExecutionPolicy::Deny,
        ] {
            assert_eq!(ExecutionPolicy::parse(p.as_str()), Some(p));
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                format!("\"{}\"", p.as_str())
            );
        }
        for s in [
            CallStatus::Success,
            CallStatus::Error,
            CallStatus::InvalidArgs,
            CallStatus::NotFound,
            CallStatus::ExecutionRejected,
            CallStatus::ResultRejected,
            CallStatus::Cancelled,
            CallStatus::TimedOut,
        ] {
            assert_eq!(CallStatus::parse(s.as_str()), Some(s));
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
        }
        assert_eq!(ResultPolicy::parse("on-error"), Some(ResultPolicy::OnError));
        assert_eq!(DecidedBy::parse("record"), Some(DecidedBy::Record));
        assert_eq!(ExecutionPolicy::parse("sometimes"), None);
    }

    #[test]
    fn result_review_follows_policy() {
        assert!(!ResultPolicy::Never.needs_review(true));
        assert!(ResultPolicy::OnError.needs_review(true));
        assert!(!ResultPolicy::OnError.needs_review(false));
        assert!(ResultPolicy::Always.needs_review(false));
    }
}
