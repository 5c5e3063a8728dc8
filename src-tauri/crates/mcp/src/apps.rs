//! What a server says about MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension,
//! F-96): on a tool, who may call it (`visibility`: a tool visible only to its view is never
//! offered to the model, which would act where the user never looked) and which view shows its
//! results (`resourceUri`); on the view's resource, its HTML and the domains it declares, from
//! which — and from nothing else — the policy its frame runs under is built.

use base64::Engine as _;
use rmcp::model::{ResourceContents, Tool as McpToolInfo};
use serde_json::Value;

/// Who may call a tool, as its `_meta.ui.visibility` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visibility {
    /// The model may call it (offered as a tool).
    pub model: bool,
    /// The server's view may call it.
    pub app: bool,
}

impl Visibility {
    /// What the spec gives a tool that says nothing: both.
    const BOTH: Self = Self {
        model: true,
        app: true,
    };
}

/// The tool's `_meta.ui` object, if it has one.
fn ui_meta(info: &McpToolInfo) -> Option<&serde_json::Map<String, Value>> {
    info.meta.as_ref()?.0.get("ui")?.as_object()
}

/// Who may call `info`. A list without `"model"` keeps the tool from the model; a missing or
/// unreadable list means both, as the spec has it.
pub fn visibility(info: &McpToolInfo) -> Visibility {
    let Some(list) = ui_meta(info)
        .and_then(|ui| ui.get("visibility"))
        .and_then(Value::as_array)
    else {
        return Visibility::BOTH;
    };
    let has = |who: &str| list.iter().any(|v| v.as_str() == Some(who));
    Visibility {
        model: has("model"),
        app: has("app"),
    }
}

/// Whether the model is offered `info` as a tool.
pub fn offered_to_the_model(info: &McpToolInfo) -> bool {
    visibility(info).model
}

/// The extension's id, as the client advertises it and servers look for it.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
/// The MIME type of a view's resource.
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The version of the view protocol the host speaks (`ui/initialize`).
pub const VIEW_PROTOCOL_VERSION: &str = "2026-01-26";

/// The extension's entry in the client's capabilities: views of this type are shown.
pub fn client_capability() -> serde_json::Map<String, Value> {
    let mut entry = serde_json::Map::new();
    entry.insert("mimeTypes".into(), Value::from(vec![VIEW_MIME_TYPE]));
    entry
}

/// The `ui://` resource of the view that shows `info`'s results: `_meta.ui.resourceUri`, or the
/// older flat `_meta["ui/resourceUri"]`; anything but a `ui://` address is no view.
pub fn view_uri(info: &McpToolInfo) -> Option<String> {
    let nested = ui_meta(info).and_then(|ui| ui.get("resourceUri"));
    let flat = || info.meta.as_ref()?.0.get("ui/resourceUri");
    nested
        .or_else(flat)
        .and_then(Value::as_str)
        .filter(|uri| uri.starts_with("ui://") && uri.len() <= MAX_URI_LEN)
        .map(str::to_string)
}

const MAX_URI_LEN: usize = 2048;
/// A view's document larger than this is refused: it would sit in the database and the window.
pub const MAX_VIEW_BYTES: usize = 8 * 1024 * 1024;

/// The domains a view declares (`_meta.ui.csp`), kept only where they read as origins.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewDomains {
    /// `connect-src`: what its scripts may fetch or open a socket to.
    pub connect: Vec<String>,
    /// `script-src`, `style-src`, `img-src`, `font-src`, `media-src`.
    pub resource: Vec<String>,
    /// `frame-src`.
    pub frame: Vec<String>,
    /// `base-uri`.
    pub base_uri: Vec<String>,
}

impl ViewDomains {
    /// Every domain, once, for the user to see.
    pub fn all(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for d in self
            .connect
            .iter()
            .chain(&self.resource)
            .chain(&self.frame)
            .chain(&self.base_uri)
        {
            if !all.contains(d) {
                all.push(d.clone());
            }
        }
        all
    }
}

/// A view's resource as read: its HTML and what it declares.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewResource {
    pub html: String,
    pub domains: ViewDomains,
    pub prefers_border: Option<bool>,
}

/// Why a view's resource cannot be shown.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ViewResourceError {
    #[error("the server returned no content of type {VIEW_MIME_TYPE} for {0}")]
    Missing(String),
    #[error("the view's document is not readable text: {0}")]
    Unreadable(String),
    #[error("the view's document is {0} bytes, more than the {MAX_VIEW_BYTES} a view may be")]
    TooLarge(usize),
}

impl ViewResource {
    /// The view from a `resources/read` answer for `uri`: the content of the view's type (its
    /// text, or its base64 blob), and the `_meta.ui` on it.
    pub fn from_contents(
        uri: &str,
        contents: &[ResourceContents],
    ) -> Result<Self, ViewResourceError> {
        let view_type = |m: &Option<String>| {
            m.as_deref().is_some_and(|m| {
                m.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/html"))
                    && m.to_ascii_lowercase()
                        .replace(' ', "")
                        .contains("profile=mcp-app")
            })
        };
        let (html, meta) = contents
            .iter()
            .find_map(|c| match c {
                ResourceContents::TextResourceContents {
                    mime_type,
                    text,
                    meta,
                    ..
                } if view_type(mime_type) => Some((Ok(text.clone()), meta)),
                ResourceContents::BlobResourceContents {
                    mime_type,
                    blob,
                    meta,
                    ..
                } if view_type(mime_type) => Some((
                    base64::engine::general_purpose::STANDARD
                        .decode(blob.trim())
                        .map_err(|e| ViewResourceError::Unreadable(e.to_string()))
                        .and_then(|bytes| {
                            String::from_utf8(bytes)
                                .map_err(|e| ViewResourceError::Unreadable(e.to_string()))
                        }),
                    meta,
                )),
                _ => None,
            })
            .ok_or_else(|| ViewResourceError::Missing(uri.to_string()))?;
        let html = html?;
        if html.len() > MAX_VIEW_BYTES {
            return Err(ViewResourceError::TooLarge(html.len()));
        }
        let ui = meta
            .as_ref()
            .and_then(|m| m.0.get("ui"))
            .and_then(Value::as_object);
        let csp = ui.and_then(|u| u.get("csp")).and_then(Value::as_object);
        let list = |key: &str| -> Vec<String> {
            csp.and_then(|c| c.get(key))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .filter_map(origin)
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok(Self {
            html,
            domains: ViewDomains {
                connect: list("connectDomains"),
                resource: list("resourceDomains"),
                frame: list("frameDomains"),
                base_uri: list("baseUriDomains"),
            },
            prefers_border: ui
                .and_then(|u| u.get("prefersBorder"))
                .and_then(Value::as_bool),
        })
    }
}

/// A declared domain as a CSP source, or `None` when it is not a plain origin: a scheme of the
/// web (`https`, `wss`, `http`, `ws`), a host (its first label may be `*`), an optional port —
/// nothing that could end the directive or add a keyword.
fn origin(declared: &str) -> Option<String> {
    let declared = declared.trim().trim_end_matches('/');
    let (scheme, rest) = declared.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "https" | "wss" | "http" | "ws") {
        return None;
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (rest, None),
    };
    if port.is_some_and(|p| p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let label_ok = |(i, l): (usize, &&str)| {
        (i == 0 && *l == "*" && labels.len() > 2)
            || (!l.is_empty()
                && l.len() <= 63
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    };
    if host.is_empty() || !labels.iter().enumerate().all(label_ok) {
        return None;
    }
    Some(match port {
        Some(p) => format!("{scheme}://{}:{p}", host.to_ascii_lowercase()),
        None => format!("{scheme}://{}", host.to_ascii_lowercase()),
    })
}

/// The Content-Security-Policy a view's document is served under: nothing by default, and only
/// what it declared beyond its own code — inline script and style, and scripts and workers it
/// builds from its own text (`blob:`, `data:`; pdf.js's worker is one). Such a worker is code
/// the document already carries, and it inherits this policy: it reaches no more than the
/// document does. `sandbox allow-scripts` keeps the document in an opaque origin wherever it
/// is loaded, even outside its frame: no storage, cookies or forms, no popups, no navigating
/// the window.
pub fn content_security_policy(domains: &ViewDomains) -> String {
    let with = |base: &str, extra: &[String]| {
        let mut parts: Vec<&str> = base.split(' ').filter(|p| !p.is_empty()).collect();
        parts.extend(extra.iter().map(String::as_str));
        if parts.is_empty() {
            "'none'".to_string()
        } else {
            parts.join(" ")
        }
    };
    let r = &domains.resource;
    [
        "default-src 'none'".to_string(),
        format!("script-src {}", with("'unsafe-inline' blob: data:", r)),
        format!("style-src {}", with("'unsafe-inline'", r)),
        format!("img-src {}", with("data: blob:", r)),
        format!("font-src {}", with("data:", r)),
        format!("media-src {}", with("data: blob:", r)),
        format!("connect-src {}", with("", &domains.connect)),
        format!("frame-src {}", with("", &domains.frame)),
        format!("base-uri {}", with("", &domains.base_uri)),
        "object-src 'none'".to_string(),
        "worker-src blob: data:".to_string(),
        "form-action 'none'".to_string(),
        "sandbox allow-scripts".to_string(),
    ]
    .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(meta: Value) -> McpToolInfo {
        serde_json::from_value(json!({
            "name": "t",
            "inputSchema": {"type": "object"},
            "_meta": meta
        }))
        .unwrap()
    }

    #[test]
    fn a_tool_for_the_view_alone_is_not_offered_to_the_model() {
        let app_only =
            tool(json!({"ui": {"resourceUri": "ui://x/app.html", "visibility": ["app"]}}));
        assert!(!offered_to_the_model(&app_only));
        assert_eq!(
            visibility(&app_only),
            Visibility {
                model: false,
                app: true
            }
        );
        let both = tool(json!({"ui": {"visibility": ["model", "app"]}}));
        assert!(offered_to_the_model(&both));
        // An empty list names no one: not the model either.
        assert!(!offered_to_the_model(&tool(
            json!({"ui": {"visibility": []}})
        )));
    }

    #[test]
    fn a_tool_that_says_nothing_or_something_unreadable_is_for_both() {
        assert_eq!(visibility(&tool(json!({}))), Visibility::BOTH);
        assert_eq!(visibility(&tool(json!({"ui": "x"}))), Visibility::BOTH);
        assert_eq!(
            visibility(&tool(json!({"ui": {"visibility": "app"}}))),
            Visibility::BOTH
        );
        let plain: McpToolInfo =
            serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}}))
                .unwrap();
        assert!(offered_to_the_model(&plain));
    }

    #[test]
    fn a_tools_view_is_a_ui_address_nested_or_flat() {
        let nested = tool(
            json!({"ui": {"resourceUri": "ui://a/v.html"}, "ui/resourceUri": "ui://b/old.html"}),
        );
        assert_eq!(view_uri(&nested).as_deref(), Some("ui://a/v.html"));
        let flat = tool(json!({"ui/resourceUri": "ui://b/old.html"}));
        assert_eq!(view_uri(&flat).as_deref(), Some("ui://b/old.html"));
        for not_a_view in [
            json!({"ui": {"resourceUri": "https://evil.example/page.html"}}),
            json!({"ui": {"resourceUri": "file:///etc/passwd"}}),
            json!({"ui": {"resourceUri": 5}}),
            json!({}),
        ] {
            assert_eq!(view_uri(&tool(not_a_view.clone())), None, "{not_a_view}");
        }
    }

    fn contents(value: Value) -> Vec<ResourceContents> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_views_document_is_read_from_its_type_and_its_declared_domains_kept_where_they_are_origins()
    {
        let read = contents(json!([
            {"uri": "ui://a/v.html", "mimeType": "text/plain", "text": "not this"},
            {"uri": "ui://a/v.html", "mimeType": "text/html;profile=mcp-app", "text": "<p>view</p>",
             "_meta": {"ui": {"prefersBorder": false, "csp": {
                "connectDomains": ["https://api.example.com", "wss://rt.example.com:8443/", "https://a.example.com; script-src *", "'unsafe-eval'", "*", "javascript:alert(1)"],
                "resourceDomains": ["https://*.cdn.example.com", "https://*.com", "http://127.0.0.1:3000"],
                "frameDomains": ["https://www.youtube.com"]}}}}
        ]));
        let view = ViewResource::from_contents("ui://a/v.html", &read).unwrap();
        assert_eq!(view.html, "<p>view</p>");
        assert_eq!(view.prefers_border, Some(false));
        assert_eq!(
            view.domains.connect,
            ["https://api.example.com", "wss://rt.example.com:8443"]
        );
        assert_eq!(
            view.domains.resource,
            ["https://*.cdn.example.com", "http://127.0.0.1:3000"]
        );
        assert_eq!(view.domains.frame, ["https://www.youtube.com"]);
        let blob = contents(
            json!([{"uri": "ui://a/v.html", "mimeType": "text/html; profile=mcp-app", "blob": "PGI+aGk8L2I+"}]),
        );
        assert_eq!(
            ViewResource::from_contents("ui://a/v.html", &blob)
                .unwrap()
                .html,
            "<b>hi</b>"
        );
        let wrong =
            contents(json!([{"uri": "ui://a/v.html", "mimeType": "text/html", "text": "<p>"}]));
        assert!(matches!(
            ViewResource::from_contents("ui://a/v.html", &wrong),
            Err(ViewResourceError::Missing(_))
        ));
        let big = "x".repeat(MAX_VIEW_BYTES + 1);
        let huge = contents(json!([{"uri": "u", "mimeType": VIEW_MIME_TYPE, "text": big}]));
        assert!(matches!(
            ViewResource::from_contents("u", &huge),
            Err(ViewResourceError::TooLarge(_))
        ));
    }

    #[test]
    fn the_policy_allows_only_what_was_declared_and_sandboxes_the_document() {
        let none = content_security_policy(&ViewDomains::default());
        assert_eq!(
            none,
            "default-src 'none'; script-src 'unsafe-inline' blob: data:; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; frame-src 'none'; base-uri 'none'; object-src 'none'; worker-src blob: data:; form-action 'none'; sandbox allow-scripts"
        );
        let some = content_security_policy(&ViewDomains {
            connect: vec!["https://api.example.com".into()],
            resource: vec!["https://cdn.example.com".into()],
            frame: Vec::new(),
            base_uri: Vec::new(),
        });
        assert!(
            some.contains("connect-src https://api.example.com;"),
            "{some}"
        );
        assert!(
            some.contains("script-src 'unsafe-inline' blob: data: https://cdn.example.com;"),
            "{some}"
        );
        assert!(
            !some.contains("'self'")
                && !some.contains("allow-same-origin")
                && !some.contains("unsafe-eval")
                && some.contains("worker-src blob: data:;"),
            "{some}: workers only from the view's own text"
        );
    }
}
