//! The one-line explanations of what the sandbox blocked, read from a command's output (F-46,
//! F-46). The kernel only answers "Permission denied", "Read-only file system" or "No such
//! file"; a program that finds no session bus, display or agent says so in its own words. Which
//! rule refused is worked out from the path or service named and the spec. A denial on a path
//! the sandbox allows — a file that is simply not the user's — is not blamed on the sandbox.

use super::paths::{hidden_by, resolve};
use super::SandboxSpec;
use crate::protocol::SandboxLevel;
use std::path::Path;

/// The services outside the sandbox, as their clients report failing to reach them:
/// (words in the message, lower case, any of which names it; what to call it).
const SERVICES: &[(&[&str], &str)] = &[
    (
        &[
            "d-bus",
            "dbus",
            "connect to bus",
            "message bus",
            "secret service",
            "org.freedesktop.secrets",
        ],
        "the session bus (D-Bus) and the services on it, the keyring among them",
    ),
    (
        &[
            "can't open display",
            "cannot open display",
            "unable to open display",
            "failed creating new xdo",
            "wayland display",
            "no display",
        ],
        "the display (X11, Wayland): typing into or reading other windows",
    ),
    (
        &[
            "authentication agent",
            "error connecting to agent",
            "ssh_auth_sock",
        ],
        "the SSH agent",
    ),
    (
        &["gpg-agent", "connect to the agent", "no agent running"],
        "the GPG agent",
    ),
    (&["docker daemon", "docker.sock"], "the Docker daemon"),
    (
        &["pulseaudio", "pipewire", "pa_context"],
        "the sound server",
    ),
];

/// Messages that say the network was out of reach.
const NETWORK: &[&str] = &[
    "network is unreachable",
    "temporary failure in name resolution",
    "could not resolve host",
    "name or service not known",
    "getaddrinfo",
    "enetunreach",
    "/dev/tcp/",
    "/dev/udp/",
];

/// The one-line explanations of what the sandbox blocked, at most a few and a count.
pub fn explain_denials(output: &str, spec: &SandboxSpec) -> Vec<String> {
    const SHOWN: usize = 3;
    let mut found: Vec<String> = Vec::new();
    let mut more = 0usize;
    for line in output.lines() {
        let explanation = explain_line(line, spec);
        match explanation {
            Some(e) if found.contains(&e) => {}
            Some(e) if found.len() < SHOWN => found.push(e),
            Some(_) => more += 1,
            None => {}
        }
    }
    if more > 0 {
        found.push(format!("and {more} more"));
    }
    found
}

fn explain_line(line: &str, spec: &SandboxSpec) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    if let Some((_, service)) = SERVICES
        .iter()
        .find(|(words, _)| words.iter().any(|w| lower.contains(w)))
    {
        return Some(format!(
            "reaching {service} (services outside the sandbox are out of reach)"
        ));
    }
    let denied = lower.contains("permission denied") || line.contains("EACCES");
    if lower.contains("kill")
        && (lower.contains("no such process")
            || denied
            || lower.contains("operation not permitted"))
    {
        return Some(
            "signalling a process outside the sandbox (a command sees and signals only its own)"
                .into(),
        );
    }
    let network_words = NETWORK.iter().any(|w| lower.contains(w))
        || (denied
            && ["connect", "socket", "network", "bind", "listen"]
                .iter()
                .any(|w| lower.contains(w)));
    if network_words {
        return match (spec.network, spec.proxied()) {
            (true, _) => None,
            (false, false) => {
                Some("opening a network connection (the network is off in this chat)".into())
            }
            (false, true) => Some(format!(
                "opening a network connection other than through the proxy to this chat's allowed hosts ({})",
                spec.hosts.join(", ")
            )),
        };
    }
    if lower.contains("read-only file system") {
        let path = named_path(line, ": read-only file system")?;
        return explain_write(&resolve(&joined(&path, spec)), spec);
    }
    if lower.contains("no such file or directory") {
        // Only a hidden path: anything else is simply missing.
        let path = named_path(line, ": no such file or directory")?;
        let real = resolve(&joined(&path, spec));
        return hidden_by(&real, &spec.hidden).map(|secret| protected_read(secret, &real));
    }
    if denied {
        let path = named_path(line, ": permission denied")?;
        return explain_path(&path, spec);
    }
    None
}

fn joined(path: &str, spec: &SandboxSpec) -> std::path::PathBuf {
    let raw = Path::new(path);
    if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        spec.workspace.join(raw)
    }
}

fn protected_read(secret: &Path, real: &Path) -> String {
    format!(
        "reading a protected folder ({}): {}",
        secret.display(),
        real.display()
    )
}

/// Why the sandbox refused `path`, or `None` when it allows it.
fn explain_path(path: &str, spec: &SandboxSpec) -> Option<String> {
    let real = resolve(&joined(path, spec));
    if let Some(secret) = hidden_by(&real, &spec.hidden) {
        return Some(protected_read(secret, &real));
    }
    explain_write(&real, spec)
}

/// Why a write to `real` (symlinks followed) was refused, or `None` when the sandbox allows it.
fn explain_write(real: &Path, spec: &SandboxSpec) -> Option<String> {
    let shown = real.display();
    let read_only_git = spec.git.iter().find(|g| {
        matches!(&g.shown, crate::git_stage::GitShown::ReadOnly { data }
            if real.starts_with(&g.real) && !data.iter().any(|d| real.starts_with(g.real.join(d))))
    });
    if let Some(git) = read_only_git {
        return Some(format!(
            "changing git's folder {} (it is too large to copy for the sandbox, so only its data folders are writable; git's configuration and hooks run code outside the sandbox; the user can run the command outside it): {shown}",
            git.real.display()
        ));
    }
    if let Some(protected) = spec.protected.iter().find(|p| real.starts_with(p)) {
        return Some(format!(
            "changing {} (git and editors run it by themselves later, outside the sandbox; the user can allow it for this chat): {shown}",
            protected.display()
        ));
    }
    let in_workspace = real.starts_with(&spec.workspace);
    if real.starts_with(&spec.temp)
        || real.starts_with(super::namespaces::TEMP_INSIDE) && spec.namespaces
        || real == Path::new("/dev/null")
    {
        return None;
    }
    match spec.level {
        SandboxLevel::Off => None,
        SandboxLevel::ReadOnly => Some(format!(
            "writing (this chat's commands are read-only): {shown}"
        )),
        SandboxLevel::WorkspaceOnly if in_workspace => None,
        SandboxLevel::WorkspaceOnly => Some(format!("writing outside the workspace: {shown}")),
    }
}

/// The path a failure line names: quoted (`'…'`, `"…"`, `‘…’`), or the word before the last
/// `suffix` (`cat: /x: Permission denied`, `sh: 1: cannot create x: Permission denied`).
fn named_path(line: &str, suffix: &str) -> Option<String> {
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')] {
        if let Some(start) = line.find(open) {
            let rest = &line[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let quoted = &rest[..end];
                if (!quoted.is_empty() && !quoted.contains(' ')) || quoted.starts_with('/') {
                    return Some(quoted.to_string());
                }
            }
        }
    }
    let lower = line.to_ascii_lowercase();
    let at = lower.rfind(suffix)?;
    let before = &line[..at];
    let word = before.rsplit([' ', ':']).next()?.trim();
    (!word.is_empty() && !word.chars().all(|c| c.is_ascii_digit())).then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn spec(root: &Path, level: SandboxLevel, network: bool) -> SandboxSpec {
        SandboxSpec {
            level,
            network,
            workspace: root.join("ws"),
            temp: root.join("tmp"),
            hidden: vec![root.join("home/.ssh")],
            protected: vec![root.join("ws/.git/hooks")],
            // The test's folders are under /tmp, which inside namespaces is the private one.
            namespaces: false,
            ..SandboxSpec::default()
        }
    }

    #[test]
    fn denials_are_explained_by_the_rule_that_refused_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for d in ["ws/.git/hooks", "tmp", "home/.ssh"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("home"), root.join("ws/out")).unwrap();
        let r = root.display();
        let ws = spec(&root, SandboxLevel::WorkspaceOnly, false);
        let explain = |text: &str, spec: &SandboxSpec| explain_denials(text, spec);

        assert_eq!(
            explain(
                &format!("touch: cannot touch '{r}/outside': Permission denied"),
                &ws
            ),
            [format!("writing outside the workspace: {r}/outside")]
        );
        assert_eq!(
            explain(
                &format!("cat: {r}/home/.ssh/id_rsa: Permission denied"),
                &ws
            ),
            [format!(
                "reading a protected folder ({r}/home/.ssh): {r}/home/.ssh/id_rsa"
            )]
        );
        // Hidden by the mount namespace alone (no Landlock): "No such file" on a hidden path.
        assert_eq!(
            explain(
                &format!("cat: {r}/home/.ssh/id_rsa: No such file or directory"),
                &ws
            ),
            [format!(
                "reading a protected folder ({r}/home/.ssh): {r}/home/.ssh/id_rsa"
            )]
        );
        assert!(explain("cat: nothing.txt: No such file or directory", &ws).is_empty());
        // Relative to the workspace, through a symlink that leads out: where it would land.
        assert_eq!(
            explain("sh: 1: cannot create out/planted: Permission denied", &ws),
            [format!("writing outside the workspace: {r}/home/planted")]
        );
        assert_eq!(
            explain("bash: connect: Permission denied\nbash: line 1: /dev/tcp/127.0.0.1/80: Permission denied", &ws),
            ["opening a network connection (the network is off in this chat)"]
        );
        assert_eq!(
            explain("curl: (6) Could not resolve host: example.com", &ws),
            ["opening a network connection (the network is off in this chat)"]
        );
        assert_eq!(
            explain(
                "PermissionError: [Errno 13] Permission denied: 'notes.txt'",
                &spec(&root, SandboxLevel::ReadOnly, true)
            ),
            [format!(
                "writing (this chat's commands are read-only): {r}/ws/notes.txt"
            )]
        );
        let hooks = explain(
            "sh: 1: cannot create .git/hooks/pre-commit: Read-only file system",
            &ws,
        );
        assert_eq!(hooks.len(), 1);
        assert!(
            hooks[0].starts_with(&format!(
                "changing {r}/ws/.git/hooks (git and editors run it"
            )),
            "{hooks:?}"
        );
        // Services outside.
        assert_eq!(
            explain("secret-tool: Cannot autolaunch D-Bus without X11 $DISPLAY", &ws),
            ["reaching the session bus (D-Bus) and the services on it, the keyring among them (services outside the sandbox are out of reach)"]
        );
        assert!(explain("Error: Can't open display: (null)", &ws)[0].contains("the display"));
        assert!(explain(
            "Could not open a connection to your authentication agent.",
            &ws
        )[0]
        .contains("the SSH agent"));
        assert!(explain("sh: 1: kill: No such process", &ws)[0].starts_with("signalling"));
        // Inside the workspace, or with the network on, the sandbox is not to blame.
        assert!(explain(
            "cp: cannot open 'mine.txt' for reading: Permission denied",
            &ws
        )
        .is_empty());
        let private_tmp = SandboxSpec {
            namespaces: true,
            ..ws.clone()
        };
        assert!(explain(
            "touch: cannot touch '/tmp/x': Permission denied",
            &private_tmp
        )
        .is_empty());
        let online = spec(&root, SandboxLevel::WorkspaceOnly, true);
        assert!(explain("curl: (7) connect to 10.0.0.1: Permission denied", &online).is_empty());
        assert!(explain(
            "no denial here\nrm: cannot remove 'x': Operation not permitted",
            &ws
        )
        .is_empty());
        // Many denials: a few lines and a count, never thousands.
        let many: String = (0..50)
            .map(|i| format!("rm: cannot remove '{r}/f{i}': Permission denied\n"))
            .collect();
        let lines = explain(&many, &ws);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[3], "and 47 more");
    }
}
