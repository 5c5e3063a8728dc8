//! Which addresses Tollgate opens in the system's browser (or mail app), one gate for every way
//! an address gets there (SPEC §10):
//! - [`Opening::Link`]: a link in an answer the user clicks (F-59). The window reads
//!   [`LINK_SCHEMES`] from `ui/src/bindings.ts`, and the opener's capability file allows the same
//!   schemes and no others (a test compares them).
//! - [`Opening::ServerPage`]: a page an MCP server asks the user to open (URL elicitation,
//!   SPEC §11). Only a public web page: a page on this machine or a private network would let a
//!   server aim the user's browser, and its cookies, at a router or a local service (SPEC §12).
//! - [`Opening::SignIn`]: an authorization server's sign-in page: https anywhere, plain http
//!   only on this machine (a server run locally).

use crate::address::is_public;
use crate::web::on_this_machine;
use std::net::IpAddr;

/// The schemes of links in answers that open outside the app; anything else is refused.
pub const LINK_SCHEMES: [&str; 3] = ["https", "http", "mailto"];

/// Who wants an address opened, which decides what may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// The user clicked a link in an answer.
    Link,
    /// An MCP server asks the user to open a page.
    ServerPage,
    /// An authorization server's sign-in page.
    SignIn,
}

/// Why an address is not opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOpenable {
    #[error("the address to open is not one: {0}")]
    NotAnAddress(String),
    #[error("only web addresses are opened")]
    NotWeb,
    #[error("only web and mail links are opened")]
    NotLink,
    #[error("the page to open ({0}) is on this machine or a private network; a server may send the user only to public web pages")]
    Inside(String),
    #[error("the sign-in page ({0}) is not on https; plain http is opened only on this machine")]
    PlainHttp(String),
}

/// Whether `host` is on this machine or a private network: an address that is not public,
/// `localhost`, or a name of one label (which only a local resolver answers).
fn inside(host: Option<url::Host<&str>>) -> bool {
    match host {
        Some(url::Host::Ipv4(ip)) => !is_public(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => !is_public(IpAddr::V6(ip)),
        Some(url::Host::Domain(name)) => {
            on_this_machine(Some(url::Host::Domain(name)))
                || !name.trim_end_matches('.').contains('.')
        }
        None => true,
    }
}

/// Checks `address` for `opening`; the parsed address when it may be opened.
pub fn check_open(address: &str, opening: Opening) -> Result<url::Url, NotOpenable> {
    let url =
        url::Url::parse(address.trim()).map_err(|e| NotOpenable::NotAnAddress(e.to_string()))?;
    let host = url.host_str().unwrap_or_default().to_string();
    match (opening, url.scheme()) {
        (Opening::Link, scheme) if LINK_SCHEMES.contains(&scheme) => Ok(url),
        (Opening::Link, _) => Err(NotOpenable::NotLink),
        (Opening::ServerPage, "https" | "http") if inside(url.host()) => {
            Err(NotOpenable::Inside(host))
        }
        (Opening::ServerPage, "https" | "http") => Ok(url),
        // A sign-in page is where a credential is typed: the credential rule of `web`.
        (Opening::SignIn, "https" | "http") => match crate::web::check_credential(&url) {
            Ok(()) => Ok(url),
            Err(_) => Err(NotOpenable::PlainHttp(host)),
        },
        (Opening::ServerPage | Opening::SignIn, _) => Err(NotOpenable::NotWeb),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opens(address: &str, opening: Opening) -> bool {
        check_open(address, opening).is_ok()
    }

    #[test]
    fn links_open_on_the_web_and_in_mail_and_nowhere_else() {
        for ok in [
            "https://docs.rs/serde",
            "http://127.0.0.1:8080/",
            "mailto:someone@example.org",
        ] {
            assert!(opens(ok, Opening::Link), "{ok}");
        }
        for refused in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,<script>",
            "tauri://localhost/",
            "smb://share/x",
            "not a url",
        ] {
            assert!(!opens(refused, Opening::Link), "{refused}");
        }
    }

    #[test]
    fn a_server_page_is_a_public_web_page() {
        assert_eq!(
            check_open("https://connect.example.com/start", Opening::ServerPage)
                .unwrap()
                .host_str(),
            Some("connect.example.com")
        );
        for inside in [
            "http://localhost:8080/",
            "http://app.localhost/",
            "https://127.0.0.1/",
            "http://192.168.1.1/admin",
            "http://[::1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://169.254.169.254/latest/",
            "http://router/",
            "http://0x7f.1/",
        ] {
            assert!(
                matches!(
                    check_open(inside, Opening::ServerPage),
                    Err(NotOpenable::Inside(_))
                ),
                "{inside}"
            );
        }
        assert_eq!(
            check_open("mailto:a@example.org", Opening::ServerPage),
            Err(NotOpenable::NotWeb)
        );
        assert_eq!(
            check_open("file:///etc/passwd", Opening::ServerPage),
            Err(NotOpenable::NotWeb)
        );
    }

    #[test]
    fn sign_in_is_https_or_plain_http_on_this_machine() {
        assert!(opens(
            "https://auth.example.com/authorize?x=1",
            Opening::SignIn
        ));
        assert!(opens("http://localhost:3001/authorize", Opening::SignIn));
        assert!(opens("http://127.0.0.1:3001/authorize", Opening::SignIn));
        assert!(opens("http://[::1]:3001/authorize", Opening::SignIn));
        assert_eq!(
            check_open("http://auth.example.com/authorize", Opening::SignIn),
            Err(NotOpenable::PlainHttp("auth.example.com".into()))
        );
        assert!(!opens("file:///etc/passwd", Opening::SignIn));
        assert!(!opens("javascript:alert(1)", Opening::SignIn));
        assert!(!opens("not a url", Opening::SignIn));
    }
}
