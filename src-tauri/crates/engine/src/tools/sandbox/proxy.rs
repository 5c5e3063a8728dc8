//! "Only these hosts" (issue 33): a sandboxed command with its own network namespace reaches the
//! network only through this proxy, which Tollgate runs for the length of the command and which
//! lets through connections to the listed hosts and nothing else.
//!
//! The way out: inside the namespace, a small forwarder ([`FORWARD_ARG`], started by the inner
//! step before Landlock) listens on `127.0.0.1:`[`PORT_INSIDE`] and passes each connection to
//! the proxy's UNIX socket in the run's private temp folder; the command finds it through
//! `HTTP_PROXY`/`HTTPS_PROXY`. Landlock lets the command connect to that one port and nothing
//! else, so there is no other route out (no interface but loopback, no DNS). The proxy speaks
//! HTTP: `CONNECT host:port` for TLS (the client's own TLS runs through untouched) and
//! absolute-form requests (`GET http://host/…`) for plain HTTP. A refused host gets a `403`
//! that names the rule, and is remembered so the tool card can say what was refused.

use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The port the forwarder listens on inside the command's network namespace.
pub const PORT_INSIDE: u16 = 3128;

/// The argument that makes Tollgate's binary the forwarder: `tollgate <ARG> <socket>`.
pub const FORWARD_ARG: &str = "--tollgate-sandbox-forward";

/// The proxy socket's name in the run's private temp folder.
pub const SOCKET_NAME: &str = ".tollgate-proxy.sock";

/// The longest request head the proxy reads.
const MAX_HEAD: usize = 16 * 1024;

/// Whether `host` (and `port`) is allowed by `hosts`: entries are host names (`registry.npmjs.org`),
/// suffixes (`*.pypi.org` or `.pypi.org`, which also cover `pypi.org` itself), optionally with a
/// port (`example.org:8443`); an entry without a port allows 80 and 443.
pub fn allowed(host: &str, port: u16, hosts: &[String]) -> bool {
    let host = normalize(host);
    hosts.iter().any(|entry| {
        let entry = entry.trim().to_ascii_lowercase();
        let (name, entry_port) = match entry.rsplit_once(':') {
            Some((name, p)) if !name.contains(':') => (name.to_string(), p.parse::<u16>().ok()),
            _ => (entry.clone(), None),
        };
        let port_ok = match entry_port {
            Some(p) => p == port,
            None => port == 80 || port == 443,
        };
        let name = normalize(&name);
        let name_ok = match name.strip_prefix("*.").or_else(|| name.strip_prefix('.')) {
            Some(suffix) => host == suffix || host.ends_with(&format!(".{suffix}")),
            None => host == name,
        };
        port_ok && name_ok && !name.is_empty()
    })
}

fn normalize(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// A running proxy; stops when dropped.
pub struct HostProxy {
    socket: PathBuf,
    refused: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl HostProxy {
    /// Starts a proxy for `hosts` listening on the UNIX socket `socket`.
    pub fn start(socket: &Path, hosts: Vec<String>) -> std::io::Result<Self> {
        let listener = tokio::net::UnixListener::bind(socket)?;
        let refused: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
        let hosts: Arc<[String]> = hosts.into();
        let seen = Arc::clone(&refused);
        let task = tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                let hosts = Arc::clone(&hosts);
                let seen = Arc::clone(&seen);
                tokio::spawn(async move {
                    if let Err(e) = serve(conn, &hosts, &seen).await {
                        tracing::debug!("sandbox proxy: {e}");
                    }
                });
            }
        });
        Ok(Self {
            socket: socket.to_path_buf(),
            refused,
            task,
        })
    }

    /// The hosts (`host:port`) the proxy refused so far, each once, in order.
    pub fn refused(&self) -> Vec<String> {
        self.refused.lock().clone()
    }

    /// Where it listens.
    pub fn socket(&self) -> &Path {
        &self.socket
    }
}

impl Drop for HostProxy {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// A request head: where it goes and what to send on.
struct Target {
    host: String,
    port: u16,
    /// `None` for CONNECT; the head to send upstream for plain HTTP.
    forward: Option<Vec<u8>>,
}

/// Reads a request head (through the blank line); the bytes read past it stay in `rest`.
async fn read_head<S: tokio::io::AsyncRead + Unpin>(
    conn: &mut S,
) -> std::io::Result<(String, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok((String::from_utf8_lossy(&buf).into_owned(), rest));
        }
        if buf.len() > MAX_HEAD {
            return Err(std::io::Error::other("request head too long"));
        }
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::other("closed before a request"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Where a request head wants to go.
fn parse(head: &str) -> Option<Target> {
    let mut lines = head.split("\r\n");
    let request = lines.next()?;
    let mut parts = request.split_whitespace();
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_host_port(target, 443)?;
        return Some(Target {
            host,
            port,
            forward: None,
        });
    }
    let url = url::Url::parse(target).ok()?;
    if url.scheme() != "http" {
        return None;
    }
    let host = url.host_str()?.to_string();
    let port = url.port().unwrap_or(80);
    let mut path = url.path().to_string();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    let mut out = format!("{method} {path} {version}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or_default().trim();
        if name.to_ascii_lowercase().starts_with("proxy-")
            || name.eq_ignore_ascii_case("connection")
        {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    // One request per connection: a second one on the same connection cannot name another host.
    out.push_str("Connection: close\r\n\r\n");
    Some(Target {
        host,
        port,
        forward: Some(out.into_bytes()),
    })
}

fn split_host_port(target: &str, default: u16) -> Option<(String, u16)> {
    if let Some(rest) = target.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
        return Some((host.to_string(), port.unwrap_or(default)));
    }
    match target.rsplit_once(':') {
        Some((host, port)) => Some((host.to_string(), port.parse().ok()?)),
        None => Some((target.to_string(), default)),
    }
}

async fn serve(
    mut conn: tokio::net::UnixStream,
    hosts: &[String],
    refused: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let (head, rest) = read_head(&mut conn).await?;
    let Some(target) = parse(&head) else {
        conn.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nTollgate's sandbox proxy takes CONNECT host:port and http:// requests.\r\n")
            .await?;
        return Ok(());
    };
    let name = format!("{}:{}", target.host, target.port);
    if !allowed(&target.host, target.port, hosts) {
        {
            let mut seen = refused.lock();
            if !seen.contains(&name) {
                seen.push(name.clone());
            }
        }
        let body = format!(
            "Tollgate's sandbox: {name} is not among this chat's allowed hosts ({}).\r\n",
            hosts.join(", ")
        );
        conn.write_all(
            format!(
                "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await?;
        return Ok(());
    }
    let mut upstream =
        match tokio::net::TcpStream::connect((target.host.as_str(), target.port)).await {
            Ok(s) => s,
            Err(e) => {
                conn.write_all(
                    format!("HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n{name}: {e}\r\n")
                        .as_bytes(),
                )
                .await?;
                return Ok(());
            }
        };
    match &target.forward {
        None => {
            conn.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .await?
        }
        Some(head) => upstream.write_all(head).await?,
    }
    upstream.write_all(&rest).await?;
    tokio::io::copy_bidirectional(&mut conn, &mut upstream).await?;
    Ok(())
}

/// The forwarder's work inside the namespace: listens on `127.0.0.1:`[`PORT_INSIDE`], says
/// "ready" on stdout once it does (the inner step waits for that, so the command never finds
/// nothing listening), and passes every connection to the proxy at `socket`. Runs until the
/// namespace ends.
#[cfg(unix)]
pub(crate) fn forward_main(socket: &str) -> i32 {
    use std::io::Write;
    let listener = match std::net::TcpListener::bind(("127.0.0.1", PORT_INSIDE)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{} the proxy could not listen: {e}", super::SANDBOX_MARK);
            return super::SANDBOX_FAILED_STATUS;
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "ready");
    let _ = out.flush();
    for conn in listener.incoming().flatten() {
        let socket = socket.to_string();
        std::thread::spawn(move || {
            let Ok(upstream) = std::os::unix::net::UnixStream::connect(&socket) else {
                return;
            };
            let (Ok(mut up_read), Ok(mut conn_read)) = (upstream.try_clone(), conn.try_clone())
            else {
                return;
            };
            let (mut up_write, mut conn_write) = (upstream, conn);
            let back = std::thread::spawn(move || {
                let _ = std::io::copy(&mut up_read, &mut conn_write);
                let _ = conn_write.shutdown(std::net::Shutdown::Write);
            });
            let _ = std::io::copy(&mut conn_read, &mut up_write);
            let _ = up_write.shutdown(std::net::Shutdown::Write);
            let _ = back.join();
        });
    }
    0
}

#[cfg(not(unix))]
pub(crate) fn forward_main(_socket: &str) -> i32 {
    super::SANDBOX_FAILED_STATUS
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn hosts_match_by_name_suffix_and_port() {
        let hosts: Vec<String> = ["registry.npmjs.org", "*.pypi.org", "example.org:8443"]
            .map(String::from)
            .to_vec();
        assert!(allowed("registry.npmjs.org", 443, &hosts));
        assert!(allowed("REGISTRY.npmjs.org.", 80, &hosts));
        assert!(!allowed("registry.npmjs.org", 22, &hosts));
        assert!(!allowed("evil-registry.npmjs.org", 443, &hosts));
        assert!(!allowed("registry.npmjs.org.evil.com", 443, &hosts));
        assert!(allowed("files.pypi.org", 443, &hosts));
        assert!(allowed("pypi.org", 443, &hosts));
        assert!(!allowed("notpypi.org", 443, &hosts));
        assert!(allowed("example.org", 8443, &hosts));
        assert!(!allowed("example.org", 443, &hosts));
        assert!(!allowed("anything", 443, &[]));
    }

    #[test]
    fn requests_are_read_for_their_target_and_plain_http_is_rewritten() {
        let t = parse(
            "CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\n\r\n",
        )
        .unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.forward.is_none()),
            ("registry.npmjs.org", 443, true)
        );
        let t = parse("CONNECT [::1]:8080 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("::1", 8080));
        let t = parse("GET http://example.org/a?b=1 HTTP/1.1\r\nHost: example.org\r\nProxy-Authorization: x\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\n").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("example.org", 80));
        assert_eq!(
            String::from_utf8(t.forward.unwrap()).unwrap(),
            "GET /a?b=1 HTTP/1.1\r\nHost: example.org\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
        assert!(parse("GET /relative HTTP/1.1\r\n\r\n").is_none());
        assert!(parse("GET ftp://x/ HTTP/1.1\r\n\r\n").is_none());
    }

    /// The proxy for real, on a UNIX socket, to a local upstream: a listed host is reached, an
    /// unlisted one gets a 403 that names it and is remembered.
    #[tokio::test]
    async fn a_listed_host_is_reached_and_an_unlisted_one_refused() {
        let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = upstream.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = upstream.accept().await {
                tokio::spawn(async move {
                    let mut buf = [0u8; 1024];
                    let n = s.read(&mut buf).await.unwrap_or(0);
                    let _ = s.write_all(&buf[..n]).await;
                });
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join(SOCKET_NAME);
        let proxy = HostProxy::start(&socket, vec![format!("127.0.0.1:{port}")]).unwrap();
        let mut c = tokio::net::UnixStream::connect(&socket).await.unwrap();
        c.write_all(format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nhello").as_bytes())
            .await
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 256];
        while !String::from_utf8_lossy(&got).ends_with("hello") {
            let n = c.read(&mut buf).await.unwrap();
            assert!(n > 0, "{}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
        assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"));
        let mut c = tokio::net::UnixStream::connect(&socket).await.unwrap();
        c.write_all(b"CONNECT evil.example:443 HTTP/1.1\r\n\r\n")
            .await
            .unwrap();
        let mut answer = String::new();
        c.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert!(answer.contains("evil.example:443 is not among this chat's allowed hosts"));
        assert_eq!(proxy.refused(), ["evil.example:443"]);
    }
}
