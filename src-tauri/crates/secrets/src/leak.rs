//! Finding a remembered secret in text whatever shape a command gave it (SECURITY.md,
//! "Redaction").
//!
//! Looking for a list of encoded forms of a secret ([`crate::redact_known`]'s patterns) depends
//! on alignment: base64 of a secret that starts one or two bytes into a line encodes
//! differently and `base64` wraps it wherever the line reaches 76 columns; `xxd -p`, `od -An
//! -tx1` and `xxd` split hex into lines and groups at any byte; `cut` hands it over in pieces,
//! `tr a-zA-Z n-za-mN-ZA-M` as rot13. So the text is looked at the other way round: it is
//! *decoded* into the views a reader could decode it into — without separators, reversed,
//! rot13, percent-decoded, and every run of base64 or hex decoded at every alignment — and each
//! view is searched for any [`PIECE`]-character piece of a secret. A piece in the text as it is
//! is replaced where it stands; a piece only an encoded view shows means the text carries the
//! secret in a form that cannot be cut out, and the whole text is withheld.

use std::borrow::Cow;

/// How long a piece of a secret is that is looked for: a secret cut into pieces shorter than
/// this is not found (SECURITY.md, known limits). Long enough that ordinary text does not hold
/// one by chance.
pub const PIECE: usize = 10;

/// The pieces of `secret` looked for where they stand (replaced there): every window of
/// [`PIECE`] characters that looks like key material ([`distinctive`]), and the secret itself
/// when it is no longer than a piece. A window of ordinary text inside a secret (`/home/ann/`,
/// `localhost:`, `0123456789`, a `Bearer ` prefix) is left out: looked for on its own it would
/// hide ordinary output.
///
/// A secret with no such window — a passphrase of words (`correct-horse-battery-staple`), all
/// digits, a repeated word — is looked for by every window of [`LONG_PIECE`] characters (or
/// whole, when it is no longer) instead: such a stretch of a secret is as unlikely in ordinary
/// text as a random key's piece, and without it no decoded view would be searched for the
/// secret at all.
pub fn pieces(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= PIECE {
        return vec![secret.to_string()];
    }
    let out: Vec<String> = chars
        .windows(PIECE)
        .filter(|w| distinctive(w))
        .map(|w| w.iter().collect())
        .collect();
    if !out.is_empty() {
        return out;
    }
    // A path, an address or a `host:port` remembered as a flag's value is not looked for by its
    // stretches: they are what ordinary output is made of (`/home/ann/work/…`).
    if locator(secret) {
        return out;
    }
    if chars.len() <= LONG_PIECE {
        return vec![secret.to_string()];
    }
    chars
        .windows(LONG_PIECE)
        .map(|w| w.iter().collect())
        .collect()
}

/// Whether `secret` reads as where something is rather than a key: a path, a URL, a mailbox,
/// an address with a port.
fn locator(secret: &str) -> bool {
    secret.contains(['/', '\\', ':', '@'])
}

/// How long a piece of a secret that is not key material throughout is ([`pieces`]).
pub const LONG_PIECE: usize = 16;

/// The pieces looked for in the decoded views of a text ([`views`]): [`pieces`] of the secret,
/// and of its letters and digits alone — what is left of it when a command put a character
/// between every two (`sed 's/./&-/g'`) or dropped its dashes, and a view kept only letters and
/// digits too.
pub fn view_pieces(secret: &str) -> Vec<String> {
    let mut out = pieces(secret);
    let alnum: String = secret.chars().filter(char::is_ascii_alphanumeric).collect();
    if alnum != secret && alnum.len() >= crate::MIN_REMEMBERED && !locator(secret) {
        out.extend(pieces(&alnum));
    }
    out.sort();
    out.dedup();
    out
}

/// Whether a window reads like key material rather than words, paths or counting: letters and
/// digits of at least two kinds (upper case, lower case, digits), at least seven different
/// characters, not mostly neighbours one apart, and no word (five letters of one case in a
/// row). A random base62 key keeps most of its windows. Random keys (base62, base64, hex) pass nearly everywhere; words, paths, host
/// names and runs of digits do not.
fn distinctive(window: &[char]) -> bool {
    let kinds = [
        window.iter().any(char::is_ascii_uppercase),
        window.iter().any(char::is_ascii_lowercase),
        window.iter().any(char::is_ascii_digit),
    ];
    let mut distinct: Vec<char> = window.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    // Counting (`123456789a`, `abcdefgh12`): most neighbours one apart.
    let counting = window
        .windows(2)
        .filter(|p| (p[1] as u32).abs_diff(p[0] as u32) == 1)
        .count();
    // A word (`localhost`, `projects`): five letters of one case in a row.
    let word = window
        .windows(5)
        .any(|w| w.iter().all(char::is_ascii_lowercase) || w.iter().all(char::is_ascii_uppercase));
    kinds.iter().filter(|k| **k).count() >= 2
        && distinct.len() >= 7
        && counting * 2 < window.len()
        && !word
}

/// Every view of `text` a reader could decode a secret from, after what stood in it plainly
/// was cut out, handed to `visit` one at a time until it returns `true` (found: no need to look
/// further). Returns whether one did. `visit` searches for the pieces as they are, reversed and
/// rot13, in either case ([`searched_forms`]), so a view need not be turned around to be seen
/// through `| rev`, `tr a-zA-Z n-za-mN-ZA-M` or `tr a-zA-Z A-Za-z`.
///
/// The views: the text as it stands; without separators (one character a line, spaced out,
/// `xxd -p -c1`); its letters and digits alone (a character put between every two); every run of
/// base64 in it decoded at its four alignments, as it stands and reversed, rot13 and with its
/// case swapped (`base64 | rev`, `base64 | tr …`), and every run of hex at its two, as it stands
/// and reversed; `%XX` decoded; and each decoded view decoded once more, so a chain of two
/// encodings (`base64 | base64`, `xxd -p | base64`) is seen through.
pub fn each_view(text: &str, visit: &mut dyn FnMut(&[u8]) -> bool) -> bool {
    let bytes = text.as_bytes();
    if visit(bytes)
        || visit(&without(bytes, separator))
        || visit(&without(bytes, |b| !b.is_ascii_alphanumeric()))
    {
        return true;
    }
    for decoded in decodings(bytes) {
        if visit(&decoded) {
            return true;
        }
        // Only text decodes again: what a wrong alignment or a blob of data decodes to is not
        // read a second time.
        if !printable(&decoded) {
            continue;
        }
        for again in decodings(&decoded) {
            if visit(&again) {
                return true;
            }
        }
    }
    false
}

/// Whether `bytes` read as text: nearly all printable ASCII or line breaks.
fn printable(bytes: &[u8]) -> bool {
    let text = bytes
        .iter()
        .filter(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
        .count();
    bytes.len() >= PIECE && text * 20 >= bytes.len() * 19
}

/// What the pieces are searched for as ([`each_view`]): each as it is, reversed and rot13 (the
/// search itself ignores case).
pub fn searched_forms(pieces: &[String]) -> Vec<String> {
    let mut out: Vec<String> = pieces
        .iter()
        .flat_map(|p| {
            [
                p.clone(),
                p.chars().rev().collect(),
                p.chars().map(rot13).collect(),
            ]
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every view of `text` ([`each_view`]), collected.
pub fn views(text: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    each_view(text, &mut |v| {
        out.push(v.to_vec());
        false
    });
    out
}

/// The shortest run of base64 that can carry a piece ([`PIECE`] bytes take 14 characters).
const BASE64_RUN: usize = PIECE * 4 / 3 + 1;

/// The shortest run of hex that can carry a piece.
const HEX_RUN: usize = PIECE * 2;

/// What `bytes` decode to: each run of base64 (lines joined; also one character a line or
/// spaced out) at its four alignments, as it stands, reversed, rot13 and case-swapped; each run
/// of hex (`0x` and `\x` prefixes dropped, groups and lines joined) at its two, as it stands and
/// reversed; and the whole with `%XX` decoded when it has any.
fn decodings(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut base64_runs = runs(bytes, base64_char, |b| b == b'\n' || b == b'\r', BASE64_RUN);
    base64_runs.extend(spaced_runs(bytes));
    for run in base64_runs {
        let turned = [
            reversed(&run),
            run.iter().map(|b| rot13(char::from(*b)) as u8).collect(),
            run.iter()
                .map(|b| swap_case(char::from(*b)) as u8)
                .collect(),
        ];
        out.extend(base64_decodings(&run));
        for reading in turned {
            out.extend(base64_decodings(&reading));
        }
    }
    let hex_text = strip_hex_prefixes(bytes);
    for run in runs(&hex_text, |b| b.is_ascii_hexdigit(), separator, HEX_RUN) {
        out.extend(hex_decodings(&reversed(&run)));
        out.extend(hex_decodings(&run));
    }
    if bytes.contains(&b'%') {
        out.push(percent_decoded(bytes));
    }
    out
}

/// Runs of single characters set apart by one space or line break each (`fold -w1`, `sed
/// 's/./& /g'`), joined: what a reader strips before decoding.
fn spaced_runs(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut run = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let single = !separator(bytes[i])
            && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace())
            && (i == 0 || bytes[i - 1].is_ascii_whitespace());
        if single {
            run.push(bytes[i]);
            i += 2;
            continue;
        }
        if run.len() >= BASE64_RUN {
            out.push(std::mem::take(&mut run));
        }
        run.clear();
        i += 1;
    }
    if run.len() >= BASE64_RUN {
        out.push(run);
    }
    out
}

fn without(bytes: &[u8], drop: impl Fn(u8) -> bool) -> Vec<u8> {
    bytes.iter().copied().filter(|b| !drop(*b)).collect()
}

fn reversed(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().rev().copied().collect()
}

fn swap_case(c: char) -> char {
    if c.is_ascii_lowercase() {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    }
}

/// The withheld text's stand-in: the reader learns why, and nothing of the secret.
pub const WITHHELD: &str = "[redacted: this output carried a secret Tollgate keeps, in an encoded or split form; it was withheld whole]";

/// Whether any view of `text` ([`each_view`]) holds a piece of a secret, by `find` (an
/// automaton over the pieces).
pub fn carries(text: &str, find: &dyn Fn(&[u8]) -> bool) -> bool {
    each_view(text, &mut |v| find(v))
}

/// `text` itself, or [`WITHHELD`] when a view of it carries a piece of a secret.
pub fn withhold_if_carried<'t>(text: Cow<'t, str>, find: &dyn Fn(&[u8]) -> bool) -> Cow<'t, str> {
    if carries(&text, find) {
        Cow::Borrowed(WITHHELD)
    } else {
        text
    }
}

/// Bytes that separate groups in encoded output: whitespace, and the `:` `,` `|` and quotes
/// dump tools and people put between groups.
fn separator(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b':' | b',' | b'|' | b'\'' | b'"')
}

fn rot13(c: char) -> char {
    match c {
        'a'..='z' => char::from(b'a' + (c as u8 - b'a' + 13) % 26),
        'A'..='Z' => char::from(b'A' + (c as u8 - b'A' + 13) % 26),
        _ => c,
    }
}

/// `%XX` decoded (anything else kept).
fn percent_decoded(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' && i + 2 < text.len() + 1 {
            if let Some(b) = text
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

/// A character of base64 in either alphabet (padding ends a run).
fn base64_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')
}

/// The maximal runs of `kind` bytes in `text`, with `skip` bytes inside a run passed over (a
/// wrapped or grouped encoding is one run). Runs shorter than `min` are left out.
fn runs(
    text: &[u8],
    kind: impl Fn(u8) -> bool,
    skip: impl Fn(u8) -> bool,
    min: usize,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut run = Vec::new();
    for &b in text {
        if kind(b) {
            run.push(b);
        } else if !skip(b) {
            if run.len() >= min {
                out.push(std::mem::take(&mut run));
            }
            run.clear();
        }
    }
    if run.len() >= min {
        out.push(run);
    }
    out
}

fn base64_value(b: u8) -> u8 {
    match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' | b'-' => 62,
        _ => 63, // '/' and '_'
    }
}

/// `run` decoded as base64 from each of its first four characters (any alignment of the
/// secret in what was encoded, whatever came before it on the line), both alphabets at once.
fn base64_decodings(run: &[u8]) -> Vec<Vec<u8>> {
    (0..4.min(run.len()))
        .map(|skip| {
            let mut out = Vec::with_capacity(run.len() * 3 / 4);
            let (mut acc, mut bits) = (0u32, 0u32);
            for &c in &run[skip..] {
                acc = (acc << 6) | u32::from(base64_value(c));
                bits += 6;
                if bits >= 8 {
                    bits -= 8;
                    out.push(((acc >> bits) & 0xff) as u8);
                }
            }
            out
        })
        .collect()
}

/// `text` without `0x` and `\x` before hex digits (C arrays, `printf` escapes); borrowed when
/// it has none.
fn strip_hex_prefixes(text: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr2(b'x', b'X', text).is_none() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(stripped_hex_prefixes(text))
}

fn stripped_hex_prefixes(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let prefix = matches!(text.get(i..i + 2), Some(b"0x") | Some(b"\\x") | Some(b"0X"));
        if prefix && text.get(i + 2).is_some_and(u8::is_ascii_hexdigit) {
            i += 2;
            continue;
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

/// `run` (hex digits) decoded from its first and its second digit.
fn hex_decodings(run: &[u8]) -> Vec<Vec<u8>> {
    (0..2)
        .map(|skip| {
            run[skip.min(run.len())..]
                .chunks_exact(2)
                .filter_map(|pair| {
                    std::str::from_utf8(pair)
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_window_that_reads_like_key_material_is_a_piece() {
        assert_eq!(pieces("short"), ["short"]);
        let p = pieces("k3Y9q0Zt7Wm");
        assert_eq!(p, ["k3Y9q0Zt7W", "3Y9q0Zt7Wm"]);
        // Words, paths, hosts and counting inside a key are not looked for on their own.
        for ordinary in [
            "0123456789abc",
            "/home/ann/projects",
            "http://localhost:8080",
            "Bearer aaaaaaaaaa",
            "password-password",
        ] {
            let key = format!("k3Y9q0Zt7Wm{ordinary}");
            let found = pieces(&key);
            assert!(!found.is_empty(), "{key}");
            assert!(
                found.iter().all(|p| !ordinary.contains(p.as_str())),
                "{key}: {found:?}"
            );
        }
    }

    /// A secret with no window of key material — words, digits, a repeated word — is looked
    /// for by its longer stretches (or whole), so its encodings are still found.
    #[test]
    fn a_low_entropy_secret_is_looked_for_by_its_longer_stretches() {
        assert_eq!(pieces("0123456789abc"), ["0123456789abc"]);
        let words = pieces("correct-horse-battery-staple");
        assert_eq!(
            words.len(),
            "correct-horse-battery-staple".len() - LONG_PIECE + 1
        );
        assert!(words.iter().all(|w| w.len() == LONG_PIECE));
        assert!(words.contains(&"horse-battery-st".to_string()));
        for secret in ["83920174650192837465", "hunterhunterhunterhunter"] {
            assert!(!pieces(secret).is_empty(), "{secret}");
        }
        // A path or an address remembered as a flag's value is not looked for by its
        // stretches, nor by its letters alone: ordinary output is made of them.
        for locator in [
            "/work/main/target/tmp",
            "http://localhost/docs",
            "127.0.0.1:4567",
        ] {
            assert!(pieces(locator).is_empty(), "{locator}");
            assert!(view_pieces(locator).is_empty(), "{locator}");
        }
        // The letters and digits alone of a key with dashes are looked for in decoded views.
        let view = view_pieces("sk-k3Y9q0Zt7Wm-8Hq2Lw0Z");
        assert!(view.contains(&"skk3Y9q0Zt".to_string()), "{view:?}");
    }

    #[test]
    fn base64_and_hex_decode_at_every_alignment() {
        use base64::Engine;
        let secret = b"tg-0123456789-secret";
        for before in 0..6 {
            let mut input = vec![b'x'; before];
            input.extend_from_slice(secret);
            let encoded = base64::engine::general_purpose::STANDARD.encode(&input);
            // A prefix of other base64 letters on the line, of any length.
            for junk in ["", "Q", "QU", "QUJ"] {
                let run = format!("{junk}{encoded}");
                let decoded = base64_decodings(run.as_bytes());
                assert!(
                    decoded
                        .iter()
                        .any(|d| d.windows(secret.len()).any(|w| w == secret)),
                    "{before} {junk}"
                );
            }
        }
        let hex = format!("7{}", hex::encode(secret));
        assert!(hex_decodings(hex.as_bytes())
            .iter()
            .any(|d| d.windows(secret.len()).any(|w| w == secret)));
    }
}
