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
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatSandbox {
    pub level: SandboxLevel,
    pub network: bool,
    /// With the network off, the hosts commands may still reach through Tollgate's proxy
    /// ("only these hosts": a package registry, say); empty, none (F-46).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub hosts: Vec<String>,
    /// Commands may change the workspace's git hooks and configuration (which run code outside
    /// the sandbox later); off by default (F-46).
    #[ts(optional, as = "Option<bool>")]
    pub git_writable: bool,
    /// Variables the user adds to the commands' clean environment (never a secret, nor the
    /// address of a service outside: the service refuses those names).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[ts(optional, as = "Option<std::collections::BTreeMap<String, String>>")]
    pub env: std::collections::BTreeMap<String, String>,
}

impl ChatSandbox {
    /// Whether commands reach only the listed hosts.
    pub fn hosts_only(&self) -> bool {
        !self.network && !self.hosts.is_empty()
    }
}

/// What this system can enforce, found once by trying: the kernel's Landlock ABI and whether
/// bubblewrap can make namespaces (F-46).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSupport {
    /// The Landlock ABI the kernel enforces; 0 where it has none.
    pub landlock_abi: u8,
    /// Whether commands get namespaces of their own (mount, PID, network, IPC).
    pub namespaces: bool,
    /// Why there are no namespaces, when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub namespaces_missing: Option<String>,
    /// Why there is no sandbox at all, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub unavailable: Option<String>,
    /// What is not enforced for a chat with the network off ([`SandboxSupport::gaps`]).
    #[serde(default)]
    pub gaps_network_off: Vec<SandboxGap>,
    /// What is not enforced for a chat with the network on.
    #[serde(default)]
    pub gaps_network_on: Vec<SandboxGap>,
}

/// Something the sandbox cannot enforce on this system (by Landlock ABI and namespaces), said
/// on the popover and on every card instead of "confined".
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SandboxGap {
    /// No namespaces: local services reachable through their sockets (D-Bus, the display,
    /// agents, `docker.sock`).
    LocalSockets,
    /// The network cannot be closed at all (no namespaces, Landlock before ABI 4).
    Network,
    /// With the network off, UDP (and DNS) still leave (no namespaces).
    Udp,
    /// Abstract UNIX sockets of the desktop reachable (Landlock before ABI 6, and no network
    /// namespace of its own).
    AbstractSockets,
    /// Processes outside the sandbox can be signalled (Landlock before ABI 6, no namespaces).
    Signals,
    /// Git's configuration and hooks are written while a command runs and undone after it, and
    /// the files editors run are not read-only (no namespaces).
    ProtectedPaths,
    /// Files can be truncated outside the workspace (Landlock before ABI 3, no namespaces).
    Truncate,
    /// Device ioctls are not controlled (Landlock before ABI 5).
    DeviceIoctl,
    /// Files are confined by a read-only view only; secret folders are hidden but not refused
    /// (no Landlock).
    FileRules,
    /// "Only these hosts" needs a network namespace of its own: without one, commands get no
    /// network at all.
    HostsOnly,
}

impl SandboxGap {
    /// Whether this gap lets a command with the network off still reach it: the network cannot
    /// be closed, or UDP (and with it DNS) still leaves. Where it matters — what a command's
    /// output counts as, whether "ways out off" keeps commands — such a command has the
    /// network.
    pub fn leaves_network(self) -> bool {
        match self {
            Self::Network | Self::Udp => true,
            Self::LocalSockets
            | Self::AbstractSockets
            | Self::Signals
            | Self::ProtectedPaths
            | Self::Truncate
            | Self::DeviceIoctl
            | Self::FileRules
            | Self::HostsOnly => false,
        }
    }
}

impl SandboxSupport {
    /// What a probe found: on `linux`, Landlock at `landlock_abi`, and namespaces unless
    /// `namespaces_missing` says why not.
    pub fn new(linux: bool, landlock_abi: u8, namespaces_missing: Option<String>) -> Self {
        let namespaces = namespaces_missing.is_none();
        let unavailable = if !linux {
            Some("only Linux has a sandbox so far".to_string())
        } else if landlock_abi == 0 && !namespaces {
            Some(format!(
                "the kernel has no Landlock, and {}",
                namespaces_missing.as_deref().unwrap_or("no namespaces")
            ))
        } else {
            None
        };
        let available = unavailable.is_none();
        Self {
            landlock_abi,
            namespaces,
            namespaces_missing,
            unavailable,
            gaps_network_off: if available {
                gaps(landlock_abi, namespaces, false)
            } else {
                Vec::new()
            },
            gaps_network_on: if available {
                gaps(landlock_abi, namespaces, true)
            } else {
                Vec::new()
            },
        }
    }

    /// No sandbox at all, for `reason`.
    pub fn none(reason: impl Into<String>) -> Self {
        Self {
            landlock_abi: 0,
            namespaces: false,
            namespaces_missing: None,
            unavailable: Some(reason.into()),
            gaps_network_off: Vec::new(),
            gaps_network_on: Vec::new(),
        }
    }

    /// Whether anything can be confined.
    pub fn available(&self) -> bool {
        self.unavailable.is_none()
    }

    /// What a command of a chat with the network `network` is not protected from here.
    pub fn gaps(&self, network: bool) -> Vec<SandboxGap> {
        if network {
            self.gaps_network_on.clone()
        } else {
            self.gaps_network_off.clone()
        }
    }
}

/// What Landlock at `abi` (0: none) with or without namespaces (`ns`) leaves open for a
/// command with the network `network`.
fn gaps(abi: u8, ns: bool, network: bool) -> Vec<SandboxGap> {
    let mut gaps = Vec::new();
    let mut gap = |holds: bool, g: SandboxGap| {
        if !holds {
            gaps.push(g);
        }
    };
    gap(ns, SandboxGap::LocalSockets);
    gap(network || ns || abi >= 4, SandboxGap::Network);
    gap(network || ns || abi < 4, SandboxGap::Udp);
    gap(abi >= 6 || (ns && !network), SandboxGap::AbstractSockets);
    gap(abi >= 6 || ns, SandboxGap::Signals);
    gap(ns, SandboxGap::ProtectedPaths);
    gap(abi >= 3 || ns, SandboxGap::Truncate);
    gap(abi >= 5 || abi == 0, SandboxGap::DeviceIoctl);
    gap(abi > 0, SandboxGap::FileRules);
    gaps
}

/// How a command runs (or ran), in one word for the cards.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SandboxMode {
    /// Confined as the chat's level and network switch say, all of it enforced.
    Confined,
    /// Confined, but this system cannot enforce everything ([`SandboxReport::gaps`] says what).
    #[serde(alias = "networkOpen")]
    Partial,
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
    /// The hosts the command may reach with the network off ("only these hosts").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub hosts: Vec<String>,
    pub mode: SandboxMode,
    /// What this system cannot enforce for this command (empty when [`SandboxMode::Confined`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<SandboxGap>>")]
    pub gaps: Vec<SandboxGap>,
    /// The names of the variables the chat added to the clean environment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub env: Vec<String>,
    /// Whether git's hooks and configuration were writable (the chat allowed it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(optional, as = "Option<bool>")]
    pub git_writable: bool,
    /// One line per kind of operation the sandbox blocked ("writing outside the workspace:
    /// /home/ann/outside"), as the model was told.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub blocked: Vec<String>,
    /// The workspace the command ran in: a rerun runs there, not in the chat's current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub workspace: Option<String>,
    /// Files in the workspace the blocked run changed (relative paths, a few): a rerun without
    /// the sandbox would run them as the blocked run left them, so it names them first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub changed: Vec<String>,
}

impl SandboxReport {
    /// How a command of a chat with `sandbox` runs on a system with `support`.
    pub fn planned(sandbox: &ChatSandbox, support: &SandboxSupport) -> Self {
        let mut gaps = support.gaps(sandbox.network);
        if sandbox.hosts_only() && !support.namespaces {
            gaps.push(SandboxGap::HostsOnly);
        }
        let mode = match (sandbox.level.confines(), support.available()) {
            (false, _) => SandboxMode::Off,
            (true, false) => SandboxMode::Unavailable,
            (true, true) if gaps.is_empty() => SandboxMode::Confined,
            (true, true) => SandboxMode::Partial,
        };
        Self {
            level: sandbox.level,
            network: sandbox.network,
            hosts: if sandbox.hosts_only() {
                sandbox.hosts.clone()
            } else {
                Vec::new()
            },
            gaps: if mode == SandboxMode::Partial {
                gaps
            } else {
                Vec::new()
            },
            git_writable: sandbox.git_writable && sandbox.level == SandboxLevel::WorkspaceOnly,
            env: sandbox.env.keys().cloned().collect(),
            mode,
            blocked: Vec::new(),
            workspace: None,
            changed: Vec::new(),
        }
    }

    /// Whether the command is (was) confined at all.
    pub fn confined(&self) -> bool {
        match self.mode {
            SandboxMode::Confined | SandboxMode::Partial => true,
            SandboxMode::Off | SandboxMode::Unavailable => false,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_plan_says_what_the_system_can_keep() {
        let chat = ChatSandbox::default();
        assert_eq!(chat.level, SandboxLevel::WorkspaceOnly);
        assert!(!chat.network && !chat.git_writable);
        let full = SandboxSupport::new(true, 6, None);
        assert!(full.gaps(false).is_empty() && full.gaps(true).is_empty());
        let mode = |sandbox: ChatSandbox, support: &SandboxSupport| {
            SandboxReport::planned(&sandbox, support)
        };
        assert_eq!(mode(chat.clone(), &full).mode, SandboxMode::Confined);

        // Landlock 5, no namespaces: partial, and the cards say what is open.
        let landlock_only = SandboxSupport::new(true, 5, Some("no bwrap".into()));
        let plan = mode(chat.clone(), &landlock_only);
        assert_eq!(plan.mode, SandboxMode::Partial);
        assert_eq!(
            plan.gaps,
            [
                SandboxGap::LocalSockets,
                SandboxGap::Udp,
                SandboxGap::AbstractSockets,
                SandboxGap::Signals,
                SandboxGap::ProtectedPaths
            ]
        );
        // Namespaces on an older kernel (Landlock 3): the network is closed by the namespace,
        // abstract sockets with it; only what Landlock 3 lacks is open.
        let old = SandboxSupport::new(true, 3, None);
        assert_eq!(mode(chat.clone(), &old).gaps, [SandboxGap::DeviceIoctl]);
        let online = ChatSandbox {
            network: true,
            ..chat.clone()
        };
        assert_eq!(
            mode(online, &old).gaps,
            [SandboxGap::AbstractSockets, SandboxGap::DeviceIoctl]
        );
        // No Landlock before 6.7's network rules and no namespaces: the network stays open.
        let no_net = SandboxSupport::new(true, 3, Some("no bwrap".into()));
        assert!(mode(chat.clone(), &no_net)
            .gaps
            .contains(&SandboxGap::Network));
        assert!(!mode(chat.clone(), &no_net).gaps.contains(&SandboxGap::Udp));
        // Only these hosts: listed on the card; without namespaces, said to be impossible.
        let hosts = ChatSandbox {
            hosts: vec!["registry.npmjs.org".into()],
            ..chat.clone()
        };
        assert!(hosts.hosts_only());
        assert_eq!(mode(hosts.clone(), &full).hosts, ["registry.npmjs.org"]);
        assert_eq!(mode(hosts.clone(), &full).mode, SandboxMode::Confined);
        assert!(mode(hosts, &landlock_only)
            .gaps
            .contains(&SandboxGap::HostsOnly));

        let missing = SandboxSupport::new(true, 0, Some("no bwrap".into()));
        assert!(!missing.available());
        assert_eq!(mode(chat.clone(), &missing).mode, SandboxMode::Unavailable);
        let off = ChatSandbox {
            level: SandboxLevel::Off,
            ..ChatSandbox::default()
        };
        assert_eq!(mode(off.clone(), &missing).mode, SandboxMode::Off);
        assert!(!SandboxReport::planned(&off, &full).confined());
        // A report stored before "partial" existed still reads.
        let old_report: SandboxReport = serde_json::from_str(
            r#"{"level":"workspaceOnly","network":false,"mode":"networkOpen"}"#,
        )
        .unwrap();
        assert_eq!(old_report.mode, SandboxMode::Partial);
    }
}
