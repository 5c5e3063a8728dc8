//! An incremental Server-Sent Events parser (the framing both OpenAI and Anthropic stream in).
//!
//! Bytes arrive in arbitrary pieces; complete lines are parsed in place and only an unfinished
//! line is copied, so parsing runs at memory speed. Lines end with `\n`, `\r\n` or `\r`.

use memchr::memchr2;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The parser's state between pieces.
#[derive(Debug, Default)]
pub struct SseParser {
    partial: Vec<u8>,
    event: Option<String>,
    data: String,
    has_data: bool,
    /// The previous piece ended with `\r`; a leading `\n` belongs to it.
    skip_lf: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a piece of the stream; calls `emit` for every complete event.
    pub fn feed(&mut self, mut bytes: &[u8], emit: &mut dyn FnMut(SseEvent)) {
        if self.skip_lf {
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
            self.skip_lf = false;
        }
        if !self.partial.is_empty() {
            // Finish the pending line first.
            match memchr2(b'\n', b'\r', bytes) {
                None => {
                    self.partial.extend_from_slice(bytes);
                    return;
                }
                Some(end) => {
                    self.partial.extend_from_slice(&bytes[..end]);
                    let line = std::mem::take(&mut self.partial);
                    self.line(&line, emit);
                    bytes = self.after_eol(bytes, end);
                }
            }
        }
        while let Some(end) = memchr2(b'\n', b'\r', bytes) {
            let (line, _) = bytes.split_at(end);
            self.line(line, emit);
            bytes = self.after_eol(bytes, end);
        }
        self.partial.extend_from_slice(bytes);
    }

    /// The rest of `bytes` after the line ending at `end`.
    fn after_eol<'b>(&mut self, bytes: &'b [u8], end: usize) -> &'b [u8] {
        if bytes[end] == b'\r' {
            match bytes.get(end + 1) {
                Some(b'\n') => &bytes[end + 2..],
                Some(_) => &bytes[end + 1..],
                None => {
                    self.skip_lf = true;
                    &bytes[end + 1..]
                }
            }
        } else {
            &bytes[end + 1..]
        }
    }

    fn line(&mut self, line: &[u8], emit: &mut dyn FnMut(SseEvent)) {
        if line.is_empty() {
            if self.has_data || self.event.is_some() {
                emit(SseEvent {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.has_data = false;
            return;
        }
        if line[0] == b':' {
            return; // comment / keep-alive
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.event = Some(value.into_owned()),
            _ => {} // id, retry and unknown fields do not matter here
        }
    }

    /// Whether the stream stopped in the middle of an event (bytes not yet dispatched).
    pub fn has_pending(&self) -> bool {
        !self.partial.is_empty() || self.has_data
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for piece in pieces {
            p.feed(piece, &mut |e| out.push(e));
        }
        out
    }

    #[test]
    fn events_data_comments_and_multiline() {
        let got = parse_all(&[b": keep-alive\n\nevent: message_start\ndata: {\"a\":1}\n\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n"]);
        assert_eq!(
            got,
            vec![
                SseEvent {
                    event: Some("message_start".into()),
                    data: "{\"a\":1}".into()
                },
                SseEvent {
                    event: None,
                    data: "line1\nline2".into()
                },
                SseEvent {
                    event: None,
                    data: "[DONE]".into()
                },
            ]
        );
    }

    #[test]
    fn crlf_and_cr_line_endings_split_anywhere() {
        let got = parse_all(&[b"data: a\r", b"\n\r", b"\ndata:b\r\rdata: c\n", b"\n"]);
        assert_eq!(
            got.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn an_unfinished_event_is_pending() {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.feed(b"data: {\"x\":", &mut |e| out.push(e));
        assert!(out.is_empty());
        assert!(p.has_pending());
        p.feed(b"1}\n\n", &mut |e| out.push(e));
        assert_eq!(out[0].data, "{\"x\":1}");
        assert!(!p.has_pending());
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_events(
            datas in proptest::collection::vec("[a-z0-9 {}\":,]{0,20}", 1..10),
            cuts in proptest::collection::vec(0usize..400, 0..12),
            crlf in any::<bool>(),
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let text: String = datas.iter().map(|d| format!("data: {d}{eol}{eol}")).collect();
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut last = 0;
            for c in cuts {
                pieces.push(&bytes[last..c]);
                last = c;
            }
            pieces.push(&bytes[last..]);
            let got = parse_all(&pieces);
            prop_assert_eq!(got.iter().map(|e| e.data.clone()).collect::<Vec<_>>(), datas);
        }
    }
}
