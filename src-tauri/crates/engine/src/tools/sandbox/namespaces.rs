//! The namespaces a sandboxed command runs in (issue 33), made by bubblewrap (`bwrap`).
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
use crate::protocol::SandboxLevel;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where the private temp folder is inside the namespaces.
pub const TEMP_INSIDE: &str = "/tmp";

/// The folders that are replaced inside the namespaces (nothing of the outside shows there).
const REPLACED: &[&str] = &["/tmp", "/run", "/dev", "/proc"];

/// bubblewrap on this system, if it is installed.
pub fn bwrap() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/bin")])
        .map(|dir| dir.join("bwrap"))
        .find(|p| p.is_file())
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
        // Git's hooks and config: read-only. Their `.git` folder is bound onto itself first, so
        // it is a mount point that cannot be renamed away and replaced by a planted one.
        let mut pinned: Vec<&Path> = Vec::new();
        for path in &spec.protected {
            if let Some(git) = path
                .ancestors()
                .find(|p| p.file_name().is_some_and(|n| n == ".git"))
            {
                if !pinned.contains(&git) && git.starts_with(&spec.workspace) {
                    push(&[os("--bind"), git.as_os_str(), git.as_os_str()]);
                    pinned.push(git);
                }
            }
            push(&[os("--ro-bind"), path.as_os_str(), path.as_os_str()]);
        }
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
}
