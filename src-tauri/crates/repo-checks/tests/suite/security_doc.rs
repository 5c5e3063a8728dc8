//! SECURITY.md pairs every attack with the test that tries it (SPEC §12). A test renamed, moved
//! or deleted leaves the document promising a check that no longer runs, and nothing else would
//! notice: this reads SECURITY.md, finds every test (and test file) it names and checks that each
//! exists where the document says, listing every miss at once with its line.
//!
//! The forms read, all inside backticks:
//! - `path.rs::name` (or `path.rs::module::name`): `fn name(` in that file or the tests it
//!   includes (`<stem>_tests.rs`, `<stem>/tests.rs`, a `#[path = "…"]` file);
//! - `path.ts::title` or `path.ts` "title", "title": an `it(` or `test(` with that title, where
//!   `…` stands for an elided part;
//! - `path.rs` "name", "name": functions of that file;
//! - `…::name` or `::name`, and a bare `name` right after `path.rs::other`, : the same file as
//!   the reference before;
//! - `File.test.tsx` (no folder): the file last named in full with that name (a bare name that
//!   stands for no earlier path is a reference only as a Vitest file: `evildocs.rs` is a host);
//! - `path.rs` alone: the file exists.
//!
//! Only a path ending in `.rs`, `.ts` or `.tsx` is a reference (`Asks::answer_approval` is not).
//! A path is tried from the repository root, then the engine crate, the app crate, the e2e crate.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// What a reference claims exists.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A Rust test: `fn name(`; a trailing `…` makes it a prefix of the name.
    Function(String),
    /// A Vitest test: `it("title"` or `test("title"`; `…` stands for an elided part.
    Title(String),
    /// The file itself.
    File,
}

/// One test or file that SECURITY.md names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
    /// 1-based line of SECURITY.md.
    line: usize,
    /// The path as written, with a bare file name or `…::` replaced by the path it stands for;
    /// empty when nothing before it said which file.
    file: String,
    target: Target,
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Target::Function(name) => write!(f, "`{}::{name}`", self.file),
            Target::Title(title) => write!(f, "`{}` \"{title}\"", self.file),
            Target::File => write!(f, "`{}`", self.file),
        }
    }
}

/// A piece of a Markdown line: a code span's content, or the text between spans.
#[derive(Debug, PartialEq, Eq)]
enum Segment<'a> {
    Code(&'a str),
    Text(&'a str),
}

/// Splits a line into code spans and text as CommonMark does: a run of N backticks opens a span
/// closed by the next run of exactly N; an unclosed run is text.
fn segments(line: &str) -> Vec<Segment<'_>> {
    let bytes = line.as_bytes();
    let run_at = |at: usize| bytes[at..].iter().take_while(|&&b| b == b'`').count();
    let mut out = Vec::new();
    let (mut text_start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = run_at(i);
        let mut j = i + run;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let r = run_at(j);
                if r == run {
                    close = Some(j);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(c) => {
                if text_start < i {
                    out.push(Segment::Text(&line[text_start..i]));
                }
                out.push(Segment::Code(line[i + run..c].trim()));
                i = c + run;
                text_start = i;
            }
            None => i += run,
        }
    }
    if text_start < line.len() {
        out.push(Segment::Text(&line[text_start..]));
    }
    out
}

fn is_source(path: &str) -> bool {
    !path.is_empty()
        && !path.contains(char::is_whitespace)
        && [".rs", ".ts", ".tsx"].iter().any(|ext| path.ends_with(ext))
}

fn is_rust(path: &str) -> bool {
    path.ends_with(".rs")
}

/// A test function's name as SECURITY.md writes one bare: snake case with an underscore (so a
/// bare `setsid` or `NotEndorsable` is not taken for one).
fn is_test_name(s: &str) -> bool {
    s.contains('_')
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The quoted strings at the start of `text`, after a dash, a space or an opening parenthesis
/// and separated by commas: the names or titles attached to the reference before `text`.
fn leading_quotes(text: &str) -> Vec<&str> {
    let mut rest =
        text.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '—' | '–' | '('));
    let mut out = Vec::new();
    while let Some(after) = rest.strip_prefix('"') {
        let Some(end) = after.find('"') else { break };
        out.push(&after[..end]);
        rest = after[end + 1..].trim_start();
        match rest.strip_prefix(',') {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    out
}

/// The reference just read on this line, while what follows it may still add to it.
struct Pending {
    file: String,
    /// Index of its `Target::File` reference, replaced by the first quoted name.
    bare: Option<usize>,
    /// Only a comma since it: a bare test name that follows belongs to its file.
    comma: bool,
}

/// Every reference to a test or a test file in `doc` (SECURITY.md's text), in order.
fn parse(doc: &str) -> Vec<Reference> {
    let mut refs: Vec<Reference> = Vec::new();
    let mut last_file: Option<String> = None;
    let mut full_paths: Vec<String> = Vec::new();
    for (index, line) in doc.lines().enumerate() {
        let line_no = index + 1;
        let mut pending: Option<Pending> = None;
        for segment in segments(line) {
            match segment {
                Segment::Code(code) => {
                    let before = pending.take();
                    let target_in = |file: &str, rest: &str| {
                        if file.is_empty() || is_rust(file) {
                            let name = rest.rsplit("::").next().unwrap_or(rest);
                            Target::Function(name.to_owned())
                        } else {
                            Target::Title(rest.to_owned())
                        }
                    };
                    let (file, target) = if let Some(rest) =
                        code.strip_prefix("…::").or_else(|| code.strip_prefix("::"))
                    {
                        let file = last_file.clone().unwrap_or_default();
                        let target = target_in(&file, rest);
                        (file, target)
                    } else if let Some((path, rest)) =
                        code.split_once("::").filter(|(path, _)| is_source(path))
                    {
                        let file = full_path(path, &mut full_paths).unwrap_or_default();
                        let target = target_in(&file, rest);
                        (file, target)
                    } else if let Some(file) = is_source(code)
                        .then(|| full_path(code, &mut full_paths))
                        .flatten()
                    {
                        (file, Target::File)
                    } else if let Some(before) =
                        before.filter(|b| b.comma && is_rust(&b.file) && is_test_name(code))
                    {
                        (before.file, Target::Function(code.to_owned()))
                    } else {
                        continue;
                    };
                    if !file.is_empty() {
                        last_file = Some(file.clone());
                    }
                    pending = Some(Pending {
                        file: file.clone(),
                        bare: (target == Target::File).then_some(refs.len()),
                        comma: false,
                    });
                    refs.push(Reference {
                        line: line_no,
                        file,
                        target,
                    });
                }
                Segment::Text(text) => {
                    let Some(p) = pending.as_mut() else { continue };
                    let quotes = leading_quotes(text);
                    if quotes.is_empty() {
                        if text.trim() == "," {
                            p.comma = true;
                        } else {
                            pending = None;
                        }
                        continue;
                    }
                    for quote in quotes {
                        let target = if is_rust(&p.file) {
                            Target::Function(quote.to_owned())
                        } else {
                            Target::Title(quote.to_owned())
                        };
                        match p.bare.take() {
                            Some(at) => refs[at].target = target,
                            None => refs.push(Reference {
                                line: line_no,
                                file: p.file.clone(),
                                target,
                            }),
                        }
                    }
                    pending = None;
                }
            }
        }
    }
    refs
}

/// A path as written, or for a bare file name the last path named in full that ends with it.
/// A bare name that stands for none is a reference only when it names a Vitest file: a host
/// such as `evildocs.rs` is not a file.
fn full_path(path: &str, full_paths: &mut Vec<String>) -> Option<String> {
    if path.contains('/') {
        full_paths.push(path.to_owned());
        return Some(path.to_owned());
    }
    let suffix = format!("/{path}");
    full_paths
        .iter()
        .rev()
        .find(|p| p.ends_with(&suffix))
        .cloned()
        .or_else(|| {
            [".test.ts", ".test.tsx"]
                .iter()
                .any(|ext| path.ends_with(ext))
                .then(|| path.to_owned())
        })
}

/// The file a path names: tried from the repository root, the engine crate, the app crate and
/// the e2e crate, in that order.
fn resolve(root: &Path, path: &str) -> Option<PathBuf> {
    ["", "src-tauri/crates/engine", "src-tauri", "tests"]
        .iter()
        .map(|base| root.join(base).join(path))
        .find(|p| p.is_file())
}

/// A Rust file and the files its tests may live in: `<stem>_tests.rs`, `<stem>/tests.rs`
/// (`tests.rs` beside a `mod.rs`), and any `#[path = "…"]` file beside it.
fn rust_files_with_tests(file: &Path, source: &str) -> Vec<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new(""));
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let mut out = vec![
        dir.join(format!("{stem}_tests.rs")),
        dir.join(stem).join("tests.rs"),
    ];
    if stem == "mod" {
        out.push(dir.join("tests.rs"));
    }
    for (at, _) in source.match_indices("#[path") {
        let rest = &source[at..];
        if let Some(start) = rest.find('"') {
            if let Some(len) = rest[start + 1..].find('"') {
                out.push(dir.join(&rest[start + 1..start + 1 + len]));
            }
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `source` defines `fn name(` (or `async fn`, or generic `fn name<`); a name ending in
/// `…` is a prefix of the function's name.
fn defines_fn(source: &str, name: &str) -> bool {
    let (name, prefix) = match name.strip_suffix('…') {
        Some(stem) => (stem, true),
        None => (name, false),
    };
    let needle = format!("fn {name}");
    source.match_indices(&needle).any(|(at, _)| {
        let starts_word = !source[..at].chars().next_back().is_some_and(is_ident_char);
        let mut after = source[at + needle.len()..].chars();
        let ends_well = if prefix {
            true
        } else {
            matches!(after.next(), Some('(' | '<'))
        };
        starts_word && ends_well
    })
}

/// The titles of the `it(…)` and `test(…)` calls in a Vitest file (their first argument when it
/// is a string literal).
fn test_titles(source: &str) -> Vec<String> {
    let mut titles = Vec::new();
    for keyword in ["it(", "test("] {
        for (at, _) in source.match_indices(keyword) {
            let preceded = source[..at]
                .chars()
                .next_back()
                .is_some_and(|c| is_ident_char(c) || c == '.' || c == '$');
            if preceded {
                continue;
            }
            let mut chars = source[at + keyword.len()..].trim_start().chars();
            let Some(quote @ ('"' | '\'' | '`')) = chars.next() else {
                continue;
            };
            let mut title = String::new();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => title.extend(chars.next()),
                    c if c == quote => break,
                    c => title.push(c),
                }
            }
            titles.push(title);
        }
    }
    titles
}

/// Whether a test's title is the one SECURITY.md quotes, where `…` stands for an elided part.
fn title_matches(title: &str, quoted: &str) -> bool {
    if !quoted.contains('…') {
        return title == quoted;
    }
    let mut pieces = quoted.split('…').map(str::trim);
    let first = pieces.next().unwrap_or("");
    let Some(mut rest) = title.strip_prefix(first) else {
        return false;
    };
    for piece in pieces.filter(|p| !p.is_empty()) {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// Why `reference` is not where SECURITY.md says, if it is not.
fn check(root: &Path, reference: &Reference) -> Result<(), String> {
    if reference.file.is_empty() {
        return Err("no file before it to stand for".to_owned());
    }
    let Some(path) = resolve(root, &reference.file) else {
        return Err(
            "no such file from the repository root, the engine, the app or the e2e crate"
                .to_owned(),
        );
    };
    let shown = path.strip_prefix(root).unwrap_or(&path).display();
    let read = |p: &Path| fs::read_to_string(p).unwrap_or_default();
    match &reference.target {
        Target::File => Ok(()),
        Target::Function(name) => {
            let source = read(&path);
            let found = defines_fn(&source, name)
                || rust_files_with_tests(&path, &source)
                    .iter()
                    .filter(|p| p.is_file())
                    .any(|p| defines_fn(&read(p), name));
            if found {
                Ok(())
            } else {
                Err(format!(
                    "no `fn {name}(` in {shown} or the tests it includes"
                ))
            }
        }
        Target::Title(quoted) => {
            if test_titles(&read(&path))
                .iter()
                .any(|t| title_matches(t, quoted))
            {
                Ok(())
            } else {
                Err(format!("no it(…) or test(…) with that title in {shown}"))
            }
        }
    }
}

#[test]
fn every_test_security_md_names_exists_where_it_says() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here
        .join("../../..")
        .canonicalize()
        .expect("the repository root");
    let doc = fs::read_to_string(root.join("SECURITY.md")).expect("SECURITY.md");
    let references = parse(&doc);
    assert!(
        references.len() >= 60,
        "only {} references found in SECURITY.md: is the parser still reading its forms?",
        references.len()
    );
    let problems: Vec<String> = references
        .iter()
        .filter_map(|r| {
            check(&root, r)
                .err()
                .map(|why| format!("  line {}: {r} — {why}", r.line))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{} of the {} tests and files SECURITY.md names are not where it says:\n{}",
        problems.len(),
        references.len(),
        problems.join("\n")
    );
}

#[test]
fn the_parser_reads_every_form_security_md_uses() {
    let sample = "\
Paths are relative to `src-tauri/crates/engine` unless they start with `tests/`.
| A | `tests/suite/injection.rs::a_model_obeys`; `src/provenance/guard.rs::tests::a_taint` |
| B | `src-tauri/crates/engine/src/tools/sandbox/proxy.rs::refused`; e2e `tests/tests/suite/window.rs` (a planted home) |
| C | `ui/src/session.test.ts` \"a page read … is dropped\"; `ui/src/links.test.ts::refuses every other scheme` |
| D | `src/provenance/spans.rs` — \"a_copied_iban\", \"every_stretch\"; `ToolExecutor::answer_approval` refuses with `NotEndorsable` |
| E | `tests/suite/service.rs::a_preset`, `…::a_chats_prompt`, `::a_third`, `a_fourth`; `tools::shell` — \"not_ours…\" |
| F | `ui/src/components/Card.test.tsx` (\"shows it\": more); `Card.test.tsx` — \"Enter on …\", \"Space on …\" for every button |
| G | ````WriteVar(`x`)```` runs; `src/chat/import.rs` (`c.sandbox = None`), `setsid`; `src-tauri/crates/turn/tests/suite/chaos.rs` |
| H | a look-alike (`evildocs.rs`, `docs.rs.evil.example`); `Other.test.tsx` |
";
    let at = |line: usize, file: &str, target: Target| Reference {
        line,
        file: file.to_owned(),
        target,
    };
    let function = |name: &str| Target::Function(name.to_owned());
    let title = |title: &str| Target::Title(title.to_owned());
    let card = "ui/src/components/Card.test.tsx";
    assert_eq!(
        parse(sample),
        vec![
            at(2, "tests/suite/injection.rs", function("a_model_obeys")),
            at(2, "src/provenance/guard.rs", function("a_taint")),
            at(
                3,
                "src-tauri/crates/engine/src/tools/sandbox/proxy.rs",
                function("refused")
            ),
            at(3, "tests/tests/suite/window.rs", Target::File),
            at(
                4,
                "ui/src/session.test.ts",
                title("a page read … is dropped")
            ),
            at(
                4,
                "ui/src/links.test.ts",
                title("refuses every other scheme")
            ),
            at(5, "src/provenance/spans.rs", function("a_copied_iban")),
            at(5, "src/provenance/spans.rs", function("every_stretch")),
            at(6, "tests/suite/service.rs", function("a_preset")),
            at(6, "tests/suite/service.rs", function("a_chats_prompt")),
            at(6, "tests/suite/service.rs", function("a_third")),
            at(6, "tests/suite/service.rs", function("a_fourth")),
            at(7, card, title("shows it")),
            at(7, card, title("Enter on …")),
            at(7, card, title("Space on …")),
            at(8, "src/chat/import.rs", Target::File),
            at(
                8,
                "src-tauri/crates/turn/tests/suite/chaos.rs",
                Target::File
            ),
            at(9, "Other.test.tsx", Target::File),
        ]
    );
    assert_eq!(
        parse("`…::orphan`"),
        vec![at(1, "", function("orphan"))],
        "an abbreviation with nothing before it is kept, to be reported"
    );
}

#[test]
fn functions_and_titles_are_found_as_written() {
    let rust = "mod tests {\n    #[tokio::test]\n    async fn a_test() {}\n    fn generic<T>() {}\n    fn a_test_longer() {}\n}\n";
    assert!(defines_fn(rust, "a_test"));
    assert!(defines_fn(rust, "generic"));
    assert!(defines_fn(rust, "a_test_lo…"));
    assert!(!defines_fn(rust, "a_tes"), "a name is matched whole");

    let ts = "describe(\"d\", () => {\n  it(\"Enter on “Deny” does nothing\", () => {});\n  test('it\\'s quoted', () => {});\n  await wait(\"not a test\");\n  it.each([1])(\"not read\");\n});\n";
    assert_eq!(
        test_titles(ts),
        vec!["Enter on “Deny” does nothing", "it's quoted"]
    );
    assert!(title_matches(
        "Enter on “Deny” does nothing",
        "Enter on “Deny” …"
    ));
    assert!(title_matches(
        "Enter on “Deny” does nothing",
        "Enter on … nothing"
    ));
    assert!(!title_matches(
        "Enter on Deny does nothing",
        "Enter on “Deny” …"
    ));
    assert!(!title_matches(
        "Enter on “Deny” does nothing",
        "Enter on “Deny”"
    ));
}
