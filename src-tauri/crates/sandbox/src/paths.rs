//! Which paths the sandbox hides and protects, by what they really are (F-46).
//!
//! The user's secret files and folders are listed here, in one place: the sandbox hides them
//! from commands, the file tools refuse them, and the Tools popover shows the list. Each entry
//! is taken both as written under the home folder and as where it really is, so a `~/.ssh` that
//! is a symlink (GNU stow, dotfile managers) or a home reached through a symlink is hidden too.

use crate::protected::{self, Family};
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

pub use crate::fit::{holds_home, unfit_workspace};

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

/// How deep below the workspace the walk for repositories and protected paths goes.
const WALK_DEPTH: usize = 12;

/// How many entries the walk visits at most, so that a huge tree (a `node_modules` of a
/// million files) cannot stall the start of a command.
const WALK_ENTRIES: usize = 100_000;

/// What a walk of the workspace found that runs code later, outside any sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walked {
    /// Every git folder of the workspace: `.git` folders at any depth and the folders `.git`
    /// files and symlinks inside it point to (a submodule's git folder under `.git/modules`
    /// is part of its superproject's). Each is shown to a command as a copy that only git's
    /// data comes back from ([`crate::git_stage`]). Outer folders first; none inside another.
    pub git: Vec<PathBuf>,
    /// Paths kept read-only: `.git` files (rewritten, one would send git to a planted folder),
    /// a `core.hooksPath` folder in the working tree, and every protected file or folder
    /// ([`crate::protected`]) where it exists — for one that is a symlink, the folder inside
    /// the workspace it leads to.
    pub read_only: Vec<PathBuf>,
    /// Every `.git` entry, every bare repository and every protected name, whatever it is: one
    /// that is new after a run was made by the command and is held ([`crate::workspace_guard`]).
    pub markers: Vec<PathBuf>,
    /// Every protected path found by what it is, with its family: what the file tools refuse
    /// beside what they refuse by name ([`crate::protected::refuses_write`]).
    pub protected: Vec<(PathBuf, Family)>,
}

/// Walks `workspace` for what runs code later, outside any sandbox: git folders at every
/// depth, the folders `.git` files inside it point to, a `core.hooksPath` folder in the
/// working tree, and the files editors and tools run when the folder is opened
/// ([`crate::protected`]).
///
/// The walk does not follow symlinks and goes [`WALK_DEPTH`] folders deep; it visits at most
/// [`WALK_ENTRIES`] entries (about a tenth of a second with a warm cache), two levels deep
/// first, so past the cap the workspace's own repository, those one level down and whatever
/// was found so far are still known, and deeper ones the walk did not reach are not (a debug
/// line says the cap was reached).
pub fn walk_workspace(workspace: &Path) -> Walked {
    let real = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let mut found = Found {
        workspace,
        real: &real,
        walked: Walked::default(),
        budget: WALK_ENTRIES,
    };
    for depth in [2, WALK_DEPTH] {
        found.walk(depth);
    }
    let mut walked = found.walked;
    for list in [&mut walked.git, &mut walked.read_only, &mut walked.markers] {
        list.sort();
        list.dedup();
    }
    walked.protected.sort_by(|a, b| a.0.cmp(&b.0));
    walked.protected.dedup_by(|a, b| a.0 == b.0);
    // A git folder inside another (a `.git` file pointing into `.git/modules`) is part of it.
    let all = walked.git.clone();
    walked
        .git
        .retain(|g| !all.iter().any(|o| o != g && g.starts_with(o)));
    walked
}

/// The walk of [`walk_workspace`] and what it found.
struct Found<'w> {
    /// The workspace as given (the paths returned are under it).
    workspace: &'w Path,
    /// Its real path, to tell whether a `.git` file points inside it.
    real: &'w Path,
    walked: Walked,
    /// Entries the walk may still visit.
    budget: usize,
}

impl Found<'_> {
    /// Walks the workspace `depth` folders deep (hidden files included, no ignore files, no
    /// symlinks followed, nothing inside a `.git` folder) within the budget.
    fn walk(&mut self, depth: usize) {
        let walk = ignore::WalkBuilder::new(self.workspace)
            .standard_filters(false)
            .require_git(false)
            .follow_links(false)
            .max_depth(Some(depth))
            .filter_entry(|e| {
                e.path()
                    .parent()
                    .and_then(Path::file_name)
                    .is_none_or(|n| n != ".git")
            })
            .build();
        for entry in walk.flatten() {
            if self.budget == 0 {
                tracing::debug!(
                    "sandbox: {} has more than {WALK_ENTRIES} entries; deeper repositories are not protected",
                    self.workspace.display()
                );
                return;
            }
            self.budget -= 1;
            self.entry(entry.path(), entry.file_type());
        }
    }

    /// Takes note of one entry of the walk.
    fn entry(&mut self, path: &Path, kind: Option<std::fs::FileType>) {
        let (Some(name), Some(kind)) = (path.file_name(), kind) else {
            return;
        };
        if name == ".git" {
            self.walked.markers.push(path.to_path_buf());
            let folder = path.parent().unwrap_or(self.workspace);
            if kind.is_dir() {
                self.git_folder(path, folder);
                return;
            }
            // The `.git` file itself: rewritten, it would send git to a planted git folder.
            // (A `.git` symlink cannot be kept: a read-only mount would land on its target.)
            if kind.is_file() {
                self.walked.read_only.push(path.to_path_buf());
            }
            if let Some(target) = self.git_file_target(path, kind) {
                self.git_folder(&target, folder);
            }
            return;
        }
        // What a package manager unpacks is nobody's editor or shell configuration.
        if self.walked.git.iter().any(|g| path.starts_with(g))
            || path.components().any(|c| c.as_os_str() == "node_modules")
        {
            return;
        }
        let parent = path
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str());
        if let Some(family) = name
            .to_str()
            .and_then(|n| protected::family_of_entry(parent, n))
        {
            self.walked.markers.push(path.to_path_buf());
            let kept = if kind.is_symlink() {
                // It counts as what it leads to (`.vscode` -> a folder of tasks).
                self.inside(path)
            } else if kind.is_dir() || kind.is_file() {
                Some(path.to_path_buf())
            } else {
                None
            };
            if let Some(kept) = kept {
                self.walked.read_only.push(kept.clone());
                self.walked.protected.push((kept, family));
            }
            return;
        }
        if kind.is_symlink() {
            // A `.config` or `.local` that leads elsewhere in the workspace: what is under it
            // there is what is under `.config` (`x/autostart` for `.config` -> `x`).
            let nested = name
                .to_str()
                .map(protected::nested_under)
                .unwrap_or_default();
            if let (false, Some(target)) = (nested.is_empty(), self.inside(path)) {
                for (child, family) in nested {
                    let under = target.join(child);
                    if std::fs::symlink_metadata(&under).is_ok() {
                        self.walked.read_only.push(under.clone());
                        self.walked.protected.push((under, family));
                    }
                }
            }
            return;
        }
        if kind.is_dir() && protected::is_git_folder(path) {
            // A bare repository (`git init --bare tools`): git's folder by what it holds.
            self.walked.markers.push(path.to_path_buf());
            self.walked.git.push(path.to_path_buf());
            self.walked
                .protected
                .push((path.to_path_buf(), Family::Git));
        }
    }

    /// Where the symlink `path` leads, when that is inside the workspace (as a path under the
    /// workspace as given).
    fn inside(&self, path: &Path) -> Option<PathBuf> {
        let real = std::fs::canonicalize(path).ok()?;
        let inside = real.strip_prefix(self.real).ok()?;
        Some(self.workspace.join(inside))
    }

    /// Where a `.git` file (`gitdir: <path>`, relative to its folder) or a `.git` symlink
    /// leads, when that is a folder inside the workspace (as a path under the workspace as
    /// given); a git folder outside it is not the command's to write.
    fn git_file_target(&self, path: &Path, kind: std::fs::FileType) -> Option<PathBuf> {
        let target = if kind.is_symlink() {
            path.to_path_buf()
        } else if kind.is_file() {
            let folder = path.parent()?;
            folder.join(gitdir(path)?)
        } else {
            return None; // a FIFO would block the read
        };
        let real = std::fs::canonicalize(target).ok()?;
        let inside = real.strip_prefix(self.real).ok()?;
        real.is_dir().then(|| self.workspace.join(inside))
    }

    /// Takes note of the git folder `git` and of a `core.hooksPath` folder its configuration
    /// names in the working tree `worktree`.
    fn git_folder(&mut self, git: &Path, worktree: &Path) {
        self.walked.git.push(git.to_path_buf());
        if let Some(hooks) = hooks_path(&git.join("config"), worktree) {
            if hooks.starts_with(self.workspace) && std::fs::symlink_metadata(&hooks).is_ok() {
                self.walked.read_only.push(hooks.clone());
                self.walked.protected.push((hooks, Family::Hooks));
            }
        }
    }
}

/// The path a `.git` file names (`gitdir: <path>`), as written. Only its start is read.
fn gitdir(file: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(file)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    let path = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// `core.hooksPath` of a repository's config file, as a path (relative ones are relative to the
/// repository's working folder): a hooks folder in the working tree (husky's `.husky`) runs code
/// as surely as `.git/hooks`.
fn hooks_path(config: &Path, repo: &Path) -> Option<PathBuf> {
    use std::io::Read;
    // A regular file only (a FIFO would block), and only its first megabyte.
    if !std::fs::metadata(config).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(config)
        .ok()?
        .take(1 << 20)
        .read_to_string(&mut text)
        .ok()?;
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
    fn git_folders_and_a_hooks_folder_are_found_where_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        assert_eq!(
            walk_workspace(&ws),
            Walked::default(),
            "no repository, nothing to guard"
        );
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::write(
            ws.join(".git/config"),
            "[core]\n\tbare = false\n\thooksPath = .husky\n",
        )
        .unwrap();
        std::fs::create_dir_all(ws.join(".husky")).unwrap();
        std::fs::create_dir_all(ws.join("sub/.git/hooks")).unwrap();
        let walked = walk_workspace(&ws);
        assert_eq!(walked.git, [ws.join(".git"), ws.join("sub/.git")]);
        assert_eq!(walked.read_only, [ws.join(".husky")]);
        assert_eq!(
            walked.markers,
            [ws.join(".git"), ws.join(".husky"), ws.join("sub/.git")]
        );
        assert_eq!(walked.protected, [(ws.join(".husky"), Family::Hooks)]);
    }

    /// Repositories at every depth, submodules' git folders, linked worktrees, `.git` files and
    /// symlinks that point inside the workspace (and one that points outside), and the files
    /// editors run when the folder is opened.
    #[test]
    fn git_folders_and_opened_files_are_found_at_every_depth() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let mkdir = |p: &str| std::fs::create_dir_all(ws.join(p)).unwrap();
        let write = |p: &str, text: &str| {
            let path = ws.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // The workspace's own repository, with a submodule (with one of its own), a submodule
        // whose name has a slash, a linked worktree and attributes.
        mkdir(".git/hooks");
        write(".git/config", "[core]\n\tbare = false\n");
        write(".git/info/attributes", "*.bin filter=x\n");
        write(".git/worktrees/wt/config.worktree", "[core]\n");
        write(".git/worktrees/wt/commondir", "../..\n");
        write(".git/modules/sub/HEAD", "ref: refs/heads/main\n");
        write(
            ".git/modules/sub/config",
            "[core]\n\tworktree = ../../../sub\n",
        );
        mkdir(".git/modules/sub/hooks");
        write(
            ".git/modules/sub/modules/inner/HEAD",
            "ref: refs/heads/main\n",
        );
        mkdir(".git/modules/sub/modules/inner/hooks");
        write(".git/modules/libs/foo/HEAD", "ref: refs/heads/main\n");
        write(".git/modules/libs/foo/config", "[core]\n");
        write("sub/.git", "gitdir: ../.git/modules/sub\n");
        // A repository two levels down.
        mkdir("a/b/.git/hooks");
        write("a/b/.git/config", "[core]\n");
        // A `.git` file pointing into the workspace, whose config names a hooks folder.
        write("gitdirs/x/HEAD", "ref: refs/heads/main\n");
        write("gitdirs/x/config", "[core]\n\thooksPath = .hooks\n");
        mkdir("gitdirs/x/hooks");
        write("vendor/x/.git", "gitdir: ../../gitdirs/x\n");
        mkdir("vendor/x/.hooks");
        // A `.git` symlink into the workspace.
        mkdir("gitdirs/y/hooks");
        mkdir("linked");
        std::os::unix::fs::symlink(ws.join("gitdirs/y"), ws.join("linked/.git")).unwrap();
        // A `.git` file pointing outside: not the command's to write, and no error.
        std::fs::create_dir_all(outside.path().join("repo.git/hooks")).unwrap();
        write(
            "out/.git",
            &format!("gitdir: {}\n", outside.path().join("repo.git").display()),
        );
        write("broken/.git", "not a gitdir line\n");
        // A FIFO named `.git` is not read (it would block).
        mkdir("fifo");
        let _ = std::process::Command::new("mkfifo")
            .arg(ws.join("fifo/.git"))
            .status();
        // Files editors run when the folder is opened, at any depth; others are not kept.
        write(".envrc", "export X=1\n");
        write("deep/er/.vscode/tasks.json", "{}");
        write("deep/er/.vscode/launch.json", "{}");
        write("svc/.devcontainer/devcontainer.json", "{}");
        write("svc/.idea/workspace.xml", "<project/>");
        write(".vscode/settings.json", "{}");
        // Deeper than the walk goes.
        let deep = (1..=13)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("/");
        mkdir(&format!("{deep}/.git/hooks"));

        let walked = walk_workspace(&ws);
        let under = |list: &[&str]| -> Vec<PathBuf> {
            let mut paths: Vec<PathBuf> = list.iter().map(|p| ws.join(p)).collect();
            paths.sort();
            paths
        };
        // The submodule's git folder is inside the superproject's: one folder, staged whole.
        assert_eq!(
            walked.git,
            under(&[".git", "a/b/.git", "gitdirs/x", "gitdirs/y"])
        );
        assert_eq!(
            walked.read_only,
            under(&[
                ".envrc",
                ".vscode",
                "broken/.git",
                "deep/er/.vscode",
                "out/.git",
                "sub/.git",
                "svc/.devcontainer",
                "svc/.idea",
                "vendor/x/.git",
                "vendor/x/.hooks",
            ])
        );
        assert_eq!(
            walked.markers,
            under(&[
                ".envrc",
                ".git",
                ".vscode",
                "a/b/.git",
                "broken/.git",
                "deep/er/.vscode",
                "fifo/.git",
                "linked/.git",
                "out/.git",
                "sub/.git",
                "svc/.devcontainer",
                "svc/.idea",
                "vendor/x/.git",
            ])
        );
    }
}
