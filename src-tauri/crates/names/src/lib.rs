//! How Tollgate reads the names it is handed, one way everywhere (SPEC §10, "one of each"):
//! - [`words`]: the words of an argument's, a variable's or a field's name, which decide whether
//!   it names a secret (`tollgate-secrets`) or a destination (`tollgate-provenance`);
//! - [`host`]: an entry of a list of hosts (`docs.rs`, `*.pypi.org`, `example.org:8443`) and
//!   the hosts it covers, for the sandbox's proxy and for the hosts the user trusts;
//! - [`address`]: whether an IP address is public, for `fetch_url`, the proxy and the pages a
//!   server sends the user to;
//! - [`open`]: which addresses may be opened in the system's browser, for links in answers (the
//!   window gets the schemes generated into `ui/src/bindings.ts`), pages a server asks for and
//!   sign-in;
//! - [`url_host`]: the host of a web address, for where a page came from, the host a target
//!   names, a plan step's envelope and a server's page (one reading, [`target_url`] refusing
//!   what two parsers read differently);
//! - [`web`]: which addresses Tollgate sends requests to (http and https), and where a credential
//!   may go (https, or plain http to this machine): for providers, MCP servers and `fetch_url`.
//!
//! It sits at the very bottom of the house: pure functions over strings, no I/O, and it must
//! never depend on another Tollgate crate, so that every one of them can ask it.

pub mod address;
pub mod host;
pub mod open;
pub mod url_host;
pub mod web;
pub mod words;

pub use address::{describe, is_public};
pub use host::{normalize, HostPattern};
pub use open::{check_open, NotOpenable, Opening, LINK_SCHEMES};
pub use url_host::{ambiguous_url, host_of, same_site, site, target_url, url_host};
pub use web::{check_credential, check_web, web_url, NotWebUrl};
pub use words::{words, words_at};
