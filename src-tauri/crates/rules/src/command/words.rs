//! Decoding a word as the shell would: backslashes, quotes and `$'…'` strings.

/// Removes unquoted backslashes (`\x` is `x`, backslash-newline disappears).
pub(super) fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Removes every quote and backslash, and a `$` right before a quote (`$'…'`, `$"…"`).
pub(super) fn strip_quoting(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' | '\'' | '"' => {}
            '$' if matches!(chars.peek(), Some('\'' | '"')) => {}
            _ => out.push(c),
        }
    }
    out
}

/// Decodes the body of a bash `$'…'` string.
pub(super) fn decode_ansi_c(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.get(i) else {
            out.push('\\');
            break;
        };
        i += 1;
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (radix, max_digits) = match e {
            '0'..='7' => {
                i -= 1;
                (8, 3)
            }
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            'c' => {
                if let Some(&ctl) = chars.get(i) {
                    i += 1;
                    out.push(char::from_u32(u32::from(ctl) & 0x1f).unwrap_or('?'));
                }
                continue;
            }
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut value: u32 = 0;
        let mut digits = 0;
        while digits < max_digits {
            match chars.get(i).and_then(|d| d.to_digit(radix)) {
                Some(d) => {
                    value = value.saturating_mul(radix).saturating_add(d);
                    i += 1;
                    digits += 1;
                }
                None => break,
            }
        }
        if digits == 0 {
            out.push('\\');
            out.push(e);
        } else if let Some(ch) = char::from_u32(value) {
            out.push(ch);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Wrappers
// ---------------------------------------------------------------------------------------------
