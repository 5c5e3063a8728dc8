//! Every engine error as a [`CommandError`]: the kind the UI switches on, and the message.
//! Matches are exhaustive so that a new error variant must choose its kind here.

use super::ServiceError;
use crate::approvals::ApprovalError;
use crate::executor::ExecutorError;
use crate::protocol::{CommandError, ErrorKind, Missing};
use crate::providers::config::ConfigError;
use crate::providers::ProviderError;
use crate::secrets::SecretError;
use crate::store::StoreError;
use crate::tools::questions::AnswerError;

fn store_kind(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::NotFound(_) => ErrorKind::NotFound,
        StoreError::Invalid(_) => ErrorKind::Invalid,
        StoreError::Corrupt(_)
        | StoreError::Open { .. }
        | StoreError::DataDir { .. }
        | StoreError::Migration(_)
        | StoreError::Sqlite(_)
        | StoreError::Json(_)
        | StoreError::Closed => ErrorKind::Storage,
    }
}

fn provider_kind(e: &ProviderError) -> ErrorKind {
    match e {
        ProviderError::Cancelled => ErrorKind::Internal,
        ProviderError::Config(_) => ErrorKind::Invalid,
        ProviderError::Http { .. }
        | ProviderError::Connect(_)
        | ProviderError::Timeout
        | ProviderError::Stalled(_)
        | ProviderError::WaitTooLong { .. }
        | ProviderError::Incomplete(_)
        | ProviderError::Malformed(_)
        | ProviderError::Api(_) => ErrorKind::Provider,
    }
}

fn kind(e: &ServiceError) -> ErrorKind {
    match e {
        ServiceError::Store(e) => store_kind(e),
        ServiceError::Registry(_) => ErrorKind::Internal,
        ServiceError::Executor(e) => match e {
            ExecutorError::NoSuchChat(_)
            | ExecutorError::NoSuchGroup(_)
            | ExecutorError::NoSuchTool(_) => ErrorKind::NotFound,
            ExecutorError::UnfitWorkspace(_) => ErrorKind::Invalid,
            ExecutorError::Store(e) => store_kind(e),
        },
        ServiceError::Approval(e) => match e {
            ApprovalError::Unknown(_) | ApprovalError::Cancelled(_) => ErrorKind::NotFound,
            ApprovalError::Foreign(_)
            | ApprovalError::WrongKind { .. }
            | ApprovalError::InvalidEdit(_)
            | ApprovalError::InvalidPattern(_)
            | ApprovalError::NotEndorsable
            | ApprovalError::NotThePlanShown => ErrorKind::Invalid,
        },
        ServiceError::Answer(e) => match e {
            AnswerError::Unknown(_) => ErrorKind::NotFound,
            AnswerError::Foreign(_) => ErrorKind::Invalid,
        },
        ServiceError::Config(e) => match e {
            ConfigError::Secret(_) => ErrorKind::Keychain,
            ConfigError::Store(e) => store_kind(e),
            ConfigError::Provider(e) => provider_kind(e),
        },
        ServiceError::Provider(e) => provider_kind(e),
        ServiceError::McpConfig(_) | ServiceError::Invalid(_) => ErrorKind::Invalid,
        ServiceError::Secret(e) => match e {
            SecretError::Unavailable(_) | SecretError::Locked(_) | SecretError::Failed(_) => {
                ErrorKind::Keychain
            }
        },
        ServiceError::NotFound(_) => ErrorKind::NotFound,
        ServiceError::Busy => ErrorKind::Busy,
        ServiceError::Write { .. } => ErrorKind::Storage,
    }
}

impl From<ServiceError> for CommandError {
    fn from(e: ServiceError) -> Self {
        let mut error = CommandError::new(kind(&e), e.to_string());
        match e {
            ServiceError::NotFound(missing) => error.missing = Some(missing),
            ServiceError::Store(StoreError::NotFound(missing))
            | ServiceError::Executor(ExecutorError::Store(StoreError::NotFound(missing)))
            | ServiceError::Config(ConfigError::Store(StoreError::NotFound(missing))) => {
                error.missing = Some(missing);
            }
            ServiceError::Executor(ExecutorError::NoSuchChat(chat)) => {
                error.missing = Some(Missing::Chat { chat });
            }
            ServiceError::Invalid(invalid) => error.invalid = Some(invalid),
            _ => {}
        }
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ChatId;

    #[test]
    fn kinds_the_ui_acts_on() {
        let busy = CommandError::from(ServiceError::Busy);
        assert_eq!(busy.kind, ErrorKind::Busy);
        assert!(busy.message.contains("press Stop"));
        let gone = CommandError::from(ServiceError::Executor(ExecutorError::NoSuchChat(ChatId(9))));
        assert_eq!(gone.kind, ErrorKind::NotFound);
        let db = CommandError::from(ServiceError::Store(StoreError::Closed));
        assert_eq!(db.kind, ErrorKind::Storage);
        let kc = CommandError::from(ServiceError::Secret(SecretError::Locked("x".into())));
        assert_eq!(kc.kind, ErrorKind::Keychain);
        let json = serde_json::to_value(&busy).unwrap();
        assert_eq!(json["kind"], "busy");
        assert!(json["message"].is_string());
    }

    /// What is missing or refused reaches the window as data (worded there in the user's
    /// language), with the English message beside it for the log.
    #[test]
    fn what_is_missing_or_refused_is_data() {
        use crate::protocol::Invalid;
        let gone = CommandError::from(ServiceError::Executor(ExecutorError::NoSuchChat(ChatId(9))));
        assert_eq!(gone.missing, Some(Missing::Chat { chat: ChatId(9) }));
        let json = serde_json::to_value(&gone).unwrap();
        assert_eq!(
            json["missing"],
            serde_json::json!({"type": "chat", "chat": 9})
        );
        assert_eq!(json["invalid"], serde_json::Value::Null);
        let call = CommandError::from(ServiceError::NotFound(Missing::Call {
            chat: ChatId(3),
            seq: 7,
        }));
        assert_eq!(call.kind, ErrorKind::NotFound);
        assert_eq!(call.message, "chat 3 has no call c7");
        let hot = CommandError::from(ServiceError::Invalid(Invalid::Temperature { value: 2.5 }));
        assert_eq!(hot.kind, ErrorKind::Invalid);
        assert_eq!(
            hot.message,
            "the temperature must be between 0 and 2, not 2.5"
        );
        assert_eq!(
            serde_json::to_value(&hot).unwrap()["invalid"],
            serde_json::json!({"type": "temperature", "value": 2.5})
        );
        let secrets = CommandError::from(ServiceError::Invalid(Invalid::McpSecretsNotReused {
            server: "docs".into(),
            secrets: vec!["API_KEY".into()],
        }));
        assert_eq!(
            serde_json::to_value(&secrets).unwrap()["invalid"],
            serde_json::json!({"type": "mcpSecretsNotReused", "server": "docs", "secrets": ["API_KEY"]})
        );
    }
}
