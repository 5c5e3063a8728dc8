//! Canonical JSON and argument hashes.
//!
//! Ask-once records (F-03) are keyed by the tool name plus the SHA-256 of the *canonical* JSON
//! of the resolved arguments, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same call and
//! an approval can never cover arguments other than the ones the user saw.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Serialises `value` with object keys sorted at every level and no insignificant white space.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The hex SHA-256 of the canonical JSON of `args`.
pub fn args_hash(args: &Value) -> String {
    let digest = Sha256::digest(canonical_json(args).as_bytes());
    hex::encode(digest)
}

/// The key of an ask-once record (F-03): the arguments *and* the folder they run in. "Allow for
/// this chat" on `./build.sh` in folder A says nothing about `./build.sh` in folder B, so once
/// the chat's workspace changes the record no longer matches and the user is asked again.
pub fn record_hash(args: &Value, workspace: Option<&std::path::Path>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(canonical_json(args).as_bytes());
    if let Some(ws) = workspace {
        // NUL cannot occur in canonical JSON, so no argument text can imitate this suffix.
        hasher.update(b"\0workspace=");
        hasher.update(ws.as_os_str().as_encoded_bytes());
    }
    hex::encode(hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_hash() {
        let a = json!({"b": 2, "a": {"y": [1, {"q": 1, "p": 2}], "x": "s"}});
        let b = json!({"a": {"x": "s", "y": [1, {"p": 2, "q": 1}]}, "b": 2});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(args_hash(&a), args_hash(&b));
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"x":"s","y":[1,{"p":2,"q":1}]},"b":2}"#
        );
    }

    #[test]
    fn different_values_hash_differently() {
        assert_ne!(args_hash(&json!({"a": 1})), args_hash(&json!({"a": "1"})));
        assert_ne!(
            args_hash(&json!({"a": [1, 2]})),
            args_hash(&json!({"a": [2, 1]}))
        );
        assert_eq!(args_hash(&json!({})).len(), 64);
    }

    #[test]
    fn record_keys_bind_the_workspace() {
        let args = json!({"command": "./build.sh"});
        let a = std::path::Path::new("/work/a");
        let b = std::path::Path::new("/work/b");
        assert_eq!(record_hash(&args, None), args_hash(&args));
        assert_ne!(record_hash(&args, Some(a)), record_hash(&args, Some(b)));
        assert_ne!(record_hash(&args, Some(a)), record_hash(&args, None));
        assert_eq!(record_hash(&args, Some(a)), record_hash(&args, Some(a)));
    }
}
