//! Ranking search hits (F-50): BM25 over the newest matching messages, scored here.
//!
//! FTS5's `bm25()` weighs each query word by how many messages hold it, and counts them by
//! walking every message that matches the word: about 10 ms a word on a year of messages, twice
//! that for the prefix the last word is, which was more than the rest of a search (F-71).
//! Here a word's share of the messages is read from how far back its newest 200 matches reach,
//! which takes a fraction of a millisecond; its counts in each message come from the message.

use rusqlite::{Connection, OptionalExtension};

/// BM25's term-frequency saturation and length normalisation, FTS5's defaults.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Characters of a message that are scored: a very long message is scored by its start, so a
/// search never reads megabytes of text.
pub(super) const SCORED_CHARS: i64 = 16_384;
/// Matches of a word read to estimate how common it is.
const SAMPLE: i64 = 200;

/// Whether `token` (as written) is `word` (lowercase), or starts with it when `prefix`.
pub(super) fn word_matches(token: &str, word: &str, prefix: bool) -> bool {
    if token.is_ascii() {
        let (t, w) = (token.as_bytes(), word.as_bytes());
        if prefix {
            t.len() >= w.len() && t[..w.len()].eq_ignore_ascii_case(w)
        } else {
            t.eq_ignore_ascii_case(w)
        }
    } else {
        let lower = token.to_lowercase();
        if prefix {
            lower.starts_with(word)
        } else {
            lower == word
        }
    }
}

/// How often each of `words` occurs among `tokens` (the last word as a prefix), and how many
/// tokens there are.
pub(super) fn word_counts<'a>(
    tokens: impl Iterator<Item = &'a str>,
    words: &[String],
) -> (Vec<u32>, u32) {
    let mut counts = vec![0u32; words.len()];
    let mut len = 0u32;
    for token in tokens {
        len = len.saturating_add(1);
        for (i, word) in words.iter().enumerate() {
            if word_matches(token, word, i + 1 == words.len()) {
                counts[i] = counts[i].saturating_add(1);
            }
        }
    }
    (counts, len)
}

/// A word's weight when `holding` of `total` messages hold it: BM25's inverse document
/// frequency, never below 1e-6 (as in FTS5), so a word in most messages still counts a little.
pub(super) fn idf(holding: f64, total: f64) -> f64 {
    let holding = holding.clamp(0.0, total.max(0.0));
    (((total - holding + 0.5) / (holding + 0.5)).ln()).max(1e-6)
}

/// BM25 of a message of `len` words holding each query word `counts` times; higher is better.
pub(super) fn score(counts: &[u32], len: u32, avg_len: f64, idf: &[f64]) -> f64 {
    let norm = K1 * (1.0 - B + B * f64::from(len) / avg_len.max(1.0));
    counts
        .iter()
        .zip(idf)
        .map(|(&n, &w)| {
            let n = f64::from(n);
            w * n * (K1 + 1.0) / (n + norm)
        })
        .sum()
}

/// About how many messages match `phrase` (an FTS5 phrase: a quoted word, `*` after it for the
/// words it begins), of messages numbered up to `newest`: its newest [`SAMPLE`] matches spread
/// over the newest ids as its matches spread over all of them. `None` when none matches.
pub(super) fn messages_holding(
    c: &Connection,
    phrase: &str,
    newest: i64,
) -> rusqlite::Result<Option<f64>> {
    let oldest_of_sample: Option<i64> = c
        .prepare_cached(
            "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1
             ORDER BY rowid DESC LIMIT 1 OFFSET ?2",
        )?
        .query_row(rusqlite::params![phrase, SAMPLE - 1], |r| r.get(0))
        .optional()?;
    if let Some(from) = oldest_of_sample {
        let span = (newest - from + 1).max(1) as f64;
        return Ok(Some(SAMPLE as f64 * newest.max(1) as f64 / span));
    }
    // Fewer than the sample: counted exactly, which is cheap for so few.
    let count: i64 = c
        .prepare_cached("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?1")?
        .query_row([phrase], |r| r.get(0))?;
    Ok((count > 0).then_some(count as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn words_match_whole_and_the_last_as_a_prefix_in_any_case() {
        assert!(word_matches("Ferry", "ferry", false));
        assert!(!word_matches("Ferryman", "ferry", false));
        assert!(word_matches("Ferryman", "ferry", true));
        assert!(!word_matches("fer", "ferry", true));
        assert!(word_matches("ZÜRICH", "zürich", false));
        assert!(word_matches("Zürichsee", "zürich", true));
        assert!(!word_matches("zurich", "zürich", false));
        let (counts, len) = word_counts(
            ["The", "ferry", "ferries", "FERRY", "to", "Helsinki"].into_iter(),
            &words(&["ferry", "hel"]),
        );
        assert_eq!((counts, len), (vec![2, 1], 6));
    }

    #[test]
    fn a_rarer_word_weighs_more_and_repeats_saturate() {
        assert!(idf(10.0, 1_000_000.0) > idf(100_000.0, 1_000_000.0));
        assert!(
            idf(1_000_000.0, 1_000_000.0) > 0.0,
            "never zero or negative"
        );
        let w = [1.0];
        let once = score(&[1], 10, 10.0, &w);
        let thrice = score(&[3], 10, 10.0, &w);
        let thirty = score(&[30], 10, 10.0, &w);
        assert!(once < thrice && thrice < thirty);
        assert!(thirty < (K1 + 1.0) * 1.0, "bounded by (k1 + 1) × idf");
        // The same count in a longer message is worth less.
        assert!(score(&[1], 100, 10.0, &w) < once);
        // A message without a word gets nothing for it.
        assert_eq!(
            score(&[0, 2], 10, 10.0, &[5.0, 1.0]),
            score(&[2], 10, 10.0, &[1.0])
        );
    }
}
