//! Text-format tool calls: any model output must parse without panicking, and every call found
//! must carry a name (possibly empty) and arguments that `parse_arguments` can judge.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tollgate_engine::parse::{parse_arguments, parse_text_calls};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let known = |name: &str| matches!(name, "read_file" | "calculate" | "run");
        let parsed = parse_text_calls(text, &known);
        for call in &parsed.calls {
            let _ = parse_arguments(&call.arguments);
        }
        assert!(parsed.text.len() <= text.len());
    }
});
