//! The vocabulary of the provenance-aware gate (F-80…F-85, SPEC §10): where content came from,
//! what a call may do, what the user trusts, and what a card, the chat header and the autonomy
//! view say about it. The logic lives in the engine's `provenance`; these are the types that cross
//! into the store and the UI.

use crate::policy::DecidedBy;
use serde::{Deserialize, Serialize};

/// Where a piece of content that reached a chat came from (F-80). What the user typed and what
/// Tollgate computes itself (a time, a sum) have no source: they are the user's own.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Source {
    /// A web page a tool fetched.
    Web { url: String, host: String },
    /// A file a tool read in the chat's workspace `folder` (`path` inside it, or a pattern).
    File { folder: String, path: String },
    /// What a command printed, run in the workspace `folder`.
    Command { folder: String },
    /// A result of an MCP server's tool (`tool`: its name in Tollgate, `server__name`).
    McpTool { server: String, tool: String },
    /// A resource of an MCP server, attached to a message.
    McpResource { server: String, uri: String },
    /// A prompt of an MCP server, filled in and sent.
    McpPrompt { server: String, name: String },
    /// A file the user attached to a message.
    Attachment { name: String },
    /// A chat imported from a file (its messages were written elsewhere).
    Import { title: String },
    /// What an MCP server says to the model itself — its instructions, its tools' titles and
    /// descriptions — while the user has not confirmed it in the server's first-sight review
    /// (SPEC §12).
    McpServer { server: String },
    /// What a command printed when it could reach the network (SPEC §12): whatever it fetched
    /// is in its output. `hosts`: the hosts it could reach ("only these hosts"); empty, any.
    Network { folder: String, hosts: Vec<String> },
    /// What an MCP server's view (F-96) put forward: a message it wrote for the chat, or
    /// the arguments of a call it made. The page chose them, not the user.
    McpView { server: String },
}

impl Source {
    /// What the user trusts or endorses to trust this source (F-82): its host, folder, server,
    /// attachment or import.
    pub fn key(&self) -> TrustKey {
        match self {
            Self::Web { host, .. } => TrustKey::Host { host: host.clone() },
            Self::File { folder, .. } | Self::Command { folder } => TrustKey::Folder {
                folder: folder.clone(),
            },
            Self::McpTool { server, .. }
            | Self::McpResource { server, .. }
            | Self::McpPrompt { server, .. }
            | Self::McpServer { server }
            | Self::McpView { server } => TrustKey::Server {
                server: server.clone(),
            },
            Self::Attachment { name } => TrustKey::Attachment { name: name.clone() },
            Self::Import { title } => TrustKey::Import {
                title: title.clone(),
            },
            Self::Network { hosts, .. } => match hosts.as_slice() {
                [host] => TrustKey::Host { host: host.clone() },
                _ => TrustKey::Network {},
            },
        }
    }
}

/// Something the user can trust everywhere (settings) or endorse for one chat (F-82).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TrustKey {
    /// A web host and its subdomains (`docs.rs` covers `www.docs.rs`).
    Host { host: String },
    /// A folder and everything under it.
    Folder { folder: String },
    /// Every tool, resource and prompt of an MCP server.
    Server { server: String },
    /// One tool (by its name in Tollgate).
    Tool { tool: String },
    /// An attached file, by name (endorsed per chat only).
    Attachment { name: String },
    /// An imported chat, by title (endorsed per chat only).
    Import { title: String },
    /// What commands fetched from the network (SPEC §12).
    Network {},
}

/// What a call of a tool may do (F-81). A tool with none of the first four is read-only.
/// Built-in tools declare theirs, MCP tools derive them from their annotations, and the user may
/// override them per tool.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolEffects {
    /// Changes files or other state.
    pub writes: bool,
    /// Runs programs.
    pub executes: bool,
    /// Sends data out of the machine (a request, a message, an upload).
    pub sends_out: bool,
    /// Cannot be undone (a payment, a deletion, a sent email).
    pub irreversible: bool,
    /// Its results hold the user's private data (files, mail, secrets).
    pub reads_private: bool,
}

impl ToolEffects {
    /// Read-only, reading nothing private.
    pub const NONE: Self = Self {
        writes: false,
        executes: false,
        sends_out: false,
        irreversible: false,
        reads_private: false,
    };

    /// Everything a call can do but read private data: how the gate reads a tool whose
    /// effects are only a server's claim (SPEC §12).
    pub const ANY: Self = Self {
        writes: true,
        executes: true,
        sends_out: true,
        irreversible: true,
        reads_private: false,
    };

    /// What either may do: the cautious reading of a tool that was one and is now the other.
    pub fn union(self, other: Self) -> Self {
        Self {
            writes: self.writes || other.writes,
            executes: self.executes || other.executes,
            sends_out: self.sends_out || other.sends_out,
            irreversible: self.irreversible || other.irreversible,
            reads_private: self.reads_private || other.reads_private,
        }
    }

    /// Whether a call may change or send something: what the gate guards (F-83).
    pub fn consequential(self) -> bool {
        self.writes || self.executes || self.sends_out || self.irreversible
    }

    /// Whether sending out is the only consequence (a fetch): such a call can only leak, so it
    /// is guarded when there is something private to leak.
    pub fn only_sends_out(self) -> bool {
        self.sends_out && !self.writes && !self.executes && !self.irreversible
    }
}

/// The user's trust settings for the gate (F-82, F-83), app-wide.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GuardSettings {
    /// The provenance gate is on (the default). Turning it off is a warned choice.
    pub enabled: bool,
    /// Hosts, folders, servers and tools whose content the user trusts in every chat.
    pub trusted: Vec<TrustKey>,
    /// Folders whose files are untrusted when they are a chat's workspace (a repository just
    /// cloned, a downloads folder).
    pub untrusted_folders: Vec<String>,
}

impl Default for GuardSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            trusted: Vec::new(),
            untrusted_folders: Vec::new(),
        }
    }
}

/// Which side a highlighted span of the arguments is on.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SpanKind {
    /// Text that came from untrusted content (copied, or a `$VAR_REF` expansion).
    Untrusted,
    /// Private data on its way out.
    Private,
}

/// A stretch of one string of the arguments that came from somewhere (F-84).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArgSpan {
    /// The JSON pointer of the string in the arguments (`/command`, `/headers/0`).
    pub pointer: String,
    /// Where in that string, in characters (Unicode scalar values), end exclusive.
    pub start: u32,
    pub end: u32,
    pub kind: SpanKind,
    /// Where the text came from.
    pub source: Source,
}

/// Why an approval card is the gate's doing, and what it shows (F-83): the untrusted content
/// the model had read, the spans of the arguments that came from it or carry private data out,
/// what would have allowed the call otherwise, and what the user can endorse to lift it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardNote {
    /// What the call may do.
    pub effects: ToolEffects,
    /// The untrusted sources in the model's context when it made the call, most recent first
    /// (at most [`GuardNote::MAX_SOURCES`]).
    pub exposed_to: Vec<Source>,
    /// How many untrusted sources there are in all.
    pub exposed_count: u32,
    /// Private content the model had read (files, private tools), most recent first.
    pub private_read: Vec<Source>,
    /// Highlighted stretches of the arguments.
    pub spans: Vec<ArgSpan>,
    /// What would have allowed the call without a card had the chat not been exposed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub would_allow: Option<DecidedBy>,
    /// The arguments that name where the call goes or whom it acts on (a URL, a recipient, an
    /// account), as JSON pointers, whose value was copied from untrusted content (SPEC §12):
    /// the content chose the destination.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub chosen_targets: Vec<String>,
    /// What the call may do is only the server's claim (its annotations), not yet confirmed by
    /// the user (SPEC §12): the gate judges it as a call that may change or send anything.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(optional, as = "Option<bool>")]
    pub unconfirmed: bool,
    /// What the user can endorse for this chat to lift the exposure.
    pub endorsable: Vec<TrustKey>,
}

impl GuardNote {
    /// At most this many sources are listed on a card or in the header.
    pub const MAX_SOURCES: usize = 8;
}

/// How a call went through the gate (F-85), for the record and the autonomy figures.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GuardMark {
    /// The gate had nothing to say (not consequential, or not exposed).
    #[default]
    Quiet,
    /// Exposure made the call ask where a policy, rule or record would have let it run.
    Escalated,
    /// The call asked for its own reasons, with the gate's note on the card.
    Noted,
    /// The user endorsed a source on the card and allowed the call.
    Endorsed,
}

impl GuardMark {
    /// The stored string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Quiet => "quiet",
            Self::Escalated => "escalated",
            Self::Noted => "noted",
            Self::Endorsed => "endorsed",
        }
    }

    /// Reads [`Self::as_str`]; anything else (rows older than the gate) is quiet.
    pub fn parse(s: &str) -> Self {
        match s {
            "escalated" => Self::Escalated,
            "noted" => Self::Noted,
            "endorsed" => Self::Endorsed,
            _ => Self::Quiet,
        }
    }
}

/// A way data can leave the chat (the third leg of the "lethal trifecta", F-82).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum WayOut {
    /// An enabled tool that sends data out.
    Tool { tool: String },
    /// Commands may open network connections (the sandbox's network switch, or no sandbox).
    CommandNetwork,
}

/// A chat's exposure as its header shows it (F-82): the untrusted content in the branch the
/// model sees, the private data read, and the ways out.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExposureView {
    /// The gate is on.
    pub guard: bool,
    /// Untrusted sources in the branch, most recent first (at most [`GuardNote::MAX_SOURCES`]).
    pub untrusted: Vec<Source>,
    pub untrusted_count: u32,
    /// What the user endorsed for this chat (each can be taken back).
    pub endorsed: Vec<TrustKey>,
    /// Private content in the branch, most recent first (at most [`GuardNote::MAX_SOURCES`]).
    pub private: Vec<Source>,
    pub private_count: u32,
    /// The ways out enabled in this chat.
    pub ways_out: Vec<WayOut>,
    /// The user turned the ways out off for this chat.
    pub ways_out_off: bool,
}

/// A file a tool wrote from untrusted content (SPEC §12), as Settings → Gate lists it: reading
/// it brings `sources` back into any chat until the user trusts it or its content changes by
/// other means.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WrittenFile {
    /// The workspace folder the file is in.
    pub workspace: String,
    /// The file's path inside the workspace.
    pub path: String,
    /// The untrusted sources in context when it was written.
    pub sources: Vec<Source>,
    /// When it was written (ms since the epoch).
    pub written_at: i64,
}

/// How often the gate let consequential calls run without a person, and why (F-85).
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Autonomy {
    /// Consequential calls that reached the permission stage.
    pub consequential: u64,
    /// … of which ran without asking: by the tool's policy, a rule, an ask-once record.
    pub by_policy: u64,
    pub by_rule: u64,
    pub by_record: u64,
    /// … by the task's plan the user approved on its card (F-98).
    pub by_plan: u64,
    /// … of which asked because the chat was exposed (would have run otherwise).
    pub escalated: u64,
    /// … of which the user allowed by endorsing a source.
    pub endorsed: u64,
    /// … of which asked (for any reason) and the user answered.
    pub asked: u64,
}

impl Autonomy {
    /// The share of consequential calls that ran without a person, 0–1 (1 with none).
    pub fn ratio(&self) -> f64 {
        if self.consequential == 0 {
            return 1.0;
        }
        let silent = self.by_policy + self.by_rule + self.by_record + self.by_plan;
        silent as f64 / self.consequential as f64
    }
}
