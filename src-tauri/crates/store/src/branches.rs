//! The message tree (F-56): which branch is on screen, the versions of a message, and moving
//! between them.
//!
//! A chat's `leaf_id` names the last message of the branch on screen; the branch is that
//! message and its ancestors. Every message is written after its parent, so a branch read in
//! id order is read first to last.

use super::messages::{finish_row, from_row, MessageRow, Role, MESSAGE_COLUMNS};
use super::{StoreError, StoreResult};
use crate::facets::Branches;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::Missing;

/// Where a stretch of a branch ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchEnd {
    /// At the chat's leaf: the end of the branch on screen.
    Leaf,
    /// Just before this message: its ancestors (the same on every branch through it).
    Before(i64),
}

/// Whole turns of a branch, first to last, each message with its versions.
#[derive(Debug, Clone, Default)]
pub struct BranchPage {
    pub messages: Vec<MessageRow>,
    /// When the branch has messages before these: the first of these, to read the page before.
    pub earlier: Option<i64>,
}

/// The last messages of the branch ending at `end`: at least `limit` (all when `None`), and back
/// to the start of the first one's turn, so a page never splits a turn's answer from the tool
/// results it folds in. A chat's first screen needs its last few dozen messages; reading the
/// whole branch of a 5,000-message chat is megabytes the window must take in (F-71).
fn branch_page(
    c: &Connection,
    chat: ChatId,
    end: BranchEnd,
    limit: Option<usize>,
) -> StoreResult<BranchPage> {
    // The branch's ids and roles first (no text): UNION (not UNION ALL) stops at a repeated
    // row, so even a corrupt parent loop ends.
    let (start, before) = match end {
        BranchEnd::Leaf => ("SELECT m.id, m.parent_id, m.role FROM chats c JOIN messages m ON m.id = c.leaf_id AND m.chat_id = c.id WHERE c.id = ?1", None),
        BranchEnd::Before(id) => {
            message_of(c, chat, id)?;
            ("SELECT m.id, m.parent_id, m.role FROM messages m WHERE m.id = (SELECT parent_id FROM messages WHERE id = ?2) AND m.chat_id = ?1", Some(id))
        }
    };
    let mut stmt = c.prepare_cached(&format!(
        "WITH RECURSIVE branch(id, parent, role) AS (
             {start}
             UNION
             SELECT m.id, m.parent_id, m.role FROM messages m JOIN branch b ON m.id = b.parent WHERE m.chat_id = ?1
         )
         SELECT id, role FROM branch ORDER BY id"
    ))?;
    let read = |r: &rusqlite::Row<'_>| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?));
    let branch = match before {
        None => stmt
            .query_map([chat.0], read)?
            .collect::<Result<Vec<_>, _>>()?,
        Some(id) => stmt
            .query_map(params![chat.0, id], read)?
            .collect::<Result<Vec<_>, _>>()?,
    };
    let mut from = limit.map_or(0, |l| branch.len().saturating_sub(l.max(1)));
    while from > 0 && branch[from].1 != Role::User.as_str() {
        from -= 1;
    }
    let ids: Vec<i64> = branch[from..].iter().map(|(id, _)| *id).collect();
    let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else {
        return Ok(BranchPage::default());
    };
    // The page's rows in one range read; other branches' messages in the range are skipped.
    let mut stmt = c.prepare_cached(&format!(
        "SELECT {MESSAGE_COLUMNS} FROM messages WHERE chat_id = ?1 AND id BETWEEN ?2 AND ?3 ORDER BY id"
    ))?;
    let mut wanted = ids.iter().peekable();
    let mut rows = Vec::with_capacity(ids.len());
    for row in stmt.query_map(params![chat.0, first, last], from_row)? {
        let row = row?;
        while wanted.next_if(|id| **id < row.0.id).is_some() {}
        if wanted.next_if_eq(&&row.0.id).is_some() {
            rows.push(finish_row(row)?);
        }
    }
    let forks = forks(c, chat)?;
    if !forks.is_empty() {
        for row in &mut rows {
            if let Some(versions) = forks.get(&row.parent_id) {
                row.siblings = versions.clone();
            }
        }
    }
    Ok(BranchPage {
        messages: rows,
        earlier: (from > 0).then_some(first),
    })
}

/// The parents with more than one child, and those children oldest first.
fn forks(c: &Connection, chat: ChatId) -> StoreResult<HashMap<Option<i64>, Vec<i64>>> {
    let mut stmt = c.prepare_cached(
        "SELECT parent_id, group_concat(id) FROM messages WHERE chat_id = ?1 GROUP BY parent_id HAVING COUNT(*) > 1",
    )?;
    let mut out = HashMap::new();
    for row in stmt.query_map([chat.0], |r| {
        Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, String>(1)?))
    })? {
        let (parent, ids) = row?;
        let mut ids: Vec<i64> = ids.split(',').filter_map(|s| s.parse().ok()).collect();
        ids.sort_unstable();
        out.insert(parent, ids);
    }
    Ok(out)
}

/// A message of `chat`: its role and parent; an error when it is not that chat's.
fn message_of(c: &Connection, chat: ChatId, id: i64) -> StoreResult<(Role, Option<i64>)> {
    let found: Option<(String, Option<i64>)> = c
        .prepare_cached("SELECT role, parent_id FROM messages WHERE id = ?1 AND chat_id = ?2")?
        .query_row(params![id, chat.0], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (role, parent) =
        found.ok_or_else(|| StoreError::NotFound(Missing::Message { chat, message: id }))?;
    let role = match role.as_str() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(StoreError::Corrupt(format!(
                "message {id} has an unknown role \"{other}\""
            )))
        }
    };
    Ok((role, parent))
}

/// The newest message at the end of `from`'s newest line of descendants.
fn newest_leaf_below(c: &Connection, chat: ChatId, from: i64) -> StoreResult<i64> {
    let mut stmt =
        c.prepare_cached("SELECT MAX(id) FROM messages WHERE chat_id = ?1 AND parent_id = ?2")?;
    let mut at = from;
    while let Some(child) = stmt.query_row(params![chat.0, at], |r| r.get::<_, Option<i64>>(0))? {
        if child <= at {
            break;
        }
        at = child;
    }
    Ok(at)
}

fn leaf(c: &Connection, chat: ChatId) -> StoreResult<Option<i64>> {
    c.prepare_cached("SELECT leaf_id FROM chats WHERE id = ?1")?
        .query_row([chat.0], |r| r.get::<_, Option<i64>>(0))
        .optional()?
        .ok_or_else(|| StoreError::NotFound(Missing::Chat { chat }))
}

/// Whether `id` is on the branch that ends at the chat's leaf.
fn on_current_branch(c: &Connection, chat: ChatId, id: i64) -> StoreResult<bool> {
    let mut at = leaf(c, chat)?;
    while let Some(m) = at {
        if m == id {
            return Ok(true);
        }
        if m < id {
            return Ok(false);
        }
        at = message_of(c, chat, m)?.1;
    }
    Ok(false)
}

impl Branches<'_> {
    /// The messages of the branch on screen, first to last, each with its versions.
    pub async fn chat_messages(&self, chat: ChatId) -> StoreResult<Vec<MessageRow>> {
        self.store
            .call(move |c| Ok(branch_page(c, chat, BranchEnd::Leaf, None)?.messages))
            .await
    }

    /// The last `limit` messages (all when `None`) of the branch ending at `end`, extended back
    /// to the start of their first turn; `end` must be a message of `chat`.
    pub async fn branch_page(
        &self,
        chat: ChatId,
        end: BranchEnd,
        limit: Option<usize>,
    ) -> StoreResult<BranchPage> {
        self.store
            .call(move |c| branch_page(c, chat, end, limit))
            .await
    }

    /// Shows the branch through `message`: unchanged when it is already on screen, otherwise
    /// the branch continues from `message` along its newest replies (F-56).
    pub async fn show_branch(&self, chat: ChatId, message: i64) -> StoreResult<()> {
        self.store
            .call(move |c| {
                message_of(c, chat, message)?;
                if on_current_branch(c, chat, message)? {
                    return Ok(());
                }
                let end = newest_leaf_below(c, chat, message)?;
                c.execute(
                    "UPDATE chats SET leaf_id = ?2 WHERE id = ?1",
                    params![chat.0, end],
                )?;
                Ok(())
            })
            .await
    }

    /// Where a new version of user message `message` goes (under the same parent), and the
    /// files attached to it.
    pub async fn edit_point(
        &self,
        chat: ChatId,
        message: i64,
    ) -> StoreResult<(Option<i64>, tollgate_protocol::UserPayload)> {
        self.store
            .call(move |c| match message_of(c, chat, message)? {
                (Role::User, parent) => {
                    let payload: Option<String> = c
                        .prepare_cached("SELECT payload FROM messages WHERE id = ?1")?
                        .query_row([message], |r| r.get(0))?;
                    let made_of: tollgate_protocol::UserPayload = payload
                        .and_then(|p| serde_json::from_str(&p).ok())
                        .unwrap_or_default();
                    Ok((parent, made_of))
                }
                (role, _) => Err(StoreError::Invalid(format!(
                    "message {message} is an {} message; only your own messages can be edited",
                    role.as_str()
                ))),
            })
            .await
    }

    /// The user message whose turn produced `message` (an answer, a tool result, or the user
    /// message itself): a regenerated answer becomes its new reply.
    pub async fn turn_start(&self, chat: ChatId, message: i64) -> StoreResult<i64> {
        self.store
            .call(move |c| {
                let mut at = Some(message);
                while let Some(id) = at {
                    let (role, parent) = message_of(c, chat, id)?;
                    if role == Role::User {
                        return Ok(id);
                    }
                    at = parent;
                }
                Err(StoreError::Invalid(format!(
                "message {message} answers no message of yours, so there is nothing to regenerate"
            )))
            })
            .await
    }

    /// Makes `message` the end of the branch on screen (the next message goes under it).
    pub async fn set_leaf(&self, chat: ChatId, message: i64) -> StoreResult<()> {
        self.store
            .call(move |c| {
                message_of(c, chat, message)?;
                c.execute(
                    "UPDATE chats SET leaf_id = ?2 WHERE id = ?1",
                    params![chat.0, message],
                )?;
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;
    use crate::{MessageStatus, Under};

    async fn say(store: &Store, chat: ChatId, under: Under, role: Role, text: &str) -> i64 {
        store
            .messages()
            .insert_message_under(
                chat,
                under,
                role,
                text.into(),
                MessageStatus::Complete,
                None,
            )
            .await
            .unwrap()
    }

    fn texts(rows: &[MessageRow]) -> Vec<&str> {
        rows.iter().map(|r| r.content.as_str()).collect()
    }

    #[tokio::test]
    async fn edits_and_regenerations_fork_and_either_branch_comes_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        let q1 = say(&store, chat, Under::Leaf, Role::User, "q1").await;
        let a1 = say(&store, chat, Under::Leaf, Role::Assistant, "a1").await;
        let q2 = say(&store, chat, Under::Leaf, Role::User, "q2").await;
        say(&store, chat, Under::Leaf, Role::Assistant, "a2").await;

        // Edit q2: a sibling under a1.
        assert_eq!(
            store.branches().edit_point(chat, q2).await.unwrap().0,
            Some(a1)
        );
        let q2b = say(&store, chat, Under::Parent(Some(a1)), Role::User, "q2b").await;
        say(&store, chat, Under::Leaf, Role::Assistant, "a2b").await;
        let rows = store.branches().chat_messages(chat).await.unwrap();
        assert_eq!(texts(&rows), ["q1", "a1", "q2b", "a2b"]);
        assert_eq!(rows[2].siblings, vec![q2, q2b]);
        assert!(rows[0].siblings.is_empty());

        // Regenerate a1: the turn starts at q1, the new answer is a1's sibling.
        assert_eq!(store.branches().turn_start(chat, a1).await.unwrap(), q1);
        store.branches().set_leaf(chat, q1).await.unwrap();
        let a1b = say(&store, chat, Under::Leaf, Role::Assistant, "a1b").await;
        let rows = store.branches().chat_messages(chat).await.unwrap();
        assert_eq!(texts(&rows), ["q1", "a1b"]);
        assert_eq!(rows[1].siblings, vec![a1, a1b]);

        // Back to the first answer: its newest continuation (the edited question) returns.
        store.branches().show_branch(chat, a1).await.unwrap();
        assert_eq!(
            texts(&store.branches().chat_messages(chat).await.unwrap()),
            ["q1", "a1", "q2b", "a2b"]
        );
        // The original question, then; and showing a message already on screen changes nothing.
        store.branches().show_branch(chat, q2).await.unwrap();
        assert_eq!(
            texts(&store.branches().chat_messages(chat).await.unwrap()),
            ["q1", "a1", "q2", "a2"]
        );
        store.branches().show_branch(chat, a1).await.unwrap();
        assert_eq!(
            texts(&store.branches().chat_messages(chat).await.unwrap()),
            ["q1", "a1", "q2", "a2"]
        );
        // Every version is kept.
        assert_eq!(
            store
                .messages()
                .all_chat_messages(chat)
                .await
                .unwrap()
                .len(),
            7
        );
    }

    #[tokio::test]
    async fn only_this_chats_messages_and_only_user_messages_are_edited() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        let other = store.create_chat(Default::default()).await.unwrap().id;
        let q = say(&store, chat, Under::Leaf, Role::User, "q").await;
        let a = say(&store, chat, Under::Leaf, Role::Assistant, "a").await;
        assert!(matches!(
            store.branches().edit_point(chat, a).await,
            Err(StoreError::Invalid(_))
        ));
        assert!(matches!(
            store.branches().edit_point(other, q).await,
            Err(StoreError::NotFound(_))
        ));
        assert!(matches!(
            store.branches().show_branch(other, a).await,
            Err(StoreError::NotFound(_))
        ));
        assert!(matches!(
            store.branches().set_leaf(other, q).await,
            Err(StoreError::NotFound(_))
        ));
        assert_eq!(store.branches().edit_point(chat, q).await.unwrap().0, None);
        assert_eq!(
            texts(&store.branches().chat_messages(other).await.unwrap()),
            Vec::<&str>::new()
        );
    }
}
