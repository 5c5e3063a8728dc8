//! Reading an HTTP/1 request head off a connection: the one reader for every small server
//! Tollgate runs itself — the sandbox's hosts proxy and the OAuth loopback redirect of an MCP
//! sign-in. Both face whatever connects to them, so the head is bounded and a connection that
//! closes before its blank line is an error, never a request.

use tokio::io::{AsyncRead, AsyncReadExt};

/// The longest request head read (16 KiB): a longer one is refused, not read on.
pub const MAX_HEAD: usize = 16 * 1024;

/// Reads a request head through its blank line. Returns the head as text (with its final
/// `\r\n\r\n`) and the bytes read past it, which belong to what follows (a request body, or a
/// tunnel's first bytes).
pub async fn read_head<S: AsyncRead + Unpin>(conn: &mut S) -> std::io::Result<(String, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok((String::from_utf8_lossy(&buf).into_owned(), rest));
        }
        if buf.len() > MAX_HEAD {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the request head is too long",
            ));
        }
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the connection closed before a request",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn a_head_sent_in_pieces_is_read_whole_and_what_follows_is_kept() {
        let (mut client, mut server) = tokio::io::duplex(64);
        let writer = tokio::spawn(async move {
            for piece in [
                "GET /callback?code=1 HT",
                "TP/1.1\r\nHost: x\r",
                "\n\r\nbody",
            ] {
                client.write_all(piece.as_bytes()).await.unwrap();
            }
            client
        });
        let (head, rest) = read_head(&mut server).await.unwrap();
        assert_eq!(head, "GET /callback?code=1 HTTP/1.1\r\nHost: x\r\n\r\n");
        let mut rest = rest;
        if rest.len() < 4 {
            let mut more = vec![0u8; 4 - rest.len()];
            server.read_exact(&mut more).await.unwrap();
            rest.extend(more);
        }
        assert_eq!(rest, b"body");
        drop(writer.await.unwrap());
    }

    #[tokio::test]
    async fn a_connection_that_closes_early_or_sends_too_much_is_no_request() {
        let (mut client, mut server) = tokio::io::duplex(1024);
        client.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        drop(client);
        let err = read_head(&mut server).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);

        let (mut client, mut server) = tokio::io::duplex(4096);
        let writer = tokio::spawn(async move {
            let line = format!("X-Pad: {}\r\n", "a".repeat(1000));
            for _ in 0..40 {
                if client.write_all(line.as_bytes()).await.is_err() {
                    break;
                }
            }
        });
        let err = read_head(&mut server).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        drop(server);
        writer.await.unwrap();
    }
}
