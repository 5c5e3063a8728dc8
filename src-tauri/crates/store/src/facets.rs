//! The tables of the database as rooms: each a view of the [`Store`] that owns one table's (or
//! one family of tables') reads and writes, so a caller names what it touches
//! (`store.calls().chat_calls(chat)`) and the store itself keeps the connection, chats and
//! settings (docs/ARCHITECTURE.md, "Rooms and their doors").

use super::Store;

/// A chat's messages: written, streamed into, finished, read whole.
pub struct Messages<'a> {
    pub(crate) store: &'a Store,
}

/// The branches of a chat: the path to a leaf, its pages, where an edit or a regenerate starts.
pub struct Branches<'a> {
    pub(crate) store: &'a Store,
}

/// The record of every tool call: started, finished, read back, and the figures of a chat's autonomy.
pub struct Calls<'a> {
    pub(crate) store: &'a Store,
}

/// Which files and lines a model's tools wrote, and from what content.
pub struct Taints<'a> {
    pub(crate) store: &'a Store,
}

/// The gate's standing decisions: ask-once records and rules.
pub struct GateRecords<'a> {
    pub(crate) store: &'a Store,
}

/// What MCP views a call showed, and the view resources kept for them.
pub struct ViewRows<'a> {
    pub(crate) store: &'a Store,
}

/// A chat's variables.
pub struct Variables<'a> {
    pub(crate) store: &'a Store,
}

/// The full-text search over chats, and its upkeep.
pub struct SearchIndex<'a> {
    pub(crate) store: &'a Store,
}

/// Saved chat presets.
pub struct PresetRows<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// A chat's messages: written, streamed into, finished, read whole.
    pub fn messages(&self) -> Messages<'_> {
        Messages { store: self }
    }

    /// The branches of a chat: the path to a leaf, its pages, where an edit or a regenerate starts.
    pub fn branches(&self) -> Branches<'_> {
        Branches { store: self }
    }

    /// The record of every tool call: started, finished, read back, and the figures of a chat's autonomy.
    pub fn calls(&self) -> Calls<'_> {
        Calls { store: self }
    }

    /// Which files and lines a model's tools wrote, and from what content.
    pub fn taint(&self) -> Taints<'_> {
        Taints { store: self }
    }

    /// The gate's standing decisions: ask-once records and rules.
    pub fn gate_records(&self) -> GateRecords<'_> {
        GateRecords { store: self }
    }

    /// What MCP views a call showed, and the view resources kept for them.
    pub fn views(&self) -> ViewRows<'_> {
        ViewRows { store: self }
    }

    /// A chat's variables.
    pub fn variables(&self) -> Variables<'_> {
        Variables { store: self }
    }

    /// The full-text search over chats, and its upkeep.
    pub fn search_index(&self) -> SearchIndex<'_> {
        SearchIndex { store: self }
    }

    /// Saved chat presets.
    pub fn preset_rows(&self) -> PresetRows<'_> {
        PresetRows { store: self }
    }
}
