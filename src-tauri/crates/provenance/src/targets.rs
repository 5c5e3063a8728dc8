//! Which arguments of a tool name a *target*: where a call goes or whom it acts on — a URL or
//! host, a recipient, an email address, a channel, a user, an account number (SPEC §12).
//!
//! A target copied from untrusted content is the content choosing the destination: a page that
//! says "visit https://attacker.example/…", an email that says "pay DE89…". The gate holds such
//! a call even when nothing private was read ([`super::guard`]). Which arguments are targets is
//! read from the schema — a `format` of `uri`, `email`, `hostname` and their kin, or a name
//! such as `url`, `to`, `recipient`, `channel`, `iban` — unless the tool declares its own, and
//! the user may override either per tool.

use serde_json::Value;

/// Formats (JSON Schema's `format`) whose strings are destinations.
const TARGET_FORMATS: &[&str] = &[
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "url",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
];

/// Words that make an argument a destination when its name is made of them (`to`,
/// `recipient_email`, `webhookUrl`, `channel_id`).
const TARGET_WORDS: &[&str] = &[
    "url",
    "urls",
    "uri",
    "href",
    "link",
    "endpoint",
    "webhook",
    "host",
    "hostname",
    "domain",
    "origin",
    "to",
    "cc",
    "bcc",
    "recipient",
    "recipients",
    "email",
    "emails",
    "channel",
    "user",
    "users",
    "username",
    "iban",
    "bic",
    "swift",
    "account",
    "payee",
    "beneficiary",
    "destination",
    "dest",
    "phone",
    "invitee",
    "assignee",
    "repo",
    "remote",
    "address",
    "chat",
    "room",
    "thread",
    "conversation",
    "contact",
    "member",
    "members",
    "invitees",
    "assignees",
    "attendee",
    "attendees",
    "participant",
    "participants",
    "guest",
    "guests",
    "reviewer",
    "reviewers",
    "owner",
    "org",
    "organization",
    "organisation",
    "namespace",
    "team",
    "workspace",
    "bucket",
    "server",
];

/// Words that, beside a target word, say the argument describes something rather than names
/// where the call goes (`user_agent`, `link_text`, `email_subject`).
const NOT_TARGET_WORDS: &[&str] = &[
    "agent", "text", "title", "label", "count", "limit", "subject", "body", "template",
];

/// How deep the schema is walked: nested objects and arrays of objects.
const MAX_DEPTH: usize = 4;

/// Whether an argument named `name` reads as a destination.
pub fn is_target_name(name: &str) -> bool {
    let words = tollgate_names::words(name);
    words.iter().any(|w| TARGET_WORDS.contains(&w.as_str()))
        && !words.iter().any(|w| NOT_TARGET_WORDS.contains(&w.as_str()))
}

/// Whether a property schema declares a destination format (directly or for its items).
fn has_target_format(schema: &Value) -> bool {
    let format = |s: &Value| {
        s.get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| TARGET_FORMATS.contains(&f.to_ascii_lowercase().as_str()))
    };
    format(schema) || schema.get("items").is_some_and(format)
}

/// Escapes one JSON pointer segment (RFC 6901).
fn segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `schema` itself and, through `$ref` (into the root's `$defs` or `definitions`), `anyOf`,
/// `oneOf` and `allOf`, every schema it stands for: a property declared behind one of them is
/// the same argument (F-97: a target hidden behind `$ref` or `anyOf` was not seen).
fn alternatives<'s>(schema: &'s Value, root: &'s Value, depth: usize, out: &mut Vec<&'s Value>) {
    if depth > MAX_DEPTH * 2 || out.iter().any(|s| std::ptr::eq(*s, schema)) {
        return;
    }
    out.push(schema);
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        alternatives(target, root, depth + 1, out);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            alternatives(branch, root, depth + 1, out);
        }
    }
}

fn walk(schema: &Value, root: &Value, pointer: &str, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut shapes = Vec::new();
    alternatives(schema, root, 0, &mut shapes);
    for shape in shapes {
        let Some(properties) = shape.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (name, property) in properties {
            let here = format!("{pointer}/{}", segment(name));
            if out.contains(&here) {
                continue;
            }
            let mut forms = Vec::new();
            alternatives(property, root, 0, &mut forms);
            if is_target_name(name) || forms.iter().any(|f| has_target_format(f)) {
                out.push(here);
                continue;
            }
            walk(property, root, &here, depth + 1, out);
            // An array of objects: its items' targets, under any index (matched by prefix with
            // the index left out: see [`covers`]).
            for form in forms {
                if let Some(items) = form.get("items") {
                    walk(items, root, &format!("{here}/*"), depth + 1, out);
                }
            }
        }
    }
}

/// The JSON pointers of the target arguments a tool's argument `schema` describes (an array's
/// items under `*`).
pub fn from_schema(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(schema, schema, "", 0, &mut out);
    out.sort();
    out.dedup();
    out
}

/// Reads the user's or a tool's declared targets: argument names (`to`) or pointers
/// (`/message/to`), each made a pointer.
pub fn declared(names: &[String]) -> Vec<String> {
    names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| {
            if n.starts_with('/') {
                n.to_string()
            } else {
                format!("/{}", segment(n))
            }
        })
        .collect()
}

/// Whether the argument at `pointer` (a string inside the arguments) is, or lies inside, the
/// target `target` (`*` in the target matches one index or key).
pub fn covers(target: &str, pointer: &str) -> bool {
    let mut want = target.split('/').skip(1);
    let mut have = pointer.split('/').skip(1);
    loop {
        match (want.next(), have.next()) {
            (None, _) => return true,
            (Some(_), None) => return false,
            (Some(w), Some(h)) if w == "*" || w == h => {}
            (Some(_), Some(_)) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_formats_make_targets() {
        let schema = json!({
            "type": "object",
            "properties": {
                "to": {"type": "string"},
                "subject": {"type": "string"},
                "body": {"type": "string"},
                "iban": {"type": "string"},
                "amount": {"type": "number"},
                "webhookUrl": {"type": "string"},
                "callback": {"type": "string", "format": "uri"},
                "user_agent": {"type": "string"},
                "link_text": {"type": "string"},
                "cc": {"type": "array", "items": {"type": "string", "format": "email"}},
                "message": {"type": "object", "properties": {
                    "channel_id": {"type": "string"},
                    "text": {"type": "string"}
                }},
                "invites": {"type": "array", "items": {"type": "object", "properties": {
                    "email": {"type": "string"}, "role": {"type": "string"}
                }}}
            }
        });
        let mut targets = from_schema(&schema);
        targets.sort();
        assert_eq!(
            targets,
            [
                "/callback",
                "/cc",
                "/iban",
                "/invites/*/email",
                "/message/channel_id",
                "/to",
                "/webhookUrl"
            ]
        );
        assert!(covers("/cc", "/cc/1"));
        assert!(covers("/invites/*/email", "/invites/3/email"));
        assert!(!covers("/invites/*/email", "/invites/3/role"));
        assert!(!covers("/to", "/topic"));
        assert!(!covers("/message/channel_id", "/message"));
        assert_eq!(
            declared(&["to".into(), "/a/b".into(), " ".into()]),
            ["/to", "/a/b"]
        );
    }

    /// Targets declared behind `$ref` (into `$defs` or `definitions`), `anyOf`, `oneOf` and
    /// `allOf`, and a destination format on one branch of a property, are targets too.
    #[test]
    fn targets_behind_refs_and_alternatives_are_found() {
        let schema = json!({
            "type": "object",
            "$defs": {
                "Recipient": {"type": "object", "properties": {"address": {"type": "string", "format": "email"}}},
                "Payment": {"type": "object", "properties": {"iban": {"type": "string"}, "amount": {"type": "number"}}}
            },
            "definitions": {"Hook": {"type": "string", "format": "uri"}},
            "properties": {
                "recipient": {"$ref": "#/$defs/Recipient"},
                "memo": {"$ref": "#/$defs/Payment"},
                "notify": {"$ref": "#/definitions/Hook"},
                "reply": {"anyOf": [{"type": "null"}, {"type": "string", "format": "email"}]},
                "chat_id": {"oneOf": [{"type": "integer"}, {"type": "string"}]}
            },
            "anyOf": [
                {"properties": {"callback": {"type": "string", "format": "url"}}},
                {"allOf": [{"properties": {"bcc": {"type": "string"}}}]}
            ]
        });
        let targets = from_schema(&schema);
        assert_eq!(
            targets,
            [
                "/bcc",
                "/callback",
                "/chat_id",
                "/memo/iban",
                "/notify",
                "/recipient",
                "/reply"
            ],
            "{targets:?}"
        );
        // A schema that refers to itself ends.
        let looped = json!({"properties": {"next": {"$ref": "#"}, "to": {"type": "string"}}});
        assert!(from_schema(&looped).contains(&"/to".to_string()));
    }

    #[test]
    fn a_schema_without_properties_has_no_targets() {
        assert!(from_schema(&json!({"type": "object"})).is_empty());
        assert!(from_schema(&json!(null)).is_empty());
        assert!(from_schema(&json!({"properties": {"command": {"type": "string"}}})).is_empty());
    }
}
