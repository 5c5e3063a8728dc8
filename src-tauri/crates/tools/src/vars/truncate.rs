//! Head + tail truncation (F-16).
//!
//! The model sees the beginning and the end of a long result with a notice in the middle that
//! says how much was left out and how to read it. Cuts fall on char boundaries always and on line
//! boundaries where that costs little, so the model never sees half a line or broken UTF-8.

/// What [`truncate_head_tail`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncated {
    /// The text for the model: the whole input, or head + notice + tail.
    pub text: String,
    /// Whether anything was left out.
    pub truncated: bool,
    /// Chars kept from the start of the input.
    pub head_chars: usize,
    /// Chars left out between head and tail.
    pub omitted_chars: usize,
    /// Chars kept from the end of the input.
    pub tail_chars: usize,
    /// Chars in the input.
    pub total_chars: usize,
}

/// Share of the budget given to the head; the rest goes to the tail.
const HEAD_SHARE_NUM: usize = 2;
const HEAD_SHARE_DEN: usize = 3;
/// A cut moves back to a line boundary only if that gives up at most this share of its part.
const LINE_SNAP_DEN: usize = 5;

/// Formats `n` with thousands separators, as the notice shows counts (`12,345`).
pub fn group_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The notice put between head and tail. `var` names the variable holding the full text, when
/// there is one.
pub fn omission_notice(omitted: usize, start: usize, var: Option<&str>) -> String {
    let count = group_thousands(omitted);
    match var {
        Some(name) => format!(
            "\n…[{count} chars omitted — full text in $VAR_REF{{{{{name}}}}}; read it with ReadVar(name=\"{name}\", start={start}, length=…)]…\n"
        ),
        None => format!("\n…[{count} chars omitted]…\n"),
    }
}

/// Keeps at most `limit` chars of `text` (head and tail), with a notice naming `var` in between.
///
/// A `limit` of 0 means "no truncation". The notice itself is not counted against `limit`.
pub fn truncate_head_tail(text: &str, limit: usize, var: Option<&str>) -> Truncated {
    let total = text.chars().count();
    if limit == 0 || total <= limit {
        return Truncated {
            text: text.to_string(),
            truncated: false,
            head_chars: total,
            omitted_chars: 0,
            tail_chars: 0,
            total_chars: total,
        };
    }
    let head_budget = (limit * HEAD_SHARE_NUM / HEAD_SHARE_DEN).max(1).min(limit);
    let tail_budget = limit - head_budget;

    let head_end = byte_offset_of_char(text, head_budget);
    let head_end = snap_head_to_line(text, head_end, head_budget);
    let tail_start = if tail_budget == 0 {
        text.len()
    } else {
        byte_offset_from_end(text, tail_budget)
    };
    let tail_start = snap_tail_to_line(text, tail_start).max(head_end);

    let head = &text[..head_end];
    let tail = &text[tail_start..];
    let head_chars = head.chars().count();
    let tail_chars = tail.chars().count();
    let omitted = total - head_chars - tail_chars;
    let notice = omission_notice(omitted, head_chars, var);
    let mut out = String::with_capacity(head.len() + notice.len() + tail.len());
    out.push_str(head);
    out.push_str(&notice);
    out.push_str(tail);
    Truncated {
        text: out,
        truncated: true,
        head_chars,
        omitted_chars: omitted,
        tail_chars,
        total_chars: total,
    }
}

/// Byte offset of the char with index `n` (or the end).
fn byte_offset_of_char(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// Byte offset where the last `n` chars begin.
fn byte_offset_from_end(text: &str, n: usize) -> usize {
    text.char_indices().rev().nth(n - 1).map_or(0, |(i, _)| i)
}

/// Moves the head's end back to just after a newline if that loses at most a fifth of the head.
fn snap_head_to_line(text: &str, head_end: usize, head_chars: usize) -> usize {
    let slack = head_chars / LINE_SNAP_DEN;
    if slack == 0 {
        return head_end;
    }
    match text[..head_end].rfind('\n') {
        Some(nl) if text[nl + 1..head_end].chars().count() <= slack => nl + 1,
        _ => head_end,
    }
}

/// Moves the tail's start forward to just after a newline if that loses at most a fifth of it.
fn snap_tail_to_line(text: &str, tail_start: usize) -> usize {
    let tail = &text[tail_start..];
    let slack = tail.chars().count() / LINE_SNAP_DEN;
    if slack == 0 || tail.starts_with('\n') || text[..tail_start].ends_with('\n') {
        return tail_start;
    }
    match tail.find('\n') {
        Some(nl) if tail[..nl].chars().count() < slack && nl + 1 < tail.len() => {
            tail_start + nl + 1
        }
        _ => tail_start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_text_is_untouched() {
        let t = truncate_head_tail("hello", 10, Some("v"));
        assert!(!t.truncated);
        assert_eq!(t.text, "hello");
        let t = truncate_head_tail("hello", 0, Some("v"));
        assert!(!t.truncated);
    }

    #[test]
    fn notice_names_the_variable_and_the_count() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let t = truncate_head_tail(&text, 300, Some("read_file_c7_result"));
        assert!(t.truncated);
        assert!(t
            .text
            .contains("chars omitted — full text in $VAR_REF{{read_file_c7_result}}"));
        assert!(t.text.contains(&group_thousands(t.omitted_chars)));
        assert!(t.text.contains(&format!("start={}", t.head_chars)));
        assert!(t.text.starts_with("line 0\n"));
        assert!(t.text.ends_with("line 1999\n"));
        // Cuts fell on line boundaries.
        let head = &t.text[..t.text.find("\n…[").unwrap() + 1];
        assert!(head.ends_with('\n'));
        let tail_start = t.text.find("]…\n").unwrap() + "]…\n".len();
        assert!(t.text[tail_start..].starts_with("line "));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(12345), "12,345");
        assert_eq!(group_thousands(1234567), "1,234,567");
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "日本語のテキスト🙂".repeat(500);
        let t = truncate_head_tail(&text, 101, None);
        assert!(t.truncated);
        assert_eq!(t.head_chars + t.tail_chars, 101);
        assert!(t.text.contains("chars omitted]…"));
    }

    proptest! {
        #[test]
        fn head_omitted_and_tail_rebuild_the_input(
            text in "(\\PC|\n){0,400}",
            limit in 1usize..200,
        ) {
            let t = truncate_head_tail(&text, limit, Some("x_c1_result"));
            let total = text.chars().count();
            prop_assert_eq!(t.total_chars, total);
            if total <= limit {
                prop_assert!(!t.truncated);
                prop_assert_eq!(&t.text, &text);
            } else {
                prop_assert!(t.truncated);
                prop_assert!(t.head_chars >= 1);
                prop_assert_eq!(t.head_chars + t.omitted_chars + t.tail_chars, total);
                prop_assert!(t.head_chars + t.tail_chars <= limit);
                let head: String = text.chars().take(t.head_chars).collect();
                let tail: String = text.chars().skip(total - t.tail_chars).collect();
                let notice = omission_notice(t.omitted_chars, t.head_chars, Some("x_c1_result"));
                prop_assert_eq!(&t.text, &format!("{head}{notice}{tail}"));
            }
        }
    }
}
