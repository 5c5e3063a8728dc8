//! Rooms with doors (docs/ARCHITECTURE.md, "Rooms and their doors"): no production function over
//! 100 lines and no production type with more than 40 methods of its own. Those over today are
//! listed below with their size, and the list only shrinks: a listed one that grows fails, a new
//! one over fails, and one brought under fails until it is taken off the list, so the list says
//! what is left to split.
//!
//! The reading is lexical: comments, strings and character literals are blanked (their line
//! breaks kept), a function runs from its `fn` to the brace that closes its body, a type's
//! methods are the functions of its inherent `impl` blocks in its crate. Production code is
//! what `file_sizes.rs` counts, less the items under `#[cfg(test)]`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::layers::{blanked, files_under, repo_root};

/// The most lines a production function may have.
const MAX_FUNCTION_LINES: usize = 100;

/// The most methods a production type may have in its inherent `impl` blocks.
const MAX_METHODS: usize = 40;

/// Functions over [`MAX_FUNCTION_LINES`] today (`crate-relative path::name`, lines): none may
/// grow, and each leaves the list when it is split.
const LONG_FUNCTIONS: &[(&str, usize)] = &[];

/// Types over [`MAX_METHODS`] today (`crate::Type`, methods): none may gain one.
const BIG_TYPES: &[(&str, usize)] = &[];

/// A file's blanked code without its test items: each item after a `#[cfg(test)]` (a test
/// module, a helper for tests) is blanked to the brace or `;` that ends it.
fn production_code(text: &str) -> String {
    let mut code = blanked(text).into_bytes();
    let marker = b"#[cfg(test)]";
    let mut from = 0;
    while let Some(rel) = code[from..].windows(marker.len()).position(|w| w == marker) {
        let at = from + rel;
        let end = match code[at..].iter().position(|&c| c == b'{' || c == b';') {
            Some(k) if code[at + k] == b'{' => closing(&code, at + k).unwrap_or(code.len() - 1),
            Some(k) => at + k,
            None => code.len() - 1,
        };
        for c in &mut code[at..=end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = end + 1;
    }
    String::from_utf8_lossy(&code).into_owned()
}

/// Where the brace opened at byte `open` closes, as a byte offset.
fn closing(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].matches('\n').count() + 1
}

/// Whether `code[at..]` starts the keyword `word` as a word of its own (followed by a space,
/// or by the generics of an `impl<T>`).
fn keyword_at(code: &[u8], at: usize, word: &[u8]) -> bool {
    code[at..].starts_with(word)
        && (at == 0 || !(code[at - 1].is_ascii_alphanumeric() || code[at - 1] == b'_'))
        && code
            .get(at + word.len())
            .is_some_and(|c| c.is_ascii_whitespace() || *c == b'<')
}

/// Each function with a body in `code`: its name, first line and number of lines.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for at in 0..b.len() {
        if !keyword_at(b, at, b"fn") {
            continue;
        }
        let name: String = code[at + 2..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body's brace, unless a `;` ends a declaration first.
        let Some(rel) = code[at..].find(['{', ';']) else {
            continue;
        };
        if b[at + rel] == b';' {
            continue;
        }
        let Some(close) = closing(b, at + rel) else {
            continue;
        };
        let first = line_of(code, at);
        out.push((name, first, line_of(code, close) - first + 1));
    }
    out
}

/// The type of each inherent `impl` block in `code` (`impl<T> Name<T> {`, not `impl Trait for
/// Name`) and how many functions its body holds at its own level.
fn inherent_impls(code: &str) -> Vec<(String, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for at in 0..b.len() {
        if !keyword_at(b, at, b"impl") || (at > 0 && !b[at - 1].is_ascii_whitespace()) {
            continue;
        }
        let Some(rel) = code[at..].find(['{', ';']) else {
            continue;
        };
        if b[at + rel] == b';' {
            continue;
        }
        let head = &code[at + 4..at + rel];
        if head.split_whitespace().any(|w| w == "for") {
            continue;
        }
        let head = head.trim_start();
        // Skip the generics after `impl`.
        let head = if head.starts_with('<') {
            let mut depth = 0;
            let mut end = 0;
            for (k, c) in head.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' => {
                        depth -= 1;
                        if depth == 0 {
                            end = k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            &head[end..]
        } else {
            head
        };
        let name: String = head
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(close) = closing(b, at + rel) else {
            continue;
        };
        let body = &code[at + rel + 1..close];
        // Functions at the block's own level: depth 0 inside the body.
        let bb = body.as_bytes();
        let mut depth = 0usize;
        let mut count = 0;
        for k in 0..bb.len() {
            match bb[k] {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ if depth == 0 && keyword_at(bb, k, b"fn") => count += 1,
                _ => {}
            }
        }
        if !name.is_empty() {
            out.push((name, count));
        }
    }
    out
}

/// The production Rust files of each crate: (crate, path from the crate's `src`, text).
fn production_files() -> Vec<(String, String, String)> {
    let root = repo_root();
    let mut out = Vec::new();
    let mut dirs: Vec<(String, PathBuf)> = vec![("app-shell".into(), root.join("src-tauri/src"))];
    let crates = root.join("src-tauri/crates");
    for entry in std::fs::read_dir(&crates).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if ["fuzz", "repo-checks", "test-support", "mock-llm", "scale"].contains(&name.as_str()) {
            continue;
        }
        dirs.push((name, entry.path().join("src")));
    }
    for (krate, src) in dirs {
        let mut files = Vec::new();
        files_under(&src, &["target"], &mut files);
        for file in files {
            let rel = file
                .strip_prefix(&src)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            if !rel.ends_with(".rs") || rel.ends_with("_tests.rs") || rel.starts_with("bin/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            out.push((krate.clone(), rel, text));
        }
    }
    out
}

/// Measured sizes now: long functions (`crate/path::name` → lines) and types (`crate::Type` →
/// methods), each over its limit.
fn over_limits() -> (BTreeMap<String, usize>, BTreeMap<String, usize>, usize) {
    let mut long = BTreeMap::new();
    let mut methods: BTreeMap<String, usize> = BTreeMap::new();
    let mut read = 0;
    for (krate, rel, text) in production_files() {
        read += 1;
        let code = production_code(&text);
        for (name, _, lines) in functions(&code) {
            if lines > MAX_FUNCTION_LINES {
                let key = format!("{krate}/{rel}::{name}");
                let entry = long.entry(key).or_insert(0);
                *entry = (*entry).max(lines);
            }
        }
        for (name, count) in inherent_impls(&code) {
            *methods.entry(format!("{krate}::{name}")).or_insert(0) += count;
        }
    }
    methods.retain(|_, n| *n > MAX_METHODS);
    (long, methods, read)
}

/// What the list says against what was measured: new ones over, listed ones grown, listed ones
/// now under (to be taken off).
fn compare(
    kind: &str,
    listed: &[(&str, usize)],
    measured: &BTreeMap<String, usize>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, now) in measured {
        match listed.iter().find(|(n, _)| n == name) {
            None => out.push(format!(
                "{kind} {name}: {now}, over the limit and not listed"
            )),
            Some((_, was)) if now > was => {
                out.push(format!("{kind} {name}: grew from {was} to {now}"))
            }
            Some((_, was)) if now < was => out.push(format!(
                "{kind} {name}: now {now} (listed at {was}): write the smaller figure"
            )),
            Some(_) => {}
        }
    }
    for (name, was) in listed {
        if !measured.contains_key(*name) {
            out.push(format!(
                "{kind} {name}: no longer over the limit (listed at {was}): take it off the list"
            ));
        }
    }
    out
}

#[test]
fn no_function_over_100_lines_and_no_type_over_40_methods_beyond_todays_list() {
    let (long, big, read) = over_limits();
    assert!(read > 200, "only {read} files read: is the walk right?");
    let mut found = compare("function", LONG_FUNCTIONS, &long);
    found.extend(compare("type", BIG_TYPES, &big));
    assert!(
        found.is_empty(),
        "split by subject (docs/ARCHITECTURE.md, \"Rooms and their doors\"):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reading_finds_functions_and_methods_where_they_are() {
    let code = production_code(
        r##"
/// A doc with fn inside and { a brace.
impl<T: Clone> Holder<T> {
    pub fn one(&self) -> &str { "}" }
    fn two(&self) {
        let c = '{';
        let s = r#"fn fake() {"#;
        if true { }
    }
}
impl std::fmt::Display for Holder<u8> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) }
}
trait Named { fn name(&self) -> String; }
#[cfg(test)]
mod tests { fn hidden() {} }
"##,
    );
    let found = functions(&code);
    let names: Vec<&str> = found.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["one", "two", "fmt"], "{found:?}");
    let two = found.iter().find(|(n, _, _)| n == "two").unwrap();
    assert_eq!(two.2, 5, "{two:?}");
    assert_eq!(inherent_impls(&code), vec![("Holder".to_string(), 2)]);
}
