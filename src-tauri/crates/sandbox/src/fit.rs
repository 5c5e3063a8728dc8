//! Which folders may be a chat's workspace, or a folder a sandboxed MCP server writes (F-46;
//! SECURITY.md, "Writes that something runs later"). A folder is refused when writing in it
//! changes what the user's session runs outside any sandbox: the home folder and the folders
//! above it, any dot-folder of the home (`~/.config`, `~/.local`, `~/.ssh`, …), and a folder
//! the user's session reaches into — a start-up file or a program on `PATH` that is a symlink
//! into it (GNU stow), a file the shell's start-up files source from it, a git configuration
//! file `~/.gitconfig` includes from it.

use std::path::{Path, PathBuf};

/// Why `folder` cannot be written by a chat or a server, or `None` when it can, for the user
/// whose home is `$HOME`.
pub fn unfit_workspace(folder: &Path) -> Option<String> {
    let home = std::env::home_dir()?;
    unfit_under(folder, &home)
}

/// [`unfit_workspace`] for the home folder `home`.
pub fn unfit_under(folder: &Path, home: &Path) -> Option<String> {
    let (ws, real_home) = (real(folder), real(home));
    let shown = folder.display();
    if holds_home(folder, home) {
        return Some(format!(
            "{shown} holds your home folder ({}): a command could change your shell's startup files, your SSH keys or what starts with your session. Choose a project folder inside it instead",
            home.display()
        ));
    }
    if let Ok(inside) = ws.strip_prefix(&real_home) {
        if let Some(dot) = inside
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .filter(|c| c.starts_with('.'))
        {
            return Some(format!(
                "{shown} is inside ~/{dot}, where your session keeps what it runs and trusts (settings, start-up entries, programs, keys). Choose a project folder outside your home's dot-folders"
            ));
        }
    }
    if let Some(link) = links_into(&real_home, &ws) {
        return Some(format!(
            "your {} links into {shown}: what a command writes there would run with your session. Choose a folder your home does not link into",
            tilde(&link, &real_home)
        ));
    }
    if let Some((file, named)) = sourced_from(&real_home, &ws) {
        return Some(format!(
            "your {} reads {} from {shown}: what a command writes there would run in your next shell or git command. Choose another folder",
            tilde(&file, &real_home),
            tilde(&named, &real_home)
        ));
    }
    None
}

/// Whether the folder `workspace` is the home folder `home` or holds it (`/home`, `/`), both
/// taken where they really are.
pub fn holds_home(workspace: &Path, home: &Path) -> bool {
    real(home).starts_with(real(workspace))
}

fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn tilde(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

/// The folders whose entries the session runs or reads at start: the home itself (`.bashrc`,
/// `.gitconfig`, `.profile`), its configuration and its programs.
const LINKED_FOLDERS: &[&str] = &[
    "",
    ".config",
    ".config/autostart",
    ".config/systemd/user",
    ".config/environment.d",
    ".config/fish",
    ".config/git",
    ".local/bin",
];

/// A symlink among the session's start-up entries ([`LINKED_FOLDERS`]) that leads into `ws`.
fn links_into(home: &Path, ws: &Path) -> Option<PathBuf> {
    for folder in LINKED_FOLDERS {
        let dir = home.join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten().take(10_000) {
            let path = entry.path();
            if !entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            if std::fs::canonicalize(&path).is_ok_and(|target| target.starts_with(ws)) {
                return Some(path);
            }
        }
    }
    None
}

/// The shell start-up files whose `source` and `.` lines are read.
const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish/config.fish",
];

/// The git configuration files whose `include` and `includeIf` paths are read.
const GIT_CONFIGS: &[&str] = &[".gitconfig", ".config/git/config"];

/// A start-up file that reads a file from inside `ws`, and the file it names.
fn sourced_from(home: &Path, ws: &Path) -> Option<(PathBuf, PathBuf)> {
    let read = |rel: &str| -> Option<(PathBuf, String)> {
        let path = home.join(rel);
        let meta = std::fs::metadata(&path).ok()?;
        (meta.is_file() && meta.len() <= 1 << 20)
            .then(|| std::fs::read_to_string(&path).ok())
            .flatten()
            .map(|text| (path, text))
    };
    let inside = |named: &Path| real(named).starts_with(ws) || named.starts_with(ws);
    for rel in STARTUP_FILES {
        let Some((file, text)) = read(rel) else {
            continue;
        };
        for named in sourced(&text, home) {
            if inside(&named) {
                return Some((file, named));
            }
        }
    }
    for rel in GIT_CONFIGS {
        let Some((file, text)) = read(rel) else {
            continue;
        };
        let dir = file.parent().unwrap_or(home).to_path_buf();
        for named in included(&text, home, &dir) {
            if inside(&named) {
                return Some((file, named));
            }
        }
    }
    None
}

/// `~/…` and `$HOME/…` as paths under `home`; other paths as written.
fn expand(word: &str, home: &Path) -> PathBuf {
    let word = word.trim_matches(|c| c == '"' || c == '\'');
    for prefix in ["~/", "$HOME/", "${HOME}/"] {
        if let Some(rest) = word.strip_prefix(prefix) {
            return home.join(rest);
        }
    }
    PathBuf::from(word)
}

/// The files a shell start-up file sources (`source FILE`, `. FILE`), as absolute paths.
fn sourced(text: &str, home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for line in text.lines() {
        // Each command of the line (`[ -f x ] && . x`, `if …; then source x; fi`).
        for command in line.split(['&', ';', '|']) {
            let mut words = command.split_whitespace();
            let Some(first) = words.next() else { continue };
            let first = if first == "then" || first == "do" {
                words.next().unwrap_or_default()
            } else {
                first
            };
            if first == "." || first == "source" {
                if let Some(file) = words.next() {
                    let path = expand(file, home);
                    if path.is_absolute() {
                        out.push(path);
                    }
                }
            }
        }
    }
    out
}

/// The files a git configuration includes (`[include]` or `[includeIf …]`, `path = FILE`),
/// relative ones taken from the folder of the file that names them.
fn included(text: &str, home: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut in_include = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_include = line.to_ascii_lowercase().starts_with("[include");
            continue;
        }
        if !in_include {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            if key.trim().eq_ignore_ascii_case("path") {
                let path = expand(value.trim(), home);
                out.push(if path.is_absolute() {
                    path
                } else {
                    dir.join(path)
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_home_folder_and_the_folders_above_it_are_no_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home/ann");
        std::fs::create_dir_all(home.join("src/app")).unwrap();
        std::os::unix::fs::symlink(&home, root.join("ann-link")).unwrap();
        for holds in [
            home.clone(),
            root.join("home"),
            root.clone(),
            root.join("ann-link"),
            PathBuf::from("/"),
        ] {
            assert!(holds_home(&holds, &home), "{holds:?}");
        }
        assert!(holds_home(&home, &root.join("ann-link")));
        for fine in [
            home.join("src"),
            home.join("src/app"),
            root.join("home/bob"),
        ] {
            assert!(!holds_home(&fine, &home), "{fine:?}");
        }
    }

    /// Each way a folder can hold what the session runs, each refused with its reason; an
    /// ordinary project folder beside them is accepted.
    #[test]
    fn a_folder_the_session_runs_from_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap().join("ann");
        let mk = |p: &str| std::fs::create_dir_all(home.join(p)).unwrap();
        for p in [
            ".config/autostart",
            ".local/bin",
            ".ssh",
            "dotfiles/bash",
            "work/acme",
            "envs",
            "src/app",
            "gitinc",
        ] {
            mk(p);
        }
        // GNU stow: ~/.bashrc is a link into ~/dotfiles.
        std::fs::write(home.join("dotfiles/bash/.bashrc"), "# mine\n").unwrap();
        std::os::unix::fs::symlink(home.join("dotfiles/bash/.bashrc"), home.join(".bashrc"))
            .unwrap();
        // ~/.profile sources a file from ~/envs; ~/.gitconfig includes one from ~/work.
        std::fs::write(
            home.join(".profile"),
            "export X=1\n[ -f \"$HOME/envs/env.sh\" ] && . \"$HOME/envs/env.sh\"\n",
        )
        .unwrap();
        std::fs::write(
            home.join(".gitconfig"),
            "[user]\n\tname = Ann\n[includeIf \"gitdir:~/work/\"]\n\tpath = ~/work/acme/.gitconfig-work\n[include]\n\tpath = gitinc/extra\n",
        )
        .unwrap();
        for (folder, says) in [
            (home.join(".config"), "inside ~/.config"),
            (home.join(".config/autostart"), "inside ~/.config"),
            (home.join(".local/bin"), "inside ~/.local"),
            (home.join(".ssh"), "inside ~/.ssh"),
            (home.join("dotfiles"), "~/.bashrc links into"),
            (home.join("dotfiles/bash"), "~/.bashrc links into"),
            (home.join("envs"), "~/.profile reads ~/envs/env.sh"),
            (
                home.join("work/acme"),
                "~/.gitconfig reads ~/work/acme/.gitconfig-work",
            ),
            (home.join("work"), "~/.gitconfig reads"),
            (home.join("gitinc"), "~/.gitconfig reads ~/gitinc/extra"),
            (home.clone(), "holds your home folder"),
        ] {
            let why = unfit_under(&folder, &home).unwrap_or_else(|| panic!("{folder:?} accepted"));
            assert!(why.contains(says), "{folder:?}: {why}");
        }
        assert_eq!(unfit_under(&home.join("src/app"), &home), None);
        assert_eq!(unfit_under(&home.join("src"), &home), None);
    }
}
