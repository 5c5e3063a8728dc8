//! What the sandbox does, around one run, about the parts of a workspace that other programs
//! run by themselves later, outside any sandbox (docs/ARCHITECTURE.md, "The sandbox").
//!
//! Before the run ([`WorkspaceGuard::prepare`]): the workspace is walked once
//! ([`crate::paths::walk_workspace`]); its git folders are staged ([`crate::git_stage`]); `.git`
//! files, a hooks folder in the working tree and the files editors run on opening are kept
//! read-only. After it ([`WorkspaceGuard::settle`]): git's data comes back from the copies and
//! nothing else does; and whatever of those kinds the command *created* — a repository
//! (`git init sub`, a `.git` file), an `.envrc`, a `.vscode/tasks.json` — is held: renamed so
//! that neither git nor an editor reads it, and reported, so that the user can run the command
//! outside the sandbox if they meant it. Neither step depends on a list of dangerous names
//! inside git's folder.

use crate::git_stage::GitStaging;
use crate::paths::{walk_workspace, Walked};
use crate::SandboxSpec;
use std::path::{Path, PathBuf};

/// The suffix a held file or folder gets (`.envrc` → `.envrc.tollgate-held`).
pub const HELD_SUFFIX: &str = ".tollgate-held";

/// One run's guard of its workspace (see the module's documentation).
#[derive(Debug)]
pub struct WorkspaceGuard {
    workspace: PathBuf,
    walked: Walked,
    /// `None` once settled.
    staging: Option<GitStaging>,
}

impl WorkspaceGuard {
    /// Walks `workspace` and stages its git folders (copies with namespaces, read-only
    /// folders without).
    pub fn prepare(workspace: &Path, namespaces: bool) -> std::io::Result<Self> {
        let walked = walk_workspace(workspace);
        let staging = GitStaging::prepare(&walked.git, namespaces)?;
        Ok(Self {
            workspace: workspace.to_path_buf(),
            walked,
            staging: Some(staging),
        })
    }

    /// Writes the guard into the run's sandbox settings: the read-only paths and the git
    /// folders as shown.
    pub fn apply(&self, spec: &mut SandboxSpec) {
        spec.protected = self.walked.read_only.clone();
        spec.git = self
            .staging
            .as_ref()
            .map(GitStaging::folders)
            .unwrap_or_default();
    }

    /// After the command has ended (every process of it): settles the git copies and holds what
    /// the command created of the kinds guarded. One line per thing not kept, for the run's
    /// report (`blocked`), as the model and the user read it. A guard dropped unsettled (a
    /// call stopped, an error on the way) settles as it is dropped, so git's data is never
    /// left behind in a copy and nothing the command made stays armed.
    pub fn settle(mut self) -> Vec<String> {
        self.settle_now()
    }

    fn settle_now(&mut self) -> Vec<String> {
        let Some(staging) = self.staging.take() else {
            return Vec::new();
        };
        let mut lines = staging.settle();
        let after = walk_workspace(&self.workspace);
        let created: Vec<&PathBuf> = after
            .markers
            .iter()
            .filter(|m| !self.walked.markers.contains(m))
            .collect();
        for path in created {
            lines.push(hold(path, &self.workspace));
        }
        lines
    }
}

impl Drop for WorkspaceGuard {
    fn drop(&mut self) {
        for line in self.settle_now() {
            tracing::warn!("sandbox: {line}");
        }
    }
}

/// Renames `path` (made by the command) aside, where nothing reads it, and says so.
fn hold(path: &Path, workspace: &Path) -> String {
    let shown = path.strip_prefix(workspace).unwrap_or(path).display();
    let family = crate::protected::family_of(path.strip_prefix(workspace).unwrap_or(path));
    let what = match family {
        Some(crate::protected::Family::Git) | None => {
            "a git repository (its configuration and hooks run code outside the sandbox)"
        }
        Some(family) => family.says(),
    };
    let held = free_name(path);
    match std::fs::rename(path, &held) {
        Ok(()) => format!(
            "creating {what}: {shown}; it was renamed to {} so that nothing runs it, and the user can run the command outside the sandbox to create it",
            held.file_name().unwrap_or_default().to_string_lossy()
        ),
        Err(e) => {
            // It cannot be moved aside: take it away rather than leave it armed.
            let removed = std::fs::remove_dir_all(path).or_else(|_| std::fs::remove_file(path));
            match removed {
                Ok(()) => format!("creating {what}: {shown}; it could not be renamed ({e}) and was removed"),
                Err(e2) => format!("creating {what}: {shown}; it could be neither renamed ({e}) nor removed ({e2}): do not open this folder in git or an editor before checking it"),
            }
        }
    }
}

/// `path` with [`HELD_SUFFIX`] (and a number, when that is taken).
fn free_name(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut candidate = path.with_file_name(format!("{name}{HELD_SUFFIX}"));
    let mut n = 2;
    while std::fs::symlink_metadata(&candidate).is_ok() {
        candidate = path.with_file_name(format!("{name}{HELD_SUFFIX}-{n}"));
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn what_a_command_creates_of_the_guarded_kinds_is_held() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join(".git/objects")).unwrap();
        std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join(".envrc"), "old\n").unwrap();
        let guard = WorkspaceGuard::prepare(&ws, false).unwrap();
        let mut spec = SandboxSpec::default();
        guard.apply(&mut spec);
        assert_eq!(spec.protected, [ws.join(".envrc")]);
        assert_eq!(spec.git.len(), 1);
        // What the command made: a repository with a planted monitor, a `.git` file, an
        // editor's task file, and an ordinary file.
        std::fs::create_dir_all(ws.join("sub/.git")).unwrap();
        std::fs::write(ws.join("sub/.git/config"), "[core]\n\tfsmonitor = x\n").unwrap();
        std::fs::create_dir_all(ws.join("other")).unwrap();
        std::fs::write(ws.join("other/.git"), "gitdir: ../sub/.git\n").unwrap();
        std::fs::create_dir_all(ws.join("app/.vscode")).unwrap();
        std::fs::write(ws.join("app/.vscode/tasks.json"), "{}").unwrap();
        std::fs::write(ws.join("app/.vscode/tasks.json.tollgate-held"), "{}").unwrap();
        std::fs::write(ws.join("notes.md"), "kept").unwrap();
        let lines = guard.settle();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(!ws.join("sub/.git").exists() && !ws.join("other/.git").exists());
        assert!(ws.join("sub/.git.tollgate-held/config").exists());
        assert!(ws.join("other/.git.tollgate-held").is_file());
        // The editor's folder the command made is held whole.
        assert!(!ws.join("app/.vscode").exists());
        assert!(ws.join("app/.vscode.tollgate-held/tasks.json").exists());
        assert!(ws.join("notes.md").exists() && ws.join(".envrc").exists());
        assert!(
            lines.iter().any(|l| l.starts_with(
                "creating a git repository (its configuration and hooks run code outside the sandbox): sub/.git; it was renamed to .git.tollgate-held"
            )),
            "{lines:?}"
        );
    }
}
