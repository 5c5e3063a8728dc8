//! Secrets written into an MCP server's command line or URL.
//!
//! Configurations pasted from other clients often carry keys inline: `npx server --api-key
//! sk-…`, `https://mcp.example.com/mcp?token=…`, `https://user:pass@host/`. Environment values
//! and headers already live in the keychain; these would otherwise be stored in the database,
//! shown in the settings and — through the tool group's description — sent to the model
//! provider with every request. Here they are taken out: the stored configuration keeps a
//! [`HIDDEN`] placeholder, the original argument or URL goes to the keychain under its place
//! (`arg:N`, `url`), and it is put back only when the server is launched.
//!
//! What counts as a secret: the value after (or in `--name=value` form, of) a flag whose name
//! says it is one (`tollgate_secrets::names`: key, token, secret, password, auth, credential,
//! cookie, session, …, as words of the name); an argument that looks
//! like a well-known token (`sk-…`, `ghp_…`, `xox…`, `AKIA…`, a JWT, `Bearer …`); a URL's
//! password, and URL query values whose names say the same.

use super::config::McpTransport;
use std::collections::BTreeMap;
use tollgate_secrets::looks_like_token;

/// What stands where a secret was taken out.
pub const HIDDEN: &str = "SECRET-IN-KEYCHAIN";

/// Whether a flag's, a query parameter's or a variable's name says it holds a secret: the one
/// list of secret-shaped names (`tollgate_secrets::names`).
fn secret_name(name: &str) -> bool {
    tollgate_secrets::secret_named(name.trim_start_matches('-'))
}

/// The argument with its secret part replaced, if it holds one; `flag_before` says whether the
/// argument before it was a secret-named flag.
fn redact_arg(arg: &str, flag_before: bool) -> Option<String> {
    if arg.contains(HIDDEN) {
        return None;
    }
    if let Some((name, value)) = arg.split_once('=') {
        if name.starts_with('-') && secret_name(name) && !value.is_empty() {
            return Some(format!("{name}={HIDDEN}"));
        }
    }
    if (flag_before && !arg.starts_with('-')) || looks_like_token(arg) {
        return Some(HIDDEN.to_string());
    }
    None
}

/// The URL with its password and secret-named query values replaced, if it holds any.
fn redact_url(raw: &str) -> Option<String> {
    let mut url = reqwest::Url::parse(raw.trim()).ok()?;
    let mut changed = false;
    if url.password().is_some_and(|p| p != HIDDEN) {
        changed |= url.set_password(Some(HIDDEN)).is_ok();
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if pairs
        .iter()
        .any(|(k, v)| (secret_name(k) || looks_like_token(v)) && v != HIDDEN && !v.is_empty())
    {
        let redacted: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| {
                if secret_name(&k) || looks_like_token(&v) {
                    (k, HIDDEN.to_string())
                } else {
                    (k, v)
                }
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(redacted);
        changed = true;
    }
    changed.then(|| url.to_string())
}

/// Takes the inline secrets out of `transport` (replacing them with [`HIDDEN`]) and returns
/// the originals by place.
pub fn take(transport: &mut McpTransport) -> BTreeMap<String, String> {
    let mut taken = BTreeMap::new();
    match transport {
        McpTransport::Stdio { args, .. } => {
            let mut flag_before = false;
            for (i, arg) in args.iter_mut().enumerate() {
                let this_flag = arg.starts_with('-') && !arg.contains('=') && secret_name(arg);
                if let Some(redacted) = redact_arg(arg, flag_before) {
                    taken.insert(format!("arg:{i}"), std::mem::replace(arg, redacted));
                }
                flag_before = this_flag;
            }
        }
        McpTransport::Http { url, .. } => {
            if let Some(redacted) = redact_url(url) {
                taken.insert("url".into(), std::mem::replace(url, redacted));
            }
        }
    }
    taken
}

/// Puts secrets taken by [`take`] back where [`HIDDEN`] still stands — only where the stored
/// original, hidden again, reads exactly as the current text, so an argument list that was
/// edited or reordered never receives a key at another place or in another flag.
pub fn restore(transport: &mut McpTransport, secrets: &BTreeMap<String, String>) {
    let originals = match &*transport {
        McpTransport::Stdio { args, .. } => (0..args.len())
            .map(|i| secrets.get(&format!("arg:{i}")))
            .collect::<Vec<_>>(),
        McpTransport::Http { .. } => vec![secrets.get("url")],
    };
    let template = transport.clone();
    let fits = |original: &String, current: &str| {
        let mut again = template.clone();
        match &mut again {
            McpTransport::Stdio { args, .. } => {
                *args = vec![original.clone()];
            }
            McpTransport::Http { url, .. } => *url = original.clone(),
        }
        take(&mut again);
        match &again {
            McpTransport::Stdio { args, .. } => args.first().map(String::as_str) == Some(current),
            McpTransport::Http { url, .. } => url == current,
        }
    };
    match transport {
        McpTransport::Stdio { args, .. } => {
            let mut flag_before = false;
            for (arg, original) in args.iter_mut().zip(originals) {
                let this_flag = arg.starts_with('-') && !arg.contains('=') && secret_name(arg);
                if let Some(original) = original.filter(|_| arg.contains(HIDDEN)) {
                    // A value after a secret flag is hidden whole; anything else must hide to
                    // exactly the current text.
                    if (flag_before && !original.starts_with('-') && arg == HIDDEN)
                        || fits(original, arg)
                    {
                        arg.clone_from(original);
                    }
                }
                flag_before = this_flag;
            }
        }
        McpTransport::Http { url, .. } => {
            if let Some(original) = originals.into_iter().next().flatten() {
                if url.contains(HIDDEN) && fits(original, url) {
                    url.clone_from(original);
                }
            }
        }
    }
}

/// The secret values in what [`take`] took out (by place: `arg:N`, `url`), to remember as
/// secrets no result may carry: the value of a flag (`--api-key=…`'s part after `=`, or the
/// argument after a secret flag), a URL's password and its secret query values — never a whole
/// URL, whose ordinary pieces (`http://127`, a host name) would then be cut out of every page
/// that mentions them.
pub fn secrets_in(taken: &BTreeMap<String, String>) -> Vec<String> {
    let mut values = Vec::new();
    for (place, original) in taken {
        if place == "url" {
            values.extend(url_secrets(original));
        } else {
            // `--token=…` is its value; any other argument is a secret whole, and what follows
            // an `=` in it as well.
            match original.split_once('=') {
                Some((name, value)) if name.starts_with('-') => values.push(value.to_string()),
                Some((_, value)) => values.extend([original.clone(), value.to_string()]),
                None => values.push(original.clone()),
            }
        }
    }
    values.retain(|v| v.len() >= 4 && v != HIDDEN);
    values.sort();
    values.dedup();
    values
}

/// A URL's password and secret query values, raw and decoded (error messages quote URLs in
/// either form).
fn url_secrets(url: &str) -> Vec<String> {
    let mut values = Vec::new();
    let Ok(u) = reqwest::Url::parse(url.trim()) else {
        return values;
    };
    values.extend(u.password().map(str::to_string));
    for (k, v) in u.query_pairs() {
        if secret_name(&k) || looks_like_token(&v) {
            values.push(v.into_owned());
        }
    }
    if let Some(q) = u.query() {
        for pair in q.split('&') {
            if let Some((k, v)) = pair.split_once('=') {
                if secret_name(k) {
                    values.push(v.to_string());
                }
            }
        }
    }
    values
}

/// Every secret value `transport` holds: environment and header values, and what [`take`] would
/// take out, whole and by its secret parts ([`secrets_in`]).
fn secret_values(transport: &McpTransport) -> Vec<String> {
    let mut values: Vec<String> = transport.secrets().values().cloned().collect();
    let mut copy = transport.clone();
    let taken = take(&mut copy);
    values.extend(taken.values().cloned());
    values.extend(secrets_in(&taken));
    values.retain(|v| v.len() >= 4 && v != HIDDEN);
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values.dedup();
    values
}

/// `text` (an error message, a server's stderr) with every secret value of `transport`
/// replaced by [`HIDDEN`], so a failure shown in the settings cannot show a key.
pub fn scrub(text: &str, transport: &McpTransport) -> String {
    let mut out = text.to_string();
    for value in secret_values(transport) {
        out = out.replace(&value, HIDDEN);
    }
    out
}

/// Whether anything in `transport` still stands for a secret that is not there.
pub fn has_placeholders(transport: &McpTransport) -> bool {
    match transport {
        McpTransport::Stdio { args, .. } => args.iter().any(|a| a.contains(HIDDEN)),
        McpTransport::Http { url, .. } => url.contains(HIDDEN),
    }
}

/// Where the secrets of a transport would go: stored secrets are kept across an edit only when
/// this stays the same, so changing a URL's host never sends the old host's token to the new one.
pub fn destination(transport: &McpTransport) -> String {
    match transport {
        // The program is the command *and* its arguments (`npx -y @vendor/server` and `npx -y
        // evil-pkg` are different programs) and where it runs; secrets are compared hidden.
        McpTransport::Stdio { command, cwd, .. } => {
            let mut hidden = transport.clone();
            take(&mut hidden);
            let args = match &hidden {
                McpTransport::Stdio { args, .. } => args.join("\u{0}"),
                McpTransport::Http { .. } => String::new(),
            };
            format!(
                "command:{}\u{0}args:{args}\u{0}cwd:{}",
                command.trim(),
                cwd.as_deref().unwrap_or_default()
            )
        }
        McpTransport::Http { url, .. } => reqwest::Url::parse(url.trim()).map_or_else(
            |_| format!("url:{}", url.trim()),
            |u| format!("origin:{}", u.origin().ascii_serialization()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(args: &[&str]) -> McpTransport {
        McpTransport::Stdio {
            command: "npx".into(),
            args: args.iter().map(|a| (*a).to_string()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// What is remembered as a secret is the secret, never the URL or flag around it.
    #[test]
    fn only_the_secret_parts_are_remembered() {
        let mut t = stdio(&["--api-key", "plainvalue123", "--token=abcdef"]);
        let taken = take(&mut t);
        assert_eq!(secrets_in(&taken), ["abcdef", "plainvalue123"]);
        let mut http = McpTransport::Http {
            url: "http://me:pa55word@127.0.0.1:9/mcp?token=tok-INLINE-42&page=2".into(),
            headers: BTreeMap::new(),
        };
        let taken = take(&mut http);
        let remembered = secrets_in(&taken);
        assert_eq!(remembered, ["pa55word", "tok-INLINE-42"]);
        assert!(remembered.iter().all(|v| !v.contains("127.0.0.1")));
    }

    #[test]
    fn command_line_secrets_are_taken_out_and_put_back() {
        let original = stdio(&[
            "-y",
            "@acme/server",
            "--api-key",
            "plainvalue123",
            "--token=abc",
            "--verbose",
            "ghp_0123456789abcdefghij",
            "--port",
            "8080",
        ]);
        let mut t = original.clone();
        let taken = take(&mut t);
        let McpTransport::Stdio { args, .. } = &t else {
            panic!()
        };
        assert_eq!(
            args,
            &[
                "-y",
                "@acme/server",
                "--api-key",
                HIDDEN,
                &format!("--token={HIDDEN}"),
                "--verbose",
                HIDDEN,
                "--port",
                "8080"
            ]
        );
        assert_eq!(taken.len(), 3);
        assert!(has_placeholders(&t));
        restore(&mut t, &taken);
        assert_eq!(t, original);
        // Taking again from a stored (placeholder) form takes nothing: no placeholder is ever
        // stored as if it were the secret.
        let mut stored = original.clone();
        take(&mut stored);
        assert!(take(&mut stored).is_empty());
    }

    #[test]
    fn url_passwords_and_secret_query_values_are_taken_out() {
        let mut t = McpTransport::Http {
            url: "https://user:pa55@mcp.example.com/mcp?token=abc123&region=eu".into(),
            headers: BTreeMap::new(),
        };
        let taken = take(&mut t);
        let McpTransport::Http { url, .. } = &t else {
            panic!()
        };
        assert!(!url.contains("pa55") && !url.contains("abc123"), "{url}");
        assert!(url.contains("region=eu"), "{url}");
        restore(&mut t, &taken);
        let McpTransport::Http { url, .. } = &t else {
            panic!()
        };
        assert_eq!(
            url,
            "https://user:pa55@mcp.example.com/mcp?token=abc123&region=eu"
        );
        let mut plain = McpTransport::Http {
            url: "https://mcp.example.com/mcp?region=eu".into(),
            headers: BTreeMap::new(),
        };
        assert!(take(&mut plain).is_empty());
    }

    #[test]
    fn error_messages_are_scrubbed_of_every_secret_value() {
        let mut t = McpTransport::Http {
            url: "https://u:pw-1234@mcp.example.com/mcp?token=tok%2B5678".into(),
            headers: BTreeMap::from([("Authorization".into(), "Bearer hdr-9999".into())]),
        };
        let msg = "error sending request for url (https://u:pw-1234@mcp.example.com/mcp?token=tok%2B5678): Bearer hdr-9999 tok+5678";
        let clean = scrub(msg, &t);
        for leaked in ["pw-1234", "tok%2B5678", "tok+5678", "hdr-9999"] {
            assert!(!clean.contains(leaked), "{clean}");
        }
        if let McpTransport::Http { headers, .. } = &mut t {
            headers.clear();
        }
        let args = stdio(&["--token=abcd1234", "--key", "efgh5678"]);
        let clean = scrub("started with --token=abcd1234 --key efgh5678", &args);
        assert!(
            !clean.contains("abcd1234") && !clean.contains("efgh5678"),
            "{clean}"
        );
    }

    #[test]
    fn destinations_follow_origin_and_command() {
        let a = McpTransport::Http {
            url: "https://a.example/mcp?x=1".into(),
            headers: BTreeMap::new(),
        };
        let a2 = McpTransport::Http {
            url: "https://a.example/other".into(),
            headers: BTreeMap::new(),
        };
        let b = McpTransport::Http {
            url: "https://b.example/mcp".into(),
            headers: BTreeMap::new(),
        };
        assert_eq!(destination(&a), destination(&a2));
        assert_ne!(destination(&a), destination(&b));
        assert_ne!(destination(&stdio(&[])), destination(&a));
        // Another package run by the same `npx` is another program.
        assert_ne!(
            destination(&stdio(&["-y", "@vendor/server"])),
            destination(&stdio(&["-y", "evil-pkg"]))
        );
        // The same program with its key hidden or shown is the same destination.
        let mut shown = stdio(&["-y", "@vendor/server", "--api-key", "k-123456"]);
        let hidden_form = {
            let mut t = shown.clone();
            take(&mut t);
            t
        };
        assert_eq!(destination(&shown), destination(&hidden_form));
        // A stored key never lands at another place of an edited argument list.
        let taken = take(&mut shown);
        let mut moved = stdio(&["--api-key", HIDDEN, "-y", "@vendor/server"]);
        restore(&mut moved, &taken);
        let McpTransport::Stdio { args, .. } = &moved else {
            panic!()
        };
        assert!(!args.iter().any(|a| a.contains("k-123456")), "{args:?}");
    }
}
