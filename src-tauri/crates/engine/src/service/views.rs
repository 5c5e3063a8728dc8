//! MCP Apps views (SEP-1865, F-96) as the service hosts them: a call's view is prepared
//! from the stored result and the server's document (read once, then kept), served to one frame
//! load under a policy built from what the document declares, and what the view asks for comes
//! back here — a call to its own server's tools through the chat's gate, a read of its server's
//! resources — never anywhere else.

use super::services::McpViews;
use super::{refused, ServiceError, Tollgate};
use crate::executor::{CallOrigin, ToolCallRequest, ViewOrigin};
use crate::mcp::apps::{content_security_policy, ViewResource};
use crate::parse::RawArguments;
use crate::protocol::ids::ChatId;
use crate::protocol::{Invalid, McpViewDocument, McpViewLink, McpViewOutcome, Missing, Source};
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::collections::HashMap;
use tokio_util::sync::CancellationToken;

/// The scheme the window loads views from: a document there runs in an origin of its own,
/// never the app's.
pub const VIEW_SCHEME: &str = "tollgate-view";

/// A view's document waiting for its frame to load it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedView {
    pub html: String,
    /// The `Content-Security-Policy` header it is served with.
    pub csp: String,
    /// The MCP server whose view it is.
    pub server: String,
}

/// The documents prepared for frames and not loaded yet, by token. Each is served once: a
/// second load of the same address (a reload, or anything else that learned it) gets nothing.
///
/// It also knows whose views were loaded into the window's page since it last loaded, and
/// whether views are paused. A view runs in the window's own web process: one that keeps it
/// busy (a loop that never ends) or fills its memory stops the whole window. The app watches
/// the web process; when it stops answering or ends while views were shown, views are paused
/// ([`Self::pause`]) and the page loads again without them, until the user shows them again.
#[derive(Debug, Default)]
pub struct ViewDocuments {
    waiting: Mutex<HashMap<String, ServedView>>,
    /// Servers whose views were loaded since the page last loaded, in the order first loaded.
    shown: Mutex<Vec<String>>,
    /// While views are paused: the servers whose views were shown when the window stopped.
    paused: Mutex<Option<Vec<String>>>,
}

/// At most this many documents wait at once; the oldest are dropped past it (a window that
/// asks for views it never loads cannot fill memory).
const MAX_WAITING: usize = 64;

impl ViewDocuments {
    /// Keeps `view` for one load; returns its address.
    fn prepare(&self, view: ServedView) -> String {
        let token = format!("{:032x}", rand::random::<u128>());
        let mut waiting = self.waiting.lock();
        if waiting.len() >= MAX_WAITING {
            waiting.clear();
        }
        waiting.insert(token.clone(), view);
        format!("{VIEW_SCHEME}://localhost/{token}")
    }

    /// The token of a view address, if `url` is one in the form this service gives out.
    fn token(url: &str) -> Option<&str> {
        let rest = url
            .strip_prefix(VIEW_SCHEME)?
            .strip_prefix("://localhost/")?;
        (rest.len() == 32 && rest.bytes().all(|b| b.is_ascii_hexdigit())).then_some(rest)
    }

    /// Whether `url` is a view address whose document still waits for its load: the one
    /// address outside the app's own page a frame of the window may navigate to.
    pub fn waiting(&self, url: &str) -> bool {
        Self::token(url).is_some_and(|t| self.waiting.lock().contains_key(t))
    }

    /// Takes the document for `url`: it is served once. Its server counts as shown in the
    /// page from now on.
    pub fn take(&self, url: &str) -> Option<ServedView> {
        let token = Self::token(url)?;
        let view = self.waiting.lock().remove(token)?;
        let mut shown = self.shown.lock();
        if !shown.contains(&view.server) {
            shown.push(view.server.clone());
        }
        Some(view)
    }

    /// The window's page loaded (again): no view is in it.
    pub fn page_loaded(&self) {
        self.shown.lock().clear();
    }

    /// Servers whose views were loaded since the page last loaded; empty when none was.
    pub fn shown(&self) -> Vec<String> {
        self.shown.lock().clone()
    }

    /// Pauses views: no view is prepared until [`Self::resume`], and the documents waiting are
    /// dropped. Returns the servers whose views were shown, which the pause names.
    pub fn pause(&self) -> Vec<String> {
        let shown = self.shown();
        self.waiting.lock().clear();
        *self.paused.lock() = Some(shown.clone());
        shown
    }

    /// While views are paused, the servers whose views were shown when they were.
    pub fn paused(&self) -> Option<Vec<String>> {
        self.paused.lock().clone()
    }

    /// Views show again (the user asked).
    pub fn resume(&self) {
        *self.paused.lock() = None;
    }
}

/// What a view may ask of its call's record, once checked.
struct CheckedView {
    link: McpViewLink,
    tool: Option<String>,
    arguments: Value,
    /// `None` while the call runs.
    outcome: Option<McpViewOutcome>,
}

impl McpViews<'_> {
    /// Whether views are on for `server`: the app's setting and the server's own.
    fn views_on(&self, server: &str) -> bool {
        self.app.app_settings.read().mcp_views
            && self
                .app
                .mcp
                .connection(server)
                .map_or_else(|| self.configured_views(server), |(_, c)| c.views)
    }

    /// The server's own setting when it is not running (a stored view shown after a restart).
    fn configured_views(&self, server: &str) -> bool {
        self.app
            .mcp_state
            .configs
            .lock()
            .iter()
            .find(|c| c.name == server)
            .is_some_and(|c| c.views)
    }

    /// Call `seq`'s view, if it has one that may show.
    async fn checked_view(&self, chat: ChatId, seq: u64) -> Result<CheckedView, ServiceError> {
        let view = self
            .app
            .store
            .views()
            .call_view(chat, seq)
            .await?
            .ok_or(ServiceError::NotFound(Missing::Call { chat, seq }))?;
        if !self.views_on(&view.link.server) {
            return Err(refused(format!(
                "Views of the MCP server \"{}\" are turned off in the settings.",
                view.link.server
            )));
        }
        let parse = |text: Option<String>| text.and_then(|t| serde_json::from_str(&t).ok());
        let outcome = if view.running {
            None
        } else {
            Some(match (parse(view.result), view.is_error) {
                (Some(result), false) => McpViewOutcome::Result { result },
                _ => McpViewOutcome::Cancelled {
                    reason: view
                        .result_text
                        .unwrap_or_else(|| "The call has no result to show.".to_string()),
                },
            })
        };
        Ok(CheckedView {
            link: view.link,
            tool: view.tool,
            arguments: parse(view.arguments).unwrap_or_else(|| json!({})),
            outcome,
        })
    }

    /// The view's document: read from its server when it runs (and kept), else as kept from
    /// the last read — a stored call's view shows again after a restart without its server.
    async fn view_resource(&self, link: &McpViewLink) -> Result<ViewResource, ServiceError> {
        let read = match self.app.mcp_servers().ready_server(&link.server) {
            Ok((conn, _)) => Some(conn.read_resource(&link.uri).await),
            Err(_) => None,
        };
        let failed = match read {
            Some(Ok(contents)) => {
                let resource = ViewResource::from_contents(&link.uri, &contents).map_err(|e| {
                    refused(format!(
                        "The view {} of \"{}\" cannot be shown: {e}",
                        link.uri, link.server
                    ))
                })?;
                if let Ok(text) = serde_json::to_string(&resource) {
                    self.app
                        .store
                        .views()
                        .save_view_resource(link.clone(), text)
                        .await?;
                }
                return Ok(resource);
            }
            Some(Err(e)) => format!("could not be read: {e}"),
            None => "cannot be read: the server is not running".to_string(),
        };
        let kept = self.app.store.views().view_resource(link.clone()).await?;
        kept.and_then(|k| serde_json::from_str::<ViewResource>(&k).ok())
            .ok_or_else(|| {
                refused(format!(
                    "The view {} of \"{}\" {failed}.",
                    link.uri, link.server
                ))
            })
    }

    /// Prepares call `seq`'s view for a frame: its document served once at the returned
    /// address, under the policy its declared domains allow, with what the host tells it.
    pub async fn open_view(&self, chat: ChatId, seq: u64) -> Result<McpViewDocument, ServiceError> {
        if let Some(servers) = self.app.views.paused() {
            return Err(ServiceError::Invalid(Invalid::McpViewsPaused { servers }));
        }
        let view = self.checked_view(chat, seq).await?;
        let resource = self.view_resource(&view.link).await?;
        let csp = content_security_policy(&resource.domains);
        let url = self.app.views.prepare(ServedView {
            html: resource.html,
            csp: csp.clone(),
            server: view.link.server.clone(),
        });
        let server = view.link.server.clone();
        let tool = view
            .tool
            .as_deref()
            .and_then(|t| t.strip_prefix(&format!("{server}__")))
            .unwrap_or_default()
            .to_string();
        Ok(McpViewDocument {
            url,
            server,
            tool,
            csp,
            domains: resource.domains.all(),
            prefers_border: resource.prefers_border,
            tool_input: view.arguments,
            outcome: view.outcome,
        })
    }

    /// How call `seq` ended, for its view shown while it ran; `None` while it still runs.
    pub async fn view_outcome(
        &self,
        chat: ChatId,
        seq: u64,
    ) -> Result<Option<McpViewOutcome>, ServiceError> {
        Ok(self.checked_view(chat, seq).await?.outcome)
    }

    /// Shows views again after a pause: the user read why they were paused and asked.
    pub fn resume_views(&self) {
        self.app.views.resume();
    }

    /// A `tools/call` from call `seq`'s view: the chat's executor runs it like any call — policy,
    /// rules, records, the provenance gate, result approval, the record — as one the view made.
    /// Only the view's own server's tools that it lets views call are found. Its arguments
    /// count as content the page put forward (the gate reads them as untrusted). Returns the
    /// `CallToolResult` for the view.
    pub async fn view_call_tool(
        &self,
        chat: ChatId,
        seq: u64,
        name: String,
        arguments: Value,
    ) -> Result<Value, ServiceError> {
        let view = self.checked_view(chat, seq).await?;
        let server = view.link.server;
        let exec = self.app.executor(chat).await?;
        let rows = self.app.store.branches().chat_messages(chat).await?;
        let mut exposure = crate::chat::exposure::from_rows(&rows, &exec.toolbox().offer());
        let args_text = arguments.to_string();
        exposure.add(
            &[Source::McpView {
                server: server.clone(),
            }],
            &args_text,
        );
        let origin = CallOrigin {
            exposure: Some(exposure.shared()),
            view: Some(ViewOrigin {
                of_seq: seq,
                server: server.clone(),
            }),
            ..Default::default()
        };
        let request = ToolCallRequest::new(
            format!("view-c{seq}-{:08x}", rand::random::<u32>()),
            crate::mcp::tool_name(&server, &name),
            RawArguments::Text(args_text),
        );
        let result = exec
            .execute(request, origin, &CancellationToken::new())
            .await;
        Ok(match (result.is_error, result.raw) {
            (false, Some(raw)) => raw,
            (is_error, _) => json!({
                "content": [{"type": "text", "text": result.content}],
                "isError": is_error,
            }),
        })
    }

    /// A `resources/read` from call `seq`'s view: read from the view's own server only.
    pub async fn view_read_resource(
        &self,
        chat: ChatId,
        seq: u64,
        uri: String,
    ) -> Result<Value, ServiceError> {
        let view = self.checked_view(chat, seq).await?;
        let (conn, _) = self.app.mcp_servers().ready_server(&view.link.server)?;
        let contents = conn.read_resource(&uri).await.map_err(|e| {
            refused(format!(
                "Reading {uri} from \"{}\" failed: {e}",
                view.link.server
            ))
        })?;
        Ok(json!({ "contents": contents }))
    }
}

impl Tollgate {
    // On the app itself: the documents outlive any borrow of a service.
    /// The views' documents waiting for their frames (the app's scheme handler and navigation
    /// guard read them), and whether views are paused (the app's watch on its web process
    /// pauses them).
    pub fn view_documents(&self) -> &ViewDocuments {
        &self.views
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_served_once_and_only_at_its_own_address() {
        let docs = ViewDocuments::default();
        let url = docs.prepare(ServedView {
            html: "<p>".into(),
            csp: "default-src 'none'".into(),
            server: "views".into(),
        });
        assert!(url.starts_with("tollgate-view://localhost/"));
        assert!(docs.waiting(&url));
        assert!(!docs.waiting("tollgate-view://localhost/0000"));
        assert!(!docs.waiting(&format!("{url}/../x")));
        assert!(!docs.waiting(&url.replace("localhost", "evil")));
        assert_eq!(docs.take(&url).map(|v| v.html), Some("<p>".to_string()));
        assert!(!docs.waiting(&url), "served once");
        assert!(docs.take(&url).is_none());
    }

    #[test]
    fn a_pause_names_the_servers_shown_since_the_page_loaded_and_drops_what_waits() {
        let docs = ViewDocuments::default();
        let serve = |server: &str| {
            let url = docs.prepare(ServedView {
                html: "<p>".into(),
                csp: "default-src 'none'".into(),
                server: server.into(),
            });
            docs.take(&url)
        };
        serve("old");
        docs.page_loaded();
        assert!(docs.shown().is_empty());
        serve("clock");
        serve("pdf");
        serve("clock");
        assert_eq!(docs.shown(), ["clock", "pdf"]);
        let waiting = docs.prepare(ServedView {
            html: "<p>".into(),
            csp: "default-src 'none'".into(),
            server: "late".into(),
        });
        assert_eq!(docs.pause(), ["clock", "pdf"]);
        assert_eq!(docs.paused(), Some(vec!["clock".into(), "pdf".into()]));
        assert!(
            docs.take(&waiting).is_none(),
            "a document waiting is dropped"
        );
        docs.resume();
        assert_eq!(docs.paused(), None);
    }
}
