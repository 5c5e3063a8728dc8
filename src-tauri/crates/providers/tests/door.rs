//! The secrets' door as a property (F-46; SECURITY.md, "Redaction"): random secrets — random
//! keys, passphrases of words, digits, a repeated word — put into every text a request is built
//! from (the system prompt, a tool's name, description and schema, the user's message, the
//! model's text and its call's arguments, a tool's result), through every encoding the redactor
//! claims to see through, behind and before other text on their line. Nothing of the secret can
//! be decoded from the request as it leaves ([`Outgoing::seal`]), by the decoder that undoes
//! each encoding — written here, apart from the redactor's own.

#![allow(clippy::unwrap_used)]

use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use base64::Engine;
use proptest::prelude::*;
use serde_json::json;
use std::sync::OnceLock;
use tollgate_protocol::ToolDefinition;
use tollgate_providers::{
    AssistantToolCall, ChatMessage, ChatRequest, Outgoing, ToolResultMessage,
};
use tollgate_secrets::door::SecretDoor;

const WORDS: &[&str] = &[
    "correct", "horse", "battery", "staple", "orange", "window", "river", "marble", "quiet",
    "lantern", "copper", "meadow",
];

/// The secrets of the run, each remembered once (as the keychain remembers what it holds): of
/// every kind, from a fixed seed so a failure can be replayed.
fn secrets() -> &'static [String] {
    static SECRETS: OnceLock<Vec<String>> = OnceLock::new();
    SECRETS.get_or_init(|| {
        let mut seed: u64 = 0x5eed_7011_6a7e;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let alnum: Vec<char> = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
        let b64: Vec<char> = alnum.iter().copied().chain(['+', '/']).collect();
        let mut out = Vec::new();
        for _ in 0..8 {
            let len = 20 + next(40);
            out.push((0..len).map(|_| alnum[next(alnum.len())]).collect());
            let len = 24 + next(40);
            out.push((0..len).map(|_| b64[next(b64.len())]).collect::<String>());
            let len = 32 + next(20);
            out.push(format!(
                "sk-proj-{}",
                (0..len)
                    .map(|_| alnum[next(alnum.len())])
                    .collect::<String>()
            ));
            let n = 3 + next(3);
            let sep = ["-", " ", "_", ""][next(4)];
            out.push(
                (0..n)
                    .map(|_| WORDS[next(WORDS.len())])
                    .collect::<Vec<_>>()
                    .join(sep),
            );
            let len = 12 + next(12);
            out.push(
                (0..len)
                    .map(|_| char::from(b'0' + next(10) as u8))
                    .collect(),
            );
            let word = WORDS[next(WORDS.len())];
            out.push(word.repeat(3 + next(3)));
        }
        for s in &out {
            tollgate_secrets::remember(s);
        }
        out
    })
}

/// What a command (or a model) does to a line before it is read.
#[derive(Debug, Clone, Copy)]
enum Encoding {
    Plain,
    Base64,
    Base64Url,
    Base64Wrapped,
    Hex,
    HexUpper,
    XxdWrapped,
    OdBytes,
    Reversed,
    Rot13,
    Percent,
    Spaced,
    OnePerLine,
    DashBetween,
    CaseSwapped,
    Base64Twice,
    ReversedThenBase64,
    Base64ThenHex,
    HexThenBase64,
    Base64ThenCaseSwapped,
}

const ENCODINGS: [Encoding; 20] = [
    Encoding::Plain,
    Encoding::Base64,
    Encoding::Base64Url,
    Encoding::Base64Wrapped,
    Encoding::Hex,
    Encoding::HexUpper,
    Encoding::XxdWrapped,
    Encoding::OdBytes,
    Encoding::Reversed,
    Encoding::Rot13,
    Encoding::Percent,
    Encoding::Spaced,
    Encoding::OnePerLine,
    Encoding::DashBetween,
    Encoding::CaseSwapped,
    Encoding::Base64Twice,
    Encoding::ReversedThenBase64,
    Encoding::Base64ThenHex,
    Encoding::HexThenBase64,
    Encoding::Base64ThenCaseSwapped,
];

fn wrap(text: &str, width: usize) -> String {
    text.as_bytes()
        .chunks(width)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn rot13(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' => char::from(b'a' + (c as u8 - b'a' + 13) % 26),
            'A'..='Z' => char::from(b'A' + (c as u8 - b'A' + 13) % 26),
            _ => c,
        })
        .collect()
}

fn swap_case(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

fn reversed(text: &str) -> String {
    text.chars().rev().collect()
}

/// `line` as `encoding` turns it.
fn encode(encoding: Encoding, line: &str) -> String {
    let b = line.as_bytes();
    match encoding {
        Encoding::Plain => line.to_string(),
        Encoding::Base64 => STANDARD.encode(b),
        Encoding::Base64Url => URL_SAFE.encode(b),
        Encoding::Base64Wrapped => wrap(&STANDARD.encode(b), 76),
        Encoding::Hex => hex::encode(b),
        Encoding::HexUpper => hex::encode_upper(b),
        Encoding::XxdWrapped => wrap(&hex::encode(b), 60),
        Encoding::OdBytes => b
            .chunks(16)
            .map(|c| c.iter().map(|x| format!(" {x:02x}")).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n"),
        Encoding::Reversed => reversed(line),
        Encoding::Rot13 => rot13(line),
        Encoding::Percent => b.iter().map(|x| format!("%{x:02X}")).collect(),
        Encoding::Spaced => line.chars().map(|c| format!("{c} ")).collect(),
        Encoding::OnePerLine => line.chars().map(|c| format!("{c}\n")).collect(),
        Encoding::DashBetween => line.chars().map(|c| format!("{c}-")).collect(),
        Encoding::CaseSwapped => swap_case(line),
        Encoding::Base64Twice => STANDARD.encode(STANDARD.encode(b)),
        Encoding::ReversedThenBase64 => STANDARD.encode(reversed(line)),
        Encoding::Base64ThenHex => hex::encode(STANDARD.encode(b)),
        Encoding::HexThenBase64 => STANDARD.encode(hex::encode(b)),
        Encoding::Base64ThenCaseSwapped => swap_case(&STANDARD.encode(b)),
    }
}

fn unbase64(text: &str) -> String {
    let clean: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let clean = clean.trim_end_matches('=');
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let standard: String = clean.replace('-', "+").replace('_', "/");
    engine
        .decode(standard.as_bytes())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

fn unhex(text: &str) -> String {
    let clean: String = text.chars().filter(char::is_ascii_hexdigit).collect();
    let even = &clean[..clean.len() / 2 * 2];
    hex::decode(even)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// What a reader who knows the encoding gets back from `text`.
fn decode(encoding: Encoding, text: &str) -> String {
    match encoding {
        Encoding::Plain => text.to_string(),
        Encoding::Base64 | Encoding::Base64Url | Encoding::Base64Wrapped => unbase64(text),
        Encoding::Hex | Encoding::HexUpper | Encoding::XxdWrapped | Encoding::OdBytes => {
            unhex(text)
        }
        Encoding::Reversed => reversed(text),
        Encoding::Rot13 => rot13(text),
        Encoding::Percent => unhex(&text.replace('%', "")),
        Encoding::Spaced | Encoding::OnePerLine => {
            text.chars().filter(|c| *c != '\n').collect::<String>()
        }
        Encoding::DashBetween => text.chars().step_by(2).collect(),
        Encoding::CaseSwapped => swap_case(text),
        Encoding::Base64Twice => unbase64(&unbase64(text)),
        Encoding::ReversedThenBase64 => reversed(&unbase64(text)),
        Encoding::Base64ThenHex => unbase64(&unhex(text)),
        Encoding::HexThenBase64 => unhex(&unbase64(text)),
        Encoding::Base64ThenCaseSwapped => unbase64(&swap_case(text)),
    }
}

/// The stretches of `secret` whose presence gives it away: every 10 characters of a random key,
/// every 16 of a secret without key material (words, digits, a repeated word), compared
/// without case and without spaces.
fn stretches(secret: &str) -> Vec<String> {
    let low_entropy = secret.chars().all(|c| c.is_ascii_digit())
        || secret
            .chars()
            .all(|c| c.is_ascii_lowercase() || " -_".contains(c));
    let n = if low_entropy { 16 } else { 10 };
    let chars: Vec<char> = secret
        .to_lowercase()
        .chars()
        .filter(|c| *c != ' ')
        .collect();
    if chars.len() <= n {
        return vec![chars.iter().collect()];
    }
    chars.windows(n).map(|w| w.iter().collect()).collect()
}

fn gives_away(text: &str, secret: &str) -> Option<String> {
    let seen: String = text
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    stretches(secret)
        .into_iter()
        .find(|s| seen.contains(s.as_str()))
}

/// Where in a request the text goes.
#[derive(Debug, Clone, Copy)]
enum Route {
    System,
    ToolName,
    ToolDescription,
    ToolSchema,
    User,
    Assistant,
    CallArguments,
    ToolResult,
    ToolError,
}

const ROUTES: [Route; 9] = [
    Route::System,
    Route::ToolName,
    Route::ToolDescription,
    Route::ToolSchema,
    Route::User,
    Route::Assistant,
    Route::CallArguments,
    Route::ToolResult,
    Route::ToolError,
];

/// A request of a few ordinary messages with `text` at `route`.
fn request_with(route: Route, text: &str) -> ChatRequest {
    let mut request = ChatRequest {
        model: "m".into(),
        system: "You are helpful.".into(),
        tools: vec![ToolDefinition {
            name: "read_file".into(),
            description: "Reads a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        messages: vec![
            ChatMessage::User {
                content: "Look at the key file.".into(),
                images: Vec::new(),
            },
            ChatMessage::Assistant {
                content: "Reading it.".into(),
                tool_calls: vec![AssistantToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"key.txt"}"#.into(),
                }],
                thinking: Vec::new(),
            },
            ChatMessage::Tool {
                results: vec![ToolResultMessage {
                    call_id: "c1".into(),
                    name: "read_file".into(),
                    content: "Exit code 0.".into(),
                    is_error: false,
                    sources: Vec::new(),
                }],
            },
        ],
        ..Default::default()
    };
    let text = text.to_string();
    match route {
        Route::System => request.system = text,
        Route::ToolName => request.tools[0].name = text,
        Route::ToolDescription => request.tools[0].description = text,
        Route::ToolSchema => {
            request.tools[0].parameters["properties"]["path"]["description"] = json!(text)
        }
        Route::User => request.messages[0] = user(text),
        Route::Assistant => {
            if let ChatMessage::Assistant { content, .. } = &mut request.messages[1] {
                *content = text;
            }
        }
        Route::CallArguments => {
            if let ChatMessage::Assistant { tool_calls, .. } = &mut request.messages[1] {
                tool_calls[0].arguments = text;
            }
        }
        Route::ToolResult | Route::ToolError => {
            if let ChatMessage::Tool { results } = &mut request.messages[2] {
                results[0].content = text;
                results[0].is_error = matches!(route, Route::ToolError);
            }
        }
    }
    request
}

fn user(content: String) -> ChatMessage {
    ChatMessage::User {
        content,
        images: Vec::new(),
    }
}

/// The text at `route` of a request as it left.
fn text_at(route: Route, request: &ChatRequest) -> String {
    match route {
        Route::System => request.system.clone(),
        Route::ToolName => request.tools[0].name.clone(),
        Route::ToolDescription => request.tools[0].description.clone(),
        Route::ToolSchema => request.tools[0].parameters["properties"]["path"]["description"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        Route::User | Route::Assistant => {
            match &request.messages[usize::from(!matches!(route, Route::User))] {
                ChatMessage::User { content, .. } | ChatMessage::Assistant { content, .. } => {
                    content.clone()
                }
                ChatMessage::Tool { .. } => String::new(),
            }
        }
        Route::CallArguments => match &request.messages[1] {
            ChatMessage::Assistant { tool_calls, .. } => tool_calls[0].arguments.clone(),
            _ => String::new(),
        },
        Route::ToolResult | Route::ToolError => match &request.messages[2] {
            ChatMessage::Tool { results } => results[0].content.clone(),
            _ => String::new(),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn nothing_of_a_secret_can_be_decoded_from_a_request_as_it_leaves(
        which in 0usize..48,
        encoding in 0usize..ENCODINGS.len(),
        route in 0usize..ROUTES.len(),
        before in "[a-zA-Z0-9_=:]{0,9}",
        after in prop::sample::select(vec!["", " expires=never", "\n", "\"}"]),
        header in any::<bool>(),
        door_seen in any::<bool>(),
    ) {
        let secrets = secrets();
        let secret = &secrets[which % secrets.len()];
        let (encoding, route) = (ENCODINGS[encoding], ROUTES[route]);
        let line = format!("{before}{secret}{after}");
        let encoded = encode(encoding, &line);
        // The encoded output on its own line, as a command prints it, or alone.
        let text = if header {
            format!("Exit code 0.\n--- stdout ---\n{encoded}\n")
        } else {
            encoded
        };
        let mut door = SecretDoor::new();
        if door_seen {
            // The door has let this request through before (a later round of the same turn).
            let _ = Outgoing::seal(request_with(route, &text), &mut door);
        }
        let sealed = Outgoing::seal(request_with(route, &text), &mut door);
        let left = text_at(route, &sealed);
        let output = left.rsplit("--- stdout ---\n").next().unwrap_or(&left);
        let decoded = decode(encoding, output);
        let whole = serde_json::to_string(sealed.request()).unwrap();
        for (what, seen) in [("as sent", whole.as_str()), ("decoded", decoded.as_str())] {
            prop_assert!(
                gives_away(seen, secret).is_none(),
                "{:?} at {:?}, {}: {:?} of {:?} is in {:?}\n(sent: {:?})",
                encoding, route, what, gives_away(seen, secret), secret, seen, left
            );
        }
    }
}

/// Not vacuous: without the door, the same decoders recover every secret from every encoding.
#[test]
fn the_decoders_recover_every_secret_from_its_encoding() {
    for secret in secrets() {
        for encoding in ENCODINGS {
            let line = format!("token={secret} expires=never");
            let back = decode(encoding, &encode(encoding, &line));
            assert!(
                gives_away(&back, secret).is_some(),
                "{encoding:?} of {secret:?}: {back:?}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// The door's price: ordinary output — base64 and hex of random bytes, dumps, prose,
    /// random identifiers — passes unchanged with every secret of the run remembered.
    #[test]
    fn ordinary_text_passes_the_door_unchanged(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        words in prop::collection::vec("[a-z]{2,9}", 0..40),
        ident in "[A-Za-z0-9_]{0,40}",
        encoding in 0usize..ENCODINGS.len(),
    ) {
        let _ = secrets();
        let prose = words.join(" ");
        let blob = String::from_utf8_lossy(&bytes).into_owned();
        let text = format!(
            "Exit code 0.\n--- stdout ---\n{}\n{}\n{prose}\n{ident}\n{}\n",
            STANDARD.encode(&bytes),
            hex::encode(&bytes),
            encode(ENCODINGS[encoding], &prose),
        );
        for text in [text, blob] {
            let sealed = Outgoing::seal(request_with(Route::ToolResult, &text), &mut SecretDoor::new());
            prop_assert_eq!(text_at(Route::ToolResult, &sealed), text);
        }
    }
}
