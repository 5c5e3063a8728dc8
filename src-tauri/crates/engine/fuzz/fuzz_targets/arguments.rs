//! Streamed argument text from providers: arbitrary bytes give an object or a clear error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tollgate_engine::parse::{parse_arguments, RawArguments};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    match parse_arguments(&RawArguments::Text(text)) {
        Ok(v) => assert!(v.is_object()),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
