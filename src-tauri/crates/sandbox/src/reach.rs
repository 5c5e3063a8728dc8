//! Which network addresses `fetch_url` may reach (F-47).
//!
//! A model, or a page it fetched, can ask for `http://127.0.0.1:8080/admin`, for the cloud
//! metadata service at `169.254.169.254`, for a router at `192.168.1.1`, or for a public name that
//! resolves (or redirects) to any of those. None of them may be reached: only public unicast
//! addresses are. The check is made where the connection is made, so it cannot be walked past:
//! - host names go through the engine's `PublicResolver`, which resolves them and hands reqwest
//!   only the public addresses (no second lookup can rebind the name after the check);
//! - IP literals, which reqwest connects to without resolving, are checked by
//!   [`check_url`] before the request and on every redirect hop;
//! - proxies are not used for `fetch_url`: a proxy would resolve the name itself, out of reach
//!   of the check.
//!
//! Tests reach their own loopback server through an explicit allow list of addresses.

use std::net::IpAddr;
use std::sync::Arc;
pub use tollgate_names::address::{describe, is_public};

/// The addresses `fetch_url` may reach besides public ones (empty for the app).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    allowed: Arc<Vec<IpAddr>>,
}

impl Reach {
    /// Public addresses only.
    pub fn public() -> Self {
        Self::default()
    }

    /// Public addresses plus these (a test's own loopback server).
    pub fn also(addresses: impl IntoIterator<Item = IpAddr>) -> Self {
        Self {
            allowed: Arc::new(addresses.into_iter().collect()),
        }
    }

    /// Whether `ip` may be connected to.
    pub fn permits(&self, ip: IpAddr) -> bool {
        self.allowed.contains(&ip) || is_public(ip)
    }
}

/// Why a URL may not be fetched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReachError {
    #[error("{host} is a {what} address; only public internet addresses can be fetched")]
    Address { host: String, what: &'static str },
    #[error("{host} resolves only to private, loopback or link-local addresses ({addrs}); only public internet addresses can be fetched")]
    Resolved { host: String, addrs: String },
    #[error("{0} could not be resolved")]
    Unresolved(String),
}

/// Checks a URL whose host is an IP literal (reqwest connects to those without resolving).
/// Host names pass here and are checked by the engine's `PublicResolver` when connecting.
pub fn check_url(url: &url::Url, reach: &Reach) -> Result<(), ReachError> {
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        Some(url::Host::Domain(_)) | None => return Ok(()),
    };
    if reach.permits(ip) {
        Ok(())
    } else {
        Err(ReachError::Address {
            host: ip.to_string(),
            what: describe(ip),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ip_literal_urls_are_checked_and_the_allow_list_is_exact() {
        let reach = Reach::public();
        for url in [
            "http://127.0.0.1:8080/admin",
            "http://[::1]/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:7f00:1]/",
            "http://0x7f.1/",
            "http://2130706433/",
            "http://017700000001/",
        ] {
            let u = url::Url::parse(url).unwrap();
            assert!(check_url(&u, &reach).is_err(), "{url} must be refused");
        }
        assert!(check_url(&url::Url::parse("https://docs.rs/").unwrap(), &reach).is_ok());
        let tests = Reach::also([ip("127.0.0.1")]);
        assert!(check_url(&url::Url::parse("http://127.0.0.1:1/").unwrap(), &tests).is_ok());
        assert!(check_url(&url::Url::parse("http://127.0.0.2:1/").unwrap(), &tests).is_err());
    }
}
