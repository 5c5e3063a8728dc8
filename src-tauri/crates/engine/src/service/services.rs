//! The app's capability services: each a view of [`Tollgate`] that owns one concern's
//! operations, so a command reaches the service of its area (`app/src/commands/<area>.rs`) and
//! the app itself keeps only chats, turns and what waits on the user (docs/ARCHITECTURE.md,
//! "Rooms and their doors").

use super::Tollgate;

/// The MCP servers: their settings and secrets, sign-ins, first-sight and change reviews,
/// resources and prompts (F-45, SPEC §11, §12).
pub struct McpServers<'a> {
    pub(super) app: &'a Tollgate,
}

/// The views MCP servers ship with their tools, opened, answered and paused (MCP Apps, F-96).
pub struct McpViews<'a> {
    pub(super) app: &'a Tollgate,
}

/// The model providers: their settings, keys, local servers and models (F-30, F-34, F-54).
pub struct ModelProviders<'a> {
    pub(super) app: &'a Tollgate,
}

/// The gate's settings: tool groups app-wide and per chat, rules and ask-once records, what a
/// chat was exposed to and what it trusts, rule coverage and the sandbox (F-03, F-04, F-46).
pub struct Gate<'a> {
    pub(super) app: &'a Tollgate,
}

/// Chat presets: saved starting points for new chats (F-58).
pub struct Presets<'a> {
    pub(super) app: &'a Tollgate,
}

/// A chat's history, files in and out (import, export), its model, and its deletion (F-55,
/// F-57, F-71).
pub struct Chats<'a> {
    pub(super) app: &'a Tollgate,
}

/// The user's settings, general and of the tools (F-53, F-54).
pub struct Preferences<'a> {
    pub(super) app: &'a Tollgate,
}

/// What waits on the user: approvals, the model's questions and the MCP servers' questions,
/// with one answer and one pending surface for each chat (F-07, SPEC §11).
pub struct UserAsks<'a> {
    pub(super) app: &'a Tollgate,
}

impl<'a> McpServers<'a> {
    /// The manager of the running servers: their states, connections and lists (F-45).
    pub fn manager(&self) -> &'a std::sync::Arc<crate::mcp::McpManager> {
        &self.app.mcp
    }
}

impl<'a> Gate<'a> {
    /// The user's rules, shared by every chat's executor (F-04).
    pub fn rules(&self) -> &'a std::sync::Arc<crate::rules::RuleBook> {
        &self.app.rules
    }
}

impl<'a> ModelProviders<'a> {
    /// The providers' settings and keys.
    pub fn providers(&self) -> &'a crate::providers::config::Providers {
        &self.app.providers
    }
}

impl UserAsks<'_> {
    /// Tells `watcher` of every request that starts waiting on the user, in any chat (F-59:
    /// notifications and the window's attention).
    pub fn watch_attention(&self, watcher: crate::router::AttentionWatcher) {
        self.app.router.watch_attention(watcher);
    }
}

impl Tollgate {
    /// The chats' service.
    pub fn chats(&self) -> Chats<'_> {
        Chats { app: self }
    }

    /// The settings' service.
    pub fn preferences(&self) -> Preferences<'_> {
        Preferences { app: self }
    }

    /// What waits on the user.
    pub fn asks(&self) -> UserAsks<'_> {
        UserAsks { app: self }
    }

    /// The MCP servers' service.
    pub fn mcp_servers(&self) -> McpServers<'_> {
        McpServers { app: self }
    }

    /// The MCP views' service.
    pub fn mcp_views(&self) -> McpViews<'_> {
        McpViews { app: self }
    }

    /// The model providers' service.
    pub fn model_providers(&self) -> ModelProviders<'_> {
        ModelProviders { app: self }
    }

    /// The gate's settings service.
    pub fn gate(&self) -> Gate<'_> {
        Gate { app: self }
    }

    /// The presets' service.
    pub fn presets(&self) -> Presets<'_> {
        Presets { app: self }
    }
}
