//! The namespaces a sandboxed command runs in (F-46), made by bubblewrap (`bwrap`).
//!
//! Landlock confines files and TCP, but not a UNIX socket reached by its path, nor UDP; before
//! ABI 6 not abstract sockets or signals either. So the command also gets namespaces of its own,
//! made by the system's bubblewrap — the tool WebKitGTK itself sandboxes its web process with,
//! so every desktop that runs Tollgate has it — instead of code of ours that would need `unsafe`
//! to call `clone`, `mount` and `pivot_root`:
//!
//! - a **mount namespace** that shows the system read-only, the workspace (and an MCP server's
//!   folders) writable, a private `/tmp`, an empty `/run` (the session bus, the user's agents,
//!   PulseAudio, `docker.sock`, systemd's sockets all live there or in `/tmp`), a minimal
//!   `/dev`, a `/proc` of its own, the secret folders replaced by empty ones, and the
//!   workspace's git hooks and config read-only;
//! - a **PID namespace**: the command sees and can signal only its own processes, and when the
//!   supervisor dies bubblewrap dies with it (`--die-with-parent`) and the kernel kills every
//!   process left in the namespace;
//! - a **network namespace** with only its own loopback while the network is off: no TCP, no
//!   UDP, no DNS, and no abstract UNIX socket of the desktop (they belong to a network
//!   namespace);
//! - IPC, UTS and user namespaces, a new session (no terminal to push keys into), and no
//!   further user namespaces inside.
//!
//! Landlock is still applied inside (`--tollgate-sandbox-inner`): the two layers hold each
//! other's gaps, and Landlock's "Permission denied" is what lets a denial be explained.

use super::SandboxSpec;
use crate::git_stage::GitShown;
use crate::protocol::SandboxLevel;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where the private temp folder is inside the namespaces.
pub const TEMP_INSIDE: &str = "/tmp";

/// The folders that are replaced inside the namespaces (nothing of the outside shows there).
const REPLACED: &[&str] = &["/tmp", "/run", "/dev", "/proc"];

/// Where bubblewrap is looked for, in this order. Never `$PATH`: a command that ran with the
/// home folder as its workspace could have planted `~/.local/bin/bwrap`, and the next command
/// would be "sandboxed" by it.
pub const BWRAP_PATHS: &[&str] = &["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

/// bubblewrap on this system: the first of [`BWRAP_PATHS`] that only root can have put there
/// ([`trusted_program`]), as its real path. `None` when there is none: the sandbox then says
/// it is unavailable rather than run a `bwrap` anyone could have replaced.
pub fn bwrap() -> Option<PathBuf> {
    BWRAP_PATHS
        .iter()
        .find_map(|p| trusted_program(Path::new(p)).ok())
}

/// Why a program is not trusted to be the system's own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Untrusted {
    /// It cannot be looked at (or the path is relative).
    #[error("{0} does not exist or cannot be read")]
    Missing(PathBuf),
    /// It leads to a folder or a device, not a program.
    #[error("{0} is not a regular file")]
    NotAFile(PathBuf),
    /// Its owner (another user) could replace it.
    #[error("{0} is not owned by root")]
    NotRootOwned(PathBuf),
    /// Its group or everyone may write to it (a folder: put another file in its place).
    #[error("{0} can be changed by users other than root (group or others may write to it)")]
    Writable(PathBuf),
}

/// The real path of the program at `path` (an absolute path), if only root can have put it
/// there: the path as written and the path it really leads to (every symlink followed) must
/// both pass [`root_owned_all_the_way`], and what it leads to must be a regular file.
pub fn trusted_program(path: &Path) -> Result<PathBuf, Untrusted> {
    root_owned_all_the_way(path)?;
    let real = std::fs::canonicalize(path).map_err(|_| Untrusted::Missing(path.to_path_buf()))?;
    root_owned_all_the_way(&real)?;
    match std::fs::metadata(&real) {
        Ok(meta) if meta.is_file() => Ok(real),
        Ok(_) => Err(Untrusted::NotAFile(real)),
        Err(_) => Err(Untrusted::Missing(real)),
    }
}

/// Whether `path` and every folder above it are owned by root and writable by no group and no
/// other user, nearest first: otherwise someone but root could replace what is there (a
/// world-writable folder, even sticky like `/tmp`, lets anyone put a file in it). Symlinks on
/// the way are not followed (their own owner is checked; they have no mode of their own) —
/// [`trusted_program`] checks where they lead as well. Relative paths are refused.
#[cfg(unix)]
pub fn root_owned_all_the_way(path: &Path) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt;
    if !path.is_absolute() {
        return Err(Untrusted::Missing(path.to_path_buf()));
    }
    for part in path.ancestors() {
        let meta =
            std::fs::symlink_metadata(part).map_err(|_| Untrusted::Missing(part.to_path_buf()))?;
        if meta.uid() != 0 {
            return Err(Untrusted::NotRootOwned(part.to_path_buf()));
        }
        if !meta.file_type().is_symlink() && meta.mode() & 0o022 != 0 {
            return Err(Untrusted::Writable(part.to_path_buf()));
        }
    }
    Ok(())
}

/// No root, no bubblewrap off Unix.
#[cfg(not(unix))]
pub fn root_owned_all_the_way(path: &Path) -> Result<(), Untrusted> {
    Err(Untrusted::NotRootOwned(path.to_path_buf()))
}

/// The namespace flags every sandboxed run gets (and the probe tries).
pub fn namespace_args(network: bool) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    if !network {
        args.push("--unshare-net".into());
    }
    args
}

/// Whether `path` shows inside the namespaces as it is outside: not under a folder that is
/// replaced there, or under one of the folders bound back in (`bound`).
fn visible(path: &Path, bound: &[&Path]) -> bool {
    bound.iter().any(|b| path.starts_with(b)) || !REPLACED.iter().any(|r| path.starts_with(r))
}

/// The folders to pin and the paths to make read-only for the `protected` paths of a workspace:
/// a protected path inside another one is left out (the outer one covers it, and a pin under a
/// read-only path would make it writable again); every folder strictly between `workspace` and
/// a protected path inside it is pinned — bound onto itself, so that renaming it away (with
/// the read-only mount inside) and putting a planted copy in its place fails as "busy". The
/// workspace is a mount point already. Both lists outer folders first.
fn pins<'p>(workspace: &Path, protected: &'p [PathBuf]) -> (Vec<&'p Path>, Vec<&'p Path>) {
    let mut read_only: Vec<&Path> = protected.iter().map(PathBuf::as_path).collect();
    read_only.sort();
    read_only.dedup();
    let outer = read_only.clone();
    read_only.retain(|p| !outer.iter().any(|o| o != p && p.starts_with(o)));
    let mut pins: Vec<&Path> = read_only
        .iter()
        .filter(|p| p.starts_with(workspace))
        .flat_map(|p| {
            p.ancestors()
                .skip(1)
                .take_while(|a| *a != workspace && a.starts_with(workspace))
        })
        .collect();
    pins.sort();
    pins.dedup();
    (pins, read_only)
}

/// The mounts that guard git's folders and the protected files of a writable workspace: git's
/// folders each shown as its copy with its object stores bound in (only git's data comes back
/// from the copy, `git_stage`), or read-only but for its data folders; `.git` files, a hooks
/// folder and the files editors run by themselves read-only. Every folder between the workspace
/// and each of them is bound onto itself first, so it is a mount point that cannot be renamed
/// away and replaced by a planted one.
fn git_and_protected_binds(spec: &SandboxSpec) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |parts: &[&std::ffi::OsStr]| a.extend(parts.iter().map(|p| p.to_os_string()));
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let mut guarded: Vec<PathBuf> = spec.protected.clone();
    guarded.extend(spec.git.iter().map(|g| g.real.clone()));
    let (pinned, _) = pins(&spec.workspace, &guarded);
    for folder in pinned {
        push(&[os("--bind"), folder.as_os_str(), folder.as_os_str()]);
    }
    for git in &spec.git {
        let real = git.real.as_os_str();
        let direct = match &git.shown {
            GitShown::Copy { stage, stores } => {
                push(&[os("--bind"), stage.as_os_str(), real]);
                stores.as_slice()
            }
            GitShown::ReadOnly { data } => {
                push(&[os("--ro-bind"), real, real]);
                data.as_slice()
            }
            GitShown::Undone => &[],
        };
        for folder in direct {
            let path = git.real.join(folder);
            push(&[os("--bind"), path.as_os_str(), path.as_os_str()]);
        }
    }
    let (_, read_only) = pins(&spec.workspace, &spec.protected);
    for path in read_only {
        push(&[os("--ro-bind"), path.as_os_str(), path.as_os_str()]);
    }
    a
}

/// bubblewrap's arguments for `spec`, up to and including `--`: what follows is the program to
/// run inside. `inner` is Tollgate's binary (it applies Landlock inside and then becomes the
/// command); `app_dir` the folder it came from when it runs from an AppImage's mount (`APPDIR`).
pub fn bwrap_args(
    spec: &SandboxSpec,
    inner: &Path,
    app_dir: Option<&Path>,
    cwd: &Path,
) -> Vec<OsString> {
    let mut a = namespace_args(spec.network);
    let mut push = |parts: &[&std::ffi::OsStr]| a.extend(parts.iter().map(|p| p.to_os_string()));
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    push(&[os("--ro-bind"), os("/"), os("/")]);
    push(&[os("--dev"), os("/dev")]);
    push(&[os("--tmpfs"), os("/dev/shm")]);
    push(&[os("--proc"), os("/proc")]);
    push(&[os("--tmpfs"), os("/run")]);
    // Name resolution: /etc/resolv.conf often points into /run (systemd-resolved).
    if spec.network {
        if let Ok(real) = std::fs::canonicalize("/etc/resolv.conf") {
            if real.starts_with("/run") {
                push(&[os("--ro-bind-try"), real.as_os_str(), real.as_os_str()]);
            }
        }
    }
    push(&[os("--bind"), spec.temp.as_os_str(), os(TEMP_INSIDE)]);
    for folder in &spec.readable {
        let hidden = spec
            .hidden
            .iter()
            .any(|h| folder.starts_with(h) || h.starts_with(folder));
        if !hidden && !visible(folder, &[]) && folder.is_dir() {
            push(&[os("--ro-bind"), folder.as_os_str(), folder.as_os_str()]);
        }
    }

    let writable_level = spec.level == SandboxLevel::WorkspaceOnly;
    let bind = if writable_level {
        os("--bind")
    } else {
        os("--ro-bind")
    };
    let mut bound: Vec<&Path> = vec![spec.workspace.as_path()];
    push(&[bind, spec.workspace.as_os_str(), spec.workspace.as_os_str()]);
    if writable_level {
        for folder in spec.writable.iter().filter(|f| f.exists()) {
            push(&[os("--bind"), folder.as_os_str(), folder.as_os_str()]);
            bound.push(folder);
        }
        let guarded = git_and_protected_binds(spec);
        push(&guarded.iter().map(OsString::as_os_str).collect::<Vec<_>>());
    }
    // The secret folders: an empty folder (or file) in their place. A hidden folder that holds
    // the workspace itself is the user's own choice and stays (Landlock still guards the rest).
    for hidden in &spec.hidden {
        if spec.workspace.starts_with(hidden) || !visible(hidden, &bound) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(hidden) else {
            continue;
        };
        if meta.is_dir() {
            push(&[os("--perms"), os("0000"), os("--tmpfs"), hidden.as_os_str()]);
        } else if meta.is_file() {
            push(&[os("--ro-bind"), os("/dev/null"), hidden.as_os_str()]);
        }
        // A symlink: its real path is in the list too, and is hidden there.
    }
    // Tollgate's own binary must be reachable inside to apply Landlock and start the command.
    match app_dir.filter(|d| inner.starts_with(d)) {
        Some(dir) if !visible(dir, &bound) => {
            push(&[os("--ro-bind"), dir.as_os_str(), dir.as_os_str()])
        }
        _ if !visible(inner, &bound) => {
            push(&[os("--ro-bind"), inner.as_os_str(), inner.as_os_str()])
        }
        _ => {}
    }
    // A folder that does not show inside (Tollgate started from a folder under /tmp, say) is
    // no place to start in: the workspace is.
    let cwd = if visible(cwd, &bound) && !spec.hidden.iter().any(|h| cwd.starts_with(h)) {
        cwd
    } else {
        spec.workspace.as_path()
    };
    push(&[os("--chdir"), cwd.as_os_str(), os("--")]);
    a
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    /// The pairs (flag, path) in order, for checking what is mounted where.
    fn position(args: &[String], flag: &str, path: &str) -> Option<usize> {
        args.windows(2)
            .position(|w| w[0] == flag && w[1] == path)
            .or_else(|| args.windows(3).position(|w| w[0] == flag && w[2] == path))
    }

    #[test]
    fn the_workspace_is_bound_before_its_secrets_are_hidden_and_git_is_kept_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".netrc"), "machine x password y").unwrap();
        std::fs::create_dir_all(home.join(".git/hooks")).unwrap();
        let spec = SandboxSpec {
            level: SandboxLevel::WorkspaceOnly,
            network: false,
            workspace: home.clone(),
            temp: PathBuf::from("/var/tmp/tollgate-run-1"),
            hidden: vec![home.join(".ssh"), home.join(".netrc"), home.join("missing")],
            protected: vec![home.join(".git/hooks")],
            git: vec![crate::GitFolder {
                real: home.join("sub/.git"),
                shown: GitShown::Copy {
                    stage: PathBuf::from("/var/tmp/stage-0"),
                    stores: vec![PathBuf::from("objects")],
                },
            }],
            namespaces: true,
            readable: vec![PathBuf::from("/tmp/server"), home.join(".ssh")],
            ..SandboxSpec::default()
        };
        let args = strings(&bwrap_args(
            &spec,
            Path::new("/usr/bin/tollgate"),
            None,
            &home,
        ));
        let h = |p: &str| home.join(p).display().to_string();
        assert!(args.contains(&"--unshare-net".to_string()));
        assert!(args.contains(&"--die-with-parent".to_string()));
        // A server's own folder under /tmp shows (read-only); a hidden one never does.
        assert!(
            position(&args, "--ro-bind", "/tmp/server").is_none(),
            "it does not exist here"
        );
        assert!(position(&args, "--ro-bind", &h(".ssh")).is_none());
        let server = tempfile::tempdir_in("/tmp").unwrap();
        let with_server = SandboxSpec {
            readable: vec![server.path().to_path_buf()],
            ..spec.clone()
        };
        let args_with = strings(&bwrap_args(
            &with_server,
            Path::new("/usr/bin/tollgate"),
            None,
            &home,
        ));
        let shown = position(
            &args_with,
            "--ro-bind",
            &server.path().display().to_string(),
        )
        .unwrap();
        let tmp = position(&args_with, "--bind", "/var/tmp/tollgate-run-1").unwrap();
        assert!(
            tmp < shown,
            "bound after the private /tmp, so it shows over it"
        );
        let ws = position(&args, "--bind", &home.display().to_string()).unwrap();
        let ssh = position(&args, "--tmpfs", &h(".ssh")).unwrap();
        assert!(ws < ssh, "{args:?}");
        assert_eq!(args[ssh - 2..ssh], ["--perms", "0000"]);
        let netrc = args.iter().position(|a| *a == h(".netrc")).unwrap();
        assert_eq!(args[netrc - 2..netrc], ["--ro-bind", "/dev/null"]);
        assert!(!args.contains(&h("missing")));
        let git = position(&args, "--bind", &h(".git")).unwrap();
        let hooks = position(&args, "--ro-bind", &h(".git/hooks")).unwrap();
        assert!(git < hooks);
        // A git folder shown as its copy, its object store bound in after it, the folder
        // above it pinned first.
        let sub = position(&args, "--bind", &h("sub")).unwrap();
        let copy = args
            .windows(3)
            .position(|w| w == ["--bind", "/var/tmp/stage-0", &h("sub/.git")])
            .unwrap();
        let objects = position(&args, "--bind", &h("sub/.git/objects")).unwrap();
        assert!(sub < copy && copy < objects, "{args:?}");
        assert_eq!(
            position(&args, "--bind", "/var/tmp/tollgate-run-1"),
            Some(
                args.iter()
                    .position(|a| a == "/var/tmp/tollgate-run-1")
                    .unwrap()
                    - 1
            )
        );
        assert_eq!(args.last().unwrap(), "--");

        // Read-only: the workspace is bound read-only, no protected paths are needed, and with
        // the network on the network namespace is the system's.
        let read_only = SandboxSpec {
            level: SandboxLevel::ReadOnly,
            network: true,
            ..spec
        };
        let args = strings(&bwrap_args(
            &read_only,
            Path::new("/tmp/x/tollgate"),
            None,
            &home,
        ));
        assert!(position(&args, "--ro-bind", &home.display().to_string()).is_some());
        assert!(!args.contains(&"--unshare-net".to_string()));
        assert!(position(&args, "--ro-bind", &h(".git/hooks")).is_none());
        // A binary under the replaced /tmp is bound back in.
        assert!(position(&args, "--ro-bind", "/tmp/x/tollgate").is_some());
        // A starting folder that does not show inside (under /tmp) gives way to the workspace.
        let args = strings(&bwrap_args(
            &read_only,
            Path::new("/usr/bin/tollgate"),
            None,
            Path::new("/tmp/elsewhere"),
        ));
        assert_eq!(
            position(&args, "--chdir", &home.display().to_string()),
            Some(args.len() - 3)
        );
    }

    #[test]
    fn only_a_program_root_owned_and_unwritable_all_the_way_up_is_trusted() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let set_mode = |p: &Path, mode: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        // Under /tmp, which anyone may write to (sticky, 1777).
        let dir = tempfile::tempdir_in("/tmp").unwrap();
        let root = dir.path().canonicalize().unwrap();
        let planted = root.join("bwrap");
        std::fs::write(&planted, "#!/bin/sh\n").unwrap();
        set_mode(&planted, 0o755);
        let as_root = std::fs::metadata(&planted).unwrap().uid() == 0;
        // A file in a temp folder never passes: not root's, or under a folder anyone can write.
        assert!(trusted_program(&planted).is_err());
        set_mode(&root, 0o777);
        let err = trusted_program(&planted).unwrap_err();
        if as_root {
            assert_eq!(err, Untrusted::Writable(root.clone()));
            set_mode(&root, 0o755);
            set_mode(&planted, 0o775);
            assert_eq!(
                trusted_program(&planted).unwrap_err(),
                Untrusted::Writable(planted.clone())
            );
        } else {
            assert_eq!(err, Untrusted::NotRootOwned(planted.clone()));
        }
        // A symlink in such a folder to a trusted program is not trusted either.
        set_mode(&root, 0o777);
        let link = root.join("bwrap-link");
        std::os::unix::fs::symlink("/usr/bin/env", &link).unwrap();
        assert!(trusted_program(&link).is_err());
        assert!(trusted_program(Path::new("usr/bin/env")).is_err());
        assert!(trusted_program(&root.join("missing")).is_err());

        // The system's own program passes where it really is root's and nobody else's.
        let env = Path::new("/usr/bin/env");
        let real = env.canonicalize().unwrap();
        let system_owned = [env, real.as_path()].iter().all(|p| {
            p.ancestors().all(|a| {
                let m = std::fs::symlink_metadata(a).unwrap();
                m.uid() == 0 && (m.file_type().is_symlink() || m.mode() & 0o022 == 0)
            })
        });
        assert_eq!(trusted_program(env).ok(), system_owned.then_some(real));
        // A folder is not a program.
        if root_owned_all_the_way(Path::new("/usr/bin")).is_ok() {
            assert!(matches!(
                trusted_program(Path::new("/usr/bin")),
                Err(Untrusted::NotAFile(_))
            ));
        }
    }

    #[test]
    fn bubblewrap_comes_only_from_fixed_system_paths() {
        if let Some(found) = bwrap() {
            assert!(
                BWRAP_PATHS
                    .iter()
                    .any(|p| Path::new(p).canonicalize().ok() == Some(found.clone())),
                "{found:?}"
            );
            assert_eq!(trusted_program(&found), Ok(found.clone()));
        }
    }

    #[test]
    fn every_folder_above_a_protected_path_is_pinned_first() {
        let ws = PathBuf::from("/home/ann/ws");
        let protected: Vec<PathBuf> = [
            "/home/ann/ws/a/b/.git/hooks",
            "/home/ann/ws/a/b/.git/config",
            "/home/ann/ws/.husky",
            "/home/ann/ws/.husky/pre-commit",
            "/home/ann/ws/.vscode/tasks.json",
            "/home/ann/ws/.envrc",
        ]
        .map(PathBuf::from)
        .to_vec();
        let (pins, read_only) = pins(&ws, &protected);
        assert_eq!(
            pins,
            [
                "/home/ann/ws/.vscode",
                "/home/ann/ws/a",
                "/home/ann/ws/a/b",
                "/home/ann/ws/a/b/.git",
            ]
            .map(Path::new)
        );
        assert_eq!(
            read_only,
            [
                "/home/ann/ws/.envrc",
                "/home/ann/ws/.husky",
                "/home/ann/ws/.vscode/tasks.json",
                "/home/ann/ws/a/b/.git/config",
                "/home/ann/ws/a/b/.git/hooks",
            ]
            .map(Path::new),
            "a path under a read-only one is covered by it"
        );
    }

    /// For real, in bubblewrap: a repository two levels down and an editor's task file can be
    /// neither changed nor swapped for planted copies by renaming a folder above them away,
    /// while the rest of the workspace stays writable. What the command writes in git's folder
    /// lands in its copy, and only git's data comes back.
    #[test]
    fn nested_protected_paths_can_be_neither_written_nor_renamed_away() {
        let (Some(bwrap), Ok(())) = (bwrap(), super::super::try_namespaces()) else {
            return; // no namespaces here: nothing to hold
        };
        let dir = tempfile::tempdir().unwrap();
        let temp = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join("a/b/.git/hooks")).unwrap();
        std::fs::create_dir_all(ws.join("a/b/.git/refs/heads")).unwrap();
        std::fs::write(ws.join("a/b/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join("a/b/.git/config"), "[core]\n").unwrap();
        std::fs::create_dir_all(ws.join(".vscode")).unwrap();
        std::fs::write(ws.join(".vscode/tasks.json"), "{}").unwrap();
        std::fs::create_dir_all(ws.join("c")).unwrap();
        std::fs::write(ws.join("c/.git"), "gitdir: ../a/b/.git\n").unwrap();
        let guard = crate::WorkspaceGuard::prepare(&ws, true).unwrap();
        let mut spec = SandboxSpec {
            level: SandboxLevel::WorkspaceOnly,
            workspace: ws.clone(),
            temp: temp.path().canonicalize().unwrap(),
            namespaces: true,
            ..SandboxSpec::default()
        };
        guard.apply(&mut spec);
        let run = |script: &str| {
            let out = std::process::Command::new(&bwrap)
                .args(bwrap_args(&spec, Path::new("/bin/sh"), None, &ws))
                .args(["/bin/sh", "-c", script])
                .output()
                .unwrap();
            (
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let (wrote, stderr) = run("\
            echo planted > a/b/.git/hooks/pre-commit && echo WROTE-HOOK; \
            echo planted >> a/b/.git/config && echo WROTE-CONFIG; \
            echo ../../evil > a/b/.git/commondir && echo WROTE-COMMONDIR; \
            echo 1234 > a/b/.git/refs/heads/main && echo WROTE-REF; \
            echo planted > .vscode/tasks.json && echo WROTE-TASKS; \
            echo 'gitdir: /tmp/planted' > c/.git && echo WROTE-GITFILE; \
            echo ok > a/b/notes.txt && echo WROTE-NOTES");
        assert_eq!(
            wrote, "WROTE-HOOK\nWROTE-CONFIG\nWROTE-COMMONDIR\nWROTE-REF\nWROTE-NOTES\n",
            "{stderr}"
        );
        // Nothing of it reached the real folder while the command ran.
        assert!(!ws.join("a/b/.git/commondir").exists());
        // Renaming a folder above them away (`mv` then copies and deletes what it can: in the
        // copy, which is not kept but for git's data).
        let (moved, _) = run("\
            mv a moved-a 2>/dev/null && echo MOVED-A; \
            mv a/b moved-b 2>/dev/null && echo MOVED-B; \
            mv a/b/.git moved-git 2>/dev/null && echo MOVED-GIT; \
            mv .vscode moved-vscode 2>/dev/null && echo MOVED-VSCODE; \
            mv c moved-c 2>/dev/null && echo MOVED-C");
        assert_eq!(moved, "");
        // What the first command wrote is named; the copy `mv` left beside (`moved-b/.git`) is
        // a repository the command created, and is held.
        let lines = guard.settle();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("writing config in git's folder"))
                && lines
                    .iter()
                    .any(|l| l.contains("moved-b/.git; it was renamed")),
            "{lines:?}"
        );
        // (`mv` falls back to copying when a rename fails: a copy may be left beside, the
        // originals stay where git and the editor look.)
        assert!(!ws.join("a/b/.git/hooks/pre-commit").exists());
        assert!(!ws.join("a/b/.git/commondir").exists());
        assert_eq!(
            std::fs::read_to_string(ws.join("a/b/.git/config")).unwrap(),
            "[core]\n"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join(".vscode/tasks.json")).unwrap(),
            "{}"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join("c/.git")).unwrap(),
            "gitdir: ../a/b/.git\n"
        );
    }
}
