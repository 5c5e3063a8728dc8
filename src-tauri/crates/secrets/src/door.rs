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
//!
//! The first request of a chat after the app starts would redact its whole history. The chat's
//! history is made ready when its chat is opened instead ([`SecretDoor::prepare`], off the
//! request's path, on every core), and the door takes what is ready by content
//! ([`SecretDoor::take`]): a text the preparation missed or got wrong is only redacted again.

use std::collections::HashMap;

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
    /// Texts redacted ahead of the next request ([`Self::take`]), by content: what each leaves
    /// as (`None`: as it came). Emptied when that request ends.
    ready: HashMap<String, Option<String>>,
}

/// A chat's texts redacted ahead of its first request ([`SecretDoor::prepare`]), at the
/// secrets' generation they were redacted at.
#[derive(Debug, Clone)]
pub struct Prepared {
    generation: u64,
    texts: Vec<(String, Option<String>)>,
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
            self.ready.clear();
            self.generation = generation;
        }
        self.next = 0;
    }

    /// Ends a request: places past its last text are forgotten, and so is what was made ready
    /// for it.
    pub fn end(&mut self) {
        self.seen.truncate(self.next);
        self.ready = HashMap::new();
    }

    /// Redacts `texts` — a chat's history, its tools — ahead of the chat's next request, on
    /// every core. Holds no door: the chat's requests go on meanwhile.
    pub fn prepare(texts: Vec<String>) -> Prepared {
        let generation = crate::generation();
        let redacted = redact_all(&texts.iter().map(String::as_str).collect::<Vec<_>>());
        Prepared {
            generation,
            texts: texts.into_iter().zip(redacted).collect(),
        }
    }

    /// Takes what [`Self::prepare`] made ready for the next request, unless a secret was
    /// remembered since it began (then the texts are redacted when they come).
    pub fn take(&mut self, prepared: Prepared) {
        if prepared.generation != crate::generation() {
            return;
        }
        if prepared.generation != self.generation {
            self.seen.clear();
            self.generation = prepared.generation;
        }
        self.ready.extend(prepared.texts);
    }

    /// Whether `text` was made ready for the next request ([`Self::take`]): how the app's tests
    /// see that opening a chat prepared it.
    pub fn is_ready_for(&self, text: &str) -> bool {
        self.ready.contains_key(text)
    }

    /// What was made ready for `text` ([`Self::take`]), if anything: what it leaves as.
    fn made_ready(&self, text: &str) -> Option<&Option<String>> {
        if self.ready.is_empty() {
            return None;
        }
        self.ready.get(text)
    }

    /// Remembers what `text`, at `place` of this request, left as.
    fn remember_at(&mut self, place: usize, text: &str, left: Option<String>) {
        let entry = (text.to_string(), left);
        match self.seen.get_mut(place) {
            Some(slot) => *slot = entry,
            None => self.seen.push(entry),
        }
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
        if let Some((seen, left)) = self.seen.get(place) {
            if seen == text {
                return left.clone();
            }
        }
        let left = match self.made_ready(text) {
            Some(ready) => ready.clone(),
            None => crate::redacted_known(text),
        };
        self.remember_at(place, text, left.clone());
        left
    }

    /// Passes texts that stand next to each other in the request through the door, in place:
    /// what [`Self::pass`] does to each in turn, with the texts neither seen before nor made
    /// ready redacted on every core at once when there is enough of them to be worth it (a
    /// chat's first request after the app starts carries its whole history).
    pub fn pass_many(&mut self, texts: &mut [&mut String]) {
        let start = self.next;
        self.next += texts.len();
        let new: Vec<bool> = (0..texts.len())
            .map(|i| {
                self.seen
                    .get(start + i)
                    .is_none_or(|(seen, _)| seen != texts[i].as_str())
            })
            .collect();
        let missing: Vec<&str> = (0..texts.len())
            .filter(|&i| new[i] && self.made_ready(texts[i]).is_none())
            .map(|i| texts[i].as_str())
            .collect();
        // In the order the loop below meets them.
        let mut redacted_now = redact_all(&missing).into_iter();
        for (i, text) in texts.iter_mut().enumerate() {
            let place = start + i;
            if !new[i] {
                if let Some((_, Some(left))) = self.seen.get(place) {
                    text.clone_from(left);
                }
                continue;
            }
            let left = match self.made_ready(text) {
                Some(ready) => ready.clone(),
                None => redacted_now.next().flatten(),
            };
            self.remember_at(place, text, left.clone());
            if let Some(left) = left {
                **text = left;
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

    /// Every string of a JSON value, keys included: what [`Self::pass_json`] passes, for
    /// [`Self::prepare`].
    pub fn json_strings(value: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| Self::json_strings(v, out)),
            Value::Object(map) => {
                for (key, v) in map {
                    out.push(key.clone());
                    Self::json_strings(v, out);
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
                assert!(
                    !text.contains(secret) && !text.contains(encoded),
                    "round {round}"
                );
            }
        }
    }

    /// A chat made ready when it was opened: its first request leaves as it would have without
    /// the preparation, a text that changed since is redacted when it comes, and a preparation
    /// made before a secret was remembered is not taken.
    #[test]
    fn what_was_made_ready_leaves_as_it_would_have_and_nothing_else_is_trusted() {
        let secret = "ready-Hx4Jk9Lm2Nb7Vc5Q";
        crate::remember(secret);
        let history = vec![
            format!("cat key.txt\ntoken={secret}"),
            "ordinary output".to_string(),
            format!("printed {secret} twice {secret}"),
        ];
        let mut door = SecretDoor::new();
        door.take(SecretDoor::prepare(history.clone()));
        let mut request = history.clone();
        request.push(format!("new since: {secret}"));
        request[1] = format!("changed since: {secret}");
        door.begin();
        door.pass_many(&mut request.iter_mut().collect::<Vec<_>>());
        door.end();
        for text in &request {
            assert!(!text.contains(secret), "{text}");
        }
        assert_eq!(request[0], "cat key.txt\ntoken=[redacted]");
        assert_eq!(request[1], "changed since: [redacted]");

        // Prepared, then a new secret: what was prepared is not taken, and the new secret is
        // hidden in the very texts the preparation saw.
        let later = "later-Pq3Rs8Tu1Vw6Xy0Z";
        let texts = vec![format!("the later key is {later}")];
        let prepared = SecretDoor::prepare(texts.clone());
        crate::remember(later);
        let mut fresh = SecretDoor::new();
        fresh.take(prepared);
        let mut sent = texts;
        fresh.begin();
        fresh.pass_many(&mut sent.iter_mut().collect::<Vec<_>>());
        fresh.end();
        assert_eq!(sent[0], "the later key is [redacted]");
    }
}
