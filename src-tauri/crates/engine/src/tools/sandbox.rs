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

pub use crate::protocol::{ChatSandbox, SandboxLevel, SandboxMode, SandboxReport, SandboxSupport};

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
    /// More folders to write in at [`SandboxLevel::WorkspaceOnly`] (the folders an MCP server
    /// needs, from its settings).
    #[serde(default)]
    pub writable: Vec<PathBuf>,
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

/// What the executor hands a tool about the chat's sandbox (F-46).
#[derive(Debug, Clone, Default)]
pub struct SandboxPlan {
    /// The chat's level and network switch (for this call).
    pub chat: ChatSandbox,
    /// The folders no command may read ([`hidden_folders`]).
    pub hidden: std::sync::Arc<[PathBuf]>,
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
/// `hidden` folders (Landlock grants, it cannot deny below a granted folder). `list` reads a
/// folder's entries.
pub fn readable_roots(hidden: &[PathBuf], list: &dyn Fn(&Path) -> Vec<PathBuf>) -> Vec<PathBuf> {
    beneath_except(Path::new("/"), hidden, list)
}

/// The folders that together grant everything under `root` except the `hidden` folders: each
/// folder on the way to a hidden one is replaced by its entries, leaving the hidden one out.
/// (A workspace that holds `~/.ssh` — the home folder as a workspace — still hides it.)
pub fn beneath_except(
    root: &Path,
    hidden: &[PathBuf],
    list: &dyn Fn(&Path) -> Vec<PathBuf>,
) -> Vec<PathBuf> {
    let mut roots = vec![root.to_path_buf()];
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
    let workspace = beneath_except(&spec.workspace, &spec.hidden, &list_dir);
    let mut writable = vec![spec.temp.clone(), PathBuf::from("/dev/null")];
    if spec.level == SandboxLevel::WorkspaceOnly {
        writable.extend(workspace.iter().cloned());
        for folder in spec.writable.iter().filter(|f| f.exists()) {
            writable.extend(beneath_except(folder, &spec.hidden, &list_dir));
        }
    }
    let status = ruleset
        .create()
        .map_err(failed)?
        .add_rules(path_beneath_rules(
            readable_roots(&spec.hidden, &list_dir),
            AccessFs::from_read(abi),
        ))
        .map_err(failed)?
        .add_rules(path_beneath_rules(workspace, AccessFs::from_read(abi)))
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

/// The argument that makes Tollgate's binary try the sandbox on itself and print what this
/// system can enforce ([`SandboxSupport`] as JSON): `tollgate <ARG>`. A sandbox is for life, so
/// the app asks a child process instead of itself.
pub const PROBE_ARG: &str = "--tollgate-sandbox-probe";

/// The probe's own work (in the child): applies a sandbox with the network off to this process
/// and prints what held.
pub(crate) fn probe_here() -> i32 {
    let temp = std::env::temp_dir();
    let spec = SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        workspace: temp.clone(),
        temp,
        hidden: Vec::new(),
        writable: Vec::new(),
    };
    let support = match apply(&spec) {
        Ok(Enforcement::Full) => SandboxSupport::Full,
        Ok(Enforcement::Partial) => SandboxSupport::FilesOnly,
        Err(e) => SandboxSupport::Unavailable {
            reason: e.to_string(),
        },
    };
    match serde_json::to_string(&support) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(_) => 1,
    }
}

/// The folders no sandboxed command may read: the user's secret folders and Tollgate's own
/// data folder (its database, the keyring's neighbours).
pub fn hidden_folders(home: Option<&Path>, data: Option<&Path>) -> Vec<PathBuf> {
    let mut hidden = home.map(secret_folders).unwrap_or_default();
    hidden.extend(data.map(Path::to_path_buf));
    hidden
}

/// The one-line explanations of what the sandbox blocked, read from a command's error output
/// (the kernel only answers "Permission denied"; which rule refused is worked out from the path
/// named in the message and the spec). A denial on a path the sandbox allows — a file that is
/// simply not the user's — is not blamed on the sandbox.
pub fn explain_denials(output: &str, spec: &SandboxSpec) -> Vec<String> {
    const SHOWN: usize = 3;
    let mut found: Vec<String> = Vec::new();
    let mut more = 0usize;
    for line in output.lines() {
        let lower = line.to_ascii_lowercase();
        if !(lower.contains("permission denied") || line.contains("EACCES")) {
            continue;
        }
        let explanation = if lower.contains("/dev/tcp/")
            || lower.contains("/dev/udp/")
            || ["connect", "socket", "network", "bind", "listen"]
                .iter()
                .any(|w| lower.contains(w))
        {
            (!spec.network)
                .then(|| "opening a network connection (the network is off in this chat)".into())
        } else {
            denied_path(line).and_then(|path| explain_path(&path, spec))
        };
        match explanation {
            Some(e) if found.contains(&e) => {}
            Some(e) if found.len() < SHOWN => found.push(e),
            Some(_) => more += 1,
            None => {}
        }
    }
    if more > 0 {
        found.push(format!("and {more} more"));
    }
    found
}

/// Why the sandbox refused `path`, or `None` when it allows it.
fn explain_path(path: &str, spec: &SandboxSpec) -> Option<String> {
    let raw = Path::new(path);
    let joined = if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        spec.workspace.join(raw)
    };
    let real = resolve(&joined);
    let shown = real.display();
    if let Some(secret) = spec.hidden.iter().find(|h| real.starts_with(h)) {
        return Some(format!(
            "reading a protected folder ({}): {shown}",
            secret.display()
        ));
    }
    let in_workspace = real.starts_with(&spec.workspace);
    if real.starts_with(&spec.temp) || real == Path::new("/dev/null") {
        return None;
    }
    match spec.level {
        SandboxLevel::Off => None,
        SandboxLevel::ReadOnly => Some(format!(
            "writing (this chat's commands are read-only): {shown}"
        )),
        SandboxLevel::WorkspaceOnly if in_workspace => None,
        SandboxLevel::WorkspaceOnly => Some(format!("writing outside the workspace: {shown}")),
    }
}

/// `path` with every symlink on the way followed, as far as it exists (a file about to be
/// created does not): where a write through it would really land.
fn resolve(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut head = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&head) {
            return rest
                .iter()
                .rev()
                .fold(real, |p: PathBuf, part| p.join(part));
        }
        match (head.file_name().map(ToOwned::to_owned), head.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                head = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The path a "Permission denied" line names: quoted (`'…'`, `"…"`, `‘…’`), or the word before
/// the last `: Permission denied` (`cat: /x: Permission denied`, `sh: 1: cannot create x:`).
fn denied_path(line: &str) -> Option<String> {
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')] {
        if let Some(start) = line.find(open) {
            let rest = &line[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let quoted = &rest[..end];
                if (!quoted.is_empty() && !quoted.contains(' ')) || quoted.starts_with('/') {
                    return Some(quoted.to_string());
                }
            }
        }
    }
    let lower = line.to_ascii_lowercase();
    let at = lower.rfind(": permission denied")?;
    let before = &line[..at];
    let word = before.rsplit([' ', ':']).next()?.trim();
    (!word.is_empty() && !word.chars().all(|c| c.is_ascii_digit())).then(|| word.to_string())
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
        // A home folder as the workspace still hides its secrets.
        assert_eq!(
            beneath_except(
                Path::new("/home/ann"),
                &[PathBuf::from("/home/ann/.ssh")],
                &tree
            ),
            ["/home/ann/.config", "/home/ann/src"]
                .map(PathBuf::from)
                .to_vec()
        );
    }

    fn spec(root: &Path, level: SandboxLevel, network: bool) -> SandboxSpec {
        SandboxSpec {
            level,
            network,
            workspace: root.join("ws"),
            temp: root.join("tmp"),
            hidden: vec![root.join("home/.ssh")],
            writable: Vec::new(),
        }
    }

    #[test]
    fn denials_are_explained_by_the_rule_that_refused_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for d in ["ws", "tmp", "home/.ssh"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("home"), root.join("ws/out")).unwrap();
        let r = root.display();
        let ws = spec(&root, SandboxLevel::WorkspaceOnly, false);
        let explain = |text: &str, spec: &SandboxSpec| explain_denials(text, spec);

        assert_eq!(
            explain(
                &format!("touch: cannot touch '{r}/outside': Permission denied"),
                &ws
            ),
            [format!("writing outside the workspace: {r}/outside")]
        );
        assert_eq!(
            explain(
                &format!("cat: {r}/home/.ssh/id_rsa: Permission denied"),
                &ws
            ),
            [format!(
                "reading a protected folder ({r}/home/.ssh): {r}/home/.ssh/id_rsa"
            )]
        );
        // Relative to the workspace, through a symlink that leads out: where it would land.
        assert_eq!(
            explain("sh: 1: cannot create out/planted: Permission denied", &ws),
            [format!("writing outside the workspace: {r}/home/planted")]
        );
        assert_eq!(
            explain("bash: connect: Permission denied\nbash: line 1: /dev/tcp/127.0.0.1/80: Permission denied", &ws),
            ["opening a network connection (the network is off in this chat)"]
        );
        assert_eq!(
            explain(
                "PermissionError: [Errno 13] Permission denied: 'notes.txt'",
                &spec(&root, SandboxLevel::ReadOnly, true)
            ),
            [format!(
                "writing (this chat's commands are read-only): {r}/ws/notes.txt"
            )]
        );
        // Inside the workspace, or with the network on, the sandbox is not to blame.
        assert!(explain(
            "cp: cannot open 'mine.txt' for reading: Permission denied",
            &ws
        )
        .is_empty());
        let online = spec(&root, SandboxLevel::WorkspaceOnly, true);
        assert!(explain("curl: (7) connect to 10.0.0.1: Permission denied", &online).is_empty());
        assert!(explain(
            "no denial here\nrm: cannot remove 'x': Operation not permitted",
            &ws
        )
        .is_empty());
        // Many denials: a few lines and a count, never thousands.
        let many: String = (0..50)
            .map(|i| format!("rm: cannot remove '{r}/f{i}': Permission denied\n"))
            .collect();
        let lines = explain(&many, &ws);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[3], "and 47 more");
    }
}
