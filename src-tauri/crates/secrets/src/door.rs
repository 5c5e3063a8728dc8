//! The one door every text bound for a model passes (SECURITY.md, "Redaction"): whatever route a
//! text took into a request — a tool's result or error, an MCP server's instructions or tool
//! description, a note of Tollgate's quoting a server, a variable read back, the user's own
//! message — it is redacted here, once, where the request is built, so a new route is covered
//! the day it is added.
//!
//! A request carries the whole conversation again every round, so the door remembers what it
//! let through: a text seen before at the same place in the request, unchanged and with no
//! secret remembered since, is passed as it was redacted then, and a request of a thousand
//! messages costs the redaction of what is new in it.

/// Redacts every text of a request ([`crate::redact_known`]), remembering what it let through
/// for the next request of the same conversation.
#[derive(Debug, Default)]
pub struct SecretDoor {
    /// The secrets' [`crate::generation`] the remembered texts were redacted at.
    generation: u64,
    /// Each text of the last request, by its place: as it came, and as it left (`None` when
    /// nothing in it was hidden).
    seen: Vec<(String, Option<String>)>,
    /// The place of the next text in the request being sealed.
    next: usize,
}

impl SecretDoor {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new request: texts are taken again from the first place.
    pub fn begin(&mut self) {
        let generation = crate::generation();
        if generation != self.generation {
            self.seen.clear();
            self.generation = generation;
        }
        self.next = 0;
    }

    /// Ends a request: places past its last text are forgotten.
    pub fn end(&mut self) {
        self.seen.truncate(self.next);
    }

    /// Passes one text of the request through the door, in place.
    pub fn pass(&mut self, text: &mut String) {
        let place = self.next;
        self.next += 1;
        if let Some((seen, redacted)) = self.seen.get(place) {
            if seen == text {
                if let Some(redacted) = redacted {
                    text.clone_from(redacted);
                }
                return;
            }
        }
        let redacted = crate::redacted_known(text);
        let entry = (text.clone(), redacted.clone());
        match self.seen.get_mut(place) {
            Some(slot) => *slot = entry,
            None => self.seen.push(entry),
        }
        if let Some(redacted) = redacted {
            *text = redacted;
        }
    }

    /// Passes every string of a JSON value (object keys included) through the door, in place.
    pub fn pass_json(&mut self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(s) => self.pass(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.pass_json(v)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (mut key, mut v) in entries {
                    self.pass(&mut key);
                    self.pass_json(&mut v);
                    map.insert(key, v);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// What the door remembers is redacted again when a secret is remembered after it passed,
    /// and a text changed at its place is redacted anew.
    #[test]
    fn a_text_let_through_is_redacted_again_once_a_new_secret_is_known() {
        let secret = "door-Kq7Vx2Lp9Tz4Wm8R";
        let mut door = SecretDoor::new();
        let mut first = format!("printed {secret}");
        door.begin();
        door.pass(&mut first);
        door.end();
        assert!(first.contains(secret), "not a secret yet");
        crate::remember(secret);
        let mut again = format!("printed {secret}");
        door.begin();
        door.pass(&mut again);
        door.end();
        assert_eq!(again, "printed [redacted]");
        // The same place with another text: redacted on its own.
        let mut other = format!("now {secret} here");
        door.begin();
        door.pass(&mut other);
        door.end();
        assert_eq!(other, "now [redacted] here");
        // JSON: values and keys.
        let mut json = serde_json::json!({"a": [secret, 1], secret: "k"});
        door.begin();
        door.pass_json(&mut json);
        door.end();
        assert!(!json.to_string().contains(secret), "{json}");
    }
}
