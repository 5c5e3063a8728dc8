//! The sandbox of shell commands (F-46, issue 15) for real, on this machine's kernel (Landlock):
//! the supervisor applies it before the shell starts. Every attack an approved command could
//! make — writing outside the workspace, reading a secret folder, writing through a symlink that
//! leads out, a child process doing it instead, a TCP connection with the network off — fails;
//! the same work inside the workspace and the private temp folder succeeds.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::process::{Command, Stdio};
use tollgate_engine::tools::sandbox::{SandboxLevel, SandboxSpec, SANDBOX_ENV};
use tollgate_engine::tools::supervisor::SUPERVISOR_ARG;

/// Runs `command` under the supervisor with `spec`; its exit code and stderr.
fn run(spec: &SandboxSpec, command: &str) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tollgate-supervise"))
        .args([SUPERVISOR_ARG, command])
        .env(SANDBOX_ENV, serde_json::to_string(spec).unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Held open while the command runs: closing the supervisor's stdin means "stop".
    let stdin = child.stdin.take().unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let _ = std::io::stderr().flush();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_approved_command_cannot_reach_past_its_workspace() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp, home) = (
        root.path().join("ws"),
        root.path().join("tmp"),
        root.path().join("home"),
    );
    for d in [&ws, &tmp, &home.join(".ssh")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::os::unix::fs::symlink(&home, ws.join("out")).unwrap();
    let spec = SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        workspace: ws.clone(),
        temp: tmp.clone(),
        hidden: vec![home.join(".ssh")],
    };
    let p = |path: &std::path::Path| path.display().to_string();

    let (code, err) = run(&spec, &format!("touch {}", p(&root.path().join("outside"))));
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");
    assert!(!root.path().join("outside").exists());

    let (code, err) = run(&spec, &format!("cat {}", p(&home.join(".ssh/id_rsa"))));
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");

    let (code, _) = run(&spec, &format!("echo x > {}", p(&ws.join("out/planted"))));
    assert_ne!(code, 0, "a symlink out of the workspace leads nowhere");
    assert!(!home.join("planted").exists());

    let (code, _) = run(
        &spec,
        &format!("sh -c 'touch {}'", p(&root.path().join("child"))),
    );
    assert_ne!(code, 0, "a child process inherits the sandbox");
    assert!(!root.path().join("child").exists());

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

#[test]
fn with_the_network_off_a_command_cannot_connect() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("tmp")).unwrap();
    let spec = SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        workspace: root.path().to_path_buf(),
        temp: root.path().join("tmp"),
        hidden: vec![],
    };
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'");
    let (code, err) = run(&spec, &connect);
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");
    let online = SandboxSpec {
        network: true,
        ..spec
    };
    let (code, err) = run(&online, &connect);
    assert_eq!(code, 0, "{err}");
}
