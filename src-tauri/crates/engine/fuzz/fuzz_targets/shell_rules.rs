//! Shell command lines and rule patterns from anywhere: parsing never crashes, a plain command's
//! exact suggestion matches it, and a deny rule for a plain command's first word always matches.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tollgate_engine::rules::command::{parse, suggest_pattern, CommandPattern};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (cmd, pattern) = text.split_once('\u{1}').unwrap_or((&text, "rm *"));
    let parsed = parse(cmd);
    if let Ok(p) = CommandPattern::parse(pattern) {
        let _ = parsed.matches_any(&p);
    }
    if let Some(argv) = parsed.plain_argv() {
        if let Some(first) = argv.first() {
            if let Ok(deny) = CommandPattern::parse(&format!("'{}' *", first.replace('\'', ""))) {
                if !first.contains('\'') {
                    assert!(parsed.matches_any(&deny), "{cmd:?}");
                }
            }
        }
        if let Some(s) = suggest_pattern(cmd) {
            let p = CommandPattern::parse(&s).expect("a suggestion parses");
            assert!(p.matches(argv), "{cmd:?} → {s:?}");
        }
    }
});
