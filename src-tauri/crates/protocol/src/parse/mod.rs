//! Parse (F-10): arguments as the providers deliver them. (Tool calls written as text by
//! models without native tool calling are read where calls are read: `tollgate-turn`'s
//! `text_calls`.)

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

/// How many chars of bad input an error quotes back to the model.
pub const QUOTE_CHARS: usize = 500;

/// A call's arguments as received, before parsing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
pub enum RawArguments {
    /// Already a JSON value (Anthropic `tool_use.input`, text-format calls).
    Json(Value),
    /// A JSON string still to parse (OpenAI `function.arguments`, streamed in fragments).
    Text(String),
    /// Arguments that could not be read at all, with the reason.
    Invalid { raw: String, error: String },
}

impl RawArguments {
    /// The arguments as text, for the record.
    pub fn raw_text(&self) -> String {
        match self {
            Self::Json(v) => v.to_string(),
            Self::Text(s) => s.clone(),
            Self::Invalid { raw, .. } => raw.clone(),
        }
    }
}

/// Why arguments could not be parsed; the message is written for the model.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArgumentsError {
    #[error("Invalid JSON in the arguments: {message} (line {line}, column {column}).\nReceived (first {QUOTE_CHARS} chars): {received}")]
    Json {
        message: String,
        line: usize,
        column: usize,
        received: String,
    },
    #[error("The arguments must be a JSON object, but {found} was received: {received}")]
    NotAnObject {
        found: &'static str,
        received: String,
    },
    #[error("{error}\nReceived (first {QUOTE_CHARS} chars): {received}")]
    Unreadable { error: String, received: String },
}

/// At most `max` chars of `s`, with an ellipsis if cut.
pub fn preview(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A wait in words a user reads at a glance: "45 s", "3 min 20 s", "2 h 5 min".
pub fn duration_words(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    if secs < 60 {
        format!("{} s", secs.max(u64::from(d.as_millis() > 0)))
    } else if secs < 3_600 {
        match secs % 60 {
            0 => format!("{} min", secs / 60),
            s => format!("{} min {s} s", secs / 60),
        }
    } else {
        match (secs % 3_600) / 60 {
            0 => format!("{} h", secs / 3_600),
            m => format!("{} h {m} min", secs / 3_600),
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(feature = "parse-count")]
thread_local! {
    static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times arguments were parsed on this thread (feature `parse-count`, for tests).
#[cfg(feature = "parse-count")]
pub fn parses_on_this_thread() -> usize {
    PARSES.with(std::cell::Cell::get)
}

/// Parses a call's arguments into a JSON object. Empty text means no arguments (`{}`).
pub fn parse_arguments(raw: &RawArguments) -> Result<Value, ArgumentsError> {
    #[cfg(feature = "parse-count")]
    PARSES.with(|n| n.set(n.get() + 1));
    let value = match raw {
        RawArguments::Json(v) => v.clone(),
        RawArguments::Invalid { raw, error } => {
            return Err(ArgumentsError::Unreadable {
                error: error.clone(),
                received: preview(raw, QUOTE_CHARS),
            })
        }
        RawArguments::Text(text) => {
            if text.trim().is_empty() {
                return Ok(Value::Object(Default::default()));
            }
            serde_json::from_str::<Value>(text).map_err(|e| ArgumentsError::Json {
                message: strip_position(&e.to_string()),
                line: e.line(),
                column: e.column(),
                received: preview(text, QUOTE_CHARS),
            })?
        }
    };
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(Value::Object(Default::default())),
        other => Err(ArgumentsError::NotAnObject {
            found: type_name(&other),
            received: preview(&other.to_string(), QUOTE_CHARS),
        }),
    }
}

/// serde_json appends " at line L column C"; the error states the position itself.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn waits_read_in_words() {
        assert_eq!(duration_words(Duration::from_millis(300)), "1 s");
        assert_eq!(duration_words(Duration::from_secs(45)), "45 s");
        assert_eq!(duration_words(Duration::from_secs(180)), "3 min");
        assert_eq!(duration_words(Duration::from_secs(200)), "3 min 20 s");
        assert_eq!(duration_words(Duration::from_secs(7_500)), "2 h 5 min");
        assert_eq!(duration_words(Duration::from_secs(86_400)), "24 h");
    }

    #[test]
    fn valid_and_empty_arguments() {
        assert_eq!(
            parse_arguments(&RawArguments::Text(r#"{"a":1}"#.into())).unwrap(),
            json!({"a": 1})
        );
        assert_eq!(
            parse_arguments(&RawArguments::Text("  ".into())).unwrap(),
            json!({})
        );
        assert_eq!(
            parse_arguments(&RawArguments::Json(json!({"b": 2}))).unwrap(),
            json!({"b": 2})
        );
        assert_eq!(
            parse_arguments(&RawArguments::Json(Value::Null)).unwrap(),
            json!({})
        );
    }

    #[test]
    fn invalid_json_quotes_message_position_and_input() {
        let raw = format!("{{\"path\": \"a.txt\", {}", "x".repeat(1000));
        let err = parse_arguments(&RawArguments::Text(raw)).unwrap_err();
        let ArgumentsError::Json {
            line,
            column,
            received,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(*line, 1);
        assert_eq!(*column, 19);
        assert_eq!(
            received.chars().count(),
            QUOTE_CHARS + 1,
            "500 chars and an ellipsis"
        );
        let msg = err.to_string();
        assert!(
            msg.starts_with(
                "Invalid JSON in the arguments: key must be a string (line 1, column 19)."
            ),
            "{msg}"
        );
    }

    #[test]
    fn non_objects_are_refused() {
        let err = parse_arguments(&RawArguments::Text("[1,2]".into())).unwrap_err();
        assert_eq!(
            err.to_string(),
            "The arguments must be a JSON object, but an array was received: [1,2]"
        );
    }
}
