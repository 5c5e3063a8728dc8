//! What no writer may change, in one place (F-46; SECURITY.md, "Writes that something runs
//! later"): the paths in a workspace that something runs later, outside any sandbox — git when
//! the user types `git status`, a hook manager on the next commit, an editor when the folder is
//! opened, a shell or a desktop session when it starts, another coding agent. The file tools
//! refuse them ([`crate::writes::refuses_write`]), a sandboxed command and a sandboxed MCP server see them
//! read-only and have what they create of them held ([`crate::paths::walk_workspace`] reads its
//! markers here), and a task's plan cannot widen any of it: every writer asks this module, so a
//! writer added later is covered by asking it too.
//!
//! A path is protected by what it is named (a `.git`, a `.vscode`, a `.bashrc` at any depth) and
//! by what it is: a bare repository, the folder a `.git` file names, a `core.hooksPath` folder,
//! the folder a protected name links to. Both the path as written and the path it really leads
//! to are read.

use std::path::{Component, Path};

/// The kinds of path something runs later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Git's own folder and configuration: `.git` at any depth (a folder or a file), a bare
    /// repository, the folder a `.git` file names; `core.fsmonitor`, hooks and filters there run
    /// at the user's next `git status`.
    Git,
    /// Hook managers: husky's `.husky` (its `core.hooksPath`), lefthook's and pre-commit's
    /// configuration (their local hooks run any command), a `core.hooksPath` folder.
    Hooks,
    /// What editors and tools run by themselves when the folder is opened: VS Code's and
    /// JetBrains' folders, a dev container's definition, direnv's `.envrc`.
    OpenedByTools,
    /// Shell start-up files, read by every new shell.
    ShellStartup,
    /// What a desktop session starts or finds first on its `PATH`: autostart entries, user
    /// services, `~/.local/bin`, environment files.
    SessionStartup,
    /// Other coding agents' configuration and hooks (Claude Code, Cursor, MCP client files).
    AgentConfig,
}

impl Family {
    /// Every family, for tests generated over them.
    pub const ALL: [Family; 6] = [
        Family::Git,
        Family::Hooks,
        Family::OpenedByTools,
        Family::ShellStartup,
        Family::SessionStartup,
        Family::AgentConfig,
    ];

    /// What the family is, in the words a refusal uses.
    pub fn says(self) -> &'static str {
        match self {
            Family::Git => {
                "git's own folder (its configuration and hooks run at the next git command)"
            }
            Family::Hooks => {
                "a hook manager's scripts or configuration (they run at the next commit)"
            }
            Family::OpenedByTools => {
                "a file an editor or a tool runs by itself when the folder is opened"
            }
            Family::ShellStartup => "a shell start-up file (it runs in every new shell)",
            Family::SessionStartup => "what a desktop session starts or finds first on its PATH",
            Family::AgentConfig => "a coding agent's configuration or hooks",
        }
    }

    /// A path of this family, relative to a folder, for tests that write to each family.
    pub fn example(self) -> &'static str {
        match self {
            Family::Git => ".git/config",
            Family::Hooks => ".husky/pre-commit",
            Family::OpenedByTools => ".vscode/tasks.json",
            Family::ShellStartup => ".bashrc",
            Family::SessionStartup => ".config/autostart/run.desktop",
            Family::AgentConfig => ".claude/settings.json",
        }
    }
}

/// Folders protected whole wherever they are, by name.
pub const FOLDERS: &[(&str, Family)] = &[
    (".git", Family::Git),
    (".husky", Family::Hooks),
    (".lefthook", Family::Hooks),
    (".githooks", Family::Hooks),
    (".vscode", Family::OpenedByTools),
    (".idea", Family::OpenedByTools),
    (".devcontainer", Family::OpenedByTools),
    (".fleet", Family::OpenedByTools),
    (".zed", Family::OpenedByTools),
    (".claude", Family::AgentConfig),
    (".cursor", Family::AgentConfig),
    (".gemini", Family::AgentConfig),
];

/// Files protected wherever they are, by name.
pub const FILES: &[(&str, Family)] = &[
    ("lefthook.yml", Family::Hooks),
    ("lefthook.yaml", Family::Hooks),
    (".lefthook.yml", Family::Hooks),
    (".lefthook.yaml", Family::Hooks),
    ("lefthook-local.yml", Family::Hooks),
    ("lefthook-local.yaml", Family::Hooks),
    (".lefthook-local.yml", Family::Hooks),
    (".lefthook-local.yaml", Family::Hooks),
    (".pre-commit-config.yaml", Family::Hooks),
    (".pre-commit-config.yml", Family::Hooks),
    (".devcontainer.json", Family::OpenedByTools),
    (".envrc", Family::OpenedByTools),
    (".gitconfig", Family::Git),
    (".bashrc", Family::ShellStartup),
    (".bash_profile", Family::ShellStartup),
    (".bash_login", Family::ShellStartup),
    (".bash_logout", Family::ShellStartup),
    (".profile", Family::ShellStartup),
    (".zshrc", Family::ShellStartup),
    (".zprofile", Family::ShellStartup),
    (".zshenv", Family::ShellStartup),
    (".zlogin", Family::ShellStartup),
    (".zlogout", Family::ShellStartup),
    (".xprofile", Family::SessionStartup),
    (".xsession", Family::SessionStartup),
    (".xinitrc", Family::SessionStartup),
    (".pam_environment", Family::SessionStartup),
    (".mcp.json", Family::AgentConfig),
];

/// Folders protected whole wherever they are, by their last two names.
pub const NESTED: &[(&str, &str, Family)] = &[
    (".config", "autostart", Family::SessionStartup),
    (".config", "systemd", Family::SessionStartup),
    (".config", "environment.d", Family::SessionStartup),
    (".config", "fish", Family::ShellStartup),
    (".config", "git", Family::Git),
    (".local", "bin", Family::SessionStartup),
];

/// The family of `rel` (a path relative to the folder it is in, as written or as it really
/// leads) by its names, or `None`: a protected folder anywhere on it, or a protected file name
/// at its end.
pub fn family_of(rel: &Path) -> Option<Family> {
    let names: Vec<&str> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => n.to_str(),
            _ => None,
        })
        .collect();
    for (i, name) in names.iter().enumerate() {
        if let Some((_, family)) = FOLDERS.iter().find(|(f, _)| f == name) {
            return Some(*family);
        }
        if let Some(next) = names.get(i + 1) {
            if let Some((_, _, family)) = NESTED.iter().find(|(a, b, _)| a == name && b == next) {
                return Some(*family);
            }
        }
    }
    let last = names.last()?;
    FILES
        .iter()
        .find(|(f, _)| f == last)
        .map(|(_, family)| *family)
}

/// The family of an entry found by its name alone (a walk's entry `name` in a folder whose own
/// name is `parent`): what the walk keeps read-only when it exists and holds when a command
/// creates it.
pub fn family_of_entry(parent: Option<&str>, name: &str) -> Option<Family> {
    FOLDERS
        .iter()
        .chain(FILES)
        .find(|(n, _)| *n == name)
        .map(|(_, family)| *family)
        .or_else(|| {
            NESTED
                .iter()
                .find(|(a, b, _)| Some(*a) == parent && *b == name)
                .map(|(_, _, family)| *family)
        })
}

/// The protected folders under a folder named `name` ([`NESTED`]: `autostart` under `.config`).
pub fn nested_under(name: &str) -> Vec<(&'static str, Family)> {
    NESTED
        .iter()
        .filter(|(a, _, _)| *a == name)
        .map(|(_, b, family)| (*b, *family))
        .collect()
}

/// Whether the folder `dir` is a git repository's own folder by what it holds (`HEAD`,
/// `objects`, `refs`), whatever it is named: a bare repository (`git init --bare tools`) is
/// read by git from a working tree that names it as surely as a `.git` folder.
pub fn is_git_folder(dir: &Path) -> bool {
    let file = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file());
    let folder = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_dir());
    file("HEAD") && folder("objects") && folder("refs")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn each_family_is_read_from_its_names_at_any_depth() {
        for family in Family::ALL {
            let example = Path::new(family.example());
            assert_eq!(family_of(example), Some(family), "{example:?}");
            assert_eq!(
                family_of(&Path::new("deep/er").join(example)),
                Some(family),
                "{example:?} deeper"
            );
        }
        for (path, family) in [
            (".git", Family::Git),
            ("sub/.git/hooks/pre-commit", Family::Git),
            ("app/.idea/workspace.xml", Family::OpenedByTools),
            (".devcontainer/app/devcontainer.json", Family::OpenedByTools),
            (".devcontainer.json", Family::OpenedByTools),
            ("lefthook.yml", Family::Hooks),
            (".pre-commit-config.yaml", Family::Hooks),
            ("home/.local/bin/ls", Family::SessionStartup),
            (".config/systemd/user/x.service", Family::SessionStartup),
            (".config/git/config", Family::Git),
            (".mcp.json", Family::AgentConfig),
        ] {
            assert_eq!(family_of(Path::new(path)), Some(family), "{path}");
        }
        for ordinary in [
            "src/main.rs",
            "docs/git/intro.md",
            ".github/workflows/ci.yml",
            "gitconfig.md",
            ".gitignore",
            "bin/ls",
            "config/autostart",
            "notes/.bashrc.md",
        ] {
            assert_eq!(family_of(Path::new(ordinary)), None, "{ordinary}");
        }
    }
}
