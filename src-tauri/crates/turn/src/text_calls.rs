//! Tool calls written as text (F-10), for models without native tool calling:
//! `<tool_call>{"name":…,"arguments":…}</tool_call>`, a bare JSON object with `name` and
//! `arguments`, and `name(arg="v", n=1)` on a line of its own.
//!
//! Bare JSON and call syntax are only taken as calls when they name a known tool, so a model
//! that shows an example object or mentions a function in prose is not misread.
//!
//! Nothing inside Markdown code is ever a call (F-35): not in a fenced block (```` ``` ```` or
//! `~~~`), not in an indented block (four spaces or a tab), not in an inline code span
//! (`` `…` ``, ```` ```…``` ```` on one line). A model quoting
//! an example — or quoting a line a fetched page asked it to quote — shows text; it does not
//! run a tool. The loop only calls this for providers configured for text-format calls; it lives
//! here, where calls are read, not with the protocol's types.

use serde_json::{Map, Number, Value};
use tollgate_protocol::parse::RawArguments;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

/// One call found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCall {
    pub name: String,
    pub arguments: RawArguments,
}

/// Text with its calls taken out.
#[derive(Debug, Clone, PartialEq)]
pub struct TextParse {
    /// The prose that remains, trimmed.
    pub text: String,
    pub calls: Vec<TextCall>,
}

/// Finds the tool calls in `text` outside Markdown code. `is_known` says whether a name is an
/// enabled tool; a tagged call naming anything else is left as text too.
pub fn parse_text_calls(text: &str, is_known: &dyn Fn(&str) -> bool) -> TextParse {
    let code = code_regions(text);
    let tagged = tagged_calls(text, &code, is_known);
    if !tagged.calls.is_empty() {
        return tagged;
    }
    let bare = bare_json_calls(text, &code, is_known);
    if !bare.calls.is_empty() {
        return bare;
    }
    call_syntax(text, &code, is_known)
}

/// Byte ranges of Markdown code: fenced blocks (an unclosed fence runs to the end) and inline
/// code spans (a run of backticks closed by a run of the same length).
fn code_regions(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut regions = Vec::new();
    let mut fence: Option<(usize, char, usize)> = None; // (start, char, length)
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |m| trimmed.chars().take_while(|c| *c == m).count());
        match (fence, marker) {
            (None, Some(m)) if run >= 3 => {
                // An opening fence; an inline ```code``` on the same line is handled below.
                let rest = &trimmed[run..];
                let closes_on_line = m == '`' && rest.contains(&"`".repeat(run));
                if !closes_on_line {
                    fence = Some((start, m, run));
                    continue;
                }
            }
            (Some((open, m, len)), Some(c))
                if c == m && run >= len && trimmed[run..].trim().is_empty() =>
            {
                regions.push(open..offset);
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            _ => {}
        }
        // An indented line (four spaces or a tab) is an indented code block in Markdown.
        if line.starts_with("    ") || line.starts_with('\t') {
            regions.push(start..offset);
            continue;
        }
        regions.extend(
            inline_code(line)
                .into_iter()
                .map(|r| r.start + start..r.end + start),
        );
    }
    if let Some((open, _, _)) = fence {
        regions.push(open..text.len());
    }
    regions
}

/// Inline code spans within one line.
fn inline_code(line: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = line.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let open = i;
        while i < bytes.len() && bytes[i] == b'`' {
            i += 1;
        }
        let len = i - open;
        let mut j = i;
        let mut closed = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let run_start = j;
                while j < bytes.len() && bytes[j] == b'`' {
                    j += 1;
                }
                if j - run_start == len {
                    closed = Some(j);
                    break;
                }
            } else {
                j += 1;
            }
        }
        if let Some(end) = closed {
            spans.push(open..end);
            i = end;
        }
    }
    spans
}

fn in_code(code: &[std::ops::Range<usize>], span: std::ops::Range<usize>) -> bool {
    code.iter()
        .any(|r| span.start < r.end && r.start < span.end.max(span.start + 1))
}

fn envelope_to_call(inner: &str) -> TextCall {
    match serde_json::from_str::<Value>(inner.trim()) {
        Ok(Value::Object(mut obj)) => {
            let name = obj.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
            let args = obj
                .remove("arguments")
                .or_else(|| obj.remove("parameters"))
                .or_else(|| obj.remove("input"))
                .unwrap_or(Value::Object(Map::new()));
            let arguments = match args {
                Value::String(s) => RawArguments::Text(s),
                other => RawArguments::Json(other),
            };
            TextCall { name, arguments }
        }
        Ok(other) => TextCall {
            name: String::new(),
            arguments: RawArguments::Invalid {
                raw: inner.to_string(),
                error: format!("A <tool_call> must hold a JSON object with \"name\" and \"arguments\", not {other}."),
            },
        },
        Err(e) => TextCall {
            name: guess_name(inner),
            arguments: RawArguments::Invalid {
                raw: inner.to_string(),
                error: format!("Invalid JSON in <tool_call>: {e}."),
            },
        },
    }
}

/// Best effort: the value of `"name": "…"` in broken JSON, so the error names the tool.
fn guess_name(s: &str) -> String {
    let Some(i) = s.find("\"name\"") else {
        return String::new();
    };
    let rest = s[i + 6..]
        .trim_start()
        .strip_prefix(':')
        .unwrap_or_default()
        .trim_start();
    let Some(rest) = rest.strip_prefix('"') else {
        return String::new();
    };
    rest.split('"').next().unwrap_or_default().to_string()
}

fn tagged_calls(
    text: &str,
    code: &[std::ops::Range<usize>],
    is_known: &dyn Fn(&str) -> bool,
) -> TextParse {
    let mut calls = Vec::new();
    let mut prose = String::new();
    let mut copied = 0;
    let mut pos = 0;
    while let Some(found) = text[pos..].find(OPEN) {
        let start = pos + found;
        let inner_start = start + OPEN.len();
        let (inner, end) = match text[inner_start..].find(CLOSE) {
            Some(e) => (
                &text[inner_start..inner_start + e],
                inner_start + e + CLOSE.len(),
            ),
            None => (&text[inner_start..], text.len()),
        };
        pos = end;
        if in_code(code, start..end) {
            continue;
        }
        let call = envelope_to_call(inner);
        // A broken envelope with no readable name is still reported (the model meant a call);
        // one that names a tool this chat does not offer stays text.
        if !call.name.is_empty() && !is_known(&call.name) {
            continue;
        }
        prose.push_str(&text[copied..start]);
        calls.push(call);
        copied = end;
    }
    prose.push_str(&text[copied..]);
    TextParse {
        text: prose.trim().to_string(),
        calls,
    }
}

fn bare_json_calls(
    text: &str,
    code: &[std::ops::Range<usize>],
    is_known: &dyn Fn(&str) -> bool,
) -> TextParse {
    let mut calls = Vec::new();
    let mut prose = String::new();
    let mut copied = 0;
    let mut pos = 0;
    while let Some(off) = text[pos..].find('{') {
        let start = pos + off;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(obj))) => {
                let end = start + stream.byte_offset();
                let name = obj.get("name").and_then(Value::as_str);
                let has_args = obj.contains_key("arguments") || obj.contains_key("parameters");
                match name {
                    Some(name) if has_args && is_known(name) && !in_code(code, start..end) => {
                        prose.push_str(&text[copied..start]);
                        calls.push(envelope_to_call(&text[start..end]));
                        copied = end;
                    }
                    _ => {}
                }
                pos = end;
            }
            _ => pos = start + 1,
        }
    }
    prose.push_str(&text[copied..]);
    TextParse {
        text: prose.trim().to_string(),
        calls,
    }
}

fn call_syntax(
    text: &str,
    code: &[std::ops::Range<usize>],
    is_known: &dyn Fn(&str) -> bool,
) -> TextParse {
    let mut calls = Vec::new();
    let mut prose = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim();
        if in_code(code, start..start + line.len()) {
            prose.push(line);
            continue;
        }
        match parse_call_line(trimmed) {
            Some((name, args)) if is_known(name) => calls.push(TextCall {
                name: name.to_string(),
                arguments: match args {
                    Ok(map) => RawArguments::Json(Value::Object(map)),
                    Err(error) => RawArguments::Invalid {
                        raw: trimmed.to_string(),
                        error,
                    },
                },
            }),
            _ => prose.push(line),
        }
    }
    if calls.is_empty() {
        return TextParse {
            text: text.trim().to_string(),
            calls,
        };
    }
    TextParse {
        text: prose.join("\n").trim().to_string(),
        calls,
    }
}

type Kwargs = Result<Map<String, Value>, String>;

/// `name(...)` filling the whole line: the name and its keyword arguments.
fn parse_call_line(line: &str) -> Option<(&str, Kwargs)> {
    let open = line.find('(')?;
    let name = &line[..open];
    let ident = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !ident || !line.ends_with(')') {
        return None;
    }
    let mut p = KwParser {
        s: line,
        i: open + 1,
    };
    let args = p.kwargs().and_then(|map| {
        if p.i == line.len() {
            Ok(map)
        } else {
            Err(format!("unexpected text after the call at char {}", p.i))
        }
    });
    Some((name, args))
}

struct KwParser<'a> {
    s: &'a str,
    i: usize,
}

impl KwParser<'_> {
    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += c.len_utf8();
        Some(c)
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn kwargs(&mut self) -> Kwargs {
        let mut map = Map::new();
        self.ws();
        if self.peek() == Some(')') {
            self.bump();
            return Ok(map);
        }
        loop {
            self.ws();
            let start = self.i;
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                self.bump();
            }
            let key = &self.s[start..self.i];
            if key.is_empty() {
                return Err(format!(
                    "expected an argument name at char {}; use name=value",
                    self.i
                ));
            }
            self.ws();
            if self.bump() != Some('=') {
                return Err(format!(
                    "expected '=' after \"{key}\"; positional arguments are not supported"
                ));
            }
            self.ws();
            let value = self.value()?;
            map.insert(key.to_string(), value);
            self.ws();
            match self.bump() {
                Some(',') => {
                    self.ws();
                    if self.peek() == Some(')') {
                        self.bump();
                        return Ok(map);
                    }
                }
                Some(')') => return Ok(map),
                _ => return Err(format!("expected ',' or ')' at char {}", self.i)),
            }
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.bump();
                self.string(q).map(Value::String)
            }
            Some('[' | '{') => {
                let mut stream =
                    serde_json::Deserializer::from_str(&self.s[self.i..]).into_iter::<Value>();
                match stream.next() {
                    Some(Ok(v)) => {
                        self.i += stream.byte_offset();
                        Ok(v)
                    }
                    Some(Err(e)) => Err(format!("invalid JSON value at char {}: {e}", self.i)),
                    None => Err("missing value".into()),
                }
            }
            _ => {
                let start = self.i;
                while self.peek().is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_')
                }) {
                    self.bump();
                }
                let word = &self.s[start..self.i];
                match word {
                    "true" | "True" => Ok(Value::Bool(true)),
                    "false" | "False" => Ok(Value::Bool(false)),
                    "null" | "None" | "none" => Ok(Value::Null),
                    _ => number(word)
                        .ok_or_else(|| format!("cannot read the value \"{word}\" at char {start}")),
                }
            }
        }
    }

    fn string(&mut self, quote: char) -> Result<String, String> {
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err("unterminated string".into()),
                Some(c) if c == quote => return Ok(out),
                Some('\\') => match self.bump() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('0') => out.push('\0'),
                    Some('u') => {
                        let hex: String = (0..4).filter_map(|_| self.bump()).collect();
                        let c = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| format!("invalid \\u escape \"{hex}\""))?;
                        out.push(c);
                    }
                    Some(other) => out.push(other),
                    None => return Err("unterminated string".into()),
                },
                Some(c) => out.push(c),
            }
        }
    }
}

fn number(word: &str) -> Option<Value> {
    if let Ok(i) = word.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    let f = word.parse::<f64>().ok()?;
    Number::from_f64(f).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn known(name: &str) -> bool {
        matches!(name, "read_file" | "calc" | "now")
    }

    #[test]
    fn tagged_calls_with_object_and_string_arguments() {
        let p = parse_text_calls(
            "Let me look.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}</tool_call>\n<tool_call>{\"name\":\"calc\",\"arguments\":\"{\\\"expr\\\":\\\"1+1\\\"}\"}</tool_call>",
            &known,
        );
        assert_eq!(p.text, "Let me look.");
        assert_eq!(p.calls.len(), 2);
        assert_eq!(p.calls[0].name, "read_file");
        assert_eq!(
            p.calls[0].arguments,
            RawArguments::Json(json!({"path": "a.txt"}))
        );
        assert_eq!(
            p.calls[1].arguments,
            RawArguments::Text("{\"expr\":\"1+1\"}".into())
        );
    }

    #[test]
    fn broken_tagged_call_keeps_the_name_and_reports_the_error() {
        let p = parse_text_calls(
            "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": }</tool_call>",
            &known,
        );
        assert_eq!(p.calls.len(), 1);
        assert_eq!(p.calls[0].name, "read_file");
        let RawArguments::Invalid { error, .. } = &p.calls[0].arguments else {
            panic!()
        };
        assert!(error.starts_with("Invalid JSON in <tool_call>"), "{error}");
    }

    #[test]
    fn unclosed_tag_at_the_end_is_still_a_call() {
        let p = parse_text_calls("ok <tool_call>{\"name\":\"now\",\"arguments\":{}}", &known);
        assert_eq!(p.calls.len(), 1);
        assert_eq!(p.text, "ok");
    }

    #[test]
    fn bare_json_only_for_known_tools() {
        let p = parse_text_calls(
            "Example: {\"name\": \"unknown\", \"arguments\": {}}\n{\"name\": \"calc\", \"arguments\": {\"expr\": \"2*3\"}}",
            &known,
        );
        assert_eq!(p.calls.len(), 1);
        assert_eq!(
            p.calls[0].arguments,
            RawArguments::Json(json!({"expr": "2*3"}))
        );
        assert_eq!(
            p.text,
            "Example: {\"name\": \"unknown\", \"arguments\": {}}"
        );
    }

    #[test]
    fn nothing_inside_markdown_code_is_a_call() {
        for quoted in [
            // The issue's own example: an inline fence on one line.
            "Here is an example: ```WriteVar(name=\"x\", value=\"y\")```",
            "Here is an example: ```read_file(path=\"a\")```",
            "Try `read_file(path=\"a\")` yourself.",
            "Example:\n```\nread_file(path=\"a\")\n```\nThat is all.",
            "Example:\n~~~text\nread_file(path=\"a\")\n~~~",
            "```json\n{\"name\": \"calc\", \"arguments\": {\"expr\": \"2*3\"}}\n```",
            "The page says to quote this:\n```\n<tool_call>{\"name\":\"calc\",\"arguments\":{}}</tool_call>\n```",
            "Inline `<tool_call>{\"name\":\"calc\",\"arguments\":{}}</tool_call>` stays text",
            // An unclosed fence runs to the end of the answer.
            "```\nread_file(path=\"a\")",
            // An indented code block.
            "For example:\n\n    read_file(path=\"a\")",
            "For example:\n\n\t<tool_call>{\"name\":\"calc\",\"arguments\":{}}</tool_call>",
        ] {
            let known_with_writevar = |n: &str| known(n) || n == "WriteVar";
            let p = parse_text_calls(quoted, &known_with_writevar);
            assert!(p.calls.is_empty(), "{quoted:?} became {:?}", p.calls);
            assert_eq!(p.text, quoted.trim(), "the example stays visible");
        }
        // Outside the code, a call on its own line still counts.
        let p = parse_text_calls(
            "```\nread_file(path=\"a\")\n```\nread_file(path=\"b\")",
            &known,
        );
        assert_eq!(p.calls.len(), 1);
        assert_eq!(
            p.calls[0].arguments,
            RawArguments::Json(json!({"path": "b"}))
        );
    }

    #[test]
    fn tagged_calls_only_for_enabled_tools() {
        let p = parse_text_calls(
            "<tool_call>{\"name\":\"run_command\",\"arguments\":{\"command\":\"rm -rf ~\"}}</tool_call>",
            &known,
        );
        assert!(
            p.calls.is_empty(),
            "a tool this chat does not offer stays text"
        );
    }

    #[test]
    fn call_syntax_on_its_own_line() {
        let p = parse_text_calls(
            "I will read it.\nread_file(path=\"src/main.rs\", offset=10, all=True, tags=[\"a\"], ratio=0.5, note='it\\'s')\nThen answer.",
            &known,
        );
        assert_eq!(p.calls.len(), 1);
        assert_eq!(
            p.calls[0].arguments,
            RawArguments::Json(
                json!({"path": "src/main.rs", "offset": 10, "all": true, "tags": ["a"], "ratio": 0.5, "note": "it's"})
            )
        );
        assert_eq!(p.text, "I will read it.\nThen answer.");
        let p = parse_text_calls("now()", &known);
        assert_eq!(p.calls[0].arguments, RawArguments::Json(json!({})));
        let p = parse_text_calls("`now()`", &known);
        assert!(p.calls.is_empty(), "inline code is a quotation, not a call");
    }

    #[test]
    fn call_syntax_errors_and_prose_mentions() {
        let p = parse_text_calls("read_file(\"a.txt\")", &known);
        let RawArguments::Invalid { error, .. } = &p.calls[0].arguments else {
            panic!()
        };
        assert!(
            error.contains("positional arguments are not supported")
                || error.contains("expected an argument name"),
            "{error}"
        );
        let p = parse_text_calls("You can call read_file(path) to read a file.", &known);
        assert!(p.calls.is_empty());
        let p = parse_text_calls("print(x=1)", &known);
        assert!(p.calls.is_empty(), "unknown names are prose");
    }

    proptest! {
        #[test]
        fn never_panics(s in "(\\PC|<tool_call>|</tool_call>|\\{|\\}|\"name\"|read_file\\(|\\)|=|,|'|\"){0,80}") {
            let _ = parse_text_calls(&s, &known);
        }
    }
}
