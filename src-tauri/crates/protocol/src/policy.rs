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
    /// The call goes on after its turn as its server's task (F-99): the model was told so, and
    /// the result takes this one's place when the task ends.
    InBackground,
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
    /// The task's plan, which the user approved on its card, covers the call (F-98).
    Plan,
    /// The tool's policy is `deny`.
    Policy,
    /// Nobody: the call failed before the permission stage, or was cancelled while waiting.
    None,
}

/// What was decided about running a call (F-17). Who decided is a [`DecidedBy`] beside it:
/// `Allow` and `Deny` are the automatic answers (policy, rule or record); the others are the
/// user's buttons, one variant each.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExecutionChoice {
    /// Allowed without asking (auto policy, a rule or an ask-once record).
    Allow,
    AllowOnce,
    AllowForChat,
    AlwaysAllow,
    EditAndAllow,
    /// Denied: by the user, or without asking by a policy, rule or record.
    Deny,
    DenyAndStop,
    /// The user trusted the sources the card named for this chat, and allowed the call (F-83).
    EndorseAndAllow,
}

/// What was decided about a call's result before the model saw it (F-06).
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ResultChoice {
    Approve,
    EditAndApprove,
    Reject,
}

/// Both decisions a call can carry, each absent when that stage was never reached or never
/// asked. This is what the records, the log and every card show; it crosses into the UI as
/// enums, never as a sentence to be matched.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallDecision {
    pub execution: Option<ExecutionChoice>,
    pub result: Option<ResultChoice>,
}

impl CallDecision {
    /// The form kept in the database's `decision` column: `allow_once`, `allow; result: reject`,
    /// `result: approve` (the format rows have always had), or nothing.
    pub fn to_db(self) -> Option<String> {
        match (self.execution, self.result) {
            (Some(e), Some(r)) => Some(format!("{e}; result: {r}")),
            (Some(e), None) => Some(e.to_string()),
            (None, Some(r)) => Some(format!("result: {r}")),
            (None, None) => None,
        }
    }

    /// Reads [`Self::to_db`]'s form; a part it does not know is left out rather than guessed.
    pub fn from_db(text: Option<&str>) -> Self {
        let Some(text) = text else {
            return Self::default();
        };
        let (execution, result) = match text.split_once("; result: ") {
            Some((e, r)) => (Some(e), Some(r)),
            None => match text.strip_prefix("result: ") {
                Some(r) => (None, Some(r)),
                None => (Some(text), None),
            },
        };
        Self {
            execution: execution.and_then(ExecutionChoice::parse),
            result: result.and_then(ResultChoice::parse),
        }
    }
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
    Cancelled => "cancelled", TimedOut => "timed_out", InBackground => "in_background",
});
str_enum!(ExecutionChoice {
    Allow => "allow", AllowOnce => "allow_once", AllowForChat => "allow_for_chat",
    AlwaysAllow => "always_allow", EditAndAllow => "edit_and_allow", Deny => "deny",
    DenyAndStop => "deny_and_stop", EndorseAndAllow => "endorse_and_allow",
});
str_enum!(ResultChoice { Approve => "approve", EditAndApprove => "edit_and_approve", Reject => "reject" });
str_enum!(DecidedBy { Auto => "auto", User => "user", Rule => "rule", Record => "record", Plan => "plan", Policy => "policy", None => "none" });

impl CallStatus {
    /// Whether the model should see this result as an error (`is_error` in F-18).
    pub fn is_error(self) -> bool {
        !matches!(self, Self::Success | Self::InBackground)
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
            CallStatus::InBackground,
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
    fn decisions_round_trip_through_the_database_form() {
        use ExecutionChoice as E;
        use ResultChoice as R;
        let executions = [
            None,
            Some(E::Allow),
            Some(E::AllowOnce),
            Some(E::AllowForChat),
            Some(E::AlwaysAllow),
            Some(E::EditAndAllow),
            Some(E::Deny),
            Some(E::DenyAndStop),
            Some(E::EndorseAndAllow),
        ];
        for execution in executions {
            for result in [
                None,
                Some(R::Approve),
                Some(R::EditAndApprove),
                Some(R::Reject),
            ] {
                let d = CallDecision { execution, result };
                assert_eq!(CallDecision::from_db(d.to_db().as_deref()), d);
            }
        }
        assert_eq!(
            CallDecision::from_db(Some("allow; result: reject")),
            CallDecision {
                execution: Some(E::Allow),
                result: Some(R::Reject)
            }
        );
        assert_eq!(
            CallDecision::from_db(Some("something new")),
            CallDecision::default()
        );
    }

    #[test]
    fn result_review_follows_policy() {
        assert!(!ResultPolicy::Never.needs_review(true));
        assert!(ResultPolicy::OnError.needs_review(true));
        assert!(!ResultPolicy::OnError.needs_review(false));
        assert!(ResultPolicy::Always.needs_review(false));
    }
}
