//! The sandbox an approved shell command runs in (F-46, issue 15). Approval answers "may this
//! run?"; the sandbox answers "what may it touch?". On Linux the supervisor applies Landlock to
//! itself just before it starts the shell, so the command and every process it starts inherit
//! the restriction (no `pre_exec`, no unsafe code): it can write only in the chat's workspace and
//! a private temp folder, read the system but never the user's secret folders, and — with the
//! network off — not open TCP connections. Other systems have no sandbox yet: [`apply`] says so,
//! it never pretends.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The environment variable that carries a [`SandboxSpec`] (JSON) to the supervisor.
pub const SANDBOX_ENV: &str = "TOLLGATE_SANDBOX";

/// How far a chat's commands may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SandboxLevel {
    /// Write in the workspace and a private temp folder; read the system, not secrets.
    WorkspaceOnly,
    /// Write nowhere but the private temp folder; read as above.
    ReadOnly,
    /// No restriction (a decision the user confirms).
    Off,
}

/// Everything the supervisor needs to build the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSpec {
    pub level: SandboxLevel,
    /// Whether TCP connections (and binds) are allowed.
    pub network: bool,
    /// The chat's workspace: readable, and writable at [`SandboxLevel::WorkspaceOnly`].
    pub workspace: PathBuf,
    /// A private temp folder for this run (`TMPDIR`), always writable.
    pub temp: PathBuf,
    /// Folders that must never be readable (`~/.ssh`, `~/.aws`, the keyring, Tollgate's data…).
    pub hidden: Vec<PathBuf>,
}

/// The secret folders of a home directory that a command never reads.
pub fn secret_folders(home: &Path) -> Vec<PathBuf> {
    [
        ".ssh",
        ".gnupg",
        ".aws",
        ".config",
        ".docker",
        ".kube",
        ".netrc",
        ".local/share/keyrings",
        ".password-store",
    ]
    .iter()
    .map(|p| home.join(p))
    .collect()
}

/// What the kernel enforced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforcement {
    /// Every restriction holds.
    Full,
    /// Some hold (an older kernel: e.g. no network rules before Linux 6.7).
    Partial,
}

/// Why a sandbox could not be set up; the command does not run without it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("no sandbox on this system ({0})")]
    Unsupported(String),
    #[error("the sandbox could not be set up: {0}")]
    Failed(String),
}

/// The folders to grant read access to so that everything under `/` is readable except the
/// `hidden` folders (Landlock grants, it cannot deny below a granted folder): each folder on the
/// way to a hidden one is replaced by its entries, leaving out the hidden one. `list` reads a
/// folder's entries.
pub fn readable_roots(hidden: &[PathBuf], list: &dyn Fn(&Path) -> Vec<PathBuf>) -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from("/")];
    for secret in hidden.iter().filter(|h| h.is_absolute()) {
        let mut next = Vec::with_capacity(roots.len());
        for root in roots {
            expand(&root, secret, list, &mut next);
        }
        roots = next;
    }
    roots.sort();
    roots.dedup();
    roots
}

fn expand(
    root: &Path,
    secret: &Path,
    list: &dyn Fn(&Path) -> Vec<PathBuf>,
    out: &mut Vec<PathBuf>,
) {
    if root == secret {
        return;
    }
    if !secret.starts_with(root) {
        out.push(root.to_path_buf());
        return;
    }
    for entry in list(root) {
        expand(&entry, secret, list, out);
    }
}

fn list_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Restricts this process (and every process it starts from now on) as `spec` says.
#[cfg(target_os = "linux")]
pub fn apply(spec: &SandboxSpec) -> Result<Enforcement, SandboxError> {
    use landlock::{
        path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, ABI,
    };
    if spec.level == SandboxLevel::Off {
        return Ok(Enforcement::Full);
    }
    let abi = ABI::V5;
    let failed = |e: landlock::RulesetError| SandboxError::Failed(e.to_string());
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(failed)?;
    if !spec.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(failed)?;
    }
    let mut writable = vec![spec.temp.clone(), PathBuf::from("/dev/null")];
    if spec.level == SandboxLevel::WorkspaceOnly {
        writable.push(spec.workspace.clone());
    }
    let status = ruleset
        .create()
        .map_err(failed)?
        .add_rules(path_beneath_rules(
            readable_roots(&spec.hidden, &list_dir),
            AccessFs::from_read(abi),
        ))
        .map_err(failed)?
        .add_rules(path_beneath_rules(
            [spec.workspace.clone()],
            AccessFs::from_read(abi),
        ))
        .map_err(failed)?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))
        .map_err(failed)?
        .restrict_self()
        .map_err(failed)?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(Enforcement::Full),
        RulesetStatus::PartiallyEnforced => Ok(Enforcement::Partial),
        RulesetStatus::NotEnforced => Err(SandboxError::Unsupported(
            "the kernel has no Landlock".into(),
        )),
    }
}

/// No sandbox off Linux yet: the seam for macOS Seatbelt and Windows.
#[cfg(not(target_os = "linux"))]
pub fn apply(spec: &SandboxSpec) -> Result<Enforcement, SandboxError> {
    match spec.level {
        SandboxLevel::Off => Ok(Enforcement::Full),
        SandboxLevel::WorkspaceOnly | SandboxLevel::ReadOnly => Err(SandboxError::Unsupported(
            "only Linux has one so far".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn everything_is_readable_but_the_hidden_folders() {
        let tree = |p: &Path| -> Vec<PathBuf> {
            let names: &[&str] = match p.to_str().unwrap() {
                "/" => &["/usr", "/home", "/etc"],
                "/home" => &["/home/ann", "/home/bob"],
                "/home/ann" => &["/home/ann/.ssh", "/home/ann/src", "/home/ann/.config"],
                _ => &[],
            };
            names.iter().map(PathBuf::from).collect()
        };
        let roots = readable_roots(
            &[
                PathBuf::from("/home/ann/.ssh"),
                PathBuf::from("/home/ann/.config"),
            ],
            &tree,
        );
        assert_eq!(
            roots,
            ["/etc", "/home/ann/src", "/home/bob", "/usr"]
                .map(PathBuf::from)
                .to_vec()
        );
        assert_eq!(readable_roots(&[], &tree), vec![PathBuf::from("/")]);
    }
}
