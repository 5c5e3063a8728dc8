//! A workspace's git folders as a sandboxed command sees them: a copy that only git's data comes
//! back from (docs/ARCHITECTURE.md, "The sandbox"; SECURITY.md, "git reads more than hooks").
//!
//! git reads far more of its folder than objects and refs: `config` (`core.fsmonitor`,
//! `core.sshCommand`, filters, aliases), `hooks/`, `commondir` (which names another folder to
//! take all of that from), `info/attributes`, a worktree's `config.worktree`, a submodule's
//! folder under `modules/`. Any of them, written by a command, runs code the next time the user
//! (or an editor) runs `git status` — outside the sandbox. A list of those names is always one
//! short. So the construction is the other way round: each git folder is shown to the command
//! as a copy of itself (its object stores bound in directly: they are data, and large), and when
//! the command has ended only the paths git writes as data when it commits, fetches or checks
//! out ([`GIT_DATA_DIRS`], [`GIT_DATA_FILES`]) are copied back. Everything else the command wrote
//! there is left out and reported, whatever its name.
//!
//! Without namespaces nothing can be shown in a folder's place, and Landlock cannot keep a
//! folder read-only without stopping new files beside it: the command then writes the real
//! folder, and when it has ended whatever it changed there that is not git's data is undone
//! from a copy taken before ([`GitShown::Undone`]). Between the two, a `git status` run by
//! someone else would read it (SECURITY.md, known limits).

use crate::git_steering::{named, Settled, Steering};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The folders in a git folder (or a submodule's, or a linked worktree's) that hold only data
/// git writes as it commits, fetches, merges, rebases or checks out.
pub const GIT_DATA_DIRS: &[&str] = &[
    "objects",
    "refs",
    "logs",
    "lfs",
    "rebase-merge",
    "rebase-apply",
    "sequencer",
    "rr-cache",
];

/// The files in a git folder (or a submodule's, or a linked worktree's) that hold only data git
/// writes as it commits, fetches, merges, rebases or checks out.
pub const GIT_DATA_FILES: &[&str] = &[
    "index",
    "HEAD",
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "MERGE_MSG",
    "MERGE_MODE",
    "MERGE_AUTOSTASH",
    "AUTO_MERGE",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
    "COMMIT_EDITMSG",
    "SQUASH_MSG",
    "TAG_EDITMSG",
    "packed-refs",
    "shallow",
    "description",
    "gc.log",
    "info/exclude",
    "info/sparse-checkout",
];

/// The data folders bound into the copy as they are rather than copied: object stores, which
/// can be gigabytes and are never read as settings.
const OBJECT_STORES: &[&str] = &["objects", "lfs"];

/// How many bytes of a git folder (object stores left out) are copied at most; a larger one
/// is shown read-only but for its data folders, as without namespaces.
const STAGE_LIMIT: u64 = 256 << 20;

/// Whether `rel`, a path relative to a git folder that holds the git roots `roots` (itself,
/// `""`, and its submodules' and worktrees' folders), is data git writes
/// ([`GIT_DATA_DIRS`], [`GIT_DATA_FILES`]) in the deepest root it is in.
pub fn is_git_data(rel: &Path, roots: &[PathBuf]) -> bool {
    let root = roots
        .iter()
        .filter(|r| rel.starts_with(r))
        .max_by_key(|r| r.components().count());
    let Some(inner) = root.and_then(|r| rel.strip_prefix(r).ok()) else {
        return false;
    };
    let mut parts = inner.components();
    let first = match parts.next() {
        Some(Component::Normal(first)) => first,
        _ => return false,
    };
    if GIT_DATA_DIRS.iter().any(|d| first == *d) && parts.next().is_some() {
        return true;
    }
    let slashed = inner.to_string_lossy().replace('\\', "/");
    GIT_DATA_FILES.contains(&slashed.as_str())
}

/// One git folder of the workspace as the sandbox shows it (carried to the supervisor in the
/// sandbox's settings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitFolder {
    /// The git folder in the workspace.
    pub real: PathBuf,
    pub shown: GitShown,
}

/// How a git folder is shown to a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum GitShown {
    /// A copy in its place (namespaces), with its object stores (relative) bound in as they are.
    Copy {
        stage: PathBuf,
        stores: Vec<PathBuf>,
    },
    /// Read-only but for its data folders (relative): namespaces, and a folder larger than the
    /// sandbox copies. A commit then asks to run outside the sandbox.
    ReadOnly { data: Vec<PathBuf> },
    /// As it is (no namespaces): what the command changed that is not data is undone after it.
    Undone,
}

/// The git roots in the git folder `git`, relative to it: itself (`""`), its submodules' git
/// folders under `modules/` (at any depth, names with slashes) and its linked worktrees'
/// folders under `worktrees/`.
pub fn git_roots(git: &Path) -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::new()];
    modules(git, Path::new("modules"), 0, &mut roots);
    for worktree in subfolders(&git.join("worktrees")) {
        if let Some(name) = worktree.file_name() {
            roots.push(Path::new("worktrees").join(name));
        }
    }
    roots
}

fn modules(git: &Path, rel: &Path, depth: usize, roots: &mut Vec<PathBuf>) {
    if depth > 12 {
        return;
    }
    for folder in subfolders(&git.join(rel)) {
        let Some(name) = folder.file_name() else {
            continue;
        };
        let here = rel.join(name);
        if std::fs::symlink_metadata(folder.join("HEAD")).is_ok() {
            modules(git, &here.join("modules"), depth + 1, roots);
            roots.push(here);
        } else {
            modules(git, &here, depth + 1, roots);
        }
    }
}

/// The folders in `dir` (not symlinks to folders); none when it cannot be read.
fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// A file's identity and state: changed when it was written, replaced or its mode changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    ino: u64,
    ctime: (i64, i64),
    mtime: (i64, i64),
    link: bool,
}

#[cfg(unix)]
fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    (meta.is_file() || meta.file_type().is_symlink()).then(|| Stamp {
        len: meta.len(),
        ino: meta.ino(),
        ctime: (meta.ctime(), meta.ctime_nsec()),
        mtime: (meta.mtime(), meta.mtime_nsec()),
        link: meta.file_type().is_symlink(),
    })
}

#[cfg(not(unix))]
fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    (meta.is_file() || meta.file_type().is_symlink()).then(|| Stamp {
        len: meta.len(),
        ino: 0,
        ctime: (0, 0),
        mtime: meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or((0, 0), |d| {
                (d.as_secs() as i64, i64::from(d.subsec_nanos()))
            }),
        link: meta.file_type().is_symlink(),
    })
}

/// The files and symlinks under `root` (relative), leaving out the folders `skip`.
fn stamps(root: &Path, skip: &[PathBuf]) -> BTreeMap<PathBuf, Stamp> {
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let here = rel.join(entry.file_name());
            if skip.contains(&here) {
                continue;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(here),
                Ok(_) => {
                    if let Some(s) = stamp(&entry.path()) {
                        out.insert(here, s);
                    }
                }
                Err(_) => {}
            }
        }
    }
    out
}

/// Copies `from` to `to` (a new folder): folders, files and symlinks as they are, leaving out
/// the folders `skip` (made empty, as mount points) and anything else (sockets, FIFOs). Fails
/// once more than `budget` bytes would be copied.
fn copy_tree(from: &Path, to: &Path, skip: &[PathBuf], budget: &mut u64) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(from.join(&rel))?.flatten() {
            let here = rel.join(entry.file_name());
            let (src, dst) = (from.join(&here), to.join(&here));
            let kind = entry.file_type()?;
            if kind.is_dir() {
                std::fs::create_dir(&dst)?;
                if !skip.contains(&here) {
                    stack.push(here);
                }
            } else if kind.is_file() {
                let len = entry.metadata()?.len();
                *budget = budget.checked_sub(len).ok_or_else(|| {
                    std::io::Error::other("the git folder is larger than the sandbox copies")
                })?;
                std::fs::copy(&src, &dst)?;
            } else if kind.is_symlink() {
                copy_link(&src, &dst)?;
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn copy_link(src: &Path, dst: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(std::fs::read_link(src)?, dst)
}

#[cfg(not(unix))]
fn copy_link(_src: &Path, _dst: &Path) -> std::io::Result<()> {
    Ok(())
}

/// One git folder prepared for a run, with what it held when the command started.
#[derive(Debug)]
struct Staged {
    folder: GitFolder,
    roots: Vec<PathBuf>,
    /// The folders left out of the comparison (bound in, or data).
    skip: Vec<PathBuf>,
    /// [`GitShown::Copy`]: the copy's files when the command started; [`GitShown::Undone`]:
    /// the real folder's files then, but for its data folders.
    staged_before: BTreeMap<PathBuf, Stamp>,
    /// [`GitShown::Copy`]: the real folder's files when the command started (to notice a
    /// change made meanwhile outside the sandbox, which the command's copy must not overwrite).
    real_before: BTreeMap<PathBuf, Stamp>,
    /// [`GitShown::Undone`]: the copy to undo from (none when it could not be made).
    backup: Option<PathBuf>,
    /// What the folder's data told git to do later when the command started.
    steering: Steering,
}

/// The workspace's git folders prepared for one run ([`GitStaging::prepare`]) and settled after
/// it ([`GitStaging::settle`]). The copies live in a temp folder of their own, removed when
/// this is dropped.
#[derive(Debug)]
pub struct GitStaging {
    folders: Vec<Staged>,
    _dir: Option<tempfile::TempDir>,
}

impl GitStaging {
    /// Prepares the git folders `git` for a run: with `namespaces`, each is copied (object
    /// stores left out) to be shown in its place, or shown read-only when it is larger than the
    /// sandbox copies; without, its settings are copied to undo the command's changes from.
    pub fn prepare(git: &[PathBuf], namespaces: bool) -> std::io::Result<Self> {
        let dir = if git.is_empty() {
            None
        } else {
            Some(tempfile::Builder::new().prefix("tollgate-git-").tempdir()?)
        };
        let mut folders = Vec::with_capacity(git.len());
        for (i, real) in git.iter().enumerate() {
            let roots = git_roots(real);
            let under = |names: &'static [&'static str]| -> Vec<PathBuf> {
                roots
                    .iter()
                    .flat_map(|r| names.iter().map(move |n| r.join(n)))
                    .filter(|p| real.join(p).is_dir())
                    .collect()
            };
            let (stores, data) = (under(OBJECT_STORES), under(GIT_DATA_DIRS));
            let copy = |skip: &[PathBuf]| -> Option<PathBuf> {
                let to = dir.as_ref()?.path().join(i.to_string());
                let mut budget = STAGE_LIMIT;
                match copy_tree(real, &to, skip, &mut budget) {
                    Ok(()) => Some(to),
                    Err(e) => {
                        tracing::debug!("sandbox: {} was not copied ({e})", real.display());
                        let _ = std::fs::remove_dir_all(&to);
                        None
                    }
                }
            };
            let staged = if namespaces {
                match copy(&stores) {
                    Some(stage) => Staged {
                        staged_before: stamps(&stage, &stores),
                        real_before: stamps(real, &stores),
                        folder: GitFolder {
                            real: real.clone(),
                            shown: GitShown::Copy {
                                stage,
                                stores: stores.clone(),
                            },
                        },
                        skip: stores,
                        steering: Steering::read(real, &roots),
                        roots,
                        backup: None,
                    },
                    None => Staged {
                        folder: GitFolder {
                            real: real.clone(),
                            shown: GitShown::ReadOnly { data: data.clone() },
                        },
                        skip: data,
                        steering: Steering::read(real, &roots),
                        roots,
                        staged_before: BTreeMap::new(),
                        real_before: BTreeMap::new(),
                        backup: None,
                    },
                }
            } else {
                Staged {
                    backup: copy(&data),
                    staged_before: stamps(real, &data),
                    real_before: BTreeMap::new(),
                    folder: GitFolder {
                        real: real.clone(),
                        shown: GitShown::Undone,
                    },
                    skip: data,
                    steering: Steering::read(real, &roots),
                    roots,
                }
            };
            folders.push(staged);
        }
        Ok(Self { folders, _dir: dir })
    }

    /// The folders as the sandbox's settings carry them.
    pub fn folders(&self) -> Vec<GitFolder> {
        self.folders.iter().map(|s| s.folder.clone()).collect()
    }

    /// After the command has ended: copies back what it wrote in each copy that is git's data,
    /// or undoes what it wrote in a real folder that is not, and says what that was ("writing
    /// config, commondir in git's folder …"), and what it would have overwritten that changed
    /// outside meanwhile. One line per folder and kind, for the run's report.
    pub fn settle(self) -> Vec<String> {
        let mut lines = Vec::new();
        for staged in &self.folders {
            match &staged.folder.shown {
                GitShown::Copy { stage, .. } => lines.extend(settle_copy(staged, stage)),
                GitShown::Undone => lines.extend(undo(staged)),
                GitShown::ReadOnly { .. } => {}
            }
        }
        lines
    }
}

fn settle_copy(staged: &Staged, stage: &Path) -> Vec<String> {
    let real = &staged.folder.real;
    let after = stamps(stage, &staged.skip);
    let mut refused: Vec<PathBuf> = Vec::new();
    let mut clashed: Vec<PathBuf> = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    let mut held_lines: Vec<String> = Vec::new();
    let lock = |p: &Path| p.extension().is_some_and(|e| e == "lock");
    let real_unchanged =
        |rel: &Path| stamp(&real.join(rel)) == staged.real_before.get(rel).copied();
    for (rel, now) in &after {
        if staged.staged_before.get(rel) == Some(now) || lock(rel) {
            continue;
        }
        if now.link || !is_git_data(rel, &staged.roots) {
            refused.push(rel.clone());
        } else if !real_unchanged(rel) {
            clashed.push(rel.clone());
        } else {
            let result = match steered(staged, &stage.join(rel), rel) {
                Settled::AsItIs => copy_in(&stage.join(rel), &real.join(rel)),
                Settled::Rewritten { text, held } => {
                    held_lines.push(held_line(real, rel, &held));
                    write_in(&text, &real.join(rel))
                }
                Settled::Refused { reason } => {
                    held_lines.push(refused_line(real, rel, &reason));
                    Ok(())
                }
            };
            if let Err(e) = result {
                failed.push(format!("{}: {e}", rel.display()));
            }
        }
    }
    for rel in staged.staged_before.keys() {
        if after.contains_key(rel) || lock(rel) {
            continue;
        }
        if !is_git_data(rel, &staged.roots) {
            refused.push(rel.clone());
        } else if !real_unchanged(rel) {
            clashed.push(rel.clone());
        } else if let Err(e) = std::fs::remove_file(real.join(rel)) {
            if e.kind() != std::io::ErrorKind::NotFound {
                failed.push(format!("removing {}: {e}", rel.display()));
            }
        }
    }
    let shown = real.display();
    let mut lines = Vec::new();
    if !refused.is_empty() {
        refused.sort();
        lines.push(format!(
            "writing {} in git's folder {shown} (only git's data — objects, refs, logs, the index, HEAD — comes back from a sandboxed command: git runs its configuration, hooks and links outside the sandbox; nothing else was kept)",
            named(&refused)
        ));
    }
    lines.extend(held_lines);
    if !clashed.is_empty() {
        lines.push(format!(
            "git's folder {shown} changed outside the sandbox while the command ran: its own version of {} was kept",
            named(&clashed)
        ));
    }
    if !failed.is_empty() {
        lines.push(format!(
            "copying git's data back to {shown} failed: {}",
            failed.join("; ")
        ));
    }
    lines
}

/// Undoes what the command changed in the real git folder that is not git's data: a file it
/// made is removed, one it changed or removed is put back from the copy taken before.
fn undo(staged: &Staged) -> Vec<String> {
    let mut lines = undo_settings(staged);
    lines.extend(undo_steering(staged));
    lines
}

/// Undoes what the command changed in the real git folder that is not git's data.
fn undo_settings(staged: &Staged) -> Vec<String> {
    let real = &staged.folder.real;
    let after = stamps(real, &staged.skip);
    let mut changed: Vec<PathBuf> = after
        .iter()
        .filter(|(rel, now)| staged.staged_before.get(*rel) != Some(now))
        .map(|(rel, _)| rel.clone())
        .chain(
            staged
                .staged_before
                .keys()
                .filter(|rel| !after.contains_key(*rel))
                .cloned(),
        )
        .filter(|rel| !is_git_data(rel, &staged.roots))
        .collect();
    if changed.is_empty() {
        return Vec::new();
    }
    changed.sort();
    let mut failed = Vec::new();
    for rel in &changed {
        let target = real.join(rel);
        let before = staged.backup.as_ref().map(|b| b.join(rel));
        let result = match before.filter(|b| stamp(b).is_some()) {
            Some(before) => copy_in(&before, &target),
            None => match std::fs::remove_file(&target) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        if let Err(e) = result {
            failed.push(format!("{}: {e}", rel.display()));
        }
    }
    let mut lines = vec![format!(
        "writing {} in git's folder {} (only git's data — objects, refs, logs, the index, HEAD — is kept from a sandboxed command: git runs its configuration, hooks and links outside the sandbox; the rest was undone)",
        named(&changed),
        real.display()
    )];
    if !failed.is_empty() {
        lines.push(format!(
            "undoing the command's changes in git's folder {} failed: {}",
            real.display(),
            failed.join("; ")
        ));
    }
    lines
}

/// Settles the data that steers git ([`Steering`]) that the command changed in the real git
/// folder: a to-do list loses its new instructions, an index that newly hides a file is put
/// back as it was (or removed, when there was none), a strategy file naming a program likewise.
fn undo_steering(staged: &Staged) -> Vec<String> {
    let real = &staged.folder.real;
    let mut lines = Vec::new();
    let watched = staged
        .roots
        .iter()
        .flat_map(|root| Steering::watched().map(move |name| root.join(name)));
    for rel in watched {
        let path = real.join(&rel);
        let now = stamp(&path);
        // Gone, or (the index: stamped before, outside the data folders) untouched: nothing to
        // read.
        if now.is_none() || staged.staged_before.get(&rel) == now.as_ref() {
            continue;
        }
        let result = match steered(staged, &path, &rel) {
            Settled::AsItIs => Ok(()),
            Settled::Rewritten { text, held } => {
                lines.push(held_line(real, &rel, &held));
                write_in(&text, &path)
            }
            Settled::Refused { reason } => {
                lines.push(refused_line(real, &rel, &reason));
                let backup = staged.backup.as_ref().map(|b| b.join(&rel));
                match (
                    staged.steering.list_before(&rel),
                    backup.filter(|b| stamp(b).is_some()),
                ) {
                    (Some(bytes), _) => write_in(bytes, &path),
                    (None, Some(backup)) => copy_in(&backup, &path),
                    (None, None) => std::fs::remove_file(&path),
                }
            }
        };
        if let Err(e) = result {
            lines.push(format!(
                "undoing {} in git's folder {} failed: {e}",
                rel.display(),
                real.display()
            ));
        }
    }
    lines
}

/// What [`Steering`] says of the file at `path` (`rel` in its git folder) as the command left
/// it; a file that cannot be read is refused.
fn steered(staged: &Staged, path: &Path, rel: &Path) -> Settled {
    if !Steering::watches(rel, &staged.roots) {
        return Settled::AsItIs;
    }
    match std::fs::read(path) {
        Ok(now) => staged.steering.settle_file(rel, &now),
        Err(e) => Settled::Refused {
            reason: format!("it could not be read ({e})"),
        },
    }
}

fn held_line(real: &Path, rel: &Path, held: &[String]) -> String {
    format!(
        "{} in git's folder {}: {} held as a comment (a sandboxed command added it; git would run it at the next `--continue`)",
        rel.display(),
        real.display(),
        held.join("; ")
    )
}

fn refused_line(real: &Path, rel: &Path, reason: &str) -> String {
    format!(
        "{} in git's folder {} was not kept: {reason}",
        rel.display(),
        real.display()
    )
}

/// Puts the bytes `text` at `to` in one step, as [`copy_in`] does.
fn write_in(text: &[u8], to: &Path) -> std::io::Result<()> {
    put_in(to, |temp| std::fs::write(temp, text))
}

/// Puts the file `from` at `to` in one step (a temp file beside it, then a rename), making the
/// folders on the way: a reader of the real folder sees the old file or the new, never half.
fn copy_in(from: &Path, to: &Path) -> std::io::Result<()> {
    put_in(to, |temp| std::fs::copy(from, temp).map(|_| ()))
}

/// Makes the file `to` by `make` writing a temp file beside it, then a rename.
fn put_in(to: &Path, make: impl FnOnce(&Path) -> std::io::Result<()>) -> std::io::Result<()> {
    let parent = to
        .parent()
        .ok_or_else(|| std::io::Error::other("no folder"))?;
    std::fs::create_dir_all(parent)?;
    let name = to
        .file_name()
        .ok_or_else(|| std::io::Error::other("no file name"))?;
    let mut temp_name = std::ffi::OsString::from(".tollgate-");
    temp_name.push(name);
    let temp = parent.join(temp_name);
    make(&temp)?;
    std::fs::rename(&temp, to).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

#[cfg(test)]
#[path = "git_stage_tests.rs"]
mod tests;
