//! Whether a writer may write a path (F-46; SECURITY.md, "Writes that something runs later"):
//! the one question the file tools ask before every write, answered from the protected families
//! ([`crate::protected`]) by a path's names, by the git folder it is in, and by what the walk of
//! the folder finds ([`crate::paths::walk_workspace`]).

use crate::protected::{family_of, is_git_folder, Family};
use std::path::{Path, PathBuf};

/// Why a writer may not write `real` (where a write to `written` inside `root` really lands;
/// both inside `root`), or `None`: its names ([`family_of`], as written and as it leads), a
/// git folder it is in (a bare repository, a folder a `.git` file names), or a protected path
/// the walk of `root` found by what it is ([`crate::paths::walk_workspace`]: a `core.hooksPath`
/// folder, the folder a protected name links to).
pub fn refuses_write(root: &Path, written: &Path, real: &Path) -> Option<Refusal> {
    let as_written = written.strip_prefix(root).unwrap_or(written);
    let as_real = real.strip_prefix(root).unwrap_or(real);
    if let Some(family) = family_of(as_written).or_else(|| family_of(as_real)) {
        return Some(Refusal::new(family, as_written));
    }
    if real
        .ancestors()
        .skip(1)
        .take_while(|a| a.starts_with(root))
        .chain(std::iter::once(real))
        .any(|a| a != root && is_git_folder(a))
    {
        return Some(Refusal::new(Family::Git, as_written));
    }
    let walked = crate::paths::walk_workspace(root);
    if walked.git.iter().any(|g| real.starts_with(g)) {
        return Some(Refusal::new(Family::Git, as_written));
    }
    walked
        .protected
        .iter()
        .find(|(path, _)| real.starts_with(path))
        .map(|(_, family)| Refusal::new(*family, as_written))
}

/// A write refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub family: Family,
    /// The path as the writer named it, relative to its folder.
    pub path: PathBuf,
}

impl Refusal {
    fn new(family: Family, path: &Path) -> Self {
        Self {
            family,
            path: path.to_path_buf(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "\"{}\" is {}: Tollgate's tools never write it, so that nothing the model writes runs later outside the sandbox",
            self.path.display(),
            self.family.says()
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_bare_repository_is_git_s_folder_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let tools = ws.join("tools");
        std::fs::create_dir_all(tools.join("objects")).unwrap();
        std::fs::create_dir_all(tools.join("refs")).unwrap();
        std::fs::write(tools.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert!(is_git_folder(&tools));
        let config = tools.join("config");
        let refusal = refuses_write(&ws, &config, &config).unwrap();
        assert_eq!(refusal.family, Family::Git);
        assert!(refuses_write(&ws, &ws.join("notes.md"), &ws.join("notes.md")).is_none());
    }
}
