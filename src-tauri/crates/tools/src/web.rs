//! The `web` group (F-44): `fetch_url` reads one http(s) URL and returns it in the form a model
//! reads best — HTML as readable markdown, JSON pretty-printed, other text as it is. Binary
//! content is refused, and downloads stop at a size cap. Default policy: ask-once (per URL).
//! Only public internet addresses are reached, checked where the connection is made and on
//! every redirect hop ([`super::reach`], F-47).

use super::files::{is_binary, str_arg};
use super::reach::{check_url, PublicResolver, Reach, ReachError};
use super::{Tool, ToolContext, ToolError, ToolErrorKind, ToolGroup, ToolSpec};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::OnceLock;
use std::time::Duration;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_rules::RuleSubject;

/// The download cap when the call gives none.
pub const DEFAULT_MAX_BYTES: u64 = 5 * 1024 * 1024;
/// The largest cap a call may ask for.
pub const MAX_BYTES_LIMIT: u64 = 50 * 1024 * 1024;
/// Redirects followed before giving up.
const MAX_REDIRECTS: usize = 10;

/// The group, reaching public addresses only.
pub fn group() -> ToolGroup {
    group_reaching(Reach::public())
}

/// The group, reaching public addresses and those `reach` adds (tests: their own server).
pub fn group_reaching(reach: Reach) -> ToolGroup {
    ToolGroup::new("web", "Web", "Fetch web pages and APIs over http(s).")
        .enabled_by_default(true)
        .guidance(super::Guidance::Text(
            "`fetch_url` returns HTML pages as markdown and JSON pretty-printed. It cannot run JavaScript or log in; if a page needs that, say so.".into(),
        ))
        .tool(FetchUrl::reaching(reach))
}

/// Fetches a URL.
pub struct FetchUrl(ToolSpec, Reach);

impl FetchUrl {
    #[cfg(test)]
    fn new() -> Self {
        Self::reaching(Reach::public())
    }

    fn reaching(reach: Reach) -> Self {
        Self(
            ToolSpec::new(
                "fetch_url",
                "Fetch an http:// or https:// URL with GET. HTML comes back as markdown, JSON pretty-printed, text as is; binary content (images, PDFs, archives) is refused.",
                json!({"type": "object", "properties": {
                    "url": {"type": "string", "minLength": 1},
                    "max_bytes": {"type": "integer", "minimum": 1, "maximum": MAX_BYTES_LIMIT, "description": "Stop downloading after this many bytes. Default 5 MB."}
                }, "required": ["url"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::AskOnce)
            .read_only()
            // A GET still carries its URL out: an exfiltration channel (F-81).
            .effects(crate::ToolEffects {
                sends_out: true,
                ..crate::ToolEffects::NONE
            })
            .content(crate::ContentKind::Web)
            .timeout(Duration::from_secs(60))
            .returns("Page", Some("markdown, JSON or text")),
            reach,
        )
    }
}

/// A client that connects only where `reach` permits: names through [`PublicResolver`], IP
/// literals checked on every redirect hop, no proxy (a proxy resolves names out of our sight).
fn build_client(reach: &Reach) -> Result<reqwest::Client, String> {
    let hops = reach.clone();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(15))
        .read_timeout(Duration::from_secs(30))
        .no_proxy()
        .dns_resolver(PublicResolver {
            reach: reach.clone(),
        })
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
            }
            if let Err(e) = tollgate_names::check_web(attempt.url()) {
                let msg = format!("a redirect is not followed: {e}");
                return attempt.error(msg);
            }
            if let Err(e) = check_url(attempt.url(), &hops) {
                return attempt.error(e);
            }
            // Another host is another grant: a rule for `https://docs.rs/*` must not reach
            // wherever an open redirect on docs.rs points. The redirect comes back as the answer
            // and the model asks for the new URL in a call of its own.
            let same_host = attempt.previous().last().is_some_and(|from| {
                tollgate_names::host_of(from) == tollgate_names::host_of(attempt.url())
            });
            if same_host {
                attempt.follow()
            } else {
                attempt.stop()
            }
        }))
        .user_agent(concat!(
            "Tollgate/",
            env!("CARGO_PKG_VERSION"),
            " (fetch_url)"
        ))
        .build()
        .map_err(|e| e.to_string())
}

fn client(reach: &Reach) -> Result<reqwest::Client, ToolError> {
    static PUBLIC: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    let client = if *reach == Reach::public() {
        PUBLIC.get_or_init(|| build_client(reach)).clone()
    } else {
        build_client(reach)
    };
    client.map_err(|e| ToolError::new(ToolErrorKind::Unavailable, format!("no HTTP client: {e}")))
}

/// Parses the URL and refuses anything but http and https (`tollgate_names::web_url`, the one
/// gate for the addresses Tollgate sends requests to).
pub fn parse_url(raw: &str) -> Result<reqwest::Url, ToolError> {
    tollgate_names::web_url(raw).map_err(|e| match e {
        tollgate_names::NotWebUrl::Scheme { .. } => {
            ToolError::invalid(format!("only web pages can be fetched: {e}"))
                .with_suggestion("Use the file tools for local files.")
        }
        tollgate_names::NotWebUrl::NotAUrl { .. }
        | tollgate_names::NotWebUrl::CredentialInClear { .. } => ToolError::invalid(e.to_string()),
    })
}

/// What the body is, from its content type (and, when that says nothing, its bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Json,
    Text,
    Binary,
}

fn kind_of(content_type: &str, body: &[u8]) -> Kind {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        "application/json" | "text/json" => Kind::Json,
        m if m.ends_with("+json") => Kind::Json,
        m if m.starts_with("text/") => Kind::Text,
        m if m.ends_with("+xml") || m.ends_with("/xml") => Kind::Text,
        "application/javascript"
        | "application/x-javascript"
        | "application/ecmascript"
        | "application/x-yaml"
        | "application/yaml"
        | "application/toml"
        | "application/x-sh"
        | "application/sql"
        | "application/graphql" => Kind::Text,
        m if m.starts_with("image/")
            || m.starts_with("audio/")
            || m.starts_with("video/")
            || m.starts_with("font/") =>
        {
            Kind::Binary
        }
        "application/pdf"
        | "application/zip"
        | "application/gzip"
        | "application/x-tar"
        | "application/wasm"
        | "application/octet-stream" => Kind::Binary,
        _ if is_binary(body) => Kind::Binary,
        _ => {
            let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
            let head = head.trim_start();
            if head.starts_with("<!doctype html") || head.starts_with("<html") {
                Kind::Html
            } else {
                Kind::Text
            }
        }
    }
}

/// HTML to markdown without what a reader never sees (scripts, styles, navigation chrome).
pub fn html_to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "iframe", "head", "nav", "form",
            "button", "input", "select",
        ])
        .build();
    let md = converter.convert(html).unwrap_or_else(|_| html.to_string());
    collapse_blank_lines(&md)
}

/// The `<title>` of a page, if it has one.
fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title")?;
    let title = html
        .get(open_end..close)?
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!title.is_empty()).then_some(title)
}

fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.trim().to_string()
}

#[async_trait]
impl Tool for FetchUrl {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let url = parse_url(str_arg(&args, "url")?)?;
        check_url(&url, &self.1).map_err(refused)?;
        let cap = args
            .get("max_bytes")
            .and_then(Value::as_u64)
            .unwrap_or(DEFAULT_MAX_BYTES)
            .min(MAX_BYTES_LIMIT);
        let send = client(&self.1)?
            .get(url.clone())
            .header(
                reqwest::header::ACCEPT,
                "text/html, application/json;q=0.9, text/*;q=0.8, */*;q=0.5",
            )
            .send();
        let response = tokio::select! {
            r = send => r.map_err(|e| request_error(&url, &e))?,
            () = ctx.cancel.cancelled() => return Err(ToolError::other("stopped by the user")),
        };
        let status = response.status();
        let final_url = response.url().to_string();
        if status.is_redirection() {
            return Err(redirect_elsewhere(&final_url, response.headers()));
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        if kind_of(&content_type, b"") == Kind::Binary {
            return Err(binary_error(&content_type, response.content_length()));
        }
        let mut body: Vec<u8> = Vec::new();
        let mut truncated = false;
        let mut sniffed = false;
        let mut stream = response.bytes_stream();
        loop {
            let chunk = tokio::select! {
                c = stream.next() => c,
                () = ctx.cancel.cancelled() => return Err(ToolError::other("stopped by the user")),
            };
            let Some(chunk) = chunk else { break };
            let chunk = chunk.map_err(|e| request_error(&url, &e))?;
            let room = usize::try_from(cap)
                .unwrap_or(usize::MAX)
                .saturating_sub(body.len());
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
            // Refuse binary early instead of downloading all of it: sniff once, at 8 KB.
            if !sniffed && body.len() >= 8192 {
                sniffed = true;
                if kind_of(&content_type, &body) == Kind::Binary {
                    break;
                }
            }
        }
        let kind = kind_of(&content_type, &body);
        if kind == Kind::Binary {
            return Err(binary_error(&content_type, None));
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        let (title, content) = match kind {
            Kind::Html => (html_title(&text), html_to_markdown(&text)),
            Kind::Json => (
                None,
                serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|v| serde_json::to_string_pretty(&v).ok())
                    .unwrap_or(text),
            ),
            Kind::Text | Kind::Binary => (None, text),
        };
        if !status.is_success() {
            let mut message = format!("{final_url} answered HTTP {status}");
            if !content.trim().is_empty() {
                message.push_str(&format!(": {}", first_chars(&content, 500)));
            }
            let kind = if status.as_u16() == 404 || status.as_u16() == 410 {
                ToolErrorKind::NotFound
            } else {
                ToolErrorKind::Unavailable
            };
            return Err(ToolError::new(kind, message));
        }
        Ok(json!({
            "url": final_url,
            "status": status.as_u16(),
            "content_type": content_type,
            "title": title,
            "truncated": truncated,
            "bytes": body.len(),
            "content": content,
        }))
    }

    fn format_for_llm(&self, data: &Value, _args: &Value) -> Option<String> {
        let mut head = format!(
            "{} ({})",
            data.get("url").and_then(Value::as_str).unwrap_or_default(),
            data.get("content_type")
                .and_then(Value::as_str)
                .unwrap_or("unknown type")
        );
        if let Some(title) = data.get("title").and_then(Value::as_str) {
            head = format!("# {title}\n{head}");
        }
        if data.get("truncated").and_then(Value::as_bool) == Some(true) {
            head.push_str(&format!(
                "\n[Only the first {} bytes were downloaded; pass a larger max_bytes for more.]",
                data.get("bytes")
                    .and_then(Value::as_u64)
                    .unwrap_or_default()
            ));
        }
        let content = data
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default();
        Some(format!("{head}\n\n{content}"))
    }

    fn compress_args(&self, args: &Value) -> Option<String> {
        args.get("url").and_then(Value::as_str).map(str::to_string)
    }

    fn compress_result(&self, text: &str) -> Option<String> {
        text.lines()
            .find(|l| !l.trim().is_empty())
            .map(str::to_string)
    }

    /// Rules match the URL as it will be requested (parsed and normalised: `HTTPS://Docs.RS`
    /// is `https://docs.rs/`), so "https://docs.rs/*" can be allowed once and for all.
    fn rule_subject(&self, args: &Value, _workspace: Option<&std::path::Path>) -> RuleSubject {
        let typed = args
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim();
        RuleSubject::Url(
            reqwest::Url::parse(typed)
                .map(String::from)
                .unwrap_or_else(|_| typed.to_string()),
        )
    }
}

fn first_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn binary_error(content_type: &str, bytes: Option<u64>) -> ToolError {
    let mut what = if content_type.is_empty() {
        "binary content".to_string()
    } else {
        format!("binary content ({content_type})")
    };
    if let Some(n) = bytes {
        what.push_str(&format!(" of {n} bytes"));
    }
    ToolError::invalid(format!("the URL returned {what}; only text is read"))
        .with_suggestion("Fetch an HTML or text version of the resource instead.")
}

/// A redirect to another host, not followed: the model gets the target to fetch with a call of
/// its own, which passes the gate like any other.
fn redirect_elsewhere(from: &str, headers: &reqwest::header::HeaderMap) -> ToolError {
    let target = headers
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|loc| reqwest::Url::parse(from).ok()?.join(loc).ok());
    match target {
        Some(to) => ToolError::new(
            ToolErrorKind::Unavailable,
            format!("{from} redirects to {to}, on another host; the redirect was not followed"),
        )
        .with_suggestion(format!(
            "Fetch {to} in a call of its own if it is what you need."
        )),
        None => ToolError::new(
            ToolErrorKind::Unavailable,
            format!("{from} answered with a redirect that cannot be followed"),
        ),
    }
}

fn refused(e: ReachError) -> ToolError {
    ToolError::new(ToolErrorKind::PermissionDenied, e.to_string()).with_suggestion(
        "Tollgate never fetches loopback, private-network, link-local or cloud-metadata addresses; use a public URL.",
    )
}

/// The reach refusal inside a reqwest error (from the resolver or a redirect hop), if any.
fn reach_error(e: &reqwest::Error) -> Option<ReachError> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<ReachError>() {
            return Some(r.clone());
        }
        source = s.source();
    }
    None
}

fn request_error(url: &reqwest::Url, e: &reqwest::Error) -> ToolError {
    if let Some(r) = reach_error(e) {
        return refused(r);
    }
    let what = if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        "could not connect".to_string()
    } else if e.is_redirect() {
        format!("followed more than {MAX_REDIRECTS} redirects")
    } else {
        let mut msg = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            msg.push_str(&format!(": {s}"));
            source = s.source();
        }
        msg
    };
    ToolError::new(ToolErrorKind::Unavailable, format!("fetching {url} {what}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use axum::http::header::CONTENT_TYPE;
    use axum::response::{IntoResponse, Redirect};
    use axum::routing::get;

    fn ctx() -> ToolContext {
        ToolContext::for_test(None).0
    }

    const PAGE: &str = r#"<!doctype html><html><head><title>The  Gate</title>
<style>body{color:red}</style><script>alert("x")</script></head>
<body><nav><a href="/">Home</a></nav><h1>Tollgate</h1>
<p>Every call passes <strong>the gate</strong>. See <a href="https://example.org/docs">docs</a>.</p>
<ul><li>one</li><li>two</li></ul><pre><code>cargo test</code></pre></body></html>"#;

    async fn server() -> String {
        let app = axum::Router::new()
            .route(
                "/page",
                get(|| async { ([(CONTENT_TYPE, "text/html; charset=utf-8")], PAGE) }),
            )
            .route(
                "/data",
                get(|| async {
                    (
                        [(CONTENT_TYPE, "application/json")],
                        r#"{"a":1,"b":[true,null]}"#,
                    )
                }),
            )
            .route(
                "/plain",
                get(|| async { ([(CONTENT_TYPE, "text/plain")], "line 1\nline 2\n") }),
            )
            .route(
                "/image",
                get(|| async {
                    (
                        [(CONTENT_TYPE, "image/png")],
                        vec![0x89u8, b'P', b'N', b'G', 0, 0, 0, 13],
                    )
                }),
            )
            .route(
                "/sniffed",
                get(|| async {
                    (
                        [(CONTENT_TYPE, "application/x-unknown")],
                        vec![1u8, 0, 2, 0, 3],
                    )
                }),
            )
            .route(
                "/big",
                get(|| async { ([(CONTENT_TYPE, "text/plain")], "x".repeat(100_000)) }),
            )
            .route(
                "/missing",
                get(|| async {
                    (axum::http::StatusCode::NOT_FOUND, "no such page").into_response()
                }),
            )
            .route("/moved", get(|| async { Redirect::temporary("/plain") }))
            .route(
                "/to-metadata",
                get(|| async { Redirect::temporary("http://169.254.169.254/latest/meta-data/") }),
            )
            .route(
                "/to-other-loopback",
                get(|| async { Redirect::temporary("http://127.0.0.2:9/") }),
            )
            .route(
                "/to-ipv6-loopback",
                get(|| async { Redirect::temporary("http://[::1]:9/") }),
            )
            .route(
                "/to-file",
                get(|| async { Redirect::temporary("file:///etc/passwd") }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}")
    }

    /// The test server's own address is the one non-public address these tests may reach.
    fn test_reach() -> Reach {
        Reach::also(["127.0.0.1".parse().unwrap()])
    }

    async fn fetch(args: Value) -> Result<Value, ToolError> {
        FetchUrl::reaching(test_reach()).execute(args, ctx()).await
    }

    #[tokio::test]
    async fn html_becomes_readable_markdown() {
        let base = server().await;
        let out = fetch(json!({"url": format!("{base}/page")})).await.unwrap();
        assert_eq!(out["title"], "The Gate");
        let md = out["content"].as_str().unwrap();
        assert!(md.contains("# Tollgate"), "{md}");
        assert!(md.contains("**the gate**"), "{md}");
        assert!(md.contains("[docs](https://example.org/docs)"), "{md}");
        assert!(md.contains("cargo test"), "{md}");
        for hidden in ["alert", "color:red", "Home"] {
            assert!(!md.contains(hidden), "{hidden} leaked into {md}");
        }
        let text = FetchUrl::new().format_for_llm(&out, &json!({})).unwrap();
        assert!(text.starts_with("# The Gate\n"), "{text}");
    }

    #[tokio::test]
    async fn json_is_pretty_printed_and_text_kept() {
        let base = server().await;
        let out = fetch(json!({"url": format!("{base}/data")})).await.unwrap();
        assert_eq!(
            out["content"],
            "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}"
        );
        let out = fetch(json!({"url": format!("{base}/moved")}))
            .await
            .unwrap();
        assert_eq!(out["content"], "line 1\nline 2\n");
        assert!(out["url"].as_str().unwrap().ends_with("/plain"));
    }

    #[tokio::test]
    async fn binary_is_refused_by_type_and_by_content() {
        let base = server().await;
        for path in ["image", "sniffed"] {
            let err = fetch(json!({"url": format!("{base}/{path}")}))
                .await
                .unwrap_err();
            assert!(err.message.contains("binary content"), "{path}: {err}");
        }
    }

    #[tokio::test]
    async fn downloads_stop_at_the_cap() {
        let base = server().await;
        let out = fetch(json!({"url": format!("{base}/big"), "max_bytes": 1000}))
            .await
            .unwrap();
        assert_eq!(out["truncated"], true);
        assert_eq!(out["content"].as_str().unwrap().len(), 1000);
        let text = FetchUrl::new().format_for_llm(&out, &json!({})).unwrap();
        assert!(text.contains("Only the first 1000 bytes"), "{text}");
    }

    #[tokio::test]
    async fn only_http_and_https_and_clear_http_errors() {
        for url in [
            "file:///etc/passwd",
            "ftp://example.org/x",
            "javascript:alert(1)",
            "not a url",
        ] {
            let err = fetch(json!({ "url": url })).await.unwrap_err();
            assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{url}: {err}");
        }
        let base = server().await;
        let err = fetch(json!({"url": format!("{base}/missing")}))
            .await
            .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::NotFound);
        assert!(
            err.message.contains("404") && err.message.contains("no such page"),
            "{err}"
        );
        // Nothing listens on port 9 (discard) of this machine.
        let err = fetch(json!({"url": "http://127.0.0.1:9/"}))
            .await
            .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::Unavailable, "{err}");
    }

    /// F-47: a model (or a page it read) cannot reach loopback, private, link-local or
    /// metadata addresses — not directly, not by name, not through a redirect.
    #[tokio::test]
    async fn non_public_addresses_are_never_reached() {
        let base = server().await;
        let public_only = FetchUrl::new();
        // The app's own tool refuses the very server the other tests read.
        for url in [
            format!("{base}/plain"),
            base.replace("127.0.0.1", "localhost") + "/plain",
            "http://169.254.169.254/latest/meta-data/".to_string(),
            "http://[::1]:9/".to_string(),
            "http://10.0.0.1/".to_string(),
            "http://2130706433/".to_string(),
        ] {
            let err = public_only
                .execute(json!({ "url": url }), ctx())
                .await
                .unwrap_err();
            assert_eq!(err.kind, ToolErrorKind::PermissionDenied, "{url}: {err}");
        }
        // Every redirect hop is checked, whatever the first host was allowed to be.
        for hop in ["to-metadata", "to-other-loopback", "to-ipv6-loopback"] {
            let err = fetch(json!({"url": format!("{base}/{hop}")}))
                .await
                .unwrap_err();
            assert_eq!(err.kind, ToolErrorKind::PermissionDenied, "{hop}: {err}");
            assert!(err.message.contains("only public"), "{hop}: {err}");
        }
        // A redirect to another scheme is not followed: the redirect itself is the answer.
        let err = fetch(json!({"url": format!("{base}/to-file")}))
            .await
            .unwrap_err();
        assert!(err.message.contains("not followed"), "{err}");
        assert!(!err.message.contains("root:"), "{err}");
    }

    /// A grant for one host (a rule for `https://docs.rs/*`) never reaches another host
    /// through an open redirect: the model gets the target and must ask for it.
    #[tokio::test]
    async fn redirects_to_another_host_are_returned_not_followed() {
        let other = axum::Router::new().route("/plain", get(|| async { "ELSEWHERE" }));
        let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
        let other_addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, other).await.unwrap() });
        let app = axum::Router::new().route(
            "/open-redirect",
            get(move || async move { Redirect::temporary(&format!("http://{other_addr}/plain")) }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let both = Reach::also(["127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap()]);
        let err = FetchUrl::reaching(both)
            .execute(
                json!({"url": format!("http://{addr}/open-redirect")}),
                ctx(),
            )
            .await
            .unwrap_err();
        assert!(
            err.message.contains(&format!("http://{other_addr}/plain")),
            "{err}"
        );
        assert!(err.message.contains("not followed"), "{err}");
        // The same host's redirects are still followed.
        let base = server().await;
        let out = fetch(json!({"url": format!("{base}/moved")}))
            .await
            .unwrap();
        assert!(out["content"].as_str().unwrap().contains("line 1"));
    }

    #[test]
    fn rules_match_the_url() {
        assert_eq!(
            FetchUrl::new().rule_subject(&json!({"url": " https://docs.rs/x "}), None),
            RuleSubject::Url("https://docs.rs/x".into())
        );
        assert_eq!(
            FetchUrl::new().rule_subject(&json!({"url": "HTTPS://Docs.RS"}), None),
            RuleSubject::Url("https://docs.rs/".into()),
            "matched as it will be requested"
        );
    }
}
