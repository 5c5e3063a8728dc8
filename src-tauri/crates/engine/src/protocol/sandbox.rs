//! The sandbox as the chat, the approval card and the tool card speak of it (F-46): a chat's
//! level and network switch, what this system can enforce, and how one command ran.

use serde::{Deserialize, Serialize};

/// How far a chat's commands may reach.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SandboxLevel {
    /// Write in the workspace and a private temp folder; read the system, not secrets.
    #[default]
    WorkspaceOnly,
    /// Write nowhere but the private temp folder; read as above.
    ReadOnly,
    /// No restriction (a decision the user confirms).
    Off,
}

impl SandboxLevel {
    /// Whether this level confines commands at all.
    pub fn confines(self) -> bool {
        match self {
            Self::WorkspaceOnly | Self::ReadOnly => true,
            Self::Off => false,
        }
    }
}

/// A chat's sandbox: its level and whether commands may open network connections. New chats
/// start confined to their workspace with the network off.
#[derive(ts_rs::TS, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatSandbox {
    pub level: SandboxLevel,
    pub network: bool,
}

/// What this system can enforce, found once by trying (the kernel's Landlock support).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SandboxSupport {
    /// Files and network are confined.
    Full,
    /// Files are confined; the network switch cannot be enforced (Linux before 6.7).
    FilesOnly,
    /// No sandbox on this system; the reason says why.
    Unavailable { reason: String },
}

/// How a command runs (or ran), in one word for the cards.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SandboxMode {
    /// Confined as the chat's level and network switch say.
    Confined,
    /// Files confined; the network stays open because the system cannot close it.
    NetworkOpen,
    /// The chat's sandbox is off, or the user ran this call without it.
    Off,
    /// There is no sandbox on this system.
    Unavailable,
}

/// The sandbox of one command: shown on its approval card (what it will run under) and on its
/// tool card (what it ran under, and what was blocked).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxReport {
    pub level: SandboxLevel,
    pub network: bool,
    pub mode: SandboxMode,
    /// One line per kind of operation the sandbox blocked ("writing outside the workspace:
    /// /home/ann/outside"), as the model was told.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub blocked: Vec<String>,
}

impl SandboxReport {
    /// How a command of a chat with `sandbox` runs on a system with `support`.
    pub fn planned(sandbox: ChatSandbox, support: &SandboxSupport) -> Self {
        let mode = match (sandbox.level.confines(), support) {
            (false, _) => SandboxMode::Off,
            (true, SandboxSupport::Unavailable { .. }) => SandboxMode::Unavailable,
            (true, SandboxSupport::FilesOnly) if !sandbox.network => SandboxMode::NetworkOpen,
            (true, SandboxSupport::FilesOnly | SandboxSupport::Full) => SandboxMode::Confined,
        };
        Self {
            level: sandbox.level,
            network: sandbox.network,
            mode,
            blocked: Vec::new(),
        }
    }

    /// Whether the command is (was) confined at all.
    pub fn confined(&self) -> bool {
        match self.mode {
            SandboxMode::Confined | SandboxMode::NetworkOpen => true,
            SandboxMode::Off | SandboxMode::Unavailable => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_says_what_the_system_can_keep() {
        let chat = ChatSandbox::default();
        assert_eq!(chat.level, SandboxLevel::WorkspaceOnly);
        assert!(!chat.network);
        let mode = |sandbox, support| SandboxReport::planned(sandbox, &support).mode;
        assert_eq!(mode(chat, SandboxSupport::Full), SandboxMode::Confined);
        assert_eq!(
            mode(chat, SandboxSupport::FilesOnly),
            SandboxMode::NetworkOpen
        );
        let online = ChatSandbox {
            network: true,
            ..chat
        };
        assert_eq!(
            mode(online, SandboxSupport::FilesOnly),
            SandboxMode::Confined
        );
        let missing = SandboxSupport::Unavailable {
            reason: "no Landlock".into(),
        };
        assert_eq!(mode(chat, missing.clone()), SandboxMode::Unavailable);
        let off = ChatSandbox {
            level: SandboxLevel::Off,
            network: false,
        };
        assert_eq!(mode(off, missing), SandboxMode::Off);
        assert!(!SandboxReport::planned(off, &SandboxSupport::Full).confined());
    }
}
