//! Confinement to the chat's workspace folder (F-42). Every path the model gives is resolved here,
//! at execution time (after approval): absolute paths are refused, `..` may not climb out, and
//! symlinks are followed only to check that they stay inside — one that leaves is refused, even
//! if it appeared after the call was approved.

use crate::{ToolError, ToolErrorKind};
use std::path::{Component, Path, PathBuf};

/// A chat's workspace folder, canonical, and the secret paths in it that no tool touches.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    /// The paths no file tool reads or writes, even inside the workspace (F-46): the same
    /// list the sandbox hides from commands ([`crate::sandbox::hidden_folders`]).
    hidden: std::sync::Arc<[PathBuf]>,
}

fn denied(msg: impl Into<String>) -> ToolError {
    ToolError::new(ToolErrorKind::PermissionDenied, msg)
        .with_suggestion("Use a path relative to the workspace folder, inside it.")
}

impl Workspace {
    /// The workspace of a tool call, or an error that tells the model to ask for one.
    pub fn of(root: Option<&Path>) -> Result<Self, ToolError> {
        let root = root.ok_or_else(|| {
            ToolError::new(
                ToolErrorKind::Unavailable,
                "no workspace folder is set for this chat",
            )
            .with_suggestion("Ask the user to choose a workspace folder for this chat.")
        })?;
        let root = root.canonicalize().map_err(|e| {
            ToolError::new(
                ToolErrorKind::Unavailable,
                format!(
                    "the workspace folder {} cannot be opened: {e}",
                    root.display()
                ),
            )
            .with_suggestion("Ask the user to check the workspace folder.")
        })?;
        if let Some(why) = crate::sandbox::paths::unfit_workspace(&root) {
            return Err(ToolError::new(
                ToolErrorKind::PermissionDenied,
                format!("this chat's workspace folder cannot be used: {why}"),
            )
            .with_suggestion("Ask the user to choose a project folder as this chat's workspace."));
        }
        Ok(Self {
            root,
            hidden: std::sync::Arc::from(Vec::new()),
        })
    }

    /// The workspace of a tool call, with the chat's hidden paths.
    pub fn for_call(ctx: &crate::ToolContext) -> Result<Self, ToolError> {
        Ok(Self {
            hidden: std::sync::Arc::clone(&ctx.sandbox.hidden),
            ..Self::of(ctx.workspace.as_deref())?
        })
    }

    /// The hidden path `path` (real, or a walk's entry under the root) is in, if any.
    pub fn hidden_by(&self, path: &Path) -> Option<&Path> {
        crate::sandbox::paths::hidden_by(path, &self.hidden)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `rel` cleaned up lexically (`.` removed, `a/..` folded), refusing absolute paths and
    /// anything that climbs above the workspace.
    pub fn normalize(rel: &str) -> Result<PathBuf, ToolError> {
        let rel = rel.trim();
        let path = Path::new(if rel.is_empty() { "." } else { rel });
        let mut out = PathBuf::new();
        for c in path.components() {
            match c {
                Component::Prefix(_) | Component::RootDir => {
                    return Err(denied(format!(
                    "\"{rel}\" is an absolute path; only paths inside the workspace are allowed"
                )))
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() {
                        return Err(denied(format!("\"{rel}\" leaves the workspace folder")));
                    }
                }
                Component::Normal(p) => out.push(p),
            }
        }
        Ok(out)
    }

    /// The path relative to the workspace, with `/` separators (what rules and the log show).
    pub fn display(rel: &Path) -> String {
        let s = rel.to_string_lossy().replace('\\', "/");
        if s.is_empty() {
            ".".into()
        } else {
            s
        }
    }

    fn inside(&self, real: &Path, rel: &str) -> Result<(), ToolError> {
        if let Some(secret) = self.hidden_by(real) {
            return Err(ToolError::new(
                ToolErrorKind::PermissionDenied,
                format!(
                    "\"{rel}\" is in a protected folder ({}): Tollgate's tools never read or change it, also inside the workspace",
                    secret.display()
                ),
            )
            .with_suggestion("Do not try to get around it; ask the user if the task needs it."));
        }
        if real.starts_with(&self.root) {
            Ok(())
        } else {
            Err(denied(format!(
                "\"{rel}\" points outside the workspace folder (through a symbolic link)"
            )))
        }
    }

    /// An existing file or folder inside the workspace, symlinks resolved and checked.
    pub fn existing(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let clean = Self::normalize(rel)?;
        let joined = self.root.join(&clean);
        let real = joined.canonicalize().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                ToolError::not_found(format!(
                    "\"{}\" does not exist in the workspace",
                    Self::display(&clean)
                ))
                .with_suggestion("List the folder first to see what exists.")
            } else {
                ToolError::new(
                    ToolErrorKind::Io,
                    format!("cannot open \"{}\": {e}", Self::display(&clean)),
                )
            }
        })?;
        self.inside(&real, rel)?;
        Ok(real)
    }

    /// A path to write: its deepest existing ancestor must resolve inside the workspace, and if
    /// the path itself exists it must not lead outside.
    pub fn writable(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let clean = Self::normalize(rel)?;
        if clean.as_os_str().is_empty() {
            return Err(ToolError::invalid(
                "a file name is needed, not the workspace folder itself",
            ));
        }
        let target = self.root.join(&clean);
        if std::fs::symlink_metadata(&target).is_ok() {
            let real = target.canonicalize().map_err(|e| {
                ToolError::new(ToolErrorKind::Io, format!("cannot open \"{rel}\": {e}"))
            })?;
            self.inside(&real, rel)?;
            self.unprotected(&target, &real)?;
            return Ok(real);
        }
        let mut ancestor = target
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.root.clone());
        let mut rest = vec![target
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default()];
        while std::fs::symlink_metadata(&ancestor).is_err() {
            rest.push(
                ancestor
                    .file_name()
                    .map(|n| n.to_os_string())
                    .unwrap_or_default(),
            );
            match ancestor.parent() {
                Some(p) => ancestor = p.to_path_buf(),
                None => break,
            }
        }
        let real_ancestor = ancestor.canonicalize().map_err(|e| {
            ToolError::new(ToolErrorKind::Io, format!("cannot open \"{rel}\": {e}"))
        })?;
        self.inside(&real_ancestor, rel)?;
        let mut out = real_ancestor;
        for part in rest.into_iter().rev() {
            out.push(part);
        }
        self.unprotected(&target, &out)?;
        Ok(out)
    }

    /// An existing file inside the workspace to change in place ([`Self::existing`]), refused
    /// when it is protected ([`crate::sandbox::protected`]).
    pub fn existing_to_write(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let real = self.existing(rel)?;
        self.unprotected(&self.root.join(Self::normalize(rel)?), &real)?;
        Ok(real)
    }

    /// Refuses a write to `written` (landing at `real`) when it is what something runs later
    /// outside any sandbox: git's folders, hook managers, what editors run on opening, start-up
    /// files (the one write policy every writer asks, [`crate::sandbox::protected`]).
    fn unprotected(&self, written: &Path, real: &Path) -> Result<(), ToolError> {
        match crate::sandbox::writes::refuses_write(&self.root, written, real) {
            None => Ok(()),
            Some(refusal) => Err(ToolError::new(ToolErrorKind::PermissionDenied, refusal.to_string())
                .with_suggestion("Do not try another way to write it. Tell the user what should change there, so that they can make the change themselves if they agree.")),
        }
    }

    /// Where a normalized relative path really leads, through the symlinks that exist now:
    /// `Ok(relative path)` inside the workspace, `Err(real path)` outside it. The deepest
    /// existing ancestor is resolved, the rest is appended as typed, as [`Self::writable`] does.
    pub fn resolve(&self, clean: &Path) -> Result<String, PathBuf> {
        let target = self.root.join(clean);
        let mut existing = target.clone();
        let mut rest = Vec::new();
        let real = loop {
            match existing.canonicalize() {
                Ok(real) => break real,
                Err(_) => match (existing.file_name(), existing.parent()) {
                    (Some(name), Some(parent)) => {
                        rest.push(name.to_os_string());
                        existing = parent.to_path_buf();
                    }
                    _ => break self.root.clone(),
                },
            }
        };
        let mut out = real;
        for part in rest.into_iter().rev() {
            out.push(part);
        }
        if out.starts_with(&self.root) {
            Ok(self.relative(&out))
        } else {
            Err(out)
        }
    }

    /// The workspace-relative form of a real path inside it.
    pub fn relative(&self, real: &Path) -> String {
        Self::display(real.strip_prefix(&self.root).unwrap_or(real))
    }
}

/// Opens a file for writing without following a symlink at the last step (closes the race where
/// the file is swapped for a link after the checks above).
pub fn open_for_write(path: &Path) -> std::io::Result<std::fs::File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc_nofollow());
    }
    opts.open(path)
}

#[cfg(target_os = "linux")]
const fn libc_nofollow() -> i32 {
    0o400000
}

#[cfg(all(unix, not(target_os = "linux")))]
const fn libc_nofollow() -> i32 {
    0x0100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_folds_and_refuses_escapes() {
        assert_eq!(
            Workspace::normalize("a/./b/../c").unwrap(),
            PathBuf::from("a/c")
        );
        assert_eq!(Workspace::normalize("").unwrap(), PathBuf::new());
        assert!(Workspace::normalize("../x").is_err());
        assert!(Workspace::normalize("a/../../x").is_err());
        assert!(Workspace::normalize("/etc/passwd").is_err());
        assert_eq!(Workspace::display(&PathBuf::new()), ".");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_that_leave_are_refused_for_reading_and_writing() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/ok.txt"), "ok").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            dir.path().join("link.txt"),
        )
        .unwrap();
        std::os::unix::fs::symlink(dir.path().join("sub/ok.txt"), dir.path().join("inner.txt"))
            .unwrap();
        let ws = Workspace::of(Some(dir.path())).unwrap();
        assert!(ws.existing("sub/ok.txt").is_ok());
        assert!(
            ws.existing("inner.txt").is_ok(),
            "a link that stays inside is fine"
        );
        let e = ws.existing("link.txt").unwrap_err();
        assert_eq!(e.kind, ToolErrorKind::PermissionDenied);
        assert!(ws.existing("out/secret.txt").is_err());
        assert!(ws.writable("out/new.txt").is_err());
        assert!(ws.writable("link.txt").is_err());
        assert!(ws.writable("new/deeper/file.txt").is_ok());
        assert!(ws.existing("missing.txt").unwrap_err().kind == ToolErrorKind::NotFound);
        assert!(Workspace::of(None).is_err());
        // A home folder stored as a chat's workspace before it was refused is refused here.
        if let Some(home) = std::env::home_dir().filter(|h| h.is_dir()) {
            let err = Workspace::of(Some(&home)).unwrap_err();
            assert!(err.message.contains("holds your home folder"), "{err:?}");
            assert!(Workspace::of(Some(Path::new("/"))).is_err());
        }
    }

    #[cfg(unix)]
    #[test]
    fn resolve_follows_links_inside_and_reports_links_outside() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::os::unix::fs::symlink("../.git", dir.path().join("docs/a")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let ws = Workspace::of(Some(dir.path())).unwrap();
        assert_eq!(
            ws.resolve(Path::new("docs/a/config")),
            Ok(".git/config".into())
        );
        assert_eq!(
            ws.resolve(Path::new("docs/new/x.md")),
            Ok("docs/new/x.md".into())
        );
        assert_eq!(ws.resolve(Path::new("")), Ok(".".into()));
        assert!(ws.resolve(Path::new("out/secret")).is_err());
    }
}
