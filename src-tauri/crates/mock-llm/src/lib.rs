//! A mock LLM server for tests: a real HTTP server on 127.0.0.1 that streams replies byte for
//! byte the way the OpenAI Chat Completions and Anthropic Messages APIs do, scripted per test,
//! recording every request it receives, and able to misbehave on cue (status codes with
//! `Retry-After`, a connection dropped mid-stream, a stream without its finish event, a
//! malformed chunk, slow streams).
//!
//! Replies are served in the order they were pushed, one per POST request; with none queued, a
//! [`Responder`] can compute the reply from the request, and [`chaos::Chaos`] can break a share of
//! replies at random (seeded) to test recovery. `GET …/models` answers with a fixed model list.

pub mod anthropic;
pub mod chaos;
pub mod fixtures;
pub mod openai;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// SSE frames (`data: …\n\n` etc.), sent in order; empty for a plain body.
    pub frames: Vec<String>,
    /// A plain (non-streaming) body.
    pub body: Option<String>,
    /// Pause before each frame.
    pub frame_delay: Duration,
    /// Drop the connection after this many frames.
    pub drop_after: Option<usize>,
    /// Before frame `.0`, go silent for `.1` (a stalled stream).
    pub stall: Option<(usize, Duration)>,
    /// Before frame `.0`, wait until the test opens the gate `.1`.
    pub hold: Option<(usize, Gate)>,
}

/// A gate a test opens when it is ready for a held reply to go on (see [`Reply::held_at`]):
/// the test waits for a state instead of guessing how long its own steps take.
#[derive(Debug, Clone)]
pub struct Gate(Arc<tokio::sync::watch::Sender<bool>>);

impl Default for Gate {
    fn default() -> Self {
        Self(Arc::new(tokio::sync::watch::Sender::new(false)))
    }
}

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets every reply held at this gate go on, now and from here on.
    pub fn open(&self) {
        self.0.send_replace(true);
    }

    /// Waits until the gate is open.
    async fn passed(&self) {
        let mut seen = self.0.subscribe();
        // An error means the sender is gone, which cannot happen while `self` holds it.
        let _ = seen.wait_for(|open| *open).await;
    }
}

impl Reply {
    /// A streamed reply made of `frames`.
    pub fn sse(frames: Vec<String>) -> Self {
        Self {
            status: 200,
            headers: vec![],
            frames,
            body: None,
            frame_delay: Duration::ZERO,
            drop_after: None,
            stall: None,
            hold: None,
        }
    }

    /// An error status with a JSON error body in the provider's usual shape.
    pub fn status(status: u16, message: &str) -> Self {
        Self {
            status,
            headers: vec![],
            frames: vec![],
            body: Some(json!({"error": {"type": "mock_error", "message": message}}).to_string()),
            frame_delay: Duration::ZERO,
            drop_after: None,
            stall: None,
            hold: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Waits `delay` before each frame (for Stop tests and streaming checks).
    pub fn slow(mut self, delay: Duration) -> Self {
        self.frame_delay = delay;
        self
    }

    /// Closes the connection after `n` frames, mid-stream.
    pub fn drop_after(mut self, n: usize) -> Self {
        self.drop_after = Some(n);
        self
    }

    /// Goes silent for `pause` before frame `n` (then goes on, if the client is still there).
    pub fn stall_at(mut self, n: usize, pause: Duration) -> Self {
        self.stall = Some((n, pause));
        self
    }

    /// Waits before frame `n` until `gate` is open (then goes on, if the client is still there).
    pub fn held_at(mut self, n: usize, gate: &Gate) -> Self {
        self.hold = Some((n, gate.clone()));
        self
    }

    /// Ends the stream cleanly after `n` frames, before its finish events.
    pub fn cut_after(mut self, n: usize) -> Self {
        self.frames.truncate(n);
        self
    }

    /// How many frames come before the first one that says the answer is finished (where a
    /// cut leaves the answer incomplete).
    pub fn frames_before_finish(&self) -> usize {
        self.frames
            .iter()
            .position(|f| {
                f.contains("\"finish_reason\":\"")
                    || f.contains("[DONE]")
                    || f.contains("message_delta")
                    || f.contains("message_stop")
            })
            .unwrap_or(self.frames.len())
    }

    /// Leaves out the frames that say the answer is finished.
    pub fn without_finish(mut self) -> Self {
        self.frames.retain(|f| {
            !(f.contains("[DONE]")
                || f.contains("\"finish_reason\":\"")
                || f.contains("message_stop")
                || f.contains("message_delta")
                || f.contains("\"usage\""))
        });
        self
    }

    /// Replaces frame `index` with a chunk that is not valid JSON.
    pub fn malformed_at(mut self, index: usize) -> Self {
        if let Some(f) = self.frames.get_mut(index) {
            *f = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"oops\"\n\n".to_string();
        }
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// When the request arrived.
    pub at: std::time::Instant,
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    /// A header's value (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Computes a reply from a request's body, for scripts longer than a queue (the chaos soak).
pub type Responder = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

#[derive(Default)]
struct Inner {
    replies: VecDeque<Reply>,
    requests: Vec<Recorded>,
    models: Vec<String>,
    responder: Option<Responder>,
    chaos: Option<chaos::Chaos>,
}

/// The running server; stops when dropped.
pub struct MockLlm {
    addr: SocketAddr,
    inner: Arc<Mutex<Inner>>,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

impl MockLlm {
    /// Starts a server on a free port of 127.0.0.1.
    pub async fn start() -> std::io::Result<Self> {
        let inner = Arc::new(Mutex::new(Inner {
            models: vec!["mock-large".into(), "mock-small".into()],
            ..Default::default()
        }));
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&inner));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        Ok(Self {
            addr,
            inner,
            _shutdown: tx,
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queues a reply for the next POST.
    pub fn push(&self, reply: Reply) {
        self.inner.lock().replies.push_back(reply);
    }

    /// Answers every POST with nothing queued by calling `responder` with the request's body.
    pub fn respond_with(&self, responder: impl Fn(&Value) -> Reply + Send + Sync + 'static) {
        self.inner.lock().responder = Some(Arc::new(responder));
    }

    /// Breaks a share of the replies from here on (see [`chaos::Chaos`]).
    pub fn set_chaos(&self, chaos: chaos::Chaos) {
        self.inner.lock().chaos = Some(chaos);
    }

    /// How many faults of each kind the chaos has injected so far.
    pub fn chaos_counts(&self) -> Vec<(chaos::FaultKind, u64)> {
        self.inner
            .lock()
            .chaos
            .as_ref()
            .map(chaos::Chaos::counts)
            .unwrap_or_default()
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.lock().requests.clone()
    }

    /// The bodies of the POST requests received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.inner
            .lock()
            .requests
            .iter()
            .filter(|r| r.method == "POST")
            .map(|r| r.body.clone())
            .collect()
    }

    /// How many scripted replies are still waiting.
    pub fn pending_replies(&self) -> usize {
        self.inner.lock().replies.len()
    }
}

async fn handle(
    State(inner): State<Arc<Mutex<Inner>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let recorded = Recorded {
        at: std::time::Instant::now(),
        method: method.to_string(),
        path: uri.path().to_string(),
        headers: headers
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let path = recorded.path.clone();
    let reply = {
        let mut inner = inner.lock();
        inner.requests.push(recorded);
        if method == Method::GET && path.ends_with("/models") {
            let data: Vec<Value> = inner
                .models
                .iter()
                .map(|m| json!({"id": m, "object": "model"}))
                .collect();
            return plain(
                200,
                &[],
                json!({"object": "list", "data": data}).to_string(),
            );
        }
        let body = recorded_body(&inner);
        let reply = inner
            .replies
            .pop_front()
            .or_else(|| inner.responder.as_ref().map(|r| r(&body)));
        match (reply, inner.chaos.as_mut()) {
            (Some(reply), Some(chaos)) => Some(chaos.apply(reply)),
            (reply, _) => reply,
        }
    };
    let Some(reply) = reply else {
        return plain(
            500,
            &[],
            json!({"error": {"message": "mock: no scripted reply left"}}).to_string(),
        );
    };
    if let Some(body) = reply.body {
        return plain(reply.status, &reply.headers, body);
    }
    let frames = Arc::new(reply.frames);
    let delay = reply.frame_delay;
    let drop_after = reply.drop_after;
    let stall = reply.stall;
    let hold = reply.hold;
    let stream = futures::stream::unfold(0usize, move |i| {
        let frames = Arc::clone(&frames);
        let hold = hold.clone();
        async move {
            if let Some((at, gate)) = hold {
                if at == i {
                    gate.passed().await;
                }
            }
            if let Some((at, pause)) = stall {
                if at == i {
                    tokio::time::sleep(pause).await;
                }
            }
            if drop_after == Some(i) {
                // Let the frames already written reach the client before the connection dies.
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                return Some((
                    Err(std::io::Error::other("mock: connection dropped")),
                    usize::MAX,
                ));
            }
            let frame = frames.get(i)?.clone();
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Some((Ok::<Bytes, std::io::Error>(Bytes::from(frame)), i + 1))
        }
    });
    let mut builder = Response::builder()
        .status(reply.status)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache");
    for (k, v) in &reply.headers {
        builder = builder.header(k, v);
    }
    builder
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

/// The body of the request just recorded.
fn recorded_body(inner: &Inner) -> Value {
    inner
        .requests
        .last()
        .map(|r| r.body.clone())
        .unwrap_or(Value::Null)
}

fn plain(status: u16, headers: &[(String, String)], body: String) -> Response {
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", "application/json");
    for (k, v) in headers {
        builder = builder.header(k, v);
    }
    builder
        .body(Body::from(body))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

/// Splits text into pieces of about `n` chars (on char boundaries), as models stream tokens.
pub fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n.max(1)).map(|c| c.iter().collect()).collect()
}
