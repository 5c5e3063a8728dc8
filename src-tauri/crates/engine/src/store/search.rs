//! Full-text search over chats (F-50): message text through FTS5, titles by substring.

use super::{Store, StoreResult};
use crate::ids::ChatId;
use serde::{Deserialize, Serialize};

/// A chat that matched, with where it matched.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub chat: ChatId,
    pub title: String,
    /// A short excerpt around the match, with the match in `[` `]`; empty for title matches.
    pub snippet: String,
    /// The message that matched (none for a title match): opening the hit shows its branch.
    pub message: Option<i64>,
}

/// Turns what the user typed into a safe FTS5 query: every word quoted (so operators and
/// punctuation are literal), the last one as a prefix.
pub fn fts_query(input: &str) -> Option<String> {
    let words: Vec<String> = input
        .split_whitespace()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect();
    if words.is_empty() {
        return None;
    }
    let mut q = words.join(" ");
    q.push('*');
    Some(q)
}

impl Store {
    /// Chats whose title or messages match `query`, best first (at most 50).
    pub async fn search_chats(&self, query: &str) -> StoreResult<Vec<SearchHit>> {
        let Some(fts) = fts_query(query) else {
            return Ok(Vec::new());
        };
        let like = format!(
            "%{}%",
            query
                .trim()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        self.call(move |c| {
            let mut hits: Vec<SearchHit> = Vec::new();
            let mut titles = c.prepare_cached(
                "SELECT id, title FROM chats WHERE title LIKE ?1 ESCAPE '\\' ORDER BY updated_at DESC LIMIT 50",
            )?;
            for row in titles.query_map([&like], |r| Ok((ChatId(r.get(0)?), r.get::<_, String>(1)?)))? {
                let (chat, title) = row?;
                hits.push(SearchHit { chat, title, snippet: String::new(), message: None });
            }
            let mut texts = c.prepare_cached(
                "SELECT m.chat_id, c.title, snippet(messages_fts, 0, '[', ']', '…', 10), m.id
                 FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN chats c ON c.id = m.chat_id
                 WHERE messages_fts MATCH ?1 ORDER BY rank LIMIT 200",
            )?;
            for row in texts.query_map([&fts], |r| Ok((ChatId(r.get(0)?), r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(3)?)))? {
                let (chat, title, snippet, message) = row?;
                let full = hits.len() >= 50;
                match hits.iter_mut().find(|h| h.chat == chat) {
                    Some(h) if h.snippet.is_empty() => {
                        h.snippet = snippet;
                        h.message = Some(message);
                    }
                    Some(_) => {}
                    None if !full => hits.push(SearchHit { chat, title, snippet, message: Some(message) }),
                    None => {}
                }
            }
            Ok(hits)
        })
        .await
    }
}
