//! The loopback redirect of a native app's sign-in (RFC 8252 §7.3): a one-use HTTP listener on
//! `127.0.0.1` and a port the system picks, to which the authorization server sends the
//! browser back with the code. It answers the browser with a short page and hands the full
//! redirect URL to the sign-in; anything else that knocks (a favicon request) gets a 404.

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tollgate_sandbox::http_head::read_head;

/// The path the redirect comes back to.
const CALLBACK_PATH: &str = "/callback";
/// How long a connection may take to send its request head: one that sends nothing is closed,
/// so it cannot hold the listener while the browser's answer waits behind it (SPEC §12).
const HEAD_PATIENCE: std::time::Duration = std::time::Duration::from_secs(5);

/// A listener waiting for one redirect.
pub struct Loopback {
    listener: TcpListener,
    port: u16,
}

/// What came back to the redirect URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redirect {
    /// `code` and `state` (and maybe `iss`): the whole URL, for rmcp to read.
    Code { url: String },
    /// The authorization server refused (`error`, maybe `error_description`).
    Refused {
        error: String,
        description: Option<String>,
    },
}

impl Loopback {
    /// Listens on `127.0.0.1` (never a name that could resolve elsewhere, never every
    /// interface).
    pub async fn bind() -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self { listener, port })
    }

    /// The redirect URI to register and send.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// Waits for the browser to come back with the code (or a refusal) for the request whose
    /// `state` this is: an answer with another state — a page or a program on this machine
    /// knocking, with a code or an `error` of its own — is turned away and the wait goes on
    /// (SPEC §12).
    pub async fn next_redirect(&self, state: &str) -> std::io::Result<Redirect> {
        loop {
            let (mut stream, _) = self.listener.accept().await?;
            let head = match tokio::time::timeout(HEAD_PATIENCE, read_head(&mut stream)).await {
                Ok(Ok((head, _))) => head,
                Ok(Err(_)) | Err(_) => continue,
            };
            let Some(target) = request_target(&head) else {
                let _ = respond(&mut stream, "400 Bad Request", "Not a sign-in.").await;
                continue;
            };
            let Ok(url) = url::Url::parse(&format!("http://127.0.0.1:{}{target}", self.port))
            else {
                let _ = respond(&mut stream, "400 Bad Request", "Not a sign-in.").await;
                continue;
            };
            if url.path() != CALLBACK_PATH {
                let _ = respond(&mut stream, "404 Not Found", "Not here.").await;
                continue;
            }
            let param = |name: &str| {
                url.query_pairs()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.into_owned())
            };
            if state.is_empty() || param("state").as_deref() != Some(state) {
                let _ = respond(
                    &mut stream,
                    "400 Bad Request",
                    "This is not the answer to Tollgate's sign-in.",
                )
                .await;
                continue;
            }
            if let Some(error) = param("error") {
                let _ = respond(
                    &mut stream,
                    "200 OK",
                    "The sign-in was refused. You can close this tab and return to Tollgate.",
                )
                .await;
                return Ok(Redirect::Refused {
                    error,
                    description: param("error_description"),
                });
            }
            if param("code").is_none() {
                let _ = respond(
                    &mut stream,
                    "400 Bad Request",
                    "This is not a sign-in answer.",
                )
                .await;
                continue;
            }
            let _ = respond(
                &mut stream,
                "200 OK",
                "Signed in. You can close this tab and return to Tollgate.",
            )
            .await;
            return Ok(Redirect::Code {
                url: url.to_string(),
            });
        }
    }
}

/// The target of a `GET` request line.
fn request_target(head: &str) -> Option<&str> {
    let line = head.lines().next()?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => Some(target),
        _ => None,
    }
}

async fn respond(
    stream: &mut tokio::net::TcpStream,
    status: &str,
    message: &str,
) -> std::io::Result<()> {
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tollgate</title></head><body style=\"font-family:sans-serif;margin:3em\"><p>{message}</p></body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port_url: &str) -> (u16, String) {
        let response = reqwest::get(port_url).await.expect("the listener answers");
        let status = response.status().as_u16();
        (status, response.text().await.unwrap_or_default())
    }

    #[tokio::test]
    async fn a_favicon_is_not_a_sign_in_and_the_code_is() {
        let lb = Loopback::bind().await.expect("binds");
        let base = lb.redirect_uri();
        assert!(base.starts_with("http://127.0.0.1:"));
        let waiting = tokio::spawn(async move { lb.next_redirect("xyz").await });
        let favicon = base.replace("/callback", "/favicon.ico");
        assert_eq!(get(&favicon).await.0, 404);
        assert_eq!(get(&base).await.0, 400, "a callback without a code");
        assert_eq!(
            get(&format!("{base}?code=planted&state=other")).await.0,
            400,
            "a code for another sign-in"
        );
        let (status, page) = get(&format!("{base}?code=abc&state=xyz&iss=http%3A%2F%2Fas")).await;
        assert_eq!(status, 200);
        assert!(page.contains("Signed in"));
        let redirect = waiting.await.expect("joins").expect("a redirect");
        let Redirect::Code { url } = redirect else {
            panic!("a code: {redirect:?}")
        };
        assert!(url.contains("code=abc") && url.contains("state=xyz") && url.contains("iss="));
    }

    #[tokio::test]
    async fn a_refusal_comes_back_as_one() {
        let lb = Loopback::bind().await.expect("binds");
        let base = lb.redirect_uri();
        let waiting = tokio::spawn(async move { lb.next_redirect("s1").await });
        // A connection that sends nothing does not hold the listener for ever.
        let silent = tokio::net::TcpStream::connect(
            base.trim_start_matches("http://")
                .trim_end_matches("/callback"),
        )
        .await
        .expect("connects");
        // A refusal without the sign-in's state (a page on this machine) cancels nothing.
        let (status, _) = get(&format!("{base}?error=access_denied")).await;
        assert_eq!(status, 400);
        get(&format!(
            "{base}?error=access_denied&error_description=no+thanks&state=s1"
        ))
        .await;
        drop(silent);
        assert_eq!(
            waiting.await.expect("joins").expect("a redirect"),
            Redirect::Refused {
                error: "access_denied".into(),
                description: Some("no thanks".into())
            }
        );
    }
}
