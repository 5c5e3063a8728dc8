//! Which paths the sandbox hides and protects, by what they really are (issue 33).
//!
//! The user's secret files and folders are listed here, in one place: the sandbox hides them
//! from commands, the file tools refuse them, and the Tools popover shows the list. Each entry
//! is taken both as written under the home folder and as where it really is, so a `~/.ssh` that
//! is a symlink (GNU stow, dotfile managers) or a home reached through a symlink is hidden too.

use std::path::{Path, PathBuf};

/// The secret files and folders of a home directory that no command and no file tool reads:
/// keys, credentials, tokens, password stores, browser profiles, other apps' private data and
/// shell histories. Relative to the home folder.
pub const SECRET_PATHS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config",
    ".docker",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".yarnrc",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".local/share/keyrings",
    ".local/share/kwalletd",
    ".password-store",
    ".pki",
    ".mozilla",
    ".thunderbird",
    ".var/app",
    "snap",
    ".bash_history",
    ".zsh_history",
    ".histfile",
    ".sh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".local/share/fish/fish_history",
    ".lesshst",
    ".viminfo",
];

/// The secret paths of `home` ([`SECRET_PATHS`]), each as written and, where it differs, where
/// it really leads (symlinks followed), so that neither way reaches it.
pub fn secret_paths(home: &Path) -> Vec<PathBuf> {
    with_real_paths(SECRET_PATHS.iter().map(|p| home.join(p)))
}

/// `paths`, each followed by its real path when that differs (a symlink on the way).
pub fn with_real_paths(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in paths {
        let real = std::fs::canonicalize(&path).ok();
        if !out.contains(&path) {
            out.push(path.clone());
        }
        if let Some(real) = real.filter(|r| *r != path) {
            if !out.contains(&real) {
                out.push(real);
            }
        }
    }
    out
}

/// The paths no sandboxed command and no file tool may read: the user's secret paths and
/// Tollgate's own data folder (its database, the keyring's neighbours).
pub fn hidden_folders(home: Option<&Path>, data: Option<&Path>) -> Vec<PathBuf> {
    let mut hidden = home.map(secret_paths).unwrap_or_default();
    hidden.extend(with_real_paths(data.map(Path::to_path_buf)));
    hidden
}

/// The hidden path (as listed) that `path` is in, if any. `path` should be real (symlinks
/// followed); both a listed path and its real form are in the list.
pub fn hidden_by<'h>(path: &Path, hidden: &'h [PathBuf]) -> Option<&'h Path> {
    hidden
        .iter()
        .find(|h| path.starts_with(h))
        .map(PathBuf::as_path)
}

/// The files and folders in a workspace that run code later, outside any sandbox: git's hooks
/// and configuration (`core.fsmonitor`, `core.hooksPath`, aliases, filters), in the workspace's
/// own repository and in repositories one level down. Under "Workspace only" they stay
/// read-only so that a command cannot plant code for the user's next `git status` (issue 33).
/// Only paths that exist are returned: a repository the command makes itself is its own.
pub fn protected_in_workspace(workspace: &Path) -> Vec<PathBuf> {
    let mut repos = vec![workspace.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(workspace) {
        repos.extend(
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path()),
        );
    }
    let mut out = Vec::new();
    for repo in repos {
        let git = repo.join(".git");
        if !git.is_dir() || git.is_symlink() {
            continue;
        }
        for part in ["hooks", "config", "config.worktree"] {
            let path = git.join(part);
            if std::fs::symlink_metadata(&path).is_ok() {
                out.push(path);
            }
        }
        if let Some(hooks) = hooks_path(&git.join("config"), &repo) {
            if hooks.starts_with(workspace) && std::fs::symlink_metadata(&hooks).is_ok() {
                out.push(hooks);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `core.hooksPath` of a repository's config file, as a path (relative ones are relative to the
/// repository's working folder): a hooks folder in the working tree (husky's `.husky`) runs code
/// as surely as `.git/hooks`.
fn hooks_path(config: &Path, repo: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(config).ok()?;
    let mut in_core = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line.to_ascii_lowercase().starts_with("[core");
            continue;
        }
        if !in_core {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("hookspath") {
            let value = value.trim().trim_matches('"');
            let path = Path::new(value);
            return Some(if path.is_absolute() {
                path.to_path_buf()
            } else {
                repo.join(path)
            });
        }
    }
    None
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

/// A folder's entries (none when it cannot be read, or is not a folder).
pub fn list_dir(dir: &Path) -> Vec<PathBuf> {
    if dir.is_symlink() {
        return Vec::new();
    }
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// `path` with every symlink on the way followed, as far as it exists (a file about to be
/// created does not): where a write through it would really land.
pub fn resolve(path: &Path) -> PathBuf {
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

    #[test]
    fn a_secret_folder_behind_a_symlink_is_hidden_where_it_really_is() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, dotfiles) = (root.join("home"), root.join("dotfiles"));
        std::fs::create_dir_all(dotfiles.join("ssh")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::os::unix::fs::symlink(dotfiles.join("ssh"), home.join(".ssh")).unwrap();
        // The home itself reached through a symlink.
        std::os::unix::fs::symlink(&home, root.join("home-link")).unwrap();
        let hidden = secret_paths(&root.join("home-link"));
        assert!(hidden.contains(&root.join("home-link/.ssh")));
        assert!(hidden.contains(&dotfiles.join("ssh")), "{hidden:?}");
        let key = dotfiles.join("ssh/id_rsa");
        assert_eq!(
            hidden_by(&key, &hidden),
            Some(dotfiles.join("ssh").as_path())
        );
        assert_eq!(hidden_by(&home.join("notes.txt"), &hidden), None);
        for listed in [
            ".git-credentials",
            ".npmrc",
            ".pypirc",
            ".cargo/credentials.toml",
            ".pgpass",
            ".mozilla",
            ".var/app",
            "snap",
            ".bash_history",
        ] {
            assert!(SECRET_PATHS.contains(&listed), "{listed}");
        }
    }

    #[test]
    fn git_hooks_and_config_are_protected_where_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        assert!(
            protected_in_workspace(&ws).is_empty(),
            "no repository, nothing to protect"
        );
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::write(
            ws.join(".git/config"),
            "[core]\n\tbare = false\n\thooksPath = .husky\n",
        )
        .unwrap();
        std::fs::create_dir_all(ws.join(".husky")).unwrap();
        std::fs::create_dir_all(ws.join("sub/.git/hooks")).unwrap();
        let protected = protected_in_workspace(&ws);
        assert_eq!(
            protected,
            [
                ws.join(".git/config"),
                ws.join(".git/hooks"),
                ws.join(".husky"),
                ws.join("sub/.git/hooks"),
            ]
            .to_vec()
        );
    }
}
