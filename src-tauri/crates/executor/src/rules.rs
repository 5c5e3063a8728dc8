//! Rules (F-04) as the engine keeps them: every rule, shared by all executors and written
//! through to the store ([`RuleBook`]). What a rule matches and which rule decides a call are
//! the `tollgate-rules` crate's, re-exported here.

pub use tollgate_rules::*;

use parking_lot::RwLock;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::{Rule, RuleAction, RuleScope};
use tollgate_store::{RuleRow, Store, StoreError, StoreResult};

/// A stored rule row as a [`Rule`] (an unknown action is an error, never a guess).
fn rule_from_row(row: RuleRow) -> StoreResult<Rule> {
    let action = RuleAction::parse(&row.action).ok_or_else(|| {
        StoreError::Invalid(format!(
            "rule {} has an unknown action \"{}\"",
            row.id, row.action
        ))
    })?;
    Ok(Rule {
        id: row.id,
        tool: row.tool,
        pattern: row.pattern,
        action,
        scope: row
            .chat
            .map_or(RuleScope::Global, |chat| RuleScope::Chat { chat }),
        created_at: row.created_at,
    })
}

/// Every rule, shared by all executors; changes are written through to the store.
pub struct RuleBook {
    store: Store,
    rules: RwLock<Vec<Rule>>,
}

impl RuleBook {
    /// Loads every rule from the store.
    pub async fn load(store: Store) -> StoreResult<Self> {
        let rows = store.gate_records().rules().await?;
        let rules = rows
            .into_iter()
            .map(rule_from_row)
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Self {
            store,
            rules: RwLock::new(rules),
        })
    }

    /// Adds a rule (persisted before it takes effect).
    pub async fn add(
        &self,
        tool: &str,
        pattern: Option<String>,
        action: RuleAction,
        scope: RuleScope,
    ) -> StoreResult<Rule> {
        let chat = match scope {
            RuleScope::Chat { chat } => Some(chat),
            RuleScope::Global => None,
        };
        // `None` is "every call", chosen explicitly; an empty pattern is never read as that.
        if let Some(p) = &pattern {
            if p.trim().is_empty() {
                return Err(StoreError::Invalid(PatternError::Empty.to_string()));
            }
        }
        let pattern = pattern.map(|p| p.trim().to_string());
        let row = self
            .store
            .gate_records()
            .insert_rule(tool.to_string(), pattern, action.as_str().to_string(), chat)
            .await?;
        let rule = rule_from_row(row)?;
        self.rules.write().push(rule.clone());
        Ok(rule)
    }

    /// Revokes a rule; returns whether it existed.
    pub async fn remove(&self, id: i64) -> StoreResult<bool> {
        let existed = self.store.gate_records().delete_rule(id).await?;
        self.rules.write().retain(|r| r.id != id);
        Ok(existed)
    }

    /// Drops the rules scoped to a deleted chat from memory (the database drops their rows with
    /// the chat). Without this they would keep deciding calls until the next start.
    pub fn forget_chat(&self, chat: ChatId) {
        self.rules
            .write()
            .retain(|r| r.scope != RuleScope::Chat { chat });
    }

    /// Every rule.
    pub fn list(&self) -> Vec<Rule> {
        self.rules.read().clone()
    }

    /// The rule that decides a call of `tool` in `chat` with `subject`, if any
    /// ([`tollgate_rules::winning_rule`]).
    pub fn evaluate(&self, chat: ChatId, tool: &str, subject: &RuleSubject) -> Option<Rule> {
        winning_rule(&self.rules.read(), chat, tool, subject)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(s: &str) -> RuleSubject {
        RuleSubject::Command(s.into())
    }

    #[tokio::test]
    async fn a_deny_seen_through_a_wrapper_beats_a_broader_allow() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        let book = RuleBook::load(store).await.unwrap();
        book.add(
            "shell",
            Some("timeout 60 *".into()),
            RuleAction::Allow,
            RuleScope::Global,
        )
        .await
        .unwrap();
        book.add(
            "shell",
            Some("rm *".into()),
            RuleAction::Deny,
            RuleScope::Global,
        )
        .await
        .unwrap();
        let eval = |s: &str| book.evaluate(chat, "shell", &cmd(s)).map(|r| r.action);
        assert_eq!(eval("timeout 60 make"), Some(RuleAction::Allow));
        assert_eq!(eval("timeout 60 rm -rf ~"), Some(RuleAction::Deny));
        assert_eq!(
            eval("timeout 60 bash -c 'rm -rf ~'"),
            Some(RuleAction::Deny)
        );
        // A more specific allow of the very words still wins over a broad deny (F-04).
        book.add(
            "shell",
            Some("rm -rf build".into()),
            RuleAction::Allow,
            RuleScope::Global,
        )
        .await
        .unwrap();
        assert_eq!(eval("rm -rf build"), Some(RuleAction::Allow));
        assert_eq!(eval("rm -rf ~"), Some(RuleAction::Deny));
    }

    #[tokio::test]
    async fn most_specific_wins_and_deny_beats_allow_at_a_tie() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        let other = store.create_chat(Default::default()).await.unwrap().id;
        let book = RuleBook::load(store.clone()).await.unwrap();
        book.add("shell", None, RuleAction::Deny, RuleScope::Global)
            .await
            .unwrap();
        book.add(
            "shell",
            Some("git *".into()),
            RuleAction::Allow,
            RuleScope::Global,
        )
        .await
        .unwrap();
        book.add(
            "shell",
            Some("git push *".into()),
            RuleAction::Ask,
            RuleScope::Chat { chat },
        )
        .await
        .unwrap();
        let eval = |c, s: &str| book.evaluate(c, "shell", &cmd(s)).map(|r| r.action);
        assert_eq!(eval(chat, "git log"), Some(RuleAction::Allow));
        assert_eq!(eval(chat, "git push origin"), Some(RuleAction::Ask));
        assert_eq!(
            eval(other, "git push origin"),
            Some(RuleAction::Allow),
            "chat rule stays in its chat"
        );
        assert_eq!(eval(chat, "ls"), Some(RuleAction::Deny));
        assert_eq!(book.evaluate(chat, "read_file", &cmd("x")), None);

        let tie = book
            .add(
                "shell",
                Some("git *".into()),
                RuleAction::Deny,
                RuleScope::Global,
            )
            .await
            .unwrap();
        assert_eq!(eval(chat, "git log"), Some(RuleAction::Deny));
        assert!(book.remove(tie.id).await.unwrap());
        assert_eq!(eval(chat, "git log"), Some(RuleAction::Allow));

        // Rules survive a reload.
        let again = RuleBook::load(store).await.unwrap();
        assert_eq!(again.list().len(), 3);
        assert_eq!(
            again
                .evaluate(chat, "shell", &cmd("git push x"))
                .map(|r| r.action),
            Some(RuleAction::Ask)
        );
    }
}
