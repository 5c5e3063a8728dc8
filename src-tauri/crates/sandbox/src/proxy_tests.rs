//! Tests of the "only these hosts" proxy ([`super`]): real sockets, a real upstream.
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
    // Addresses, IPv6 in brackets with a port, in any spelling.
    let hosts: Vec<String> = ["127.0.0.1:8080", "[::1]:9000", "10.0.0.7"]
        .map(String::from)
        .to_vec();
    assert!(allowed("127.0.0.1", 8080, &hosts));
    assert!(allowed("::1", 9000, &hosts));
    assert!(allowed("0:0::1", 9000, &hosts));
    assert!(!allowed("::1", 9001, &hosts));
    assert!(listed_with_port("127.0.0.1", 8080, &hosts));
    assert!(!listed_with_port("10.0.0.7", 443, &hosts));
    assert_eq!(
        listed_addresses(9000, &hosts),
        ["::1".parse::<IpAddr>().unwrap()]
    );
    assert_eq!(
        listed_addresses(443, &hosts),
        ["10.0.0.7".parse::<IpAddr>().unwrap()]
    );
}

#[test]
fn a_name_is_refused_when_any_address_it_resolves_to_is_not_public() {
    let addr = |s: &str| -> SocketAddr { s.parse().unwrap() };
    let public = Reach::public();
    assert_eq!(
        check_addresses("docs.rs", &[addr("93.184.216.34:443")], &public),
        Ok(())
    );
    let err = check_addresses(
        "evil.example",
        &[addr("93.184.216.34:443"), addr("127.0.0.1:443")],
        &public,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "evil.example resolves to 127.0.0.1, a loopback address; only listed addresses may be private"
    );
    for (inside, what) in [
        ("169.254.169.254:80", "link-local (cloud metadata)"),
        ("[fd00::1]:443", "private"),
        ("100.64.0.1:443", "non-public"),
        ("[::ffff:10.0.0.1]:443", "private"),
    ] {
        let err = check_addresses("x.example", &[addr(inside)], &public).unwrap_err();
        assert!(
            err.to_string().contains(&format!("a {what} address")),
            "{err}"
        );
    }
    // An address listed literally may be private, whichever name leads to it.
    let listed = Reach::also(["127.0.0.1".parse().unwrap()]);
    assert_eq!(
        check_addresses("localhost", &[addr("127.0.0.1:8080")], &listed),
        Ok(())
    );
    assert!(check_addresses("localhost", &[addr("[::1]:8080")], &listed).is_err());
}

#[test]
fn tunnels_are_judged_by_the_name_their_client_hello_carries() {
    let hosts: Vec<String> = ["registry.npmjs.org", "127.0.0.1:8443", "db.example:5432"]
        .map(String::from)
        .to_vec();
    let hello = |name: Option<&str>, encrypted: bool| {
        Ok(ClientHello {
            server_name: name.map(String::from),
            encrypted,
        })
    };
    let judge = |opening, host: &str, port| judge_tunnel(opening, host, port, &hosts);
    assert_eq!(
        judge(
            hello(Some("Registry.NPMJS.org."), false),
            "registry.npmjs.org",
            443
        ),
        Ok(())
    );
    assert_eq!(
        judge(
            hello(Some("evil.example"), false),
            "registry.npmjs.org",
            443
        ),
        Err(Refused::OtherName {
            target: "registry.npmjs.org:443".into(),
            named: "evil.example".into()
        })
    );
    assert!(matches!(
        judge(
            hello(Some("registry.npmjs.org"), true),
            "registry.npmjs.org",
            443
        ),
        Err(Refused::Encrypted { .. })
    ));
    assert!(matches!(
        judge(hello(None, false), "registry.npmjs.org", 443),
        Err(Refused::NoName { .. })
    ));
    // An address needs no name, but may not name another host.
    assert_eq!(judge(hello(None, false), "127.0.0.1", 8443), Ok(()));
    assert!(matches!(
        judge(hello(Some("evil.example"), false), "127.0.0.1", 8443),
        Err(Refused::OtherName { .. })
    ));
    // Not TLS: only to a host listed with its port.
    assert_eq!(judge(Err(HelloError::NotTls), "db.example", 5432), Ok(()));
    assert!(matches!(
        judge(Err(HelloError::NotTls), "registry.npmjs.org", 443),
        Err(Refused::NotTls { .. })
    ));
    assert!(matches!(
        judge(Err(HelloError::TooLong), "db.example", 5432),
        Err(Refused::BadHello { .. })
    ));
}

#[test]
fn requests_are_read_for_their_target_and_plain_http_is_rewritten() {
    let t =
        parse("CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\n\r\n")
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
    // The client's `Host` gives way to the host checked (a shared front would serve it).
    let t = parse("GET http://example.org:8080/ HTTP/1.1\r\nHOST: evil.example\r\n\r\n").unwrap();
    assert_eq!(
        String::from_utf8(t.forward.unwrap()).unwrap(),
        "GET / HTTP/1.1\r\nHost: example.org:8080\r\nConnection: close\r\n\r\n"
    );
    let t = parse("GET http://[::1]:9000/x HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!((t.host.as_str(), t.port), ("::1", 9000));
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

/// A local upstream on 127.0.0.1: keeps what each connection sent, in the order they were
/// accepted, and echoes it back.
async fn upstream() -> (u16, Arc<Mutex<Vec<Vec<u8>>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let seen = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let index = {
                let mut seen = seen.lock();
                seen.push(Vec::new());
                seen.len() - 1
            };
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = s.read(&mut buf).await {
                    seen.lock()[index].extend_from_slice(&buf[..n]);
                    if s.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    (port, received)
}

/// Sends `request` and then `payload` (in the writes given) through the proxy at `socket`
/// and reads until the answer ends with the echoed payload or the proxy closes.
async fn through(socket: &Path, request: &str, writes: &[&[u8]]) -> Vec<u8> {
    let mut c = tokio::net::UnixStream::connect(socket).await.unwrap();
    c.write_all(request.as_bytes()).await.unwrap();
    for part in writes {
        c.write_all(part).await.unwrap();
    }
    let payload = writes.concat();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while payload.is_empty() || !got.ends_with(&payload) {
        let n = c.read(&mut buf).await.unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    got
}

/// A tunnel to the upstream by its listed address, carrying `ping`: once its echo is back,
/// every connection the proxy made to the upstream before has been accepted there.
async fn control(port: u16) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join(SOCKET_NAME);
    let _proxy = HostProxy::start(&socket, vec![format!("127.0.0.1:{port}")]).unwrap();
    let got = through(
        &socket,
        &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n"),
        &[b"ping"],
    )
    .await;
    assert!(got.ends_with(b"ping"), "{}", String::from_utf8_lossy(&got));
}

/// A listed name that resolves to loopback is refused, for a tunnel and for plain HTTP, and
/// the upstream behind that address is never connected to.
#[tokio::test]
async fn a_listed_name_that_resolves_to_loopback_is_refused_and_never_connected() {
    let (port, received) = upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join(SOCKET_NAME);
    let proxy = HostProxy::start(&socket, vec![format!("localhost:{port}")]).unwrap();
    for request in [
        format!("CONNECT localhost:{port} HTTP/1.1\r\n\r\n"),
        format!("GET http://localhost:{port}/ HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    ] {
        // Bytes after the request: a proxy that let it through would pass them on, and the
        // echo would end the read (and the test) instead of a 403.
        let answer = String::from_utf8(through(&socket, &request, &[b"ping"]).await).unwrap();
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert!(answer.contains("localhost resolves to "), "{answer}");
        assert!(
            answer.contains("a loopback address; only listed addresses may be private"),
            "{answer}"
        );
    }
    assert_eq!(proxy.refused(), [format!("localhost:{port}")]);
    assert!(proxy.refusals()[0].why.contains("loopback"));
    control(port).await;
    assert_eq!(
        *received.lock(),
        [b"ping".to_vec()],
        "only the control got there"
    );
}

/// A tunnel to a listed address whose ClientHello names another host, or hides it with
/// Encrypted Client Hello, is closed before anything reaches the upstream.
#[tokio::test]
async fn a_tunnel_whose_client_hello_names_another_host_is_refused() {
    use super::super::client_hello::tests::{hello_message, records};
    let (port, received) = upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join(SOCKET_NAME);
    let proxy = HostProxy::start(&socket, vec![format!("127.0.0.1:{port}")]).unwrap();
    let request = format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n");
    let fronted = records(&hello_message(Some("evil.example"), &[]), 4096);
    let got = through(&socket, &request, &[&fronted]).await;
    assert_eq!(got, b"HTTP/1.1 200 Connection established\r\n\r\n");
    let ech = records(&hello_message(None, &[(0xfe0d, vec![1, 2, 3])]), 4096);
    let got = through(&socket, &request, &[&ech]).await;
    assert_eq!(got, b"HTTP/1.1 200 Connection established\r\n\r\n");
    let refusals = proxy.refusals();
    assert_eq!(
        proxy.refused(),
        [format!("evil.example:{port}"), format!("127.0.0.1:{port}")]
    );
    assert!(
        refusals[0].why.contains("names evil.example"),
        "{refusals:?}"
    );
    assert!(
        refusals[1].why.contains("Encrypted Client Hello"),
        "{refusals:?}"
    );
    control(port).await;
    assert_eq!(
        *received.lock(),
        [b"ping".to_vec()],
        "only the control got there"
    );
}

/// A ClientHello that names the CONNECT host passes, split over two records and two writes,
/// and reaches the upstream byte for byte; the name led to addresses that are listed.
#[tokio::test]
async fn a_matching_client_hello_reaches_the_upstream_intact() {
    use super::super::client_hello::tests::{hello_message, records};
    let (port, received) = upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join(SOCKET_NAME);
    let hosts = ["localhost", "127.0.0.1", "[::1]"].map(|h| format!("{h}:{port}"));
    let proxy = HostProxy::start(&socket, hosts.to_vec()).unwrap();
    let message = hello_message(Some("LocalHost."), &[]);
    let hello = records(&message, message.len() / 2 + 1);
    let (first, second) = hello.split_at(7);
    let got = through(
        &socket,
        &format!("CONNECT localhost:{port} HTTP/1.1\r\n\r\n"),
        &[first, second],
    )
    .await;
    let ok = b"HTTP/1.1 200 Connection established\r\n\r\n";
    assert_eq!(got, [ok.as_slice(), &hello].concat());
    assert_eq!(*received.lock(), [hello]);
    assert!(proxy.refused().is_empty());
}
