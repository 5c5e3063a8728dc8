//! Provider streams: arbitrary bytes through the SSE parser into both assemblers never panic,
//! and every failure is an error value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tollgate_engine::providers::anthropic::AnthropicStream;
use tollgate_engine::providers::openai::OpenAiStream;
use tollgate_engine::providers::sse::SseParser;
use tollgate_engine::providers::StreamAssembler;

fuzz_target!(|data: &[u8]| {
    let (head, tail) = data.split_at(data.len() / 2);
    let mut parser = SseParser::new();
    let mut openai = OpenAiStream::default();
    let mut anthropic = AnthropicStream::default();
    for piece in [head, tail] {
        parser.feed(piece, &mut |ev| {
            let _ = openai.on_data(&ev.data, &mut |_| {});
            let _ = anthropic.on_data(&ev.data, &mut |_| {});
        });
    }
    let _ = openai.finish();
    let _ = anthropic.finish();
});
