//! The one gate for the web addresses Tollgate sends requests to — a provider's endpoint, an
//! MCP server, `fetch_url` and each redirect it follows: http or https, nothing else. And the one
//! rule for a credential (an API key, a token, an `Authorization` header): over https anywhere,
//! over plain http only to this machine, where nobody on the way can read it. Providers and MCP
//! servers follow the same rule.

/// Why an address is not one Tollgate sends a request to, or not with a credential.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotWebUrl {
    #[error("\"{address}\" is not a URL: {why}")]
    NotAUrl { address: String, why: String },
    #[error("the address must start with http:// or https://, not {scheme}://")]
    Scheme { scheme: String },
    #[error("a key or token is sent only over https:// (or to this machine), and {host} is reached over plain http: use its https:// address")]
    CredentialInClear { host: String },
}

/// Parses `raw` as a web address: http or https, nothing else.
pub fn web_url(raw: &str) -> Result<url::Url, NotWebUrl> {
    let url = url::Url::parse(raw.trim()).map_err(|e| NotWebUrl::NotAUrl {
        address: raw.trim().to_string(),
        why: e.to_string(),
    })?;
    check_web(&url)?;
    Ok(url)
}

/// Whether an address already parsed (a redirect's) is a web address.
pub fn check_web(url: &url::Url) -> Result<(), NotWebUrl> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(NotWebUrl::Scheme {
            scheme: other.to_string(),
        }),
    }
}

/// Whether a credential may go to `url`: over https anywhere, over plain http only to this
/// machine (`localhost` or a loopback address).
pub fn check_credential(url: &url::Url) -> Result<(), NotWebUrl> {
    check_web(url)?;
    if url.scheme() == "https" || on_this_machine(url.host()) {
        Ok(())
    } else {
        Err(NotWebUrl::CredentialInClear {
            host: url.host_str().unwrap_or_default().to_string(),
        })
    }
}

/// Whether `host` is on this machine: `localhost` or a loopback address.
pub(crate) fn on_this_machine(host: Option<url::Host<&str>>) -> bool {
    match host {
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_are_web_addresses() {
        for ok in ["https://api.example.com/v1", "http://127.0.0.1:11434/v1"] {
            assert!(web_url(ok).is_ok(), "{ok}");
        }
        for (refused, why) in [
            ("file:///etc/passwd", "file://"),
            ("ftp://example.com/x", "ftp://"),
            ("javascript:alert(1)", "javascript://"),
            ("not a url", "is not a URL"),
        ] {
            let err = web_url(refused).unwrap_err().to_string();
            assert!(err.contains(why), "{refused}: {err}");
        }
    }

    #[test]
    fn a_credential_goes_over_https_or_to_this_machine_only() {
        for ok in [
            "https://api.example.com/v1",
            "http://localhost:8080/mcp",
            "http://127.0.0.1:11434/v1",
            "http://[::1]:9/",
            "http://app.localhost/",
        ] {
            assert!(check_credential(&web_url(ok).unwrap()).is_ok(), "{ok}");
        }
        for refused in [
            "http://api.example.com/v1",
            "http://192.168.1.10:8080/v1",
            "http://localhost.example.com/",
            "http://127.0.0.1.nip.io/",
        ] {
            let err = check_credential(&web_url(refused).unwrap()).unwrap_err();
            assert!(
                matches!(err, NotWebUrl::CredentialInClear { .. }),
                "{refused}: {err}"
            );
        }
    }
}
