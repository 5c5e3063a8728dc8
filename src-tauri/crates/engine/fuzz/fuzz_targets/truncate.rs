//! Head + tail truncation: never panics, never splits a char, and accounts for every char.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tollgate_engine::vars::truncate::truncate_head_tail;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let limit = usize::from(u16::from_le_bytes([data[0], data[1]]) % 512);
    let text = String::from_utf8_lossy(&data[2..]);
    let t = truncate_head_tail(&text, limit, Some("v"));
    assert_eq!(t.head_chars + t.omitted_chars + t.tail_chars, t.total_chars);
    assert!(t.text.is_char_boundary(t.text.len()));
});
