//! The gate's judgement of one call (F-83, F-84): whether the call is consequential while the
//! model had read untrusted content, and what its card shows — the untrusted sources, the
//! stretches of the arguments that came from them or carry private data out, and what the user
//! can endorse.
//!
//! The rule, in one sentence: a call that writes, executes, sends out or cannot be undone,
//! made by a model that had read untrusted content (or whose arguments expand an untrusted
//! variable), is never let through silently; a call whose only consequence is sending out is
//! held to that only when there is private data in the chat or in its arguments to send, or
//! when untrusted content chose where it goes (a target argument copied from it, SPEC §12).
//! What a tool may do counts as the tool's own word only once the user confirmed it: an MCP
//! server's annotations are a claim, and a call of a tool whose effects are only claimed is
//! judged as one that may change or send anything.

use super::exposure::Exposure;
use super::spans::SpanIndex;
use super::target_values::{values_of_argument, TargetValue};
use super::trust::Trust;
use serde_json::Value;
use std::sync::Arc;
use tollgate_protocol::{ArgSpan, GuardNote, Source, SpanKind, ToolEffects, TrustKey};

/// At most this many spans are reported per call.
pub const MAX_SPANS: usize = 64;

/// What the gate judges a call by.
pub struct GuardInputs<'a> {
    pub trust: &'a Trust<'a>,
    /// What the call may do.
    pub effects: ToolEffects,
    /// What the model had read when it made the call (none: a call made outside a turn).
    pub exposure: Option<&'a Exposure>,
    /// The variables `$VAR_REF` expanded into the arguments: their sources and values.
    pub expanded: &'a [(Arc<[Source]>, Arc<str>)],
    /// The arguments, as they would run.
    pub args: &'a Value,
    /// The JSON pointers of the arguments that name where the call goes ([`super::targets`]).
    pub targets: &'a [String],
    /// `effects` is a server's claim the user has not confirmed (SPEC §12).
    pub unconfirmed: bool,
}

/// Escapes one JSON pointer segment (RFC 6901).
fn segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Calls `f` with every string in `value` and its JSON pointer — and every number, as the
/// digits it is written with: `{"chat_id": 900000000666}` names a chat as surely as the string
/// does, so the one reading of argument values every judge goes through reads numbers too.
pub fn each_string(value: &Value, pointer: &mut String, f: &mut dyn FnMut(&str, &str)) {
    match value {
        Value::String(s) => f(pointer, s),
        Value::Number(n) => f(pointer, &n.to_string()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                each_string(item, pointer, f);
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&segment(key));
                each_string(item, pointer, f);
                pointer.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
}

/// Distinct items of `items` in order (lists of sources are short: a linear check beats hashing).
pub fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The gate's note for a call, or `None` when it has nothing to say: the gate is off, the call
/// changes and sends nothing, nothing untrusted reached it, or it only sends out and there is
/// neither anything private to send nor a destination the untrusted content chose. With a note,
/// no policy, rule or record may let the call run without a card.
pub fn guard_note(inputs: &GuardInputs<'_>) -> Option<GuardNote> {
    let trust = inputs.trust;
    let effects = if inputs.unconfirmed {
        inputs.effects.union(ToolEffects::ANY)
    } else {
        inputs.effects
    };
    if !trust.enabled() || !effects.consequential() {
        return None;
    }
    let in_context: &[Source] = inputs.exposure.map(Exposure::sources).unwrap_or_default();
    let untrusted: Vec<Source> = distinct(
        inputs
            .expanded
            .iter()
            .flat_map(|(sources, _)| sources.iter())
            .chain(in_context.iter().rev())
            .filter(|s| trust.untrusted(s))
            .cloned(),
    );
    if untrusted.is_empty() {
        return None;
    }
    let private_read: Vec<Source> = distinct(
        in_context
            .iter()
            .rev()
            .filter(|s| trust.private(s))
            .cloned(),
    );
    let mut spans = spans(inputs, effects);
    let sends_private = spans.iter().any(|s| s.kind == SpanKind::Private);
    let (chosen_targets, named) = chosen_targets(inputs, &spans);
    // A target chosen as a value is marked whole on the card, with the content that named it.
    if !named.is_empty() {
        spans.extend(named);
        spans.sort_by(|a, b| (&a.pointer, a.start).cmp(&(&b.pointer, b.start)));
        spans.truncate(MAX_SPANS);
    }
    if effects.only_sends_out()
        && private_read.is_empty()
        && !sends_private
        && chosen_targets.is_empty()
    {
        return None;
    }
    let endorsable: Vec<TrustKey> = distinct(untrusted.iter().map(Source::key))
        .into_iter()
        .take(GuardNote::MAX_SOURCES)
        .collect();
    Some(GuardNote {
        effects: inputs.effects,
        exposed_count: u32::try_from(untrusted.len()).unwrap_or(u32::MAX),
        exposed_to: untrusted.into_iter().take(GuardNote::MAX_SOURCES).collect(),
        private_read: private_read
            .into_iter()
            .take(GuardNote::MAX_SOURCES)
            .collect(),
        spans,
        would_allow: None,
        endorsable,
        chosen_targets,
        unconfirmed: inputs.unconfirmed,
    })
}

/// Whether `span` covers every letter and digit of `text`: the whole value was copied.
fn covers_whole(span: &ArgSpan, text: &str) -> bool {
    text.chars().enumerate().all(|(i, c)| {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        !c.is_alphanumeric() || (span.start <= i && i < span.end)
    })
}

/// Letters and digits of `text`, lower-cased: how [`super::spans`] compares text.
fn normalised(text: impl Iterator<Item = char>) -> String {
    text.filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether the stretch `span` of `text` is only part of the address of the page it was found
/// in: a fetched page's result begins with its own address, which the user or the model chose,
/// not the page (`…/docs/k1-` shared by `…/docs/k1-twin` and `…/docs/k1-status`).
fn only_the_pages_address(span: &ArgSpan, text: &str) -> bool {
    let Source::Web { url, .. } = &span.source else {
        return false;
    };
    let copied = normalised(
        text.chars()
            .skip(span.start as usize)
            .take(span.end.saturating_sub(span.start) as usize),
    );
    !copied.is_empty() && normalised(url.chars()).contains(&copied)
}

/// The target arguments whose value came (in part) from untrusted content, as pointers: the
/// content chose where the call goes. Two exceptions: a URL copied whole from a page of the
/// same host (a link within a site) adds nothing of the chat to what that host already served,
/// so following it is not the page choosing a new destination; and a stretch that is only part
/// of the page's own address was not the page's choice. Also the spans to mark for targets
/// found as values only (no stretch of the text was copied: short, full-width, in pieces).
fn chosen_targets(inputs: &GuardInputs<'_>, spans: &[ArgSpan]) -> (Vec<String>, Vec<ArgSpan>) {
    let mut out: Vec<String> = Vec::new();
    let mut named: Vec<ArgSpan> = Vec::new();
    let text_at = |pointer: &str| {
        inputs
            .args
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let untrusted = spans.iter().filter(|s| {
        s.kind == SpanKind::Untrusted && !only_the_pages_address(s, text_at(&s.pointer))
    });
    let untrusted: Vec<&ArgSpan> = untrusted.collect();
    for span in untrusted.iter().copied() {
        if out.contains(&span.pointer)
            || !inputs
                .targets
                .iter()
                .any(|t| super::targets::covers(t, &span.pointer))
        {
            continue;
        }
        let text = text_at(&span.pointer);
        // The user (or a trusted source) named this target themselves, as a value: a copy of it
        // in content is not the content's choice.
        if inputs
            .exposure
            .is_some_and(|e| vouched_whole(e, inputs.trust, text))
        {
            continue;
        }
        let same_site = |s: &ArgSpan| match &s.source {
            Source::Web { host, .. } => {
                covers_whole(s, text) && tollgate_names::url_host(text).is_some_and(|h| h == *host)
            }
            _ => false,
        };
        let in_pointer: Vec<&ArgSpan> = untrusted
            .iter()
            .copied()
            .filter(|s| s.pointer == span.pointer)
            .collect();
        if in_pointer.iter().all(|s| same_site(s)) {
            continue;
        }
        out.push(span.pointer.clone());
    }
    // Targets as values (F-97): a target argument naming, as a value of any length, a
    // target that untrusted content named and neither the user's words nor a trusted source
    // did — however it was written there (short, spaced, full-width, in pieces).
    if let Some(exposure) = inputs.exposure {
        let mut pointer = String::new();
        each_string(inputs.args, &mut pointer, &mut |p, text| {
            let is_target = inputs.targets.iter().any(|t| super::targets::covers(t, p));
            if !is_target || out.iter().any(|o| o == p) {
                return;
            }
            if let Some(source) = chosen_by_content(exposure, inputs.trust, text) {
                out.push(p.to_string());
                let marked = spans
                    .iter()
                    .any(|s| s.pointer == p && s.kind == SpanKind::Untrusted);
                if !marked {
                    named.push(ArgSpan {
                        pointer: p.to_string(),
                        start: 0,
                        end: u32::try_from(text.chars().count()).unwrap_or(u32::MAX),
                        kind: SpanKind::Untrusted,
                        source,
                    });
                }
            }
        });
    }
    (out, named)
}

/// Whether the user's own words, or content from a trusted source alone, named `value`.
fn vouched(exposure: &Exposure, trust: &Trust<'_>, value: &TargetValue) -> bool {
    exposure.typed(value)
        || naming_by_others(exposure, value)
            .iter()
            .any(|sources| !sources.iter().any(|s| trust.untrusted(s)))
}

/// Whether every target `text` names (a name aside) is vouched for ([`vouched`]).
fn vouched_whole(exposure: &Exposure, trust: &Trust<'_>, text: &str) -> bool {
    let values: Vec<TargetValue> = values_of_argument(text)
        .into_iter()
        .filter(|v| !matches!(v, TargetValue::Name(_)))
        .collect();
    !values.is_empty() && values.iter().all(|v| vouched(exposure, trust, v))
}

/// The content naming `value`, less a page naming only its own address (a fetched page's
/// result begins with its address, which the user or the model chose, not the page).
fn naming_by_others<'e>(exposure: &'e Exposure, value: &TargetValue) -> Vec<&'e [Source]> {
    let own = |s: &Source| match (s, value) {
        (Source::Web { host, .. }, TargetValue::Host(h)) => tollgate_names::same_site(host, h),
        (Source::Web { url, .. }, TargetValue::Url(u)) => {
            values_of_argument(url).first() == Some(&TargetValue::Url(u.clone()))
        }
        _ => false,
    };
    exposure
        .naming(value)
        .into_iter()
        .filter(|sources| !sources.iter().all(own))
        .collect()
}

/// Whether untrusted content chose the target `text` names: one of its values (a host, an
/// address, an account…; not a bare name) is named by untrusted content and neither by the
/// user's own words nor by a trusted source. A URL copied whole from a page of its own host (a
/// link within a site) was not chosen by that page. The answer is the untrusted source that
/// named it.
fn chosen_by_content(exposure: &Exposure, trust: &Trust<'_>, text: &str) -> Option<Source> {
    let values = values_of_argument(text);
    let same_site_link = values.iter().any(|v| match v {
        TargetValue::Url(url) => {
            let host = tollgate_names::url_host(url);
            exposure.naming(v).iter().any(|sources| {
                sources.iter().any(|s| match s {
                    Source::Web { host: page, .. } => host
                        .as_deref()
                        .is_some_and(|h| tollgate_names::same_site(h, page)),
                    _ => false,
                })
            })
        }
        _ => false,
    });
    if same_site_link {
        return None;
    }
    values
        .iter()
        .filter(|v| !matches!(v, TargetValue::Name(_)) && !vouched(exposure, trust, v))
        .find_map(|value| {
            naming_by_others(exposure, value)
                .into_iter()
                .find_map(|sources| sources.iter().find(|s| trust.untrusted(s)).cloned())
        })
}

/// The untrusted sources a call's result is derived from (F-97): a short argument (a name, an
/// address, an id: at most [`DERIVED_CHARS`] characters; past [`DERIVED_WORDS`] words, the
/// names it holds) naming a value only untrusted content named, and not the user. A lookup of
/// the name a page gave ("send the report to Mallory") returns what the page chose, even from
/// a trusted directory: its result carries the page's source, so a target taken from it is the
/// page's.
pub fn derived_sources(exposure: &Exposure, trust: &Trust<'_>, args: &Value) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    let mut pointer = String::new();
    each_string(args, &mut pointer, &mut |_, text| {
        if text.chars().count() > DERIVED_CHARS {
            return;
        }
        let mut keys = values_of_argument(text);
        // A longer key ("Mallory Evans in billing, Acme"): the names it holds, each alone.
        if text.split_whitespace().count() > DERIVED_WORDS {
            keys.extend(proper_names(text));
        }
        for value in keys {
            if exposure.typed(&value) {
                continue;
            }
            for sources in naming_by_others(exposure, &value) {
                for s in sources.iter().filter(|s| trust.untrusted(s)) {
                    if !out.contains(s) {
                        out.push(s.clone());
                    }
                }
            }
        }
    });
    out
}

/// The names a key of more than [`DERIVED_WORDS`] words holds, as a lookup reads them: each
/// run of words that begin with a capital or hold a digit ("Mallory Evans", "Acme", "R2D2"),
/// and each word of such a run, lower case. A capitalised first word that only starts the
/// sentence ("Find", "Contact") is not a name when a lower-case word follows it.
fn proper_names(text: &str) -> Vec<TargetValue> {
    const STARTERS: &[&str] = &[
        "a", "an", "the", "find", "search", "look", "lookup", "get", "show", "list", "who", "what",
        "where", "which", "contact", "contacts", "email", "mail", "phone", "send", "please",
        "person", "people", "user", "account", "details", "info", "address",
    ];
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .map(|w| w.trim_matches(|c: char| c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    // A word as a name, lower case; `None` for a word that is not one.
    let name = |i: usize, w: &str| -> Option<String> {
        let capital = w.chars().next().is_some_and(char::is_uppercase);
        let digit = w.chars().any(|c| c.is_ascii_digit());
        if !(capital || digit) || w.chars().count() < super::target_values::MIN_NAME {
            return None;
        }
        let lower = w.to_lowercase();
        let starts_a_sentence = i == 0
            && STARTERS.contains(&lower.as_str())
            && words
                .get(1)
                .and_then(|n| n.chars().next())
                .is_none_or(char::is_lowercase);
        (!starts_a_sentence).then_some(lower)
    };
    let mut out: Vec<TargetValue> = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let flush = |run: &mut Vec<String>, out: &mut Vec<TargetValue>| {
        if run.len() > 1 {
            out.push(TargetValue::Name(run.join(" ")));
        }
        out.extend(run.drain(..).map(TargetValue::Name));
    };
    for (i, w) in words.iter().enumerate() {
        match name(i, w) {
            Some(lower) => run.push(lower),
            None => flush(&mut run, &mut out),
        }
    }
    flush(&mut run, &mut out);
    out.dedup();
    out
}

/// The longest argument read as a lookup's key by [`derived_sources`].
pub const DERIVED_CHARS: usize = 64;
/// The most words of such an argument read whole; a longer one is read by its names.
pub const DERIVED_WORDS: usize = 3;

/// The stretches of the arguments that came from untrusted content, and — for a call that
/// sends out — those that carry private data.
fn spans(inputs: &GuardInputs<'_>, effects: ToolEffects) -> Vec<ArgSpan> {
    let trust = inputs.trust;
    let mut expanded = SpanIndex::new();
    for (i, (sources, value)) in inputs.expanded.iter().enumerate() {
        if sources.iter().any(|s| trust.untrusted(s)) {
            expanded.add(value, u32::try_from(i).unwrap_or(u32::MAX));
        }
    }
    let classify = |sources: &[Source]| -> Option<(SpanKind, Source)> {
        if let Some(s) = sources.iter().find(|s| trust.untrusted(s)) {
            return Some((SpanKind::Untrusted, s.clone()));
        }
        if effects.sends_out {
            if let Some(s) = sources.iter().find(|s| trust.private(s)) {
                return Some((SpanKind::Private, s.clone()));
            }
        }
        None
    };
    let mut out: Vec<ArgSpan> = Vec::new();
    each_string(inputs.args, &mut String::new(), &mut |pointer, text| {
        let mut push = |start: u32, end: u32, (kind, source): (SpanKind, Source)| {
            if out.len() < MAX_SPANS {
                out.push(ArgSpan {
                    pointer: pointer.to_string(),
                    start,
                    end,
                    kind,
                    source,
                });
            }
        };
        for found in expanded.find(text) {
            let sources = inputs
                .expanded
                .get(found.entry as usize)
                .map(|(s, _)| &**s)
                .unwrap_or_default();
            if let Some(class) = classify(sources) {
                push(found.start, found.end, class);
            }
        }
        if let Some(exposure) = inputs.exposure {
            for (found, sources) in exposure.find(text) {
                if let Some(class) = classify(sources) {
                    push(found.start, found.end, class);
                }
            }
        }
    });
    out.sort_by(|a, b| (&a.pointer, a.start).cmp(&(&b.pointer, b.start)));
    out.dedup_by(|later, earlier| {
        later.pointer == earlier.pointer && later.start < earlier.end && later.kind == earlier.kind
    });
    out
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
