//! "Only these hosts" (F-46): a sandboxed command with its own network namespace reaches the
//! network only through this proxy, which Tollgate runs for the length of the command and which
//! lets through connections to the listed hosts and nothing else.
//!
//! The way out: inside the namespace, a small forwarder ([`FORWARD_ARG`], started by the inner
//! step before Landlock) listens on `127.0.0.1:`[`PORT_INSIDE`] and passes each connection to
//! the proxy's UNIX socket in the run's private temp folder; the command finds it through
//! `HTTP_PROXY`/`HTTPS_PROXY`. Landlock lets the command connect to that one port and nothing
//! else, so there is no other route out (no interface but loopback, no DNS). The proxy speaks
//! HTTP: `CONNECT host:port` for TLS and absolute-form requests (`GET http://host/…`) for plain
//! HTTP. A refused host gets a `403` that says why, and is remembered so the tool card can say
//! what was refused.
//!
//! A listed name is not trusted to lead where its name says (SPEC §12):
//! - the proxy resolves it itself and refuses it when any address it resolves to is not public
//!   (loopback, a private network, the cloud metadata service…) unless that address is listed
//!   literally, then connects to exactly the addresses it checked ([`check_addresses`]);
//! - a tunnel carries only the host it was opened to: the client's ClientHello must name that
//!   host in its server name (SNI) ([`judge_tunnel`]), so a client cannot open a tunnel to a
//!   listed name and then ask the front for another one by its TLS name;
//! - a plain HTTP request goes out with the `Host` the proxy checked, not the client's.
//!
//! What the list binds, exactly (SECURITY.md, "Only these hosts"): the host a connection is
//! opened to, the addresses it resolves to, and the TLS server name. It does **not** bind what
//! travels inside the encrypted tunnel: the HTTP `Host` header (and HTTP/2 `:authority`) inside
//! TLS are the client's and the server's alone. A listed name served by a shared front (a CDN,
//! a cloud load balancer) that routes by that inner header can therefore be asked, inside a
//! tunnel opened to the listed name, for any other site the same front serves ("domain
//! fronting"). List only names whose front serves no one else you would not list.

use super::client_hello::{self, ClientHello, HelloError};
use crate::http_head::read_head;
use crate::reach::{describe, Reach};
use parking_lot::Mutex;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tollgate_names::{normalize, HostPattern};

/// The port the forwarder listens on inside the command's network namespace.
pub const PORT_INSIDE: u16 = 3128;

/// The argument that makes Tollgate's binary the forwarder: `tollgate <ARG> <socket>`.
pub const FORWARD_ARG: &str = "--tollgate-sandbox-forward";

/// The proxy socket's name in the run's private temp folder.
pub const SOCKET_NAME: &str = ".tollgate-proxy.sock";

/// The entries of `hosts` that allow `host` on `port` (read as every list of hosts is,
/// [`HostPattern`]).
fn matching<'h>(
    host: &'h str,
    port: u16,
    hosts: &'h [String],
) -> impl Iterator<Item = HostPattern> + 'h {
    hosts
        .iter()
        .map(|raw| HostPattern::parse(raw))
        .filter(move |entry| entry.allows(host, port))
}

/// Whether `host` (and `port`) is allowed by `hosts`: entries are host names (`registry.npmjs.org`),
/// suffixes (`*.pypi.org` or `.pypi.org`, which also cover `pypi.org` itself), optionally with a
/// port (`example.org:8443`); an entry without a port allows 80 and 443.
pub fn allowed(host: &str, port: u16, hosts: &[String]) -> bool {
    matching(host, port, hosts).next().is_some()
}

/// Whether an entry that allows `host` names `port` itself: the user meant that one service,
/// whatever protocol it speaks, so a tunnel to it need not carry TLS ([`judge_tunnel`]).
fn listed_with_port(host: &str, port: u16, hosts: &[String]) -> bool {
    matching(host, port, hosts).any(|entry| entry.port() == Some(port))
}

/// The addresses `hosts` lists literally for `port`: the only non-public addresses the proxy
/// connects to, whichever name led to them.
fn listed_addresses(port: u16, hosts: &[String]) -> Vec<IpAddr> {
    hosts
        .iter()
        .map(|raw| HostPattern::parse(raw))
        .filter_map(|entry| {
            let ip = entry.address()?;
            entry.allows_port(port).then_some(ip)
        })
        .collect()
}

/// `host:port`, with an IPv6 address in brackets.
fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Why the proxy refused a connection: the text of its `403` (or, once a tunnel is open, only
/// of the refusal it remembers).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The host (and port) is not in the chat's list.
    #[error("{target} is not among this chat's allowed hosts ({listed})")]
    NotListed { target: String, listed: String },
    /// A listed name resolves to an address that is not public, and that address is not
    /// listed itself (DNS rebinding, or a name that leads inside).
    #[error("{host} resolves to {ip}, a {what} address; only listed addresses may be private")]
    NotPublic {
        host: String,
        ip: IpAddr,
        what: &'static str,
    },
    /// The ClientHello names another host than the CONNECT (domain fronting).
    #[error("the TLS client in the tunnel to {target} names {named}: a tunnel carries only the host it was opened to")]
    OtherName { target: String, named: String },
    /// The ClientHello hides the host it means behind a cover name.
    #[error(
        "the TLS client in the tunnel to {target} hides the host it means (Encrypted Client Hello)"
    )]
    Encrypted { target: String },
    /// The ClientHello names no host, and the CONNECT named one: nothing ties them.
    #[error("the TLS client in the tunnel to {target} names no host (no SNI)")]
    NoName { target: String },
    /// Not TLS, to a host listed without a port ([`judge_tunnel`]).
    #[error("the tunnel to {target} does not carry TLS; other protocols go only to a host listed with its port")]
    NotTls { target: String },
    /// TLS, but no ClientHello the proxy can read: it cannot tell where it goes.
    #[error("the tunnel to {target} does not start with a ClientHello the proxy can read ({why})")]
    BadHello { target: String, why: HelloError },
}

/// A connection the proxy refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The `host:port` the command tried to reach (for a tunnel whose ClientHello named
    /// another host, that host).
    pub target: String,
    /// Why, in a sentence ([`Refused`]).
    pub why: String,
}

/// Checks the addresses `host` resolved to before any is connected to: every one must be public
/// or listed literally (`reach`). A name with one address that is not refuses the name whole,
/// rather than connecting only to the public ones: a name that resolves both inside and
/// outside is either a rebinding attack or a split-horizon name meant for the inside, and
/// neither should be half-followed. The caller connects to these same addresses, so no second
/// lookup can lead elsewhere.
pub fn check_addresses(host: &str, found: &[SocketAddr], reach: &Reach) -> Result<(), Refused> {
    match found.iter().find(|a| !reach.permits(a.ip())) {
        Some(bad) => Err(Refused::NotPublic {
            host: host.to_string(),
            ip: bad.ip(),
            what: describe(bad.ip()),
        }),
        None => Ok(()),
    }
}

/// Whether a tunnel to `host:port` may open, from the first bytes its client sent (`opening`,
/// [`client_hello::parse`]'s reading of them):
/// - TLS: the ClientHello must name `host` (case and a trailing dot aside); one that names
///   another host (domain fronting), hides it (Encrypted Client Hello: the name the proxy sees
///   is only a cover) or names none while `host` is a name is refused. A tunnel to an address
///   needs no name (clients send none for an IP literal), but one that names another host is
///   still refused.
/// - Not TLS: only to a host listed with its port (`db.example:5432`, `127.0.0.1:8080`): the
///   user named that one service, whatever it speaks. To an entry without a port (80 and 443)
///   it is refused: a plain HTTP request through the tunnel could carry any `Host` to a shared
///   front — the fronting the name check above stops — and plain HTTP has its own way through
///   the proxy, which sets `Host` itself.
/// - Unreadable (malformed, too long): refused.
pub fn judge_tunnel(
    opening: Result<ClientHello, HelloError>,
    host: &str,
    port: u16,
    hosts: &[String],
) -> Result<(), Refused> {
    let target = host_port(host, port);
    let hello = match opening {
        Ok(hello) => hello,
        Err(HelloError::NotTls) if listed_with_port(host, port, hosts) => return Ok(()),
        Err(HelloError::NotTls) => return Err(Refused::NotTls { target }),
        Err(why) => return Err(Refused::BadHello { target, why }),
    };
    if hello.encrypted {
        return Err(Refused::Encrypted { target });
    }
    match hello.server_name {
        Some(named) if normalize(&named) == normalize(host) => Ok(()),
        Some(named) => Err(Refused::OtherName { target, named }),
        None if normalize(host).parse::<IpAddr>().is_ok() => Ok(()),
        None => Err(Refused::NoName { target }),
    }
}

/// A running proxy; stops when dropped.
pub struct HostProxy {
    socket: PathBuf,
    refused: Arc<Mutex<Vec<Refusal>>>,
    task: tokio::task::JoinHandle<()>,
}

impl HostProxy {
    /// Starts a proxy for `hosts` listening on the UNIX socket `socket`.
    pub fn start(socket: &Path, hosts: Vec<String>) -> std::io::Result<Self> {
        let listener = tokio::net::UnixListener::bind(socket)?;
        let refused: Arc<Mutex<Vec<Refusal>>> = Arc::new(Mutex::new(Vec::new()));
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
        self.refused
            .lock()
            .iter()
            .map(|r| r.target.clone())
            .collect()
    }

    /// The refusals so far with their reasons, one per host, in order: a listed host can be
    /// refused too (it resolved to a private address, its tunnel named another host), and
    /// "not among the allowed hosts" would not say why.
    pub fn refusals(&self) -> Vec<Refusal> {
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

/// Remembers a refusal of `target`, once per target.
fn remember(refused: &Mutex<Vec<Refusal>>, target: String, why: &Refused) {
    tracing::debug!("sandbox proxy refused {target}: {why}");
    let mut seen = refused.lock();
    if !seen.iter().any(|r| r.target == target) {
        seen.push(Refusal {
            target,
            why: why.to_string(),
        });
    }
}

/// A request head: where it goes and what to send on.
struct Target {
    host: String,
    port: u16,
    /// `None` for CONNECT; the head to send upstream for plain HTTP.
    forward: Option<Vec<u8>>,
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
    let host = match url.host()? {
        url::Host::Domain(name) => name.to_string(),
        url::Host::Ipv4(v4) => v4.to_string(),
        url::Host::Ipv6(v6) => v6.to_string(),
    };
    let port = url.port().unwrap_or(80);
    let mut path = url.path().to_string();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    // The host the proxy checked, not the client's `Host`: a shared front would serve
    // whichever site that named.
    let authority = match url.port() {
        Some(p) => format!("{}:{p}", url.host_str()?),
        None => url.host_str()?.to_string(),
    };
    let mut out = format!("{method} {path} {version}\r\nHost: {authority}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or_default().trim();
        if name.to_ascii_lowercase().starts_with("proxy-")
            || name.eq_ignore_ascii_case("connection")
            || name.eq_ignore_ascii_case("host")
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

/// Why a request goes no further before anything is connected.
#[derive(Debug, thiserror::Error)]
enum Blocked {
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error("{0}")]
    Unresolved(String),
}

/// The addresses to connect to for `target`: it must be listed, and every address its name
/// resolves to public or listed literally ([`check_addresses`]).
async fn admit(target: &Target, hosts: &[String]) -> Result<Vec<SocketAddr>, Blocked> {
    let name = host_port(&target.host, target.port);
    if !allowed(&target.host, target.port, hosts) {
        return Err(Refused::NotListed {
            target: name,
            listed: hosts.join(", "),
        }
        .into());
    }
    let found: Vec<SocketAddr> = tokio::net::lookup_host((target.host.as_str(), target.port))
        .await
        .map_err(|e| Blocked::Unresolved(format!("{name} could not be resolved: {e}")))?
        .collect();
    if found.is_empty() {
        return Err(Blocked::Unresolved(format!("{name} has no address")));
    }
    let reach = Reach::also(listed_addresses(target.port, hosts));
    check_addresses(&target.host, &found, &reach)?;
    Ok(found)
}

/// Reads the first bytes of a tunnel into `buf` (which holds what came with the request head)
/// until [`client_hello::parse`] can decide, and returns its reading; `None` when the client
/// closed first. Reads at most about [`client_hello::MAX_INPUT`] bytes. A protocol in which the
/// server speaks first waits here for nothing: it cannot go through the proxy.
async fn read_opening<S: tokio::io::AsyncRead + Unpin>(
    conn: &mut S,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Result<ClientHello, HelloError>>> {
    let mut chunk = [0u8; 4096];
    loop {
        match client_hello::parse(buf) {
            Ok(Some(hello)) => return Ok(Some(Ok(hello))),
            Ok(None) if buf.len() < client_hello::MAX_INPUT => {}
            Ok(None) => return Ok(Some(Err(HelloError::TooLong))),
            Err(e) => return Ok(Some(Err(e))),
        }
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Writes a `status` answer with a plain-text `body` and no more.
async fn answer<S: tokio::io::AsyncWrite + Unpin>(
    conn: &mut S,
    status: &str,
    body: &str,
) -> std::io::Result<()> {
    let body = format!("Tollgate's sandbox: {body}.\r\n");
    conn.write_all(
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .await
}

/// One client connection: its request, checked ([`admit`]), and — once a tunnel's opening
/// passed too ([`open_tunnel`]) — passed on to exactly the addresses checked.
async fn serve(
    mut conn: tokio::net::UnixStream,
    hosts: &[String],
    refused: &Mutex<Vec<Refusal>>,
) -> std::io::Result<()> {
    let (head, rest) = read_head(&mut conn).await?;
    let Some(target) = parse(&head) else {
        conn.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nTollgate's sandbox proxy takes CONNECT host:port and http:// requests.\r\n")
            .await?;
        return Ok(());
    };
    let name = host_port(&target.host, target.port);
    let addrs = match admit(&target, hosts).await {
        Ok(addrs) => addrs,
        Err(Blocked::Refused(why)) => {
            remember(refused, name, &why);
            return answer(&mut conn, "403 Forbidden", &why.to_string()).await;
        }
        Err(Blocked::Unresolved(why)) => return answer(&mut conn, "502 Bad Gateway", &why).await,
    };
    let first = match &target.forward {
        Some(head) => [head.as_slice(), &rest].concat(),
        None => match open_tunnel(&mut conn, rest, &target, hosts, refused).await? {
            Some(first) => first,
            None => return Ok(()),
        },
    };
    // Exactly the addresses checked: no second lookup.
    let mut upstream = match tokio::net::TcpStream::connect(addrs.as_slice()).await {
        Ok(s) => s,
        Err(e) if target.forward.is_some() => {
            return answer(&mut conn, "502 Bad Gateway", &format!("{name}: {e}")).await
        }
        // A tunnel already said 200: closing it is all that is left to say.
        Err(e) => return Err(e),
    };
    upstream.write_all(&first).await?;
    tokio::io::copy_bidirectional(&mut conn, &mut upstream).await?;
    Ok(())
}

/// A CONNECT's tunnel, before anything is connected upstream: says 200, reads the client's
/// first bytes (after `rest`, what came with the request) and judges them ([`judge_tunnel`]).
/// The bytes to send on when the tunnel may open; `None` when the client left or the tunnel was
/// refused (then remembered, under the host a ClientHello named when it named another).
async fn open_tunnel(
    conn: &mut tokio::net::UnixStream,
    rest: Vec<u8>,
    target: &Target,
    hosts: &[String],
    refused: &Mutex<Vec<Refusal>>,
) -> std::io::Result<Option<Vec<u8>>> {
    conn.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await?;
    let mut first = rest;
    let Some(opening) = read_opening(conn, &mut first).await? else {
        return Ok(None);
    };
    match judge_tunnel(opening, &target.host, target.port, hosts) {
        Ok(()) => Ok(Some(first)),
        Err(why) => {
            let seen = match &why {
                Refused::OtherName { named, .. } => host_port(named, target.port),
                _ => host_port(&target.host, target.port),
            };
            remember(refused, seen, &why);
            Ok(None)
        }
    }
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
#[path = "proxy_tests.rs"]
mod tests;
