//! libFuzzer's entry for [`tollgate_fuzz::var_ref`] (the body and what it checks live there).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tollgate_fuzz::var_ref(data));
