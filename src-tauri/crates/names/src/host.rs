//! One entry of a list of hosts, read one way wherever a list is kept (SPEC §10): the hosts a
//! sandboxed command may reach (F-46) and the hosts whose pages the user trusts (F-82).
//!
//! - `docs.rs` covers `docs.rs` and nothing else: not `www.docs.rs`, never `evildocs.rs`.
//!   A listed name that silently covered every name under it would read narrower than it
//!   matches: trusting `google.com` would trust every page on `sites.google.com`.
//! - `*.pypi.org` (or `.pypi.org`) covers `pypi.org` and every name under it.
//! - `example.org:8443`, `127.0.0.1:8080`, `[::1]:9000` name a port; without one an entry
//!   allows the web's ports, 80 and 443. Trust is about where text came from, not how it
//!   travelled, so [`HostPattern::covers`] does not look at ports.
//! - Case, a trailing dot and an address's spelling do not matter (`0:0::1` is `::1`).

use std::net::IpAddr;

/// A host as compared: lower case, no brackets, no trailing dot, an address in its one
/// canonical form (`0:0::1` is `::1`).
pub fn normalize(host: &str) -> String {
    let host = host
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.to_string(),
        Err(_) => host,
    }
}

/// One entry of a list of hosts: a name, a name with everything under it, or an address,
/// with the port it allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    /// The name or address, normalized, without `*.`.
    name: String,
    /// Whether names under it are covered too (`*.pypi.org`).
    under: bool,
    /// The port it names (`None`: 80 and 443).
    port: Option<u16>,
}

impl HostPattern {
    /// Reads `registry.npmjs.org`, `*.pypi.org`, `.pypi.org`, `example.org:8443`,
    /// `127.0.0.1:8080`, `[::1]:9000` or `::1`.
    pub fn parse(raw: &str) -> Self {
        let raw = raw.trim().to_ascii_lowercase();
        let (name, port) =
            if let Some((name, after)) = raw.strip_prefix('[').and_then(|r| r.split_once(']')) {
                (name, after.strip_prefix(':').and_then(|p| p.parse().ok()))
            } else {
                match raw.rsplit_once(':') {
                    Some((name, port)) if !name.contains(':') => (name, port.parse().ok()),
                    _ => (raw.as_str(), None),
                }
            };
        let (name, under) = match name.strip_prefix("*.").or_else(|| name.strip_prefix('.')) {
            Some(base) => (base, true),
            None => (name, false),
        };
        Self {
            name: normalize(name),
            under,
            port,
        }
    }

    /// Whether it covers `host`, whatever the port.
    pub fn covers(&self, host: &str) -> bool {
        let host = normalize(host);
        !self.name.is_empty()
            && (host == self.name
                || (self.under
                    && host
                        .strip_suffix(self.name.as_str())
                        .is_some_and(|rest| rest.ends_with('.'))))
    }

    /// Whether it allows `port`: the one it names, or 80 and 443.
    pub fn allows_port(&self, port: u16) -> bool {
        match self.port {
            Some(p) => p == port,
            None => port == 80 || port == 443,
        }
    }

    /// Whether it allows `host` on `port`.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        self.allows_port(port) && self.covers(host)
    }

    /// The port it names, if it names one.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The name or address it names, normalized, without `*.`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The entry for `host` on `port` as a list keeps it (`example.org:8443`, `[::1]:9000`,
    /// `example.org` for the web's ports): what [`Self::parse`] reads back.
    pub fn entry(host: &str, port: Option<u16>) -> String {
        let host = normalize(host);
        match port {
            None => host,
            Some(port) if host.contains(':') => format!("[{host}]:{port}"),
            Some(port) => format!("{host}:{port}"),
        }
    }

    /// The address it names literally, if it is one (`127.0.0.1:8080`, `[::1]:9000`).
    pub fn address(&self) -> Option<IpAddr> {
        if self.under {
            return None;
        }
        self.name.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_covers_itself_and_a_star_covers_what_is_under_it() {
        let docs = HostPattern::parse("docs.rs");
        assert!(docs.covers("docs.rs"));
        assert!(docs.covers("DOCS.RS."));
        assert!(!docs.covers("www.docs.rs"));
        assert!(!docs.covers("evildocs.rs"));
        assert!(!docs.covers("docs.rs.evil.example"));
        for star in ["*.pypi.org", ".pypi.org", " *.PyPI.org "] {
            let pypi = HostPattern::parse(star);
            assert!(pypi.covers("pypi.org"), "{star}");
            assert!(pypi.covers("files.pypi.org"), "{star}");
            assert!(pypi.covers("a.b.pypi.org"), "{star}");
            assert!(!pypi.covers("evilpypi.org"), "{star}");
            assert!(!pypi.covers("pypi.org.evil.example"), "{star}");
        }
        assert!(!HostPattern::parse("").covers(""));
        assert!(!HostPattern::parse("*.").covers("example.org"));
    }

    #[test]
    fn ports_are_named_or_the_web_s_and_addresses_are_compared_canonically() {
        let web = HostPattern::parse("example.org");
        assert!(web.allows("example.org", 443) && web.allows("example.org", 80));
        assert!(!web.allows("example.org", 22));
        let one = HostPattern::parse("example.org:8443");
        assert!(one.allows("example.org", 8443) && !one.allows("example.org", 443));
        assert_eq!(one.port(), Some(8443));
        let v6 = HostPattern::parse("[0:0::1]:9000");
        assert!(v6.allows("::1", 9000) && v6.allows("[::1]", 9000));
        assert_eq!(v6.address(), Some("::1".parse().unwrap()));
        let bare = HostPattern::parse("::1");
        assert!(bare.allows("::1", 443) && bare.port().is_none());
        assert_eq!(
            HostPattern::parse("127.0.0.1:8080").address(),
            Some("127.0.0.1".parse().unwrap())
        );
        assert_eq!(HostPattern::parse("docs.rs").address(), None);
        // Trust does not look at ports.
        assert!(HostPattern::parse("example.org:8443").covers("example.org"));
    }
}
