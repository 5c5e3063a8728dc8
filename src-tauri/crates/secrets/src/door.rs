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
        if let Some(redacted) = self.passed(text) {
            *text = redacted;
        }
    }

    /// What `text`, the next text of the request, leaves the door as, when that is not `text`
    /// itself; remembered for the next request.
    fn passed(&mut self, text: &str) -> Option<String> {
        let place = self.next;
        self.next += 1;
        if let Some((seen, redacted)) = self.seen.get(place) {
            if seen == text {
                return redacted.clone();
            }
        }
        let redacted = crate::redacted_known(text);
        let entry = (text.to_string(), redacted.clone());
        match self.seen.get_mut(place) {
            Some(slot) => *slot = entry,
            None => self.seen.push(entry),
        }
        redacted
    }

    /// Passes texts that stand next to each other in the request through the door, in place:
    /// what [`Self::pass`] does to each in turn, with the texts not seen before redacted on
    /// every core at once when there is enough of them to be worth it (a chat's first request
    /// after the app starts carries its whole history).
    pub fn pass_many(&mut self, texts: &mut [&mut String]) {
        let start = self.next;
        self.next += texts.len();
        let fresh: Vec<usize> = (0..texts.len())
            .filter(|&i| {
                self.seen
                    .get(start + i)
                    .is_none_or(|(seen, _)| seen != texts[i].as_str())
            })
            .collect();
        let redacted = redact_all(&fresh.iter().map(|&i| texts[i].as_str()).collect::<Vec<_>>());
        let mut fresh = fresh.into_iter().zip(redacted).peekable();
        for (i, text) in texts.iter_mut().enumerate() {
            let place = start + i;
            if fresh.peek().is_some_and(|(f, _)| *f == i) {
                let Some((_, redacted)) = fresh.next() else {
                    continue;
                };
                let entry = (text.clone(), redacted.clone());
                match self.seen.get_mut(place) {
                    Some(slot) => *slot = entry,
                    None => self.seen.push(entry),
                }
                if let Some(redacted) = redacted {
                    **text = redacted;
                }
            } else if let Some((_, Some(redacted))) = self.seen.get(place) {
                text.clone_from(redacted);
            }
        }
    }

    /// Passes every string of a JSON value (object keys included) through the door, in place.
    /// An object is rebuilt only when one of its keys had something to hide: a request's tool
    /// schemas are the same every round, and taking each apart every round cost more than
    /// redacting them.
    pub fn pass_json(&mut self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(s) => self.pass(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.pass_json(v)),
            Value::Object(map) => {
                let renamed: Vec<(String, String)> = map
                    .keys()
                    .filter_map(|key| self.passed(key).map(|new| (key.clone(), new)))
                    .collect();
                map.values_mut().for_each(|v| self.pass_json(v));
                for (old, new) in renamed {
                    if let Some(v) = map.remove(&old) {
                        map.insert(new, v);
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// Below this many bytes of new text the door redacts on the calling thread: starting a thread
/// costs more than it saves.
const SPLIT_FROM: usize = 64 * 1024;

/// How many threads the door splits a large request over: the machine's cores, at most four,
/// read once (reading them looks at the process's control groups each time).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// [`crate::redacted_known`] of each text, in order: split by size over the machine's cores when
/// there is at least [`SPLIT_FROM`] of it.
fn redact_all(texts: &[&str]) -> Vec<Option<String>> {
    let total: usize = texts.iter().map(|t| t.len()).sum();
    if total < SPLIT_FROM || texts.len() < 2 || cores() < 2 {
        return texts.iter().map(|t| crate::redacted_known(t)).collect();
    }
    let cores = cores();
    // Cut where each share holds about a core's part of the bytes.
    let share = total.div_ceil(cores);
    let mut cuts = vec![0];
    let mut filled = 0;
    for (i, text) in texts.iter().enumerate() {
        filled += text.len();
        if filled >= share * cuts.len() && i + 1 < texts.len() {
            cuts.push(i + 1);
        }
    }
    cuts.push(texts.len());
    std::thread::scope(|scope| {
        let parts: Vec<_> = cuts
            .windows(2)
            .map(|w| {
                let part = &texts[w[0]..w[1]];
                let handle = scope.spawn(move || {
                    part.iter()
                        .map(|t| crate::redacted_known(t))
                        .collect::<Vec<_>>()
                });
                (part.len(), handle)
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|(len, part)| match part.join() {
                Ok(done) => done,
                // A share whose thread panicked was redacted by no one: its texts are withheld.
                Err(_) => vec![Some(crate::leak::WITHHELD.to_string()); len],
            })
            .collect()
    })
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

    /// Texts passed together are redacted as each alone would be, in their places, also when
    /// there is enough new text to split over threads; the next request finds them remembered.
    #[test]
    fn texts_passed_together_are_each_redacted_in_place_however_they_are_split() {
        let secret = "many-Zr5Qw8Ty1Up3Io6P";
        crate::remember(secret);
        let encoded = "bWFueS1acjVRdzhUeTFVcDNJbzZQ"; // base64 of the secret
        let make = || -> Vec<String> {
            (0..400)
                .map(|i| match i % 50 {
                    7 => format!("line {i}: {secret} here"),
                    19 => format!("blob {encoded}"),
                    _ => format!("ordinary output {i} ").repeat(20),
                })
                .collect()
        };
        let originals = make();
        assert!(originals.iter().map(String::len).sum::<usize>() > SPLIT_FROM);
        let mut door = SecretDoor::new();
        for round in 0..2 {
            let mut texts = make();
            door.begin();
            door.pass_many(&mut texts.iter_mut().collect::<Vec<_>>());
            door.end();
            for (text, original) in texts.iter().zip(&originals) {
                let alone = crate::redacted_known(original).unwrap_or_else(|| original.clone());
                assert_eq!(text, &alone, "round {round}");
                assert!(!text.contains(secret) && !text.contains(encoded), "round {round}");
            }
        }
    }
}
