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

/// The pieces of `secret` looked for: every window of [`PIECE`] characters that looks like
/// key material ([`distinctive`]), and the secret itself when it is no longer than a piece.
/// A window of ordinary text inside a secret (`/home/ann/`, `localhost:`, `0123456789`, a
/// `Bearer ` prefix) is left out: looked for on its own it would hide ordinary output.
pub fn pieces(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= PIECE {
        return vec![secret.to_string()];
    }
    chars
        .windows(PIECE)
        .filter(|w| distinctive(w))
        .map(|w| w.iter().collect::<String>())
        .collect()
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

/// What is left of `text` to decode a secret from, after what stood in it plainly was cut out.
pub fn views(text: &str) -> Vec<Vec<u8>> {
    let mut views: Vec<Vec<u8>> = vec![
        text.bytes().filter(|b| !separator(*b)).collect(),
        text.chars().rev().collect::<String>().into_bytes(),
        text.chars().map(rot13).collect::<String>().into_bytes(),
        percent_decoded(text.as_bytes()),
    ];
    for run in runs(text.as_bytes(), base64_char) {
        views.extend(base64_decodings(&run));
    }
    let hex_text = strip_hex_prefixes(text.as_bytes());
    for run in runs(&hex_text, |b| b.is_ascii_hexdigit()) {
        views.extend(hex_decodings(&run));
    }
    views
}

/// The withheld text's stand-in: the reader learns why, and nothing of the secret.
pub const WITHHELD: &str = "[redacted: this output carried a secret Tollgate keeps, in an encoded or split form; it was withheld whole]";

/// Whether any view of `text` ([`views`]) holds one of `pieces`, by `find` (an automaton over
/// the pieces).
pub fn carries(text: &str, find: &dyn Fn(&[u8]) -> bool) -> bool {
    views(text).iter().any(|v| find(v))
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

/// The maximal runs of `kind` bytes in `text`, with separators inside a run skipped (a wrapped
/// or grouped encoding is one run). Runs shorter than a piece's encoding are left out.
fn runs(text: &[u8], kind: impl Fn(u8) -> bool) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut run = Vec::new();
    for &b in text {
        if kind(b) {
            run.push(b);
        } else if !separator(b) {
            if run.len() >= PIECE {
                out.push(std::mem::take(&mut run));
            }
            run.clear();
        }
    }
    if run.len() >= PIECE {
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

/// `text` without `0x` and `\x` before hex digits (C arrays, `printf` escapes).
fn strip_hex_prefixes(text: &[u8]) -> Vec<u8> {
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
        // Words, paths, hosts and counting inside a secret are not looked for on their own.
        for ordinary in [
            "0123456789abc",
            "/home/ann/projects",
            "http://localhost:8080",
            "Bearer aaaaaaaaaa",
            "password-password",
        ] {
            assert_eq!(pieces(ordinary), Vec::<String>::new(), "{ordinary}");
        }
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
