//! The per-chat variable store (F-16, F-40).
//!
//! Every tool result and its arguments are kept in full as variables so the model can see a short
//! version and read the rest on demand (`ReadVar`) or pass it on by reference (`$VAR_REF{{…}}`).
//! The store is bounded: least recently used variables are evicted past a count or size limit.
//! Guide variables (`Guide/<group>/<name>`) come from the tool groups, are never evicted, never
//! persisted (they are rebuilt from the groups at open) and cannot be overwritten or removed.

pub mod reference;
pub mod truncate;

use parking_lot::Mutex;
use reference::VarLookup;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use thiserror::Error;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::Source;
use tollgate_store::{Store, StoreResult};

/// The prefix of guide variables (the full text of a tool group's guides).
pub const GUIDE_PREFIX: &str = "Guide/";

/// Where a variable came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VarKind {
    /// A guide of a tool group: its full text, listed by name in the system prompt.
    Guide,
    /// The full formatted result of a tool call.
    ToolResult,
    /// The resolved arguments of a tool call.
    ToolArgs,
    /// Written by the model with `WriteVar`.
    User,
}

impl VarKind {
    /// The stored string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Guide => "guide",
            Self::ToolResult => "tool_result",
            Self::ToolArgs => "tool_args",
            Self::User => "user",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "guide" => Self::Guide,
            "tool_result" => Self::ToolResult,
            "tool_args" => Self::ToolArgs,
            _ => Self::User,
        }
    }
}

/// Why a variable operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VarError {
    #[error("\"{0}\" is a guide variable and cannot be changed or removed")]
    Protected(String),
    #[error("variable names must be non-empty and contain no spaces, braces or colons: \"{0}\"")]
    BadName(String),
    #[error(
        "\"{name}\" has {chars} chars, more than the variable store holds ({max_bytes} bytes)"
    )]
    TooLarge {
        name: String,
        chars: usize,
        max_bytes: usize,
    },
}

/// A variable's description for `ListVars` and the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VarInfo {
    pub name: String,
    pub kind: VarKind,
    pub chars: usize,
}

/// Bounds of one chat's store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarLimits {
    pub max_count: usize,
    pub max_bytes: usize,
}

struct Entry {
    value: Arc<str>,
    kind: VarKind,
    /// Where the value came from (F-80).
    sources: Arc<[Source]>,
    chars: usize,
    tick: u64,
}

#[derive(Default)]
struct Inner {
    map: HashMap<String, Entry>,
    /// LRU order of evictable variables: tick → name.
    order: BTreeMap<u64, String>,
    tick: u64,
    bytes: usize,
    count: usize,
}

/// One chat's variables.
pub struct VarStore {
    chat: ChatId,
    store: Option<Store>,
    limits: VarLimits,
    inner: Mutex<Inner>,
}

/// Whether `name` can be used as a variable name (so that `$VAR_REF{{name}}` parses).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '{' | '}' | ':'))
}

impl VarStore {
    /// An empty store that is not persisted (tests, previews).
    pub fn in_memory(chat: ChatId, limits: VarLimits) -> Self {
        Self {
            chat,
            store: None,
            limits,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// Loads a chat's variables from the database.
    pub async fn load(chat: ChatId, store: Store, limits: VarLimits) -> StoreResult<Self> {
        let rows = store.variables().chat_variables(chat).await?;
        let vars = Self {
            chat,
            store: Some(store),
            limits,
            inner: Mutex::new(Inner::default()),
        };
        {
            let mut inner = vars.inner.lock();
            for row in rows {
                let kind = VarKind::parse(&row.kind);
                let tick = u64::try_from(row.last_used).unwrap_or(0);
                inner.tick = inner.tick.max(tick);
                let sources = Arc::from(row.sources);
                vars.insert_locked(&mut inner, row.name, row.value, kind, sources, Some(tick));
            }
        }
        Ok(vars)
    }

    /// Sets a variable, evicting least recently used ones past the limits. `User` and tool
    /// variables may not replace a guide.
    pub fn set(&self, name: &str, value: Arc<str>, kind: VarKind) -> Result<(), VarError> {
        self.set_from(name, value, kind, Arc::from([]))
    }

    /// [`Self::set`] for content that came from `sources` (F-80): a tool result, or what the
    /// model wrote after reading them.
    pub fn set_from(
        &self,
        name: &str,
        value: Arc<str>,
        kind: VarKind,
        sources: Arc<[Source]>,
    ) -> Result<(), VarError> {
        if !valid_name(name) {
            return Err(VarError::BadName(name.to_string()));
        }
        if kind != VarKind::Guide && value.len() > self.limits.max_bytes {
            return Err(VarError::TooLarge {
                name: name.to_string(),
                chars: value.chars().count(),
                max_bytes: self.limits.max_bytes,
            });
        }
        let mut inner = self.inner.lock();
        if kind != VarKind::Guide
            && inner
                .map
                .get(name)
                .is_some_and(|e| e.kind == VarKind::Guide)
        {
            return Err(VarError::Protected(name.to_string()));
        }
        let tick = self.insert_locked(
            &mut inner,
            name.to_string(),
            Arc::clone(&value),
            kind,
            Arc::clone(&sources),
            None,
        );
        let evicted = self.evict_locked(&mut inner, name);
        drop(inner);
        if let Some(store) = &self.store {
            if kind != VarKind::Guide {
                store.variables().put_variable(
                    self.chat,
                    name.to_string(),
                    kind.as_str(),
                    value,
                    tick_ms(tick),
                    &sources,
                );
            }
            if !evicted.is_empty() {
                store.variables().delete_variables(self.chat, evicted);
            }
        }
        Ok(())
    }

    fn insert_locked(
        &self,
        inner: &mut Inner,
        name: String,
        value: Arc<str>,
        kind: VarKind,
        sources: Arc<[Source]>,
        tick: Option<u64>,
    ) -> u64 {
        let tick = tick.unwrap_or_else(|| {
            inner.tick += 1;
            inner.tick
        });
        Self::detach_locked(inner, &name);
        let mut tick = tick;
        if kind != VarKind::Guide {
            // Ticks loaded from the database may collide; keep the order map injective.
            while inner.order.contains_key(&tick) {
                tick += 1;
            }
            inner.tick = inner.tick.max(tick);
            inner.order.insert(tick, name.clone());
            inner.bytes += value.len();
            inner.count += 1;
        }
        let chars = value.chars().count();
        inner.map.insert(
            name,
            Entry {
                value,
                kind,
                sources,
                chars,
                tick,
            },
        );
        tick
    }

    /// Takes `name` out of the map and, unless it is a guide, out of the LRU accounting.
    fn detach_locked(inner: &mut Inner, name: &str) -> Option<Entry> {
        let old = inner.map.remove(name)?;
        if old.kind != VarKind::Guide {
            inner.order.remove(&old.tick);
            inner.bytes -= old.value.len();
            inner.count -= 1;
        }
        Some(old)
    }

    fn evict_locked(&self, inner: &mut Inner, keep: &str) -> Vec<String> {
        let mut evicted = Vec::new();
        while inner.count > self.limits.max_count || inner.bytes > self.limits.max_bytes {
            let victim = inner
                .order
                .iter()
                .find(|(_, n)| n.as_str() != keep)
                .map(|(t, n)| (*t, n.clone()));
            let Some((tick, name)) = victim else { break };
            debug_assert_eq!(inner.map.get(&name).map(|e| e.tick), Some(tick));
            Self::detach_locked(inner, &name);
            evicted.push(name);
        }
        evicted
    }

    /// The value of `name`, marking it as recently used.
    pub fn get(&self, name: &str) -> Option<Arc<str>> {
        let mut inner = self.inner.lock();
        inner.tick += 1;
        let now = inner.tick;
        let inner = &mut *inner;
        let entry = inner.map.get_mut(name)?;
        let value = Arc::clone(&entry.value);
        if entry.kind != VarKind::Guide {
            inner.order.remove(&entry.tick);
            entry.tick = now;
            inner.order.insert(now, name.to_string());
            if let Some(store) = &self.store {
                store
                    .variables()
                    .touch_variable(self.chat, name.to_string(), tick_ms(now));
            }
        }
        Some(value)
    }

    /// Where the value of `name` came from (F-80): empty for the user's own content.
    pub fn sources(&self, name: &str) -> Option<Arc<[Source]>> {
        self.inner
            .lock()
            .map
            .get(name)
            .map(|e| Arc::clone(&e.sources))
    }

    /// The value of `name` without changing its LRU position (for the UI).
    pub fn peek(&self, name: &str) -> Option<Arc<str>> {
        self.inner
            .lock()
            .map
            .get(name)
            .map(|e| Arc::clone(&e.value))
    }

    /// Removes variables. Each name gets its own outcome: removed, absent, or protected.
    pub fn remove(&self, names: &[String]) -> Vec<(String, Result<bool, VarError>)> {
        let mut inner = self.inner.lock();
        let mut removed = Vec::new();
        let mut outcomes = Vec::new();
        for name in names {
            let outcome = match inner.map.get(name).map(|e| e.kind) {
                None => Ok(false),
                Some(VarKind::Guide) => Err(VarError::Protected(name.clone())),
                Some(_) => {
                    Self::detach_locked(&mut inner, name);
                    removed.push(name.clone());
                    Ok(true)
                }
            };
            outcomes.push((name.clone(), outcome));
        }
        drop(inner);
        if let (Some(store), false) = (&self.store, removed.is_empty()) {
            store.variables().delete_variables(self.chat, removed);
        }
        outcomes
    }

    /// Every variable, sorted by name.
    pub fn list(&self) -> Vec<VarInfo> {
        let inner = self.inner.lock();
        let mut out: Vec<VarInfo> = inner
            .map
            .iter()
            .map(|(name, e)| VarInfo {
                name: name.clone(),
                kind: e.kind,
                chars: e.chars,
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// How many evictable variables and bytes the store holds.
    pub fn usage(&self) -> (usize, usize) {
        let inner = self.inner.lock();
        (inner.count, inner.bytes)
    }
}

/// A lookup that notes which variables it gave out, so the gate knows what a `$VAR_REF`
/// expansion brought into a call's arguments (F-84).
pub struct NotingLookup<'a> {
    vars: &'a VarStore,
    used: Mutex<Vec<String>>,
}

impl<'a> NotingLookup<'a> {
    /// Looks up in `vars`, noting every name found.
    pub fn new(vars: &'a VarStore) -> Self {
        Self {
            vars,
            used: Mutex::new(Vec::new()),
        }
    }

    /// The variables given out that came from somewhere: their sources and values.
    pub fn expanded(self) -> Vec<(Arc<[Source]>, Arc<str>)> {
        let mut used = self.used.into_inner();
        used.sort();
        used.dedup();
        used.iter()
            .filter_map(|name| {
                let sources = self.vars.sources(name)?;
                let value = self.vars.peek(name)?;
                (!sources.is_empty()).then_some((sources, value))
            })
            .collect()
    }
}

impl VarLookup for NotingLookup<'_> {
    fn lookup(&self, name: &str) -> Option<Arc<str>> {
        let value = self.vars.lookup(name)?;
        self.used.lock().push(name.to_string());
        Some(value)
    }

    fn all_names(&self) -> Vec<String> {
        self.vars.all_names()
    }
}

/// Ticks are a logical clock; they are stored in `last_used` as-is (only their order matters).
fn tick_ms(tick: u64) -> i64 {
    i64::try_from(tick).unwrap_or(i64::MAX)
}

impl VarLookup for VarStore {
    fn lookup(&self, name: &str) -> Option<Arc<str>> {
        self.get(name)
    }

    fn all_names(&self) -> Vec<String> {
        self.inner.lock().map.keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_count: usize, max_bytes: usize) -> VarLimits {
        VarLimits {
            max_count,
            max_bytes,
        }
    }

    #[test]
    fn lru_evicts_the_least_recently_used() {
        let v = VarStore::in_memory(ChatId(1), limits(3, 1 << 20));
        for n in ["a", "b", "c"] {
            v.set(n, Arc::from(n), VarKind::User).unwrap();
        }
        assert!(v.get("a").is_some()); // a is now the most recent
        v.set("d", Arc::from("d"), VarKind::ToolResult).unwrap();
        let names: Vec<String> = v.list().into_iter().map(|i| i.name).collect();
        assert_eq!(names, ["a", "c", "d"]);
    }

    #[test]
    fn byte_bound_evicts_and_guides_are_exempt() {
        let v = VarStore::in_memory(ChatId(1), limits(100, 10));
        v.set(
            "Guide/g/r",
            Arc::from("a long guide text well over ten bytes"),
            VarKind::Guide,
        )
        .unwrap();
        v.set("x", Arc::from("123456"), VarKind::User).unwrap();
        v.set("y", Arc::from("123456"), VarKind::User).unwrap();
        assert!(v.peek("x").is_none());
        assert!(v.peek("y").is_some());
        assert!(v.peek("Guide/g/r").is_some());
        assert_eq!(v.usage(), (1, 6));
        assert!(matches!(
            v.set("z", Arc::from("12345678901"), VarKind::User),
            Err(VarError::TooLarge { .. })
        ));
    }

    #[test]
    fn guides_cannot_be_overwritten_or_removed() {
        let v = VarStore::in_memory(ChatId(1), limits(10, 1000));
        v.set("Guide/g/r", Arc::from("rule"), VarKind::Guide)
            .unwrap();
        assert_eq!(
            v.set("Guide/g/r", Arc::from("x"), VarKind::User),
            Err(VarError::Protected("Guide/g/r".into()))
        );
        v.set("u", Arc::from("x"), VarKind::User).unwrap();
        let out = v.remove(&["Guide/g/r".into(), "u".into(), "nope".into()]);
        assert!(matches!(out[0].1, Err(VarError::Protected(_))));
        assert_eq!(out[1].1, Ok(true));
        assert_eq!(out[2].1, Ok(false));
        assert_eq!(v.peek("Guide/g/r").as_deref(), Some("rule"));
    }

    #[test]
    fn names_that_would_break_references_are_refused() {
        let v = VarStore::in_memory(ChatId(1), limits(10, 1000));
        for bad in ["", "a b", "a:b", "a}}", "{x"] {
            assert!(
                matches!(
                    v.set(bad, Arc::from("x"), VarKind::User),
                    Err(VarError::BadName(_))
                ),
                "{bad}"
            );
        }
    }

    #[tokio::test]
    async fn variables_persist_with_their_lru_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        {
            let v = VarStore::load(chat, store.clone(), limits(3, 1 << 20))
                .await
                .unwrap();
            v.set("a", Arc::from("A"), VarKind::User).unwrap();
            v.set("b", Arc::from("B"), VarKind::ToolResult).unwrap();
            v.set("c", Arc::from("C"), VarKind::ToolArgs).unwrap();
            v.get("a");
            v.set("gone", Arc::from("G"), VarKind::User).unwrap();
            v.remove(&["gone".into()]);
            v.set("Guide/g/r", Arc::from("R"), VarKind::Guide).unwrap();
            store.flush().await.unwrap();
        }
        let v = VarStore::load(chat, store.clone(), limits(3, 1 << 20))
            .await
            .unwrap();
        let names: Vec<String> = v.list().into_iter().map(|i| i.name).collect();
        assert_eq!(
            names,
            ["a", "c"],
            "b was evicted, gone removed, guides not persisted"
        );
        assert_eq!(v.peek("c").as_deref(), Some("C"));
        v.set("d", Arc::from("D"), VarKind::User).unwrap();
        v.set("e", Arc::from("E"), VarKind::User).unwrap();
        let names: Vec<String> = v.list().into_iter().map(|i| i.name).collect();
        assert_eq!(names, ["a", "d", "e"], "c was used less recently than a");
    }
}
