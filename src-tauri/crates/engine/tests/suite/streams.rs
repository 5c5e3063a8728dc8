//! Streams split at arbitrary points assemble to the same completion (SSE framing and streamed
//! tool arguments), in both wire formats.

use proptest::prelude::*;
use tollgate_mock_llm::{anthropic, openai};
use tollgate_providers::anthropic::AnthropicStream;
use tollgate_providers::openai::OpenAiStream;
use tollgate_providers::sse::SseParser;
use tollgate_providers::{Completion, ProviderError, StreamAssembler};

fn split_at(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut last = 0;
    for c in cuts {
        out.push(bytes[last..c].to_vec());
        last = c;
    }
    out.push(bytes[last..].to_vec());
    out
}

fn run<A: StreamAssembler + Default>(pieces: &[Vec<u8>]) -> Result<Completion, ProviderError> {
    let mut parser = SseParser::new();
    let mut stream = A::default();
    let mut err = None;
    for p in pieces {
        parser.feed(p, &mut |ev| {
            if err.is_none() {
                if let Err(e) = stream.on_data(&ev.data, &mut |_| {}) {
                    err = Some(e);
                }
            }
        });
    }
    match err {
        Some(e) => Err(e),
        None => stream.finish(),
    }
}

fn run_openai(pieces: &[Vec<u8>]) -> Result<Completion, ProviderError> {
    run::<OpenAiStream>(pieces)
}

fn run_anthropic(pieces: &[Vec<u8>]) -> Result<Completion, ProviderError> {
    run::<AnthropicStream>(pieces)
}

proptest! {
    #[test]
    fn openai_streams_assemble_the_same_whatever_the_split(
        text in "[a-zA-Z0-9 äöü🙂.,!]{0,60}",
        args in "[a-z0-9 :,\"{}\\[\\]]{0,40}",
        cuts in proptest::collection::vec(0usize..10_000, 0..20),
    ) {
        let frames = openai::frames(&text, &[("call_a", "tool_a", &args), ("call_b", "tool_b", "{}")]);
        let bytes: Vec<u8> = frames.concat().into_bytes();
        let whole = run_openai(std::slice::from_ref(&bytes)).unwrap();
        prop_assert_eq!(&whole.text, &text);
        prop_assert_eq!(&whole.tool_calls[0].arguments, &args);
        let split = run_openai(&split_at(&bytes, &cuts)).unwrap();
        prop_assert_eq!(split, whole);
    }

    #[test]
    fn anthropic_streams_assemble_the_same_whatever_the_split(
        text in "[a-zA-Z0-9 äöü🙂.,!]{0,60}",
        input in "[a-z0-9 :,\"{}]{0,40}",
        cuts in proptest::collection::vec(0usize..10_000, 0..20),
    ) {
        let frames = anthropic::frames(&text, &[("toolu_a", "tool_a", &input)]);
        let bytes: Vec<u8> = frames.concat().into_bytes();
        let whole = run_anthropic(std::slice::from_ref(&bytes)).unwrap();
        prop_assert_eq!(&whole.text, &text);
        let expected = if input.trim().is_empty() { "{}".to_string() } else { input.clone() };
        prop_assert_eq!(&whole.tool_calls[0].arguments, &expected);
        let split = run_anthropic(&split_at(&bytes, &cuts)).unwrap();
        prop_assert_eq!(split, whole);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = run_openai(std::slice::from_ref(&bytes));
        let _ = run_anthropic(&[bytes]);
    }
}
