//! A server's question as it is kept with its call (F-99) once it ended: bounded in size (a
//! server cannot fill the database with questions the user never answers), with every secret
//! Tollgate keeps withheld from each of its texts, and a form's fields that the form names as
//! secrets withheld whole from the answer.

use serde_json::Value;
use tollgate_protocol::{AskedQuestion, ElicitationKind, ElicitationOutcome, PendingElicitation};
use tollgate_secrets::names::secret_named;
use tollgate_secrets::{redact_known_owned, REDACTED};

/// The most characters of the server's message, and of a page's address, that are kept.
pub const MAX_KEPT_TEXT: usize = 16 * 1024;
/// The most a form's schema may take, as JSON, to be kept whole; a bigger one keeps only each
/// field's name and title (what the card needs to label the answer).
pub const MAX_KEPT_SCHEMA: usize = 16 * 1024;

/// `pending`, ended with `outcome`, `answer` and, where the outcome alone does not say it,
/// `note`, as it is kept.
pub fn kept_question(
    pending: &PendingElicitation,
    outcome: ElicitationOutcome,
    answer: Option<Value>,
    note: Option<String>,
) -> AskedQuestion {
    AskedQuestion {
        id: pending.id.clone(),
        message: bounded(redact_known_owned(pending.message.clone())),
        answer: answer.map(|a| kept_answer(a, &pending.kind)),
        kind: kept_kind(&pending.kind),
        outcome,
        note,
        at: chrono::Utc::now().timestamp_millis(),
    }
}

/// `text` cut to [`MAX_KEPT_TEXT`] characters, saying how much was left out.
fn bounded(text: String) -> String {
    match text.char_indices().nth(MAX_KEPT_TEXT) {
        None => text,
        Some((end, _)) => {
            let left = text[end..].chars().count();
            format!("{}… ({left} more characters not kept)", &text[..end])
        }
    }
}

/// What the server asked for, as it is kept: its texts without a known secret, bounded.
fn kept_kind(kind: &ElicitationKind) -> ElicitationKind {
    match kind {
        ElicitationKind::Form { schema } => {
            let schema = redacted(schema.clone());
            let whole = serde_json::to_string(&schema).map_or(usize::MAX, |s| s.len());
            ElicitationKind::Form {
                schema: if whole <= MAX_KEPT_SCHEMA {
                    schema
                } else {
                    labels_only(&schema)
                },
            }
        }
        ElicitationKind::Url { url, host } => ElicitationKind::Url {
            url: bounded(redact_known_owned(url.clone())),
            host: host.clone(),
        },
        ElicitationKind::Sampling {
            system,
            messages,
            max_tokens,
            model,
        } => ElicitationKind::Sampling {
            system: system.clone().map(|s| bounded(redact_known_owned(s))),
            messages: messages
                .iter()
                .map(|m| tollgate_protocol::SampledText {
                    role: m.role,
                    text: bounded(redact_known_owned(m.text.clone())),
                })
                .collect(),
            max_tokens: *max_tokens,
            model: model.clone(),
        },
    }
}

/// A form's schema reduced to each field's name and title, each bounded.
fn labels_only(schema: &Value) -> Value {
    let mut properties = serde_json::Map::new();
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        let mut kept = serde_json::Map::new();
        if let Some(title) = field["title"].as_str() {
            kept.insert("title".into(), Value::String(bounded(title.to_string())));
        }
        properties.insert(bounded(name.clone()), Value::Object(kept));
        if serde_json::to_string(&properties).map_or(true, |s| s.len() > MAX_KEPT_SCHEMA) {
            properties.clear();
            break;
        }
    }
    serde_json::json!({"type": "object", "properties": properties})
}

/// A form's answer as it is kept: a field the form names as a secret — by its name, its title,
/// or as a password or write-only field — is withheld whole, as the window hides it while it is
/// typed, and any secret Tollgate keeps is withheld from the rest.
fn kept_answer(answer: Value, kind: &ElicitationKind) -> Value {
    let Value::Object(fields) = redacted(answer) else {
        return Value::Null;
    };
    let properties = match kind {
        ElicitationKind::Form { schema } => schema["properties"].as_object(),
        ElicitationKind::Url { .. } | ElicitationKind::Sampling { .. } => None,
    };
    let secret = |name: &str| {
        let field = properties.and_then(|p| p.get(name));
        let said = |key: &str| field.and_then(|f| f[key].as_str()).unwrap_or_default();
        secret_named(name)
            || secret_named(said("title"))
            || said("format") == "password"
            || field.is_some_and(|f| f["writeOnly"] == Value::Bool(true))
    };
    Value::Object(
        fields
            .into_iter()
            .map(|(name, value)| match secret(&name) {
                true => (name, Value::String(REDACTED.to_string())),
                false => (name, bounded_value(value)),
            })
            .collect(),
    )
}

/// A field's value with its text bounded.
fn bounded_value(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(bounded(s)),
        other => other,
    }
}

/// `value` with every secret Tollgate keeps withheld from its texts.
fn redacted(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(redact_known_owned(s)),
        Value::Array(items) => Value::Array(items.into_iter().map(redacted).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (redact_known_owned(k), redacted(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use serde_json::json;
    use tollgate_protocol::ids::{ApprovalId, ChatId};

    fn pending(message: String, kind: ElicitationKind) -> PendingElicitation {
        PendingElicitation {
            id: ApprovalId::from_string("q1"),
            chat: ChatId(1),
            seq: 1,
            server: "s".into(),
            message,
            kind,
            created_at: 0,
        }
    }

    /// A page at `url` the user declined to open, as it is kept.
    fn declined_page(url: String) -> AskedQuestion {
        let page = ElicitationKind::Url {
            url,
            host: "pay.example".into(),
        };
        kept_question(
            &pending("Pay".into(), page),
            ElicitationOutcome::Declined,
            None,
            None,
        )
    }

    /// A form of `fields` text fields `f<i>` titled "Title <i>", each described at `described`
    /// characters.
    fn form_of(fields: usize, described: usize) -> ElicitationKind {
        let mut properties = serde_json::Map::new();
        for i in 0..fields {
            properties.insert(
                format!("f{i}"),
                json!({"type": "string", "title": format!("Title {i}"), "description": "d".repeat(described)}),
            );
        }
        ElicitationKind::Form {
            schema: json!({"type": "object", "properties": properties}),
        }
    }

    /// A server that asks with a huge message, schema or address and is never answered cannot
    /// fill the database: what is kept is bounded, and still says what was asked.
    #[test]
    fn a_huge_question_is_kept_bounded() {
        let huge = "x".repeat(MAX_KEPT_TEXT * 4);
        let kept = kept_question(
            &pending(huge.clone(), form_of(2_000, 100)),
            ElicitationOutcome::Withdrawn,
            None,
            None,
        );
        let size = serde_json::to_string(&kept).unwrap().len();
        assert!(size < MAX_KEPT_TEXT + 2 * MAX_KEPT_SCHEMA, "{size}");
        assert!(
            kept.message.ends_with("more characters not kept)"),
            "{}",
            &kept.message[MAX_KEPT_TEXT..]
        );
        let kept = declined_page(format!("https://pay.example/{huge}"));
        let ElicitationKind::Url { url, .. } = kept.kind else {
            panic!("not a page")
        };
        assert!(url.len() < MAX_KEPT_TEXT + 100, "{}", url.len());
        // A schema a little too big keeps each field's title to label the answer.
        let kept = kept_question(
            &pending("Fill".into(), form_of(100, 200)),
            ElicitationOutcome::Withdrawn,
            None,
            None,
        );
        let ElicitationKind::Form { schema } = kept.kind else {
            panic!("not a form")
        };
        assert_eq!(schema["properties"]["f7"], json!({"title": "Title 7"}));
    }

    /// A form's field that says it holds a secret — by name, title, `format: password` or
    /// `writeOnly` — is withheld whole; a known secret is withheld from every text kept.
    #[test]
    fn a_secret_field_and_a_known_secret_are_withheld_everywhere() {
        let key = "sk-kept-schema-0a1b2c3d4e5f6a7b8c9d";
        tollgate_secrets::remember(key);
        let form = ElicitationKind::Form {
            schema: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": format!("default {key}")},
                    "word": {"type": "string", "format": "password"},
                    "hidden": {"type": "string", "writeOnly": true},
                    "api_key": {"type": "string"}
                }
            }),
        };
        let answer = json!({"name": format!("Ada {key}"), "word": "hunter22", "hidden": "h1dden", "api_key": "k3y"});
        let kept = kept_question(
            &pending(format!("Tell me {key}"), form),
            ElicitationOutcome::Accepted,
            Some(answer),
            None,
        );
        let text = serde_json::to_string(&kept).unwrap();
        for secret in [key, "hunter22", "h1dden", "k3y"] {
            assert!(!text.contains(secret), "{secret} kept: {text}");
        }
        assert_eq!(
            kept.answer.unwrap()["name"],
            json!(format!("Ada {REDACTED}"))
        );
        let kept = declined_page(format!("https://pay.example/?token={key}"));
        assert!(!serde_json::to_string(&kept).unwrap().contains(key));
    }
}
