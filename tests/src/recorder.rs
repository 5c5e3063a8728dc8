//! A stand-in web server that records what reaches it: the report channel a test view may use,
//! and the attacker's server that must hear nothing (F-96). What an attack achieved is
//! judged by what the attacker received, not by the app's own bookkeeping.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request as received: its request line and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub line: String,
    pub body: String,
}

/// A server on 127.0.0.1 that answers every request with an empty 200 (CORS open) and keeps it.
pub struct Recorder {
    pub origin: String,
    received: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

/// The most a request may carry; a request head and body above it are cut.
const MAX_REQUEST: usize = 64 * 1024;

impl Recorder {
    pub async fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let origin = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
        let received = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&received);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let keep = Arc::clone(&keep);
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut stream).await else {
                        return;
                    };
                    if let Ok(mut all) = keep.lock() {
                        all.push(request);
                    }
                    let _ = stream
                        .write_all(b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .await;
                });
            }
        });
        Ok(Self {
            origin,
            received,
            task,
        })
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The bodies received so far.
    pub fn bodies(&self) -> Vec<String> {
        self.received().into_iter().map(|r| r.body).collect()
    }

    /// Waits until a body starting with `prefix` arrived; the bodies so far, or why not.
    pub async fn wait_for(&self, prefix: &str, limit: Duration) -> Result<Vec<String>, String> {
        let until = std::time::Instant::now() + limit;
        loop {
            let bodies = self.bodies();
            if bodies.iter().any(|b| b.starts_with(prefix)) {
                return Ok(bodies);
            }
            if std::time::Instant::now() > until {
                return Err(format!(
                    "no \"{prefix}\" within {limit:?}; received {bodies:?}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads one HTTP/1.1 request: its line, and a body of its `Content-Length`.
async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<Received> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if data.len() > MAX_REQUEST {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).to_string();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0)
        .min(MAX_REQUEST);
    while data.len() < head_end + length {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
    }
    let end = data.len().min(head_end + length);
    Some(Received {
        line: head.lines().next().unwrap_or_default().to_string(),
        body: String::from_utf8_lossy(&data[head_end..end]).to_string(),
    })
}
