//! API keys in the OS keychain (F-32): Secret Service on Linux, Keychain on macOS, Credential
//! Manager on Windows, through the `keyring` crate. Keys never touch the database, a log, an
//! error message or an event; errors name the fix, never the key.
//!
//! Every secret this process reads from or writes to the keychain is also remembered, so that
//! text leaving the process — the log file and stderr — can be scrubbed of it ([`redact`]), along
//! with anything shaped like a well-known token.
//!
//! A crate of its own, near the bottom of the house: of Tollgate's crates it depends only on
//! `tollgate-names` (how a name splits into words) and must never depend on another, so every layer that handles a key — providers, MCP sign-in, the
//! app's logs — can use it.

pub mod names;

pub use names::{secret_named, SECRET_ENV_PREFIXES, SECRET_NAME_WORDS, SECRET_SUFFIX_MIN};

use parking_lot::RwLock;
use std::borrow::Cow;

pub mod door;
pub mod leak;
use thiserror::Error;

/// The keychain service name Tollgate's entries live under.
pub const SERVICE: &str = "app.tollgate.desktop";

/// Why the keychain could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SecretError {
    #[error(
        "No system keychain is available ({0}). Tollgate keeps API keys only in the keychain: on Linux, install and start a Secret Service provider (for example the gnome-keyring package, or KeePassXC with Secret Service enabled) and unlock it, then try again."
    )]
    Unavailable(String),
    #[error("The keychain is locked or refused access ({0}). Unlock it and try again.")]
    Locked(String),
    #[error("The keychain failed: {0}")]
    Failed(String),
}

fn map(e: keyring::Error) -> SecretError {
    match e {
        keyring::Error::NoDefaultStore => {
            let detail = match keyring::Entry::store_status() {
                Err(inner) => inner.to_string(),
                Ok(()) => "no credential store".into(),
            };
            SecretError::Unavailable(detail)
        }
        keyring::Error::NoStorageAccess(inner) => SecretError::Locked(inner.to_string()),
        keyring::Error::PlatformFailure(inner) => SecretError::Unavailable(inner.to_string()),
        other => SecretError::Failed(other.to_string()),
    }
}

/// Entries under one service name (tests use their own).
#[derive(Debug, Clone)]
pub struct Keychain {
    service: String,
}

impl Default for Keychain {
    fn default() -> Self {
        Self::new(SERVICE)
    }
}

impl Keychain {
    pub fn new(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
        }
    }

    /// The keychain of an app whose data lives in a folder chosen with `TOLLGATE_DATA_DIR` (a
    /// second profile, a portable copy, a test): its entries under a service name of its own,
    /// so two apps on two folders never share an entry such as `provider-1` — each folder's
    /// first provider is number 1. The app in the default folder keeps [`SERVICE`].
    pub fn for_data_dir(dir: &std::path::Path) -> Self {
        Self::new(format!("{SERVICE} {}", dir.display()))
    }

    fn entry(&self, account: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(&self.service, account).map_err(map)
    }

    /// Stores a secret (replacing any earlier one). Blocking: call from a blocking context.
    pub fn set_blocking(&self, account: &str, secret: &str) -> Result<(), SecretError> {
        remember_entry(secret);
        self.entry(account)?.set_password(secret).map_err(map)
    }

    /// The stored secret, if any. Blocking.
    pub fn get_blocking(&self, account: &str) -> Result<Option<String>, SecretError> {
        match self.entry(account)?.get_password() {
            Ok(s) => {
                remember_entry(&s);
                Ok(Some(s))
            }
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map(e)),
        }
    }

    /// Deletes a secret; returns whether one existed. Blocking.
    pub fn delete_blocking(&self, account: &str) -> Result<bool, SecretError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(map(e)),
        }
    }

    /// [`Self::set_blocking`] off the async threads.
    pub async fn set(&self, account: &str, secret: &str) -> Result<(), SecretError> {
        let (this, account, secret) = (self.clone(), account.to_string(), secret.to_string());
        run_blocking(move || this.set_blocking(&account, &secret)).await
    }

    /// [`Self::get_blocking`] off the async threads.
    pub async fn get(&self, account: &str) -> Result<Option<String>, SecretError> {
        let (this, account) = (self.clone(), account.to_string());
        run_blocking(move || this.get_blocking(&account)).await
    }

    /// [`Self::delete_blocking`] off the async threads.
    pub async fn delete(&self, account: &str) -> Result<bool, SecretError> {
        let (this, account) = (self.clone(), account.to_string());
        run_blocking(move || this.delete_blocking(&account)).await
    }
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| SecretError::Failed(format!("the keychain task failed: {e}")))?
}

/// The keychain account of a provider's key.
pub fn provider_account(provider_id: i64) -> String {
    format!("provider-{provider_id}")
}

/// What a secret is replaced with in text that leaves the process.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not remembered: replacing every "1234" in a log would hide more
/// than it protects, and no real key is that short.
const MIN_REMEMBERED: usize = 8;

/// The prefixes of well-known token formats (OpenAI and Anthropic `sk-`, GitHub, GitLab, Slack,
/// AWS access keys, JWTs).
pub const TOKEN_PREFIXES: [&str; 10] = [
    "sk-",
    "sk_",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xox",
    "AKIA",
    "eyJ",
];

/// Whether a value is shaped like a token: a well-known prefix and at least 16 characters, or a
/// `Bearer …` credential.
pub fn looks_like_token(value: &str) -> bool {
    let v = value.trim();
    (v.len() >= 16 && TOKEN_PREFIXES.iter().any(|p| v.starts_with(p)))
        || v.to_ascii_lowercase().starts_with("bearer ")
}

/// The secrets this process has seen, and every form of them [`redact_known`] looks for.
struct Known {
    secrets: Vec<String>,
    /// One automaton over every [`leak::PIECE`]-character piece of every secret, for the
    /// decoded views of a text ([`leak::views`]).
    pieces: Option<aho_corasick::AhoCorasick>,
    /// The forms of every secret ([`forms`]), each once.
    patterns: Vec<String>,
    /// One automaton over all the patterns, rebuilt when a secret is remembered, so that
    /// redaction is a single pass over the text however many forms there are. `None` when
    /// there are none (or, never seen, when it could not be built: then [`redact_known`]
    /// replaces the patterns one by one).
    matcher: Option<aho_corasick::AhoCorasick>,
    /// Counts the secrets remembered ([`generation`]).
    generation: u64,
}

static KNOWN: RwLock<Known> = RwLock::new(Known {
    secrets: Vec::new(),
    pieces: None,
    patterns: Vec::new(),
    matcher: None,
    generation: 0,
});

/// How many times the set of remembered secrets has grown: a text redacted at one generation
/// may carry a secret remembered at a later one, so whoever keeps redacted texts
/// ([`door::SecretDoor`]) redacts them again when this changes.
pub fn generation() -> u64 {
    KNOWN.read().generation
}

/// The shortest form of a secret looked for: shorter ones would hide ordinary text.
const MIN_FORM: usize = 8;

/// The widths `base64` tools wrap their output at: GNU coreutils (76), OpenSSL and PEM (64).
const BASE64_WRAPS: [usize; 2] = [76, 64];

/// The width `xxd -p` wraps hex at.
const HEX_WRAP: usize = 60;

/// Remembers what a keychain entry holds: a single secret (a provider's key) as it is. An
/// entry that holds a JSON object (an MCP server's values by name, OAuth tokens) is remembered
/// by its owner, value by value and only the secret parts: its text as a whole — names, quotes,
/// a URL around a token — would make ordinary pieces such as `http://127` count as a secret.
fn remember_entry(stored: &str) {
    let structured = serde_json::from_str::<serde_json::Value>(stored).is_ok_and(|v| v.is_object());
    if !structured {
        remember(stored);
    }
}

/// Remembers a secret so [`redact`] replaces it from now on, with the forms a command can turn
/// it into ([`forms`]).
pub fn remember(secret: &str) {
    let secret = secret.trim();
    if secret.len() < MIN_REMEMBERED {
        return;
    }
    let mut known = KNOWN.write();
    if known.secrets.iter().any(|k| k == secret) {
        return;
    }
    known.secrets.push(secret.to_string());
    for form in forms(secret).into_iter().chain(leak::pieces(secret)) {
        if !known.patterns.contains(&form) {
            known.patterns.push(form);
        }
    }
    let pieces: Vec<String> = known
        .secrets
        .iter()
        .flat_map(|s| leak::view_pieces(s))
        .collect();
    // Case does not hide a piece: `tr a-zA-Z A-Za-z` (or a reader's case swap) gives it back.
    // A full DFA: every text bound for a model is searched in several views, and the pieces of
    // a few secrets make an automaton small enough to determinise.
    known.pieces = aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(leak::searched_forms(&pieces))
        .or_else(|_| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(leak::searched_forms(&pieces))
        })
        .ok();
    known.generation += 1;
    known.matcher = aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(&known.patterns)
        .ok();
}

/// The forms of `secret` that a command's output can carry, as one `| base64`, `| rev`,
/// `| xxd -p` or a URL builder makes them: the secret itself; reversed; lower and upper case
/// hex, also wrapped as `xxd -p` wraps it; percent-encoded (every byte but the unreserved ones,
/// upper and lower case hex digits); and base64 ([`base64_forms`]). Each at least [`MIN_FORM`]
/// characters long.
fn forms(secret: &str) -> Vec<String> {
    let bytes = secret.as_bytes();
    let hex_lower = hex::encode(bytes);
    let mut out = vec![
        secret.to_string(),
        secret.chars().rev().collect(),
        wrap(&hex_lower, HEX_WRAP),
        hex::encode_upper(bytes),
        hex_lower,
        percent_encode(bytes, false),
        percent_encode(bytes, true),
    ];
    out.extend(base64_forms(bytes));
    out.retain(|f| f.len() >= MIN_FORM);
    out.sort();
    out.dedup();
    out
}

/// The parts of `secret`'s base64 encoding that do not depend on what surrounds it: for each of
/// the three byte offsets it can start at in a longer input, the characters made of its bits
/// only — those that also carry bits of the bytes before or after it (or the padding) are
/// dropped, so the same pattern matches with or without padding, alone or inside a longer
/// encoding. In the standard and the URL-safe alphabets; at offset 0 also wrapped as `base64`
/// tools wrap their output ([`BASE64_WRAPS`]).
fn base64_forms(secret: &[u8]) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};
    use base64::Engine;
    let mut out = Vec::new();
    for offset in 0..3 {
        let mut input = vec![0u8; offset];
        input.extend_from_slice(secret);
        let first = (8 * offset).div_ceil(6);
        let end = 8 * input.len() / 6;
        for (standard, engine) in [(true, &STANDARD), (false, &URL_SAFE)] {
            let Some(middle) = engine.encode(&input).get(first..end).map(str::to_string) else {
                continue;
            };
            if offset == 0 && standard {
                out.extend(BASE64_WRAPS.iter().map(|w| wrap(&middle, *w)));
            }
            out.push(middle);
        }
    }
    out
}

/// `text` with a newline after every `width` characters (as long as more follow).
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width);
    for (i, c) in text.chars().enumerate() {
        if i > 0 && i % width == 0 {
            out.push('\n');
        }
        out.push(c);
    }
    out
}

/// `bytes` with every byte but the unreserved ones (RFC 3986: letters, digits, `-._~`) as
/// `%XX`, in upper or lower case hex.
fn percent_encode(bytes: &[u8], upper: bool) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else if upper {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

/// `text` without any secret this process holds (provider keys, MCP secrets), each replaced by
/// [`REDACTED`], nor any of the forms a command can turn one into ([`forms`]: base64, hex,
/// reversed, percent-encoded): what a tool result goes through before it is stored, shown, put
/// in a variable or sent (F-46). Unlike [`redact`], nothing else is touched: a token shape
/// in a file the model reads is the file's, not Tollgate's. Borrowed when there was nothing to
/// hide.
///
/// What stands in the text as it is — the secret, any [`leak::PIECE`]-character piece of it, or
/// one of its encoded forms — is replaced where it stands. Then the text is decoded every way a
/// reader could decode it ([`leak::views`]: base64 and hex at every alignment and across line
/// breaks, rot13, reversed, without separators): when a view still carries a piece of a
/// secret, the whole text is replaced by [`leak::WITHHELD`], since such a form cannot be cut
/// out of it.
pub fn redact_known(text: &str) -> Cow<'_, str> {
    let known = KNOWN.read();
    let replaced = match &known.matcher {
        None => replace_each(text, &known.patterns),
        Some(matcher) if !matcher.is_match(text) => Cow::Borrowed(text),
        Some(matcher) => {
            let mut out = String::with_capacity(text.len());
            matcher.replace_all_with(text, &mut out, |_, _, dst| {
                dst.push_str(REDACTED);
                true
            });
            Cow::Owned(out)
        }
    };
    match &known.pieces {
        Some(pieces) => leak::withhold_if_carried(replaced, &|view| pieces.is_match(view)),
        None => replaced,
    }
}

/// [`redact_known`] without the automaton: each pattern in turn, longest first.
fn replace_each<'t>(text: &'t str, patterns: &[String]) -> Cow<'t, str> {
    let mut sorted: Vec<&String> = patterns.iter().collect();
    sorted.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let mut out = Cow::Borrowed(text);
    for pattern in sorted {
        if out.contains(pattern.as_str()) {
            out = Cow::Owned(out.replace(pattern.as_str(), REDACTED));
        }
    }
    out
}

/// [`redact_known`] of `text`, or `None` when nothing in it was hidden. What is left unchanged
/// is told by what is handed back being `text` itself, never by its being borrowed: a text
/// withheld whole is handed back as a borrowed [`leak::WITHHELD`], and reading "borrowed" as
/// "unchanged" once let a whole output through because it carried an encoded copy of a key.
pub fn redacted_known(text: &str) -> Option<String> {
    match redact_known(text) {
        Cow::Borrowed(same) if std::ptr::eq(same, text) => None,
        changed => Some(changed.into_owned()),
    }
}

/// [`redact_known`] of an owned text, without a copy when there was nothing to hide.
pub fn redact_known_owned(text: String) -> String {
    redacted_known(&text).unwrap_or(text)
}

/// A character that can be part of a token.
fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// `text` without any secret this process has seen, and without anything shaped like a token
/// (also the credential after `Bearer `). Borrowed when there was nothing to hide.
pub fn redact(text: &str) -> Cow<'_, str> {
    let out = redact_known(text);
    if !needs_token_scan(&out) {
        return out;
    }
    let mut result = String::with_capacity(out.len());
    let mut rest: &str = &out;
    let mut after_bearer = false;
    while let Some(start) = rest.find(token_char) {
        result.push_str(&rest[..start]);
        let word_len = rest[start..]
            .find(|c: char| !token_char(c))
            .unwrap_or(rest.len() - start);
        let word = &rest[start..start + word_len];
        let hide = (after_bearer && word.len() >= MIN_REMEMBERED)
            || (word.len() >= 16 && TOKEN_PREFIXES.iter().any(|p| word.starts_with(p)));
        result.push_str(if hide { REDACTED } else { word });
        after_bearer = word.eq_ignore_ascii_case("bearer");
        rest = &rest[start + word_len..];
    }
    result.push_str(rest);
    if result == *out {
        out
    } else {
        Cow::Owned(result)
    }
}

/// Whether `text` may hold a token shape at all (a cheap check before the word scan).
fn needs_token_scan(text: &str) -> bool {
    TOKEN_PREFIXES.iter().any(|p| text.contains(p)) || text.to_ascii_lowercase().contains("bearer")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A regression once found in the real window: a key behind other text on its line, printed by one command
    /// with its `base64`, `xxd -p` and `od` encodings. The text is withheld whole, and the
    /// owned form every tool result takes ([`redact_known_owned`]) is the withheld text too —
    /// not the output as it came, which a borrowed stand-in once passed for.
    #[test]
    fn an_output_carrying_an_encoded_copy_is_withheld_in_every_form() {
        let secret = "sk-proj-Tq8vN3pL0wXy7RbT4mKd9sHc2JfGuE6aQe";
        remember(secret);
        let dir = std::env::temp_dir().join(format!("tg-redact-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("key.txt"),
            format!("token={secret} expires=never\n"),
        )
        .unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg("cat key.txt; base64 key.txt; xxd -p key.txt; od -An -tx1 key.txt")
            .current_dir(&dir)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let text = format!(
            "Exit code 0.\n--- stdout ---\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(text.contains(secret), "the command printed the key");
        assert_eq!(redact_known(&text), leak::WITHHELD);
        assert_eq!(redact_known_owned(text.clone()), leak::WITHHELD);
        assert_eq!(redacted_known(&text).as_deref(), Some(leak::WITHHELD));
        // The key alone on its line is cut out where it stands.
        assert_eq!(
            redact_known_owned(format!("token={secret} expires=never")),
            "token=[redacted] expires=never"
        );
        assert_eq!(redacted_known("nothing here"), None);
    }

    /// A keychain entry that holds a JSON object is not remembered as text (its owner remembers
    /// its secret values): a URL in it would make every page naming the host count as a secret.
    #[test]
    fn a_structured_keychain_entry_is_not_remembered_whole() {
        remember_entry(r#"{"url":"http://127.0.0.1:9/mcp?token=tok-ENTRY-4242"}"#);
        let page = "see http://127.0.0.1:4567/docs/a1 and http://127.0.0.1:9/mcp";
        assert_eq!(redact_known(page), page);
        remember_entry("plain-entry-secret-Zq9x");
        assert_eq!(
            redact_known("key plain-entry-secret-Zq9x here"),
            "key [redacted] here"
        );
    }

    #[test]
    fn remembered_secrets_and_token_shapes_are_hidden() {
        remember("hunter2-but-longer-Zq9");
        remember("short");
        let text = "key=hunter2-but-longer-Zq9 pin=short auth: Bearer abcdefgh12345678 token sk-proj-0123456789abcdef, id=task-1234567890123456";
        assert_eq!(
            redact(text),
            "key=[redacted] pin=short auth: Bearer [redacted] token [redacted], id=task-1234567890123456"
        );
        assert!(matches!(redact("nothing to hide here"), Cow::Borrowed(_)));
        // A JWT and a GitHub token inside JSON and a URL.
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
        assert_eq!(
            redact(&format!(
                "{{\"t\":\"{jwt}\"}} https://x.test/?k=ghp_abcdefghijklmnop1234"
            )),
            "{\"t\":\"[redacted]\"} https://x.test/?k=[redacted]"
        );
    }

    #[test]
    fn a_longer_secret_is_hidden_whole_when_it_contains_a_shorter_one() {
        remember("abcdefgh-inner");
        remember("outer-abcdefgh-inner-tail");
        assert_eq!(
            redact("x outer-abcdefgh-inner-tail y abcdefgh-inner"),
            "x [redacted] y [redacted]"
        );
    }

    /// What is left of `text` once redacted, without the [`REDACTED`] marks.
    fn left(text: &str) -> String {
        redact_known(text).replace(REDACTED, "")
    }

    #[test]
    fn encoded_forms_of_a_remembered_secret_are_redacted() {
        use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
        use base64::Engine;
        let secret = "tg-enc/Secret+Key=9753108642~with spaces&more";
        remember(secret);
        let bytes = secret.as_bytes();
        // `| base64`, with and without padding, in both alphabets, and with a newline after
        // the secret (`echo "$S" | base64`).
        for encoded in [
            STANDARD.encode(bytes),
            STANDARD_NO_PAD.encode(bytes),
            URL_SAFE_NO_PAD.encode(bytes),
            STANDARD.encode(format!("{secret}\n")),
        ] {
            let out = redact_known(&encoded);
            assert!(out.contains(REDACTED), "{encoded}");
            assert!(left(&encoded).len() <= 4, "{encoded} -> {out}");
        }
        // The secret one and two bytes into a longer input (`{"k":"<secret>"}` encoded whole).
        for before in [&b"\x01"[..], b"\xfe\x02", b"xyz", b"{\"k\":\""] {
            let input = [before, bytes, b"\"}"].concat();
            for encoded in [STANDARD.encode(&input), URL_SAFE_NO_PAD.encode(&input)] {
                let out = redact_known(&encoded);
                assert!(out.contains(REDACTED), "{encoded}");
                // Only what the bytes around it and the padding make is left.
                assert!(left(&encoded).len() <= before.len() * 2 + 8, "{out}");
            }
        }
        // `| rev`, `| xxd -p` (wrapped at 60), upper case hex, percent-encoding.
        let reversed: &str = &secret.chars().rev().collect::<String>();
        let lower_hex = &hex::encode(bytes);
        let xxd = &format!("{}\n{}\n", &lower_hex[..60], &lower_hex[60..]);
        let upper = &hex::encode_upper(bytes);
        let url_upper = "tg-enc%2FSecret%2BKey%3D9753108642~with%20spaces%26more";
        let url_lower = "tg-enc%2fSecret%2bKey%3d9753108642~with%20spaces%26more";
        for encoded in [reversed, lower_hex, xxd, upper, url_upper, url_lower] {
            let out = redact_known(&format!("<{encoded}>")).replace('\n', "");
            assert_eq!(out, "<[redacted]>", "{encoded}");
        }
        // Ordinary text is untouched, and not copied.
        let plain = "Compiling tollgate v0.1.0\nfinished in 3.2s: dGVzdA== 0123abcd";
        assert!(matches!(redact_known(plain), Cow::Borrowed(_)));
    }

    /// A real command turns a remembered secret into base64 and reverses it; what comes out is
    /// redacted whole, also where `base64` wraps its output.
    #[test]
    fn a_secret_a_child_process_encodes_is_redacted() {
        let secret =
            "tg-child-8Hq2Lw0Zr5Tn9Vb3Xc7Mk1Pj4Gf6Dy-Ns8Qe2Ra5Uo0Iw3Ye7Ht/Zk1Lm9Bv4Cx6+Fp2Jd-long";
        remember(secret);
        for pipe in ["base64", "rev", "base64 -w 0", "od -An -tx1 | tr -d ' \\n'"] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s \"$S\" | {pipe}"))
                .env("S", secret)
                .output()
                .unwrap();
            assert!(out.status.success(), "{pipe}");
            let raw = String::from_utf8(out.stdout).unwrap();
            assert!(
                !raw.trim().is_empty() && !raw.contains(secret),
                "{pipe}: {raw}"
            );
            let redacted = redact_known(&raw);
            assert!(redacted.contains(REDACTED), "{pipe}: {raw}");
            for line in raw.lines().filter(|l| l.len() >= MIN_FORM) {
                assert!(
                    !redacted.contains(line),
                    "{pipe}: {line} is left in {redacted}"
                );
            }
            assert!(
                redacted.replace(REDACTED, "").trim().len() <= 4,
                "{pipe}: {redacted}"
            );
        }
    }

    /// The family of shapes a command can give a remembered key that stands behind other text
    /// on its line (`API_KEY=<key>` in a `.env`), each made by a real command, each graded by
    /// what a reader recovers from the redacted output with the matching decoder: never the key
    /// nor any [`leak::PIECE`]-character piece of it.
    #[test]
    fn a_key_behind_other_text_is_never_recoverable_from_what_is_left() {
        let secret = "tgk-Zq8vN3pL0wXy7RbT4mKd9sHc2JfGuE6aQe";
        remember(secret);
        let sh = |script: &str, input: &str| -> String {
            use std::io::Write;
            let mut child = std::process::Command::new("sh")
                .arg("-c")
                .arg(script)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).into_owned()
        };
        let env_file = format!("# settings\nOPENAI_API_KEY={secret}\nDEBUG=1\n");
        // (what the command does, how a reader turns its output back)
        let family: &[(&str, &str)] = &[
            ("cat", "cat"),
            ("base64", "base64 -d"),
            ("base64 -w0", "base64 -d"),
            ("base64 -w 20", "base64 -d"),
            ("tail -c +3 | base64", "base64 -d"),
            (
                "tail -c +5 | base64 | tr '+/' '-_'",
                "tr -- '-_' '+/' | base64 -d",
            ),
            ("xxd -p", "xxd -r -p"),
            ("xxd", "xxd -r"),
            ("od -An -tx1", "xxd -r -p"),
            ("od -tx1", "cut -c8- | xxd -r -p"),
            ("od -c", "cut -c8- | tr -d ' \\n'"),
            ("hexdump -C", "cat"),
            ("rev", "rev"),
            ("tr 'A-Za-z' 'N-ZA-Mn-za-m'", "tr 'A-Za-z' 'N-ZA-Mn-za-m'"),
            ("grep KEY | cut -c1-30; grep KEY | cut -c31-", "tr -d '\\n'"),
            ("fold -w1", "tr -d '\\n'"),
            ("sed 's/./& /g'", "tr -d ' '"),
            ("sed 's/=/%3D/; s/-/%2D/g'", "sed 's/%3D/=/; s/%2D/-/g'"),
            ("tr -d '\\n' | sed 's/./\\\\x&/g'", "cat"),
        ];
        let pieces = leak::pieces(secret);
        for (encode, decode) in family {
            let out = sh(encode, &env_file);
            assert!(!out.trim().is_empty(), "{encode} printed nothing");
            let redacted = redact_known(&out).into_owned();
            let recovered = sh(decode, &redacted);
            for text in [&redacted, &recovered] {
                let joined: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                assert!(
                    !pieces.iter().any(|p| text.contains(p.as_str()) || joined.contains(p.as_str())),
                    "{encode}: a piece of the key is left:\n{out}\n--- redacted ---\n{redacted}\n--- recovered ---\n{recovered}"
                );
            }
        }
        // Ordinary output, and output that merely looks encoded, is left alone.
        for plain in [
            "total 12\ndrwxr-xr-x 2 ann ann 4096 notes\n",
            "0000000 6865 6c6c 6f0a\n",
            "aGVsbG8gd29ybGQK\n",
        ] {
            assert!(matches!(redact_known(plain), Cow::Borrowed(_)), "{plain}");
        }
    }
}
