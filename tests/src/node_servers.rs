//! The test MCP servers of `tests/mcp` that speak HTTP (the official SDK's examples, the
//! stand-in browser), started as real node processes for the end-to-end tests of SPEC §11, and
//! a stand-in for the system browser that the app's opener finds on `PATH`.

use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// `tests/mcp`, with its npm packages installed.
pub fn mcp_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "run `npm ci` in tests/mcp (the test command does)"
    );
    dir
}

/// A script of the SDK's server examples.
pub fn sdk_example(name: &str) -> PathBuf {
    mcp_dir().join(format!(
        "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/{name}"
    ))
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

/// A node server, killed when dropped.
pub struct NodeServer {
    child: tokio::process::Child,
}

impl NodeServer {
    /// Starts `script` and waits (a minute at most) until it printed a line containing each of
    /// `ready`.
    pub async fn start(
        script: &Path,
        args: &[&str],
        env: &[(&str, String)],
        ready: &[&str],
    ) -> Result<Self, String> {
        let mut child = tokio::process::Command::new("node")
            .arg(script)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("starting node {}: {e}", script.display()))?;
        let stdout = child.stdout.take().ok_or_else(|| "no stdout".to_string())?;
        let mut lines = BufReader::new(stdout).lines();
        let mut waiting: Vec<&str> = ready.to_vec();
        let started = async {
            while !waiting.is_empty() {
                match lines.next_line().await {
                    Ok(Some(line)) => waiting.retain(|w| !line.contains(w)),
                    _ => return Err(format!("{} ended before it was ready", script.display())),
                }
            }
            Ok(())
        };
        tokio::time::timeout(Duration::from_secs(60), started)
            .await
            .map_err(|_| format!("{} did not start within a minute", script.display()))??;
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self { child })
    }

    /// Stops the server.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// The SDK's example server with OAuth (`--oauth`, or `--oauth-strict`), its authorization
/// server on `auth`.
pub async fn oauth_example(mcp: u16, auth: u16, strict: bool) -> Result<NodeServer, String> {
    NodeServer::start(
        &sdk_example("simpleStreamableHttp.js"),
        if strict {
            &["--oauth", "--oauth-strict"]
        } else {
            &["--oauth"]
        },
        &[
            ("MCP_PORT", mcp.to_string()),
            ("MCP_AUTH_PORT", auth.to_string()),
        ],
        &[
            "MCP Streamable HTTP Server listening",
            "OAuth Authorization Server listening",
        ],
    )
    .await
}

/// A folder holding `xdg-open`, the program the app's opener runs: it writes each address it
/// is given to `opened.txt` beside it and follows the redirects like a browser whose user
/// clicked "Allow". Put the folder first on the app's `PATH`.
pub struct StandInBrowser {
    dir: tempfile::TempDir,
}

impl StandInBrowser {
    pub fn new() -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir()?;
        let script = mcp_dir().join("standin-browser.mjs");
        let opener = dir.path().join("xdg-open");
        std::fs::write(
            &opener,
            format!(
                "#!/bin/sh\nexec node '{}' '{}' \"$@\"\n",
                script.display(),
                dir.path().join("opened.txt").display()
            ),
        )?;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755))?;
        Ok(Self { dir })
    }

    /// `PATH` with this folder first.
    pub fn path_env(&self) -> String {
        let rest = std::env::var("PATH").unwrap_or_default();
        format!("{}:{rest}", self.dir.path().display())
    }

    /// The addresses opened so far, in order.
    pub fn opened(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("opened.txt"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}
