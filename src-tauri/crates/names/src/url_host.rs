//! The host of a web address, read in one place (SPEC §10): where a fetched page came from,
//! the host a target names, the host a plan step's envelope lets a command reach, the page a
//! server asks the user to open. Every reader gets the same answer for the same address:
//! lower case, no trailing dot, an address in its canonical form ([`normalize`]).
//!
//! - [`host_of`] reads a parsed address the way this app's own HTTP client does (the `url`
//!   crate, WHATWG), for what the app fetched itself.
//! - [`target_url`] reads an address another program will use: one that two common parsers
//!   read differently ([`ambiguous_url`]) names no host, so no host granted or trusted covers it.
//! - [`site`] is the one loosening: `www.example.org` and `example.org` are one site when the
//!   question is *who named* a target (a page's link to its own `www.` twin is the page's own
//!   address). Lists that allow ([`super::HostPattern`]) never use it.

use super::host::normalize;

/// The host of a parsed web address, normalized; `None` when it has none (`mailto:`).
pub fn host_of(url: &url::Url) -> Option<String> {
    url.host_str().map(normalize).filter(|h| !h.is_empty())
}

/// The host of `address` as this app's HTTP client reads it, normalized; `None` when it is not
/// an address with a host.
pub fn url_host(address: &str) -> Option<String> {
    host_of(&url::Url::parse(address.trim()).ok()?)
}

/// `address` parsed as a target: `None` when two common parsers read it differently
/// ([`ambiguous_url`]), so it names no host a grant or trust could cover.
pub fn target_url(address: &str) -> Option<url::Url> {
    if ambiguous_url(address) {
        return None;
    }
    url::Url::parse(address.trim()).ok()
}

/// Whether two common parsers read `text`'s host differently: a backslash (WHATWG reads it as
/// `/`, RFC 3986 parsers as a character of the user info), user info (`docs.test@evil.test`),
/// control characters, or an authority that starts with a dot or holds two in a row.
pub fn ambiguous_url(text: &str) -> bool {
    let Some((_, rest)) = text.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    text.contains('\\')
        || authority.contains('@')
        || text.chars().any(char::is_control)
        || authority.starts_with('.')
        || authority.contains("..")
}

/// The site `host` belongs to when asking who named a target: the host less a leading `www.`.
pub fn site(host: &str) -> &str {
    host.strip_prefix("www.").unwrap_or(host)
}

/// Whether hosts `a` and `b` are one [`site`].
pub fn same_site(a: &str, b: &str) -> bool {
    site(&normalize(a)) == site(&normalize(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One address in the shapes a page, a model or a server writes it: every reader gives one
    /// host, and the shapes two parsers split on give none as a target.
    #[test]
    fn one_address_in_every_shape_has_one_host() {
        for shape in [
            "https://Docs.Test/a",
            "https://docs.test./a",
            "https://DOCS.TEST.:443/a?b#c",
            "http://docs.test:8080",
            " https://docs.test/ ",
        ] {
            assert_eq!(url_host(shape).as_deref(), Some("docs.test"), "{shape}");
            assert_eq!(
                target_url(shape).and_then(|u| host_of(&u)).as_deref(),
                Some("docs.test"),
                "{shape}"
            );
        }
        assert_eq!(url_host("http://[0:0::1]:9/").as_deref(), Some("::1"));
        assert_eq!(url_host("http://127.1/").as_deref(), Some("127.0.0.1"));
        for split in [
            "http://docs.test\\@evil.test/",
            "http://docs.test\\@evil.test:80/x",
            "http://docs.test@evil.test/",
            "http://user:pw@evil.test/",
            "http://.docs.test/",
            "http://docs..test/",
            "http://docs.test\t/",
        ] {
            assert!(target_url(split).is_none(), "{split}");
        }
        assert_eq!(url_host("mailto:a@b.test"), None);
        assert_eq!(url_host("docs.test"), None);
    }

    #[test]
    fn a_www_twin_is_the_same_site_and_nothing_else_is() {
        assert!(same_site("www.docs.test", "docs.test"));
        assert!(same_site("DOCS.test.", "www.docs.test"));
        assert!(!same_site("wwwdocs.test", "docs.test"));
        assert!(!same_site("evil.docs.test", "docs.test"));
        assert_eq!(site("www.docs.test"), "docs.test");
    }
}
