//! Tool calls written as text (F-10), for models without native tool calling:
//! `<tool_call>{"name":…,"arguments":…}</tool_call>`, a bare JSON object with `name` and
//! `arguments`, and `name(arg="v", n=1)` on a line of its own.
//!
//! Bare JSON and call syntax are only taken as calls when they name a known tool, so a model
//! that shows an example object or mentions a function in prose is not misread.

use super::RawArguments;
use serde_json::{Map, Number, Value};

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

/// Finds the tool calls in `text`. `is_known` says whether a name is a tool.
pub fn parse_text_calls(text: &str, is_known: &dyn Fn(&str) -> bool) -> TextParse {
    if text.contains(OPEN) {
        return tagged_calls(text);
    }
    let bare = bare_json_calls(text, is_known);
    if !bare.calls.is_empty() {
        return bare;
    }
    call_syntax(text, is_known)
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

fn tagged_calls(text: &str) -> TextParse {
    let mut calls = Vec::new();
    let mut prose = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        prose.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        let (inner, next) = match after.find(CLOSE) {
            Some(end) => (&after[..end], &after[end + CLOSE.len()..]),
            None => (after, ""),
        };
        calls.push(envelope_to_call(inner));
        rest = next;
    }
    prose.push_str(rest);
    TextParse {
        text: prose.trim().to_string(),
        calls,
    }
}

fn bare_json_calls(text: &str, is_known: &dyn Fn(&str) -> bool) -> TextParse {
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
                    Some(name) if has_args && is_known(name) => {
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
        text: strip_empty_fences(&prose),
        calls,
    }
}

/// Removes code fences left empty once a call was taken out of them.
fn strip_empty_fences(s: &str) -> String {
    let mut out = s.to_string();
    for fence in ["```json\n\n```", "```json\n```", "```\n\n```", "```\n```"] {
        out = out.replace(fence, "");
    }
    out.trim().to_string()
}

fn call_syntax(text: &str, is_known: &dyn Fn(&str) -> bool) -> TextParse {
    let mut calls = Vec::new();
    let mut prose = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim().trim_matches('`').trim();
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
            "Example: {\"name\": \"unknown\", \"arguments\": {}}\n```json\n{\"name\": \"calc\", \"arguments\": {\"expr\": \"2*3\"}}\n```",
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
        let p = parse_text_calls("`now()`", &known);
        assert_eq!(p.calls[0].arguments, RawArguments::Json(json!({})));
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
