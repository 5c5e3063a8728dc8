//! The HTTP side shared by the providers: one client (connect and read timeouts, proxies from
//! the environment), endpoint URLs, SSE streaming with cancellation, and error mapping that
//! keeps the server's message and its `Retry-After`.

use super::sse::{SseEvent, SseParser};
use super::{Completion, ProviderError, StreamAssembler, StreamDelta};
use futures::StreamExt;
use reqwest::header::{HeaderValue, RETRY_AFTER};
use serde_json::Value;
use std::sync::OnceLock;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a short, non-streamed request (a model list, a probe) may take in all. Streams have
/// no total limit, only the idle limit of their request ([`super::ChatRequest::idle_timeout`]).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of an error body is kept for the message.
const ERROR_BODY_LIMIT: usize = 2_000;

static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();

/// The app's one HTTP client (reqwest reads `HTTP(S)_PROXY` / `NO_PROXY` from the environment).
pub fn client() -> Result<reqwest::Client, ProviderError> {
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .redirect(same_origin_redirects())
                .connect_timeout(CONNECT_TIMEOUT)
                .user_agent(concat!("Tollgate/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| ProviderError::Config(format!("the HTTP client could not be created: {e}")))
}

/// Redirects are followed only within the origin the request was sent to. reqwest drops
/// `Authorization` on a cross-host redirect but not `x-api-key` (Anthropic) or other custom
/// headers, so a provider (or anyone who can make it redirect) could otherwise receive the key
/// on another host.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first() else {
            return attempt.stop();
        };
        if attempt.previous().len() > 5 {
            attempt.error("too many redirects")
        } else if attempt.url().origin() == first.origin() {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// A provider endpoint: a base URL plus a path.
#[derive(Debug, Clone)]
pub struct Endpoint(reqwest::Url);

impl Endpoint {
    /// Joins `base` (e.g. `https://api.openai.com/v1`) and `path`; only http and https
    /// (`tollgate_names::web_url`, the one gate for the addresses Tollgate sends requests to).
    pub fn new(base: &str, path: &str) -> Result<Self, ProviderError> {
        let base = base.trim().trim_end_matches('/');
        let url = tollgate_names::web_url(&format!("{base}/{}", path.trim_start_matches('/')))
            .map_err(|e| ProviderError::Config(format!("the base URL: {e}")))?;
        Ok(Self(url))
    }

    pub fn url(&self) -> reqwest::Url {
        self.0.clone()
    }

    /// Whether an API key may be sent here: over https anywhere, over plain http only to this
    /// machine (a local server), as for MCP servers (`tollgate_names::check_credential`).
    pub fn check_credential(&self) -> Result<(), ProviderError> {
        tollgate_names::check_credential(&self.0)
            .map_err(|e| ProviderError::Config(format!("the API key was not sent: {e}")))
    }
}

/// A header value that holds a secret: marked sensitive so it is never logged.
pub fn secret_header(value: &str) -> Result<HeaderValue, ProviderError> {
    let mut v = HeaderValue::from_str(value).map_err(|_| {
        ProviderError::Config("the API key contains characters that cannot be sent".into())
    })?;
    v.set_sensitive(true);
    Ok(v)
}

fn map_send_error(e: reqwest::Error) -> ProviderError {
    if e.is_timeout() {
        ProviderError::Timeout
    } else {
        ProviderError::Connect(without_url(&e))
    }
}

/// reqwest's message without the URL (which may carry a query the user typed).
fn without_url(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    if let Some(url) = e.url() {
        msg = msg.replace(url.as_str(), "the provider");
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(&format!(": {s}"));
        source = s.source();
    }
    msg
}

/// The longest wait a server can ask for; anything longer (or `inf`, `1e20`) is read as this.
/// The retry policy caps the wait again with the user's own maximum.
const RETRY_AFTER_CEILING: Duration = Duration::from_secs(24 * 60 * 60);

/// Seconds from a server as a duration: negative and NaN are "now", huge and infinite values
/// are [`RETRY_AFTER_CEILING`] (`Duration::from_secs_f64` would panic on them).
fn seconds_from_server(secs: f64) -> Duration {
    if secs.is_nan() || secs <= 0.0 {
        Duration::ZERO
    } else {
        Duration::try_from_secs_f64(secs)
            .unwrap_or(RETRY_AFTER_CEILING)
            .min(RETRY_AFTER_CEILING)
    }
}

/// Parses `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`. Never panics,
/// whatever the server sends.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
    {
        return Some(seconds_from_server(ms / 1000.0));
    }
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return Some(seconds_from_server(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = when
        .signed_duration_since(chrono::Utc::now())
        .to_std()
        .unwrap_or(Duration::ZERO);
    Some(wait)
}

/// Turns a non-success response into an error with the server's own message.
async fn http_error(resp: reqwest::Response) -> ProviderError {
    let status = resp.status().as_u16();
    let retry_after = retry_after(resp.headers());
    let body = resp.text().await.unwrap_or_default();
    let message = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| {
            let err = v.get("error").unwrap_or(&v);
            err.get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| err.as_str().map(str::to_string))
        })
        .unwrap_or_else(|| {
            let text = body.trim();
            if text.is_empty() {
                reqwest::StatusCode::from_u16(status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("no details")
                    .to_string()
            } else {
                tollgate_protocol::parse::preview(text, ERROR_BODY_LIMIT)
            }
        });
    // Some providers quote the refused key back; the message is shown, stored and logged.
    let message = tollgate_secrets::redact(&message).into_owned();
    ProviderError::Http {
        status,
        message: with_tool_calling_hint(message),
        retry_after,
    }
}

/// Servers refuse native tools for models that have none (Ollama: "… does not support tools");
/// the fix is a setting, so the error says which.
fn with_tool_calling_hint(message: String) -> String {
    let lower = message.to_ascii_lowercase();
    let no_native_tools = [
        "does not support tools",
        "tools is not supported",
        "tool use is not supported",
        "does not support function calling",
    ]
    .iter()
    .any(|s| lower.contains(s));
    if no_native_tools {
        format!("{message} — this model has no native tool calling: set its provider's \"Tool calling\" to Text in Settings → Providers, or turn the chat's tools off.")
    } else {
        message
    }
}

/// Sends `request` and feeds its SSE events to `on_event` until the stream ends or `on_event`
/// returns `Ok(false)`. Whether the stream was complete is for the caller's assembler to judge.
/// Silence longer than `idle` — before the response starts, or between two pieces of it — is
/// [`ProviderError::Stalled`]; the answer as a whole may take as long as it takes.
pub async fn stream_sse(
    request: reqwest::RequestBuilder,
    idle: Duration,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(SseEvent) -> Result<bool, ProviderError> + Send),
) -> Result<(), ProviderError> {
    let send = request
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .send();
    let resp = tokio::select! {
        () = cancel.cancelled() => return Err(ProviderError::Cancelled),
        r = tokio::time::timeout(idle, send) => match r {
            Err(_) => return Err(ProviderError::Stalled(idle)),
            Ok(r) => r.map_err(map_send_error)?,
        },
    };
    if !resp.status().is_success() {
        return Err(http_error(resp).await);
    }
    let mut parser = SseParser::new();
    let mut body = resp.bytes_stream();
    loop {
        let next = tokio::select! {
            () = cancel.cancelled() => return Err(ProviderError::Cancelled),
            n = tokio::time::timeout(idle, body.next()) => match n {
                Err(_) => return Err(ProviderError::Stalled(idle)),
                Ok(n) => n,
            },
        };
        let bytes = match next {
            None => return Ok(()),
            Some(Err(e)) if e.is_timeout() => return Err(ProviderError::Stalled(idle)),
            Some(Err(e)) => {
                return Err(ProviderError::Incomplete(format!(
                    "the connection was lost: {}",
                    without_url(&e)
                )))
            }
            Some(Ok(bytes)) => bytes,
        };
        let mut outcome: Result<bool, ProviderError> = Ok(true);
        parser.feed(&bytes, &mut |event| {
            if matches!(outcome, Ok(true)) {
                outcome = on_event(event);
            }
        });
        match outcome {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => return Err(e),
        }
    }
}

/// Sends `request` and assembles its streamed answer with `assembler`.
pub async fn complete_stream<A: StreamAssembler>(
    mut assembler: A,
    request: reqwest::RequestBuilder,
    idle: Duration,
    on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    cancel: &CancellationToken,
) -> Result<Completion, ProviderError> {
    stream_sse(request, idle, cancel, &mut |event| {
        assembler.on_data(&event.data, on_delta)?;
        Ok(!assembler.is_done())
    })
    .await?;
    assembler.finish()
}

/// Sends a model-list request and returns the `data[].id` values, sorted. An answer that is
/// not a model list is [`ProviderError::Malformed`].
pub async fn list_model_ids(
    request: reqwest::RequestBuilder,
) -> Result<Vec<String>, ProviderError> {
    let body = get_json(request).await?;
    let mut ids: Vec<String> = body
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::Malformed("the answer has no model list (`data`)".into()))?
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    ids.sort();
    Ok(ids)
}

/// Sends `request` and parses a JSON answer.
pub async fn get_json(request: reqwest::RequestBuilder) -> Result<Value, ProviderError> {
    let resp = request
        .timeout(REQUEST_TIMEOUT)
        .send()
        .await
        .map_err(map_send_error)?;
    if !resp.status().is_success() {
        return Err(http_error(resp).await);
    }
    resp.json::<Value>()
        .await
        .map_err(|e| ProviderError::Malformed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderMap;

    #[test]
    fn endpoints_join_and_refuse_other_schemes() {
        assert_eq!(
            Endpoint::new("http://h:1/v1/", "/models")
                .unwrap()
                .url()
                .as_str(),
            "http://h:1/v1/models"
        );
        assert!(Endpoint::new("file:///etc", "x").is_err());
        assert!(Endpoint::new("not a url", "x").is_err());
    }

    /// A key goes over https anywhere and over plain http only to this machine, as for MCP
    /// servers: a local server keeps working, a plain-http address on the network is refused
    /// before anything is sent.
    #[test]
    fn a_key_goes_over_https_or_to_this_machine_only() {
        for ok in [
            "https://api.openai.com/v1",
            "http://localhost:11434/v1",
            "http://127.0.0.1:1234/v1",
        ] {
            assert!(
                Endpoint::new(ok, "models")
                    .unwrap()
                    .check_credential()
                    .is_ok(),
                "{ok}"
            );
        }
        let lan = Endpoint::new("http://192.168.1.5:8080/v1", "models").unwrap();
        let err = lan.check_credential().unwrap_err().to_string();
        assert!(
            err.contains("https://") && err.contains("192.168.1.5"),
            "{err}"
        );
    }

    #[test]
    fn retry_after_in_seconds_ms_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(
            retry_after(&h),
            Some(Duration::ZERO),
            "a date in the past means now"
        );
    }

    #[test]
    fn a_model_without_native_tools_is_told_how_to_fix_it() {
        let hinted = with_tool_calling_hint(
            "registry.ollama.ai/library/gemma:2b does not support tools".into(),
        );
        assert!(
            hinted.contains("Tool calling") && hinted.contains("Text"),
            "{hinted}"
        );
        assert_eq!(with_tool_calling_hint("bad key".into()), "bad key");
    }

    #[test]
    fn absurd_retry_after_values_do_not_panic() {
        for (name, value, want) in [
            ("retry-after", "1e20", RETRY_AFTER_CEILING),
            ("retry-after", "inf", RETRY_AFTER_CEILING),
            ("retry-after", "-5", Duration::ZERO),
            ("retry-after", "NaN", Duration::ZERO),
            ("retry-after-ms", "inf", RETRY_AFTER_CEILING),
            ("retry-after-ms", "1e300", RETRY_AFTER_CEILING),
            ("retry-after-ms", "-inf", Duration::ZERO),
        ] {
            let mut h = HeaderMap::new();
            h.insert(name, HeaderValue::from_static(value));
            assert_eq!(retry_after(&h), Some(want), "{name}: {value}");
        }
    }

    #[test]
    fn secret_headers_are_sensitive() {
        assert!(secret_header("Bearer sk-1").unwrap().is_sensitive());
        assert!(secret_header("bad\nkey").is_err());
    }
}
