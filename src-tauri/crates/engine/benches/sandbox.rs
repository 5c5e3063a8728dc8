//! Speed targets of the sandbox issues (F-46): sandboxing a trivial command costs at
//! most 20 ms over running it under the supervisor without a sandbox, with namespaces. Measured
//! side by side in one run: `sh -c true` alone, under the supervisor, under the supervisor with
//! Landlock alone, and with namespaces (bubblewrap) and Landlock — workspace only, network off,
//! the secret paths of this machine's home hidden, git's hooks protected.
#![allow(clippy::expect_used)] // benchmark set-up: a failure should stop the run

use criterion::{criterion_group, criterion_main, Criterion};
use std::process::{Command, Stdio};
use std::time::Duration;
use tollgate_tools::sandbox::{
    hidden_folders, walk_workspace, SandboxLevel, SandboxSpec, SANDBOX_ENV,
};
use tollgate_tools::supervisor::SUPERVISOR_ARG;

/// Runs `true` once: directly with `sh`, or under the supervisor (with `spec`, sandboxed).
fn run(supervised: bool, spec: Option<&str>) {
    let mut cmd = if supervised {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tollgate-supervise"));
        c.args([SUPERVISOR_ARG, "true"]);
        c
    } else {
        let mut c = Command::new("sh");
        c.args(["-c", "true"]);
        c
    };
    if let Some(spec) = spec {
        cmd.env(SANDBOX_ENV, spec);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    // The supervisor's stdin is its stop line: held open until the command ends.
    let stdin = child.stdin.take();
    let status = child.wait().expect("wait");
    drop(stdin);
    assert!(status.success(), "the command failed: {status}");
}

fn sandbox_overhead(c: &mut Criterion) {
    let root = tempfile::tempdir().expect("temp");
    let workspace = root.path().join("ws");
    let temp = root.path().join("tmp");
    std::fs::create_dir_all(&workspace).expect("ws");
    std::fs::create_dir_all(&temp).expect("tmp");
    std::fs::create_dir_all(workspace.join(".git/hooks")).expect("git");
    let spec = SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: false,
        protected: walk_workspace(&workspace).read_only,
        workspace,
        temp,
        hidden: hidden_folders(std::env::home_dir().as_deref(), Some(root.path())),
        ..SandboxSpec::default()
    };
    let landlock = serde_json::to_string(&spec).expect("spec");
    let namespaces = serde_json::to_string(&SandboxSpec {
        namespaces: true,
        ..spec
    })
    .expect("spec");
    let mut g = c.benchmark_group("sandbox");
    g.measurement_time(Duration::from_secs(10));
    g.bench_function("sh -c true", |b| b.iter(|| run(false, None)));
    g.bench_function("supervised", |b| b.iter(|| run(true, None)));
    g.bench_function("supervised + Landlock", |b| {
        b.iter(|| run(true, Some(&landlock)))
    });
    g.bench_function("supervised + namespaces + Landlock", |b| {
        b.iter(|| run(true, Some(&namespaces)))
    });
    g.finish();
}

/// One HTTP request and its answer over a fresh connection to a local server: directly, and
/// through the proxy of "only these hosts" (`CONNECT`, then the same bytes): the proxy's added
/// latency per connection.
fn proxy_latency(c: &mut Criterion) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tollgate_tools::sandbox::proxy::{HostProxy, SOCKET_NAME};
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (port, proxy, root) = runtime.block_on(async {
        let server = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = server.local_addr().expect("addr").port();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = server.accept().await {
                tokio::spawn(async move {
                    let mut buf = [0u8; 512];
                    let _ = s.read(&mut buf).await;
                    let _ = s
                        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        .await;
                });
            }
        });
        let root = tempfile::tempdir().expect("temp");
        let proxy = HostProxy::start(
            &root.path().join(SOCKET_NAME),
            vec![format!("127.0.0.1:{port}")],
        )
        .expect("proxy");
        (port, proxy, root)
    });
    let request = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    let mut g = c.benchmark_group("proxy");
    g.bench_function("direct connection", |b| {
        b.to_async(&runtime).iter(|| async {
            let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .expect("connect");
            s.write_all(request).await.expect("write");
            let mut out = Vec::new();
            s.read_to_end(&mut out).await.expect("read");
            assert!(out.ends_with(b"ok"));
        })
    });
    g.bench_function("through the proxy", |b| {
        b.to_async(&runtime).iter(|| async {
            let mut s = tokio::net::UnixStream::connect(proxy.socket())
                .await
                .expect("connect");
            s.write_all(format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n").as_bytes())
                .await
                .expect("connect line");
            s.write_all(request).await.expect("write");
            let mut out = Vec::new();
            s.read_to_end(&mut out).await.expect("read");
            assert!(out.ends_with(b"ok"));
        })
    });
    g.finish();
    drop(root);
}

criterion_group!(benches, sandbox_overhead, proxy_latency);
criterion_main!(benches);
