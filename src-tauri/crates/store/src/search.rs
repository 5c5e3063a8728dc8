//! Full-text search over chats (F-50): message text through FTS5, titles by substring.

use super::{rank, StoreResult};
use crate::facets::SearchIndex;
use serde::{Deserialize, Serialize};
use tollgate_protocol::ids::ChatId;

/// A chat that matched, with where it matched.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub chat: ChatId,
    pub title: String,
    /// A short excerpt around the match, the match between [`MATCH_START`] and [`MATCH_END`];
    /// empty for title matches.
    pub snippet: String,
    /// The message that matched (none for a title match): opening the hit shows its branch.
    pub message: Option<i64>,
}

/// Turns what the user typed into a safe FTS5 query: every word quoted (so operators and
/// punctuation are literal), the last one as a prefix.
pub fn fts_query(input: &str) -> Option<String> {
    let words: Vec<String> = input.split_whitespace().map(fts_phrase).collect();
    if words.is_empty() {
        return None;
    }
    let mut q = words.join(" ");
    q.push('*');
    Some(q)
}

/// `word` as an FTS5 phrase: quoted, so operators and punctuation in it are literal.
fn fts_phrase(word: &str) -> String {
    format!("\"{}\"", word.replace('"', "\"\""))
}

/// Where a match starts in a snippet: a private-use character, which neither model text nor a
/// user types, so text such as `a[0]` is never mistaken for a match.
pub const MATCH_START: char = '\u{E000}';
/// Where a match ends in a snippet.
pub const MATCH_END: char = '\u{E001}';
/// Words shown around the first match in an excerpt, as FTS5's snippet() would.
const EXCERPT_WORDS: usize = 10;
/// At most this many hits.
const MAX_HITS: usize = 50;
/// Matching messages ranked, newest first: a heavy user's common word matches a good part of a
/// million messages, and scoring them all would take far longer than a keystroke (F-71).
/// The newest matches are the ones a user looks for; a rare word is in fewer than this anyway.
const RANKED_MATCHES: usize = 2_000;

/// Pages of the search index one tending step merges at most: 15–80 ms of work on a year's
/// index on the 2-core test machine, so a read arriving meanwhile waits no longer than that.
pub const TEND_PAGES: i64 = 100;

/// A message among the newest that match, with what ranking it needs.
struct Matched {
    chat: ChatId,
    title: String,
    message: i64,
    /// How often each query word occurs in it.
    counts: Vec<u32>,
    /// How many words it has.
    len: u32,
    score: f64,
}

/// Orders `matched` best first by BM25 (newest first among equals), each word weighed by how
/// many of all messages hold it ([`rank::messages_holding`]). The last word is weighed as the
/// whole word it is, or while no message holds it whole (it is still being typed), as the
/// words it begins: that costs FTS5 a merge of their matches, which a whole word does not.
fn rank_matches(
    c: &rusqlite::Connection,
    matched: &mut [Matched],
    words: &[String],
) -> rusqlite::Result<()> {
    if matched.is_empty() {
        return Ok(());
    }
    let newest: i64 = c.query_row("SELECT coalesce(max(id), 0) FROM messages", [], |r| {
        r.get(0)
    })?;
    let total = newest.max(1) as f64;
    let mut weights = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let phrase = fts_phrase(word);
        let mut holding = rank::messages_holding(c, &phrase, newest)?;
        if holding.is_none() && i + 1 == words.len() {
            holding = rank::messages_holding(c, &format!("{phrase}*"), newest)?;
        }
        // Every message matched holds every word.
        let holding = holding.unwrap_or(0.0).max(matched.len() as f64);
        weights.push(rank::idf(holding, total));
    }
    let avg_len = matched.iter().map(|m| f64::from(m.len)).sum::<f64>() / matched.len() as f64;
    for m in matched.iter_mut() {
        m.score = rank::score(&m.counts, m.len, avg_len, &weights);
    }
    matched.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.message.cmp(&a.message)));
    Ok(())
}

/// The words of a query as FTS5's default tokenizer splits them (runs of letters and digits,
/// lowercased); the last one matches as a prefix.
fn query_words(query: &str) -> Vec<String> {
    tokens(query)
        .map(|(a, b)| query[a..b].to_lowercase())
        .collect()
}

/// Byte ranges of the words in `text`: runs of letters and digits. ASCII, most of what is
/// searched, is told apart byte by byte; other characters are decoded.
pub(super) fn tokens(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    // Whether the character at byte `i` (a character boundary) is part of a word, and its length.
    let at = move |i: usize| -> (bool, usize) {
        match bytes[i] {
            b if b.is_ascii() => (b.is_ascii_alphanumeric(), 1),
            _ => text[i..]
                .chars()
                .next()
                .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8())),
        }
    };
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let (word, len) = at(i);
            if word {
                break;
            }
            i += len;
        }
        if i >= bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() {
            let (word, len) = at(i);
            if !word {
                break;
            }
            i += len;
        }
        Some((start, i))
    })
}

/// About [`EXCERPT_WORDS`] words of `text` around its first word matching `words` (the last one
/// as a prefix), every match between [`MATCH_START`] and [`MATCH_END`], "…" where text was cut.
fn excerpt(text: &str, words: &[String]) -> String {
    let matches = |token: &str| {
        words
            .iter()
            .enumerate()
            .any(|(i, w)| rank::word_matches(token, w, i + 1 == words.len()))
    };
    let all: Vec<(usize, usize)> = tokens(text).collect();
    let first = all
        .iter()
        .position(|&(a, b)| matches(&text[a..b]))
        .unwrap_or(0);
    let from = first.saturating_sub(EXCERPT_WORDS / 3);
    let to = (from + EXCERPT_WORDS).min(all.len());
    let (Some(&(start, _)), Some(&(_, end))) = (all.get(from), all.get(to.saturating_sub(1)))
    else {
        return String::new();
    };
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let mut at = start;
    for &(a, b) in &all[from..to] {
        out.push_str(&text[at..a]);
        if matches(&text[a..b]) {
            out.push(MATCH_START);
            out.push_str(&text[a..b]);
            out.push(MATCH_END);
        } else {
            out.push_str(&text[a..b]);
        }
        at = b;
    }
    if to < all.len() {
        out.push_str(&text[at..end]);
        out.push('…');
    } else {
        // The text ends here: its closing punctuation too.
        out.push_str(text[at..].trim_end());
    }
    out
}

impl SearchIndex<'_> {
    /// Merges a piece (up to `pages` pages) of the search index's segments, which writes leave
    /// unmerged (migration V10), and returns whether there was any to merge. Searching reads
    /// every segment, so the segments are merged while the app is idle.
    pub async fn tend_search_index_step(&self, pages: i64) -> StoreResult<bool> {
        self.store
            .call(move |c| {
                let before = c.total_changes();
                c.execute(
                    "INSERT INTO messages_fts(messages_fts, rank) VALUES('merge', ?1)",
                    [pages],
                )?;
                // SQLite's documented sign of work done: two or more rows changed.
                Ok(c.total_changes() - before >= 2)
            })
            .await
    }

    /// Merges the search index's segments until none is left to merge, a step at a time with a
    /// short pause between steps, so other reads and the window get their turn.
    pub async fn tend_search_index(&self) -> StoreResult<()> {
        while self.tend_search_index_step(TEND_PAGES).await? {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        Ok(())
    }

    /// Chats whose title or messages match `query` (at most 50): titles first, newest first; then
    /// the best-ranked message of each other chat, among the newest matching messages.
    pub async fn search_chats(&self, query: &str) -> StoreResult<Vec<SearchHit>> {
        let Some(fts) = fts_query(query) else {
            return Ok(Vec::new());
        };
        let query = query.to_string();
        let like = format!(
            "%{}%",
            query
                .trim()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        self.store.call(move |c| {
            let mut hits: Vec<SearchHit> = Vec::new();
            let mut titles = c.prepare_cached(
                "SELECT id, title FROM chats WHERE title LIKE ?1 ESCAPE '\\' ORDER BY updated_at DESC LIMIT 50",
            )?;
            for row in titles.query_map([&like], |r| Ok((ChatId(r.get(0)?), r.get::<_, String>(1)?)))? {
                let (chat, title) = row?;
                hits.push(SearchHit { chat, title, snippet: String::new(), message: None });
            }
            // Ranked among the newest matches only (FTS5 walks its index newest first and stops);
            // messages of deleted chats waiting to be purged have no chat row and drop out.
            let words = query_words(&query);
            let mut newest = c.prepare_cached(
                "SELECT m.chat_id, c.title, m.id, substr(m.content, 1, ?3)
                 FROM (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1
                       ORDER BY rowid DESC LIMIT ?2) f
                 JOIN messages m ON m.id = f.rowid JOIN chats c ON c.id = m.chat_id",
            )?;
            let mut matched: Vec<Matched> = Vec::new();
            for row in newest.query_map(
                rusqlite::params![&fts, RANKED_MATCHES as i64, rank::SCORED_CHARS],
                |r| {
                    let text: String = r.get(3)?;
                    let (counts, len) =
                        rank::word_counts(tokens(&text).map(|(a, b)| &text[a..b]), &words);
                    Ok(Matched {
                        chat: ChatId(r.get(0)?),
                        title: r.get(1)?,
                        message: r.get(2)?,
                        counts,
                        len,
                        score: 0.0,
                    })
                },
            )? {
                matched.push(row?);
            }
            rank_matches(c, &mut matched, &words)?;
            let mut found: Vec<(usize, i64)> = Vec::new();
            for Matched { chat, title, message, .. } in matched {
                match hits.iter().position(|h| h.chat == chat) {
                    Some(i) if hits[i].message.is_none() => {
                        hits[i].message = Some(message);
                        found.push((i, message));
                    }
                    Some(_) => {}
                    None if hits.len() < MAX_HITS => {
                        hits.push(SearchHit { chat, title, snippet: String::new(), message: Some(message) });
                        found.push((hits.len() - 1, message));
                    }
                    None => {}
                }
            }
            // Excerpts only for the hits shown, made here: FTS5's snippet() expands the prefix
            // word again for every message, some 15 ms each on a year of messages.
            let mut content = c.prepare_cached("SELECT content FROM messages WHERE id = ?1")?;
            for (i, message) in found {
                let text: String = content.query_row([message], |r| r.get(0))?;
                hits[i].snippet = excerpt(&text, &words);
            }
            Ok(hits)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn marked(s: &str) -> String {
        s.replace(MATCH_START, "<").replace(MATCH_END, ">")
    }

    #[test]
    fn an_excerpt_marks_whole_words_and_the_last_as_a_prefix() {
        let words = query_words("Ferry helsin");
        let text =
            "On Monday the ferry to Helsinki leaves at noon from pier [3]; the Ferry is slow.";
        assert_eq!(
            marked(&excerpt(text, &words)),
            "On Monday the <ferry> to <Helsinki> leaves at noon from…"
        );
        // A word that only starts like a whole-word query word is not a match.
        assert_eq!(
            marked(&excerpt("ferryman and ferry", &query_words("ferry x"))),
            "ferryman and <ferry>"
        );
    }

    #[test]
    fn an_excerpt_survives_odd_text() {
        let words = query_words("zürich");
        assert_eq!(
            marked(&excerpt("Grüße aus Zürich!", &words)),
            "Grüße aus <Zürich>!"
        );
        assert_eq!(excerpt("", &words), "");
        assert_eq!(excerpt("—— ** ——", &words), "");
        assert_eq!(excerpt("no match here", &query_words("")), "no match here");
        let long = "word ".repeat(50) + "target";
        assert!(marked(&excerpt(&long, &query_words("target"))).ends_with("<target>"));
    }

    /// The rarer word weighs more: a message saying the rare word three times ranks above one
    /// saying the common word three times, whichever is newer; a word still being typed (held
    /// whole by no message) ranks too.
    #[tokio::test]
    async fn the_rarer_word_weighs_more_in_the_ranking() {
        use crate::{MessageStatus, NewChat, Role};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let say = |chat, text: String| {
            let store = store.clone();
            async move {
                store
                    .messages()
                    .insert_message(chat, Role::User, text, MessageStatus::Complete, None)
                    .await
                    .unwrap();
            }
        };
        let chat = |title: &'static str| {
            let store = store.clone();
            async move {
                let new = NewChat {
                    title: title.into(),
                    ..Default::default()
                };
                store.create_chat(new).await.unwrap().id
            }
        };
        // "harbour" is in hundreds of messages (more than the sample read to weigh it),
        // "lighthouse" in two.
        let filler = chat("Filler").await;
        for i in 0..400 {
            say(filler, format!("harbour note {i}")).await;
        }
        let rare = chat("Rare").await;
        say(rare, "lighthouse lighthouse lighthouse harbour".into()).await;
        let common = chat("Common").await;
        say(common, "harbour harbour harbour lighthouse".into()).await;
        store.flush().await.unwrap();
        let order = |hits: Vec<SearchHit>| hits.into_iter().map(|h| h.chat).collect::<Vec<_>>();
        let hits = order(
            store
                .search_index()
                .search_chats("harbour lighthouse")
                .await
                .unwrap(),
        );
        assert_eq!(
            hits,
            vec![rare, common],
            "the newer message is the common one"
        );
        let hits = order(
            store
                .search_index()
                .search_chats("harbour lightho")
                .await
                .unwrap(),
        );
        assert_eq!(hits, vec![rare, common], "the last word as a prefix");
        let hits = order(store.search_index().search_chats("harbour").await.unwrap());
        assert_eq!(hits.len(), 3);
        assert_eq!(hits[0], common, "three times in a short message: {hits:?}");
    }

    /// Writes no longer merge the index (the merge once held a small delete for seconds); the
    /// idle steps merge what they leave, and every message is still found.
    #[tokio::test]
    async fn the_index_is_merged_in_idle_steps_not_in_writes() {
        use crate::{MessageStatus, NewChat, Role};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let automerge: String = store
            .call(|c| {
                Ok(c.query_row(
                    "SELECT v FROM messages_fts_config WHERE k = 'automerge'",
                    [],
                    |r| r.get::<_, i64>(0),
                )?
                .to_string())
            })
            .await
            .unwrap();
        assert_eq!(automerge, "0");
        let chat = store.create_chat(NewChat::default()).await.unwrap().id;
        // Each message is its own transaction, so its own segment of the index.
        for i in 0..24 {
            store
                .messages()
                .insert_message(
                    chat,
                    Role::User,
                    format!("ferry number{i} leaves"),
                    MessageStatus::Complete,
                    None,
                )
                .await
                .unwrap();
        }
        assert!(store
            .search_index()
            .tend_search_index_step(TEND_PAGES)
            .await
            .unwrap());
        store.search_index().tend_search_index().await.unwrap();
        assert!(!store
            .search_index()
            .tend_search_index_step(TEND_PAGES)
            .await
            .unwrap());
        for i in [0, 11, 23] {
            let hits = store
                .search_index()
                .search_chats(&format!("number{i}"))
                .await
                .unwrap();
            assert_eq!(hits.len(), 1, "number{i}");
            assert!(hits[0].snippet.contains(&format!("number{i}")));
        }
        assert_eq!(
            store.branches().chat_messages(chat).await.unwrap().len(),
            24
        );
    }
}
