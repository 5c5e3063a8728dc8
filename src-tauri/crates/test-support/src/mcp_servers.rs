//! The real MCP servers the tests run as child processes, installed by the test command with
//! `npm ci` in `tests/mcp`: the npm registry's `@modelcontextprotocol/server-everything` and
//! the probe server (`tests/mcp/probe-server.mjs`, on the official TypeScript SDK) for
//! cancellation, crashes, sandboxed writes and changing tools; and the era server (Python SDK
//! 2.x, `tests/mcp/python`) for MCP 2026-07-28. The MCP crate's own suite and the
//! engine's suites both start them from here.

use std::path::PathBuf;

/// The folder of the test servers (`tests/mcp`), failing the test with what to run when they
/// are not installed.
pub fn servers_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/mcp");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/server-everything")
            .is_dir(),
        "the test MCP servers are not installed: run `npm ci` in tests/mcp (the test command does)"
    );
    match dir.canonicalize() {
        Ok(dir) => dir,
        Err(e) => panic!("{}: {e}", dir.display()),
    }
}

/// The everything server's script, run as `node <script> stdio` or `streamableHttp`.
pub fn everything_js() -> String {
    servers_dir()
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string()
}

/// The probe server's script (`node <script>`, `PROBE_MARKER` naming the file it writes to).
pub fn probe_script() -> String {
    servers_dir().join("probe-server.mjs").display().to_string()
}

/// The test server on the Python SDK 2.x (`tests/mcp/python/era-server.py`, in its venv): it
/// speaks MCP 2026-07-28 to a client that discovers it and the older revisions to one that
/// sends `initialize`. Returns the venv's Python and the script, run as `<python> <script>
/// stdio` or `http PORT`, `ERA_LOG` naming the file it writes each call to.
pub fn era_server() -> (String, String) {
    let dir = servers_dir().join("python");
    let python = dir.join(".venv/bin/python");
    assert!(
        python.is_file(),
        "the Python MCP SDK for the test servers is not installed: run bash .ci/setup.sh"
    );
    (
        python.display().to_string(),
        dir.join("era-server.py").display().to_string(),
    )
}

/// The test server with the Tasks extension (`tests/mcp/python/task-server.py`, in the same
/// venv as [`era_server`]): run as `<python> <script> stdio` or `http PORT`, `TASK_LOG` naming
/// the file it writes each request about a task to.
pub fn task_server() -> (String, String) {
    let (python, era) = era_server();
    let script = std::path::Path::new(&era).with_file_name("task-server.py");
    (python, script.display().to_string())
}

/// What a test server wrote to its log at `path`, one JSON value a line (none when it wrote
/// nothing yet).
pub fn logged(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| match serde_json::from_str(line) {
            Ok(value) => value,
            Err(e) => panic!("{}: a line that is not JSON ({e}): {line}", path.display()),
        })
        .collect()
}

/// The task named by the first entry for `method` in the task server's log at `path`
/// ([`task_server`]): which task a `tools/call` started, a `tasks/cancel` stopped.
pub fn task_in(path: &std::path::Path, method: &str) -> Option<serde_json::Value> {
    logged(path)
        .into_iter()
        .find(|e| e["method"] == method)
        .map(|e| e["task"].clone())
}

/// A free port on the loopback interface, for a server to listen on.
pub fn free_port() -> u16 {
    match std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(addr) => addr.port(),
        Err(e) => panic!("no free port: {e}"),
    }
}

/// A Python test server (`(python, script)`: [`era_server`], [`task_server`]) over streamable
/// HTTP on a free loopback port, writing its log to `log` (through the environment variable
/// `log_var`): the running server (stopped when dropped) and its endpoint, once it listens.
pub async fn over_http(
    (python, script): (String, String),
    log_var: &str,
    log: &std::path::Path,
) -> (tokio::process::Child, String) {
    let port = free_port();
    let server = tokio::process::Command::new(python)
        .args([script.as_str(), "http", &port.to_string()])
        .env(log_var, log)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let server = match server {
        Ok(server) => server,
        Err(e) => panic!("{script} did not start: {e}"),
    };
    crate::wait::eventually_some_async("the test server listens", || async move {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()
    })
    .await;
    (server, format!("http://127.0.0.1:{port}/mcp"))
}
