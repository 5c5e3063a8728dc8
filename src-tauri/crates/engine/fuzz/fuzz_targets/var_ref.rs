//! `$VAR_REF{{…}}` resolution over arbitrary input and arbitrary (possibly cyclic) variables.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use tollgate_engine::vars::reference::resolve_str;
use tollgate_engine::vars::{VarKind, VarLimits, VarStore};
use tollgate_engine::ChatId;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The first lines become variables a, b, c; the rest is the input.
    let mut parts = text.splitn(4, '\n');
    let vars = VarStore::in_memory(
        ChatId(1),
        VarLimits {
            max_count: 16,
            max_bytes: 1 << 20,
        },
    );
    for name in ["a", "b", "c"] {
        if let Some(value) = parts.next() {
            let _ = vars.set(name, Arc::from(value), VarKind::User);
        }
    }
    let input = parts.next().unwrap_or_default();
    if let Ok(out) = resolve_str(input, &vars) {
        if !input.contains("$VAR_REF{{") {
            assert_eq!(out, input);
        }
    }
});
