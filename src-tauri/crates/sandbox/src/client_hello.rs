//! The first TLS message of a tunnel through the "only these hosts" proxy ([`super::proxy`]): a
//! `CONNECT allowed.example:443` answered with 200 carries whatever the client sends next, and
//! a client that names another host in its ClientHello (`server_name`) reaches that host on a
//! shared front (a CDN, a cloud load balancer) through an allowed name: domain fronting. The
//! proxy reads the ClientHello with [`parse`] and compares the name it carries with the CONNECT
//! host before a byte goes upstream.
//!
//! Pure functions over bytes, no I/O: the proxy feeds what it has read so far and reads more
//! while [`parse`] says the message is incomplete. Malformed or oversized input is an error,
//! never a panic, and never "no name": a parser that guessed would be the gap.

/// The longest ClientHello (the handshake message body) read: real ones are under 2 KiB even
/// with post-quantum key shares; 16 KiB (one full record) leaves room for padding extensions.
pub const MAX_HELLO: usize = 16 * 1024;

/// The most TLS records a ClientHello may be split over. Clients split a large one into two or
/// three; a hello in tiny slices is refused rather than buffered without end.
pub const MAX_RECORDS: usize = 64;

/// The most bytes [`parse`] needs before it decides: the longest hello with its handshake
/// header, split over the most records, each with its 5-byte header. The proxy reads no more.
pub const MAX_INPUT: usize = MAX_HELLO + HANDSHAKE_HEADER + MAX_RECORDS * RECORD_HEADER;

/// TLS record content type "handshake": the first byte of every TLS connection.
pub const HANDSHAKE_RECORD: u8 = 0x16;

/// The `server_name` extension (RFC 6066).
const SERVER_NAME: u16 = 0;
/// `encrypted_client_hello` (RFC 9849, draft-ietf-tls-esni-13 and later).
const ENCRYPTED_CLIENT_HELLO: u16 = 0xfe0d;
/// `encrypted_server_name`, ECH's predecessor (ESNI drafts), still sent by old clients.
const ENCRYPTED_SERVER_NAME: u16 = 0xffce;

const RECORD_HEADER: usize = 5;
const HANDSHAKE_HEADER: usize = 4;
/// Handshake message type `client_hello`.
const CLIENT_HELLO: u8 = 1;
/// The largest plaintext record TLS allows (2^14).
const MAX_RECORD: usize = 16 * 1024;

/// What the proxy needs from a ClientHello.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientHello {
    /// The `host_name` of the `server_name` extension, as sent (no SNI: `None`).
    pub server_name: Option<String>,
    /// Whether it carries Encrypted Client Hello (or ESNI): the name above is then only the
    /// outer one, and the host really meant is hidden from the proxy.
    pub encrypted: bool,
}

/// Why the bytes are not a ClientHello the proxy can judge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HelloError {
    /// The first byte is not a TLS handshake record: the tunnel carries another protocol.
    #[error("the tunnel does not start with a TLS handshake")]
    NotTls,
    /// A TLS handshake whose first message is not a ClientHello.
    #[error("the first TLS handshake message is not a ClientHello")]
    NotClientHello,
    /// Longer than [`MAX_HELLO`], or split over more than [`MAX_RECORDS`] records.
    #[error("the ClientHello is longer than {MAX_HELLO} bytes or split over more than {MAX_RECORDS} records")]
    TooLong,
    /// Lengths that do not add up, a record of another type in the middle, a bad name.
    #[error("malformed ClientHello: {0}")]
    Malformed(&'static str),
}

/// Reads the ClientHello at the start of `input` (the first bytes a client sent in a tunnel):
/// `Ok(None)` while more bytes are needed to decide, `Ok(Some(hello))` once it is whole (bytes
/// after it are not looked at). A hello split over several TLS records is reassembled first.
pub fn parse(input: &[u8]) -> Result<Option<ClientHello>, HelloError> {
    match reassemble(input)? {
        Some(message) => body(&message[HANDSHAKE_HEADER..]).map(Some),
        None => Ok(None),
    }
}

/// The first handshake message (header included) carried by the handshake records at the start
/// of `input`, once all its bytes are there; `None` while some are missing. The record that
/// completes it need not be whole: the rest of it is not the hello's.
fn reassemble(input: &[u8]) -> Result<Option<Vec<u8>>, HelloError> {
    let mut message: Vec<u8> = Vec::new();
    let mut rest = input;
    for _ in 0..MAX_RECORDS {
        let Some(record) = record(rest)? else {
            return Ok(None);
        };
        message.extend_from_slice(record.payload);
        if let Some(wanted) = message_len(&message)? {
            if message.len() >= wanted {
                message.truncate(wanted);
                return Ok(Some(message));
            }
        }
        if !record.whole {
            return Ok(None);
        }
        rest = record.after;
    }
    Err(HelloError::TooLong)
}

/// The whole length (header included) of the handshake message starting `message`, once its
/// header is there; a ClientHello longer than [`MAX_HELLO`] is refused as soon as that is known.
fn message_len(message: &[u8]) -> Result<Option<usize>, HelloError> {
    match message.first() {
        None => return Ok(None),
        Some(&CLIENT_HELLO) => {}
        Some(_) => return Err(HelloError::NotClientHello),
    }
    let Some(len) = message.get(1..HANDSHAKE_HEADER) else {
        return Ok(None);
    };
    let len = usize::from(len[0]) << 16 | usize::from(len[1]) << 8 | usize::from(len[2]);
    if len > MAX_HELLO {
        return Err(HelloError::TooLong);
    }
    Ok(Some(HANDSHAKE_HEADER + len))
}

/// A handshake record at the start of the input, as far as it has arrived.
struct Record<'a> {
    /// Its payload so far.
    payload: &'a [u8],
    /// Whether all of the payload is there.
    whole: bool,
    /// The bytes after it (none while it is not whole).
    after: &'a [u8],
}

/// The handshake record at the start of `input`; `None` while its header is incomplete.
fn record(input: &[u8]) -> Result<Option<Record<'_>>, HelloError> {
    match input.first() {
        None => return Ok(None),
        Some(&HANDSHAKE_RECORD) => {}
        // Only the first record decides whether this is TLS at all; a record of another type
        // before the hello is whole is a broken (or crafted) stream.
        Some(_) => return Err(HelloError::NotTls),
    }
    let Some(header) = input.get(..RECORD_HEADER) else {
        return Ok(None);
    };
    if header[1] != 3 {
        return Err(HelloError::Malformed("record version"));
    }
    let len = usize::from(u16::from_be_bytes([header[3], header[4]]));
    if len == 0 || len > MAX_RECORD {
        return Err(HelloError::Malformed("record length"));
    }
    let end = (RECORD_HEADER + len).min(input.len());
    Ok(Some(Record {
        payload: &input[RECORD_HEADER..end],
        whole: end == RECORD_HEADER + len,
        after: &input[end..],
    }))
}

/// The fields of a ClientHello body the proxy needs.
fn body(body: &[u8]) -> Result<ClientHello, HelloError> {
    let mut r = Reader(body);
    r.take(2)?; // legacy_version
    r.take(32)?; // random
    let session = usize::from(r.u8()?);
    r.take(session)?;
    let suites = usize::from(r.u16()?);
    r.take(suites)?;
    let compression = usize::from(r.u8()?);
    r.take(compression)?;
    let mut hello = ClientHello {
        server_name: None,
        encrypted: false,
    };
    if r.0.is_empty() {
        return Ok(hello); // no extensions at all (old clients)
    }
    let len = usize::from(r.u16()?);
    let mut extensions = Reader(r.take(len)?);
    if !r.0.is_empty() {
        return Err(HelloError::Malformed("bytes after the extensions"));
    }
    let mut seen_name = false;
    while !extensions.0.is_empty() {
        let kind = extensions.u16()?;
        let len = usize::from(extensions.u16()?);
        let data = extensions.take(len)?;
        match kind {
            SERVER_NAME if seen_name => {
                // Two names: the proxy and the server could each read a different one.
                return Err(HelloError::Malformed("two server_name extensions"));
            }
            SERVER_NAME => {
                seen_name = true;
                hello.server_name = host_name(data)?;
            }
            ENCRYPTED_CLIENT_HELLO | ENCRYPTED_SERVER_NAME => hello.encrypted = true,
            _ => {}
        }
    }
    Ok(hello)
}

/// The `host_name` entry of a `server_name` extension's data; more than one, or a name that is
/// not printable ASCII, is refused (a server might stop at a NUL the proxy read past).
fn host_name(data: &[u8]) -> Result<Option<String>, HelloError> {
    let mut r = Reader(data);
    let len = usize::from(r.u16()?);
    let mut list = Reader(r.take(len)?);
    if !r.0.is_empty() {
        return Err(HelloError::Malformed("bytes after the server name list"));
    }
    let mut name = None;
    while !list.0.is_empty() {
        let kind = list.u8()?;
        let len = usize::from(list.u16()?);
        let value = list.take(len)?;
        if kind != 0 {
            continue;
        }
        if name.is_some() {
            return Err(HelloError::Malformed("two host names"));
        }
        if value.is_empty() || !value.iter().all(|b| b.is_ascii_graphic()) {
            return Err(HelloError::Malformed("host name"));
        }
        name = Some(String::from_utf8_lossy(value).into_owned());
    }
    Ok(name)
}

/// A cursor over bytes whose reads fail, rather than panic, past the end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], HelloError> {
        if self.0.len() < n {
            return Err(HelloError::Malformed("truncated"));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, HelloError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, HelloError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A ClientHello curl (OpenSSL 3) sent for `https://example.com/`, as captured from the
    /// wire: one record, TLS 1.3 and 1.2 suites, ALPN, key share, padding.
    const CURL_HELLO: &str = concat!(
        "1603010200010001fc03039ba0ac3441f12dd980c9396a05a3cd711c5f0377b1f17663da29a5757424ae1d20",
        "e6cf09855a620bc4a06e87c55f7550d0bdaa587c34778834c9844e248e703587003e130213031301c02cc030",
        "009fcca9cca8ccaac02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d",
        "003c0035002f00ff0100017500000010000e00000b6578616d706c652e636f6d000b000403000102000a0016",
        "0014001d0017001e00190018010001010102010301040010000e000c02683208687474702f312e3100160000",
        "0017000000310000000d002a0028040305030603080708080809080a080b0804080508060401050106010303",
        "03010302040205020602002b0009080304030303020301002d00020101003300260024001d002015279d5d74",
        "6b3730ae1aaf317a5ff7317100320edae7195f7fdfb84e7b4af560001500b2",
    );

    pub(crate) fn curl_hello() -> Vec<u8> {
        let mut bytes = hex::decode(CURL_HELLO).unwrap();
        bytes.extend(vec![0u8; 0xb2]); // the padding extension's zeros
        bytes
    }

    /// A ClientHello message (handshake header included) naming `sni`, with `more` extensions.
    pub(crate) fn hello_message(sni: Option<&str>, more: &[(u16, Vec<u8>)]) -> Vec<u8> {
        let mut ext = Vec::new();
        let mut push = |kind: u16, data: &[u8]| {
            ext.extend_from_slice(&kind.to_be_bytes());
            ext.extend_from_slice(&(data.len() as u16).to_be_bytes());
            ext.extend_from_slice(data);
        };
        if let Some(name) = sni {
            let mut entry = vec![0u8];
            entry.extend_from_slice(&(name.len() as u16).to_be_bytes());
            entry.extend_from_slice(name.as_bytes());
            let mut list = (entry.len() as u16).to_be_bytes().to_vec();
            list.extend(entry);
            push(SERVER_NAME, &list);
        }
        push(0x002b, &[2, 3, 4]); // supported_versions: TLS 1.3
        for (kind, data) in more {
            push(*kind, data);
        }
        let mut body = vec![3, 3];
        body.extend([7u8; 32]); // random
        body.push(0); // no session id
        body.extend([0, 2, 0x13, 0x01]); // TLS_AES_128_GCM_SHA256
        body.extend([1, 0]); // null compression
        body.extend_from_slice(&(ext.len() as u16).to_be_bytes());
        body.extend(ext);
        let mut message = vec![CLIENT_HELLO];
        message.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        message.extend(body);
        message
    }

    /// `message` in TLS handshake records of at most `size` bytes of payload each.
    pub(crate) fn records(message: &[u8], size: usize) -> Vec<u8> {
        message
            .chunks(size)
            .flat_map(|chunk| {
                let mut record = vec![HANDSHAKE_RECORD, 3, 1];
                record.extend_from_slice(&(chunk.len() as u16).to_be_bytes());
                record.extend_from_slice(chunk);
                record
            })
            .collect()
    }

    #[test]
    fn the_name_of_a_real_client_hello_is_read() {
        let bytes = curl_hello();
        assert_eq!(
            parse(&bytes).unwrap(),
            Some(ClientHello {
                server_name: Some("example.com".into()),
                encrypted: false,
            })
        );
        // Every shorter prefix asks for more, never guesses.
        for cut in 0..bytes.len() {
            assert_eq!(parse(&bytes[..cut]), Ok(None), "cut at {cut}");
        }
        // What follows the hello (early data, a second flight) is not looked at.
        let mut more = bytes.clone();
        more.extend_from_slice(b"\x17\x03\x03\x00\x01x");
        assert_eq!(
            parse(&more).unwrap().unwrap().server_name.as_deref(),
            Some("example.com")
        );
    }

    #[test]
    fn a_hello_split_over_records_is_reassembled() {
        let message = hello_message(Some("registry.npmjs.org"), &[]);
        let whole = parse(&records(&message, 1000)).unwrap().unwrap();
        for size in [1, 7, 40] {
            let split = records(&message, size);
            if message.len().div_ceil(size) > MAX_RECORDS {
                assert_eq!(parse(&split), Err(HelloError::TooLong), "{size}");
                continue;
            }
            assert_eq!(parse(&split).unwrap().as_ref(), Some(&whole), "{size}");
            assert_eq!(parse(&split[..split.len() - 1]), Ok(None));
        }
        assert_eq!(whole.server_name.as_deref(), Some("registry.npmjs.org"));
        // Split in two records, as a large post-quantum hello is.
        let two = records(&message, message.len() / 2 + 1);
        assert_eq!(two.iter().filter(|b| **b == HANDSHAKE_RECORD).count(), 2);
        assert_eq!(parse(&two).unwrap().as_ref(), Some(&whole));
    }

    #[test]
    fn encrypted_client_hello_and_a_missing_name_are_told() {
        let ech = hello_message(Some("cover.example"), &[(0xfe0d, vec![0, 1, 2, 3])]);
        let hello = parse(&records(&ech, 4096)).unwrap().unwrap();
        assert!(hello.encrypted);
        assert_eq!(hello.server_name.as_deref(), Some("cover.example"));
        let esni = hello_message(None, &[(0xffce, vec![9; 8])]);
        assert!(parse(&records(&esni, 4096)).unwrap().unwrap().encrypted);
        let bare = parse(&records(&hello_message(None, &[]), 4096))
            .unwrap()
            .unwrap();
        assert_eq!(
            bare,
            ClientHello {
                server_name: None,
                encrypted: false
            }
        );
    }

    #[test]
    fn garbage_and_truncated_input_are_errors_not_panics() {
        assert_eq!(parse(b"GET / HTTP/1.1\r\n"), Err(HelloError::NotTls));
        assert_eq!(parse(b"SSH-2.0-OpenSSH_9.6\r\n"), Err(HelloError::NotTls));
        assert_eq!(parse(&[]), Ok(None));
        // A handshake that is not a ClientHello (a ServerHello).
        assert_eq!(
            parse(&[0x16, 3, 3, 0, 4, 2, 0, 0, 0]),
            Err(HelloError::NotClientHello)
        );
        // A declared hello longer than the cap is refused from its header alone.
        assert_eq!(
            parse(&[0x16, 3, 1, 0, 4, 1, 0x01, 0, 0]),
            Err(HelloError::TooLong)
        );
        assert!(matches!(
            parse(&[0x16, 3, 1, 0, 0]),
            Err(HelloError::Malformed(_))
        ));
        assert!(matches!(
            parse(&[0x16, 9, 1, 0, 1, 1]),
            Err(HelloError::Malformed(_))
        ));
        // A record of another type before the hello is whole.
        let message = hello_message(Some("a.example"), &[]);
        let mut broken = records(&message[..10], 10);
        broken.extend_from_slice(&[0x17, 3, 3, 0, 1, 0]);
        assert_eq!(parse(&broken), Err(HelloError::NotTls));
        // Lengths inside the body that run past its end.
        let mut lying = message.clone();
        let at = HANDSHAKE_HEADER + 2 + 32 + 1; // the cipher suites' length
        lying[at] = 0xff;
        assert!(matches!(
            parse(&records(&lying, 4096)),
            Err(HelloError::Malformed(_))
        ));
        // Two server_name extensions, and a name with a NUL in it.
        let mut name = vec![0, 0x0c, 0, 0, 0x09];
        name.extend_from_slice(b"b.example");
        let twice = hello_message(Some("a.example"), &[(0, name)]);
        assert!(matches!(
            parse(&records(&twice, 4096)),
            Err(HelloError::Malformed(_))
        ));
        let nul = hello_message(Some("a.example\0b.example"), &[]);
        assert!(matches!(
            parse(&records(&nul, 4096)),
            Err(HelloError::Malformed(_))
        ));
        // Every truncation of a real hello, and every single-byte change, ends without a panic.
        let bytes = curl_hello();
        for i in 0..bytes.len() {
            let _ = parse(&bytes[..i]);
            let mut changed = bytes.clone();
            changed[i] ^= 0xa5;
            let _ = parse(&changed);
        }
    }
}
