//! Mounts only onto what the walk saw (F-46; SECURITY.md, "The sandbox's own parts"). bubblewrap
//! before 0.12.0 (CVE-2026-87766) follows a symlink under the new root while it creates mount
//! points, so a link planted where a mount goes would lead a write outside the sandbox before the
//! command starts. Every path the sandbox mounts onto inside the workspace — the folders it pins,
//! git's folders, the read-only paths — was seen by the walk as a real folder or file; right
//! before bubblewrap starts, each is read again, one component at a time below the workspace, and
//! a link anywhere on the way stops the command instead of being mounted onto.

use std::path::{Path, PathBuf};

/// The first path under `workspace` among `destinations` that is, or passes through, a symbolic
/// link now (a folder or a file replaced since the walk), if any. Paths outside the workspace
/// (hidden folders, Tollgate's own binary) are the user's and the system's, not a command's.
pub fn replaced_by_a_link(workspace: &Path, destinations: &[&Path]) -> Option<PathBuf> {
    for destination in destinations {
        let Ok(below) = destination.strip_prefix(workspace) else {
            continue;
        };
        let mut at = workspace.to_path_buf();
        for part in below.components() {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(meta) if meta.file_type().is_symlink() => return Some(at),
                Ok(_) => {}
                // Not there: bubblewrap makes it under folders just seen to be no links.
                Err(_) => break,
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_link_planted_where_a_mount_goes_is_found_on_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join("app/.vscode")).unwrap();
        std::fs::create_dir_all(ws.join("lib")).unwrap();
        let kept = ws.join("app/.vscode");
        assert_eq!(replaced_by_a_link(&ws, &[kept.as_path()]), None);
        // `app` swapped for a link out of the workspace after the walk.
        std::fs::rename(ws.join("app"), ws.join("app-moved")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.join("app")).unwrap();
        assert_eq!(
            replaced_by_a_link(&ws, &[ws.join("lib").as_path(), kept.as_path()]),
            Some(ws.join("app"))
        );
        // A destination not there (made by bubblewrap under folders that are no links).
        let missing = ws.join("lib/.git/objects");
        assert_eq!(replaced_by_a_link(&ws, &[missing.as_path()]), None);
        // Outside the workspace: not a command's to plant.
        assert_eq!(
            replaced_by_a_link(&ws, &[Path::new("/home/ann/.ssh")]),
            None
        );
    }
}
