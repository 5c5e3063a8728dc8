//! Pages a server needs the user to open before a call can go on (SPEC §11): the answer
//! `-32042` ("URL elicitation required") to a tool call names them. Each is put to the user as
//! a question under the call (its whole address first, the browser only on their word); when
//! the server says the user finished there (`notifications/elicitation/complete`), the call is
//! made again, once.

use super::elicitation::RunningCall;
use super::progress::{CallProgress, ProgressListener};
use super::Asks;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::HashSet;
use tollgate_names::{check_open, Opening};
use tollgate_protocol::{ElicitationAnswer, ElicitationKind};

/// The JSON-RPC error code of "URL elicitation required".
pub const PAGES_REQUIRED: i32 = -32042;
/// The method a server tells the client with that the user finished on a page.
pub const PAGE_DONE_METHOD: &str = "notifications/elicitation/complete";
/// At most this many pages of one answer are put to the user (the rest fail the call).
const MAX_PAGES: usize = 3;

/// A page a server needs opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredPage {
    /// The server's id of the question, named again when the user finished.
    pub id: String,
    pub url: String,
    pub host: String,
    pub message: String,
}

/// The host of an address a server asks the user to open, if it is a public web address
/// (nothing else is ever opened): a page on this machine or a private network would let a
/// server aim the user's browser, and its cookies, at a router or a local service (SPEC §12).
pub fn web_host(url: &str) -> Result<String, String> {
    check_open(url, Opening::ServerPage)
        .map(|page| tollgate_names::host_of(&page).unwrap_or_default())
        .map_err(|e| e.to_string())
}

/// The pages of a `-32042` answer's `data` (`{"elicitations": [{mode, elicitationId, url,
/// message}]}`): those in URL mode with a web address and an id.
pub fn required_pages(data: Option<&Value>) -> Vec<RequiredPage> {
    let Some(list) = data
        .and_then(|d| d.get("elicitations"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    list.iter()
        .filter(|e| e.get("mode").and_then(Value::as_str) == Some("url"))
        .filter_map(|e| {
            let text = |key: &str| e.get(key).and_then(Value::as_str).map(str::to_string);
            let url = text("url")?;
            let host = web_host(&url).ok()?;
            Some(RequiredPage {
                id: text("elicitationId").filter(|id| !id.is_empty())?,
                message: text("message").unwrap_or_default(),
                url,
                host,
            })
        })
        .collect()
}

/// The ids of the pages the server said the user finished on, not yet waited for.
#[derive(Default)]
pub struct PagesDone {
    done: Mutex<HashSet<String>>,
    changed: tokio::sync::Notify,
}

impl PagesDone {
    /// The server's `notifications/elicitation/complete`.
    pub fn finished(&self, params: Option<&Value>) {
        let Some(id) = params
            .and_then(|p| p.get("elicitationId"))
            .and_then(Value::as_str)
        else {
            return;
        };
        self.done.lock().insert(id.to_string());
        self.changed.notify_waiters();
    }

    /// Waits until the server says the user finished on page `id`.
    async fn wait(&self, id: &str) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.done.lock().remove(id) {
                return;
            }
            changed.await;
        }
    }
}

/// Why the pages were not all opened and finished.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PagesRefused {
    #[error("the server needs the user to open {} first, and Tollgate cannot ask them now", hosts(.0))]
    CannotAsk(Vec<RequiredPage>),
    #[error("the server needs the user to open more than {MAX_PAGES} pages first")]
    TooMany,
    #[error("the user declined to open {0}, which the server needs first")]
    Declined(String),
    #[error("the user cancelled opening {0}, which the server needs first")]
    Cancelled(String),
    #[error("{0}")]
    Refused(String),
}

fn hosts(pages: &[RequiredPage]) -> String {
    pages
        .iter()
        .map(|p| p.host.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Puts each page to the user under `call` and waits, after they open it, until the server
/// says they finished there (the card shows what it waits for). Stopping the call withdraws
/// the question or ends the wait (the caller's `cancel` races this).
pub async fn open_pages(
    pages: Vec<RequiredPage>,
    asks: Option<&Asks>,
    call: Option<&RunningCall>,
    done: &PagesDone,
    shows: &ProgressListener,
) -> Result<(), PagesRefused> {
    let (Some(asks), Some(call)) = (asks, call) else {
        return Err(PagesRefused::CannotAsk(pages));
    };
    if pages.len() > MAX_PAGES {
        return Err(PagesRefused::TooMany);
    }
    for page in pages {
        let kind = ElicitationKind::Url {
            url: page.url.clone(),
            host: page.host.clone(),
        };
        let answer = asks
            .hub
            .ask(asks.slot.name(), call, page.message.clone(), kind)
            .await
            .map_err(|e| PagesRefused::Refused(e.to_string()))?;
        match answer {
            ElicitationAnswer::Accept { .. } => {}
            ElicitationAnswer::Decline => return Err(PagesRefused::Declined(page.host)),
            ElicitationAnswer::Cancel => return Err(PagesRefused::Cancelled(page.host)),
        }
        shows(CallProgress {
            progress: 0.0,
            total: None,
            message: Some(format!("Waiting until you finish on {}", page.host)),
        });
        // The user works in the browser: their time does not count against the call's.
        let _user_time = call.clock.pause();
        done.wait(&page.id).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_page_on_this_machine_or_a_private_network_is_never_opened() {
        assert_eq!(
            web_host("https://connect.example.com/start").unwrap(),
            "connect.example.com"
        );
        for inside in [
            "http://127.0.0.1:8080/admin",
            "http://localhost/x",
            "http://app.localhost/x",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data",
            "http://[::1]/",
            "http://[fd00::1]/",
            "http://router/",
        ] {
            let refused = web_host(inside).unwrap_err();
            assert!(refused.contains("private network"), "{inside}: {refused}");
        }
        assert!(web_host("file:///etc/passwd").is_err());
    }
    use serde_json::json;

    #[test]
    fn only_web_pages_with_an_id_are_read_from_the_answer() {
        let data = json!({"elicitations": [
            {"mode": "url", "elicitationId": "a", "url": "https://pay.example.com/x?s=1", "message": "Pay"},
            {"mode": "url", "elicitationId": "b", "url": "file:///etc/passwd", "message": "Read"},
            {"mode": "url", "url": "https://no-id.example.com", "message": "No id"},
            {"mode": "form", "elicitationId": "c", "url": "https://form.example.com"},
        ]});
        assert_eq!(
            required_pages(Some(&data)),
            [RequiredPage {
                id: "a".into(),
                url: "https://pay.example.com/x?s=1".into(),
                host: "pay.example.com".into(),
                message: "Pay".into(),
            }]
        );
        assert!(required_pages(Some(&json!({"other": 1}))).is_empty());
        assert!(required_pages(None).is_empty());
    }

    #[tokio::test]
    async fn a_wait_ends_when_the_server_names_the_page_even_if_it_did_first() {
        let done = PagesDone::default();
        done.finished(Some(&json!({"elicitationId": "early"})));
        done.finished(Some(&json!({"no": "id"})));
        done.wait("early").await;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let waiting = async {
            done.wait("late").await;
            let _ = tx.send(());
        };
        let finishing = async {
            tokio::task::yield_now().await;
            done.finished(Some(&json!({"elicitationId": "other"})));
            done.finished(Some(&json!({"elicitationId": "late"})));
        };
        tokio::join!(waiting, finishing);
        assert!(rx.await.is_ok());
    }

    #[tokio::test]
    async fn without_a_call_to_ask_under_the_pages_are_named_in_the_error() {
        let page = RequiredPage {
            id: "a".into(),
            url: "https://pay.example.com".into(),
            host: "pay.example.com".into(),
            message: String::new(),
        };
        let shows: ProgressListener = std::sync::Arc::new(|_: CallProgress| {});
        let err = open_pages(vec![page], None, None, &PagesDone::default(), &shows)
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the server needs the user to open pay.example.com first, and Tollgate cannot ask them now"
        );
    }
}
