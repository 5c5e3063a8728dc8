//! The facts of docs/ARCHITECTURE.md that drift when the code changes, read from the code and
//! held against the document (SPEC §10): the decision's inputs, the ask reasons, the app's
//! command modules and the count of types exported to the UI. (The crate table is checked in
//! `layers.rs`, beside the layer table.) Each test names what to change when it fails.

use super::layers::repo_root as repo;
use std::collections::BTreeSet;

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn architecture() -> String {
    read("docs/ARCHITECTURE.md")
}

/// The names in backticks in `text`.
fn ticked(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The body of `head { … }` in `code`, braces matched.
fn block<'a>(code: &'a str, head: &str) -> &'a str {
    let start = code
        .find(head)
        .unwrap_or_else(|| panic!("`{head}` not found"));
    let open = start + code[start..].find('{').unwrap();
    let mut depth = 0;
    for (k, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &code[open + 1..open + k];
                }
            }
            _ => {}
        }
    }
    panic!("`{head}` is not closed")
}

/// The names declared at the first level of an enum's or struct's body: variants, or fields
/// (`pub name:`), skipping attributes and doc comments.
fn members(body: &str, fields: bool) -> BTreeSet<String> {
    let mut depth = 0;
    let mut out = BTreeSet::new();
    for line in body.lines() {
        let t = line.trim();
        if depth == 0 && !t.starts_with("//") && !t.starts_with('#') && !t.is_empty() {
            let t = t
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ");
            let name: String = t
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let is_member = if fields {
                t[name.len()..].starts_with(':')
            } else {
                name.chars().next().is_some_and(char::is_uppercase)
            };
            if is_member {
                out.insert(name);
            }
        }
        depth += line.matches(['{', '(']).count() as i32;
        depth -= line.matches(['}', ')']).count() as i32;
    }
    out
}

#[test]
fn the_documented_decision_inputs_are_the_fields() {
    let code = read("src-tauri/crates/executor/src/decision.rs");
    let fields = members(block(&code, "pub(super) struct Inputs<'a>"), true);
    let doc = architecture();
    let listed = doc
        .split(" decision::Inputs ")
        .nth(1)
        .and_then(|t| t.split(" decision::Verdict").next())
        .expect("docs/ARCHITECTURE.md lists decision::Inputs");
    let documented: BTreeSet<String> = listed
        .split([',', '\n'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(
        documented, fields,
        "docs/ARCHITECTURE.md (\"4. Permission\") lists decision::Inputs' fields; change it with the struct"
    );
}

#[test]
fn the_documented_ask_reasons_are_the_variants() {
    let code = read("src-tauri/crates/protocol/src/approvals.rs");
    let variants = members(block(&code, "pub enum AskReason"), false);
    let doc = architecture();
    let after = doc
        .split("carries a typed `AskReason`")
        .nth(1)
        .expect("docs/ARCHITECTURE.md names the ask reasons");
    let open = after.find('(').unwrap();
    let close = after.find(')').unwrap();
    assert_eq!(
        ticked(&after[open..close]),
        variants,
        "docs/ARCHITECTURE.md (\"4. Permission\") lists AskReason's variants; change it with the enum"
    );
}

#[test]
fn the_documented_command_modules_are_the_files() {
    let files: BTreeSet<String> =
        std::fs::read_dir(repo().join("src-tauri/crates/app/src/commands"))
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".rs")
                    .filter(|n| *n != "mod")
                    .map(str::to_string)
            })
            .collect();
    let doc = architecture();
    let after = doc
        .split("`commands/` (")
        .nth(1)
        .expect("docs/ARCHITECTURE.md lists the command modules");
    let listed = ticked(&after[..after.find(')').unwrap()]);
    assert_eq!(
        listed, files,
        "docs/ARCHITECTURE.md (\"Above the engine\") lists src-tauri/crates/app/src/commands/; change it with the files"
    );
}

#[test]
fn the_documented_count_of_exported_types_is_the_bindings() {
    // bindings.ts re-exports the files of ui/src/generated, one per area.
    let mut exported = 0;
    for entry in std::fs::read_dir(repo().join("ui/src/generated")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        exported += text
            .lines()
            .filter(|l| l.starts_with("export type "))
            .count();
    }
    let doc = architecture();
    let said = doc
        .split(" exported types)")
        .next()
        .and_then(|before| before.rsplit('(').next())
        .and_then(|n| n.trim().parse::<usize>().ok())
        .expect("docs/ARCHITECTURE.md says how many types bindings.ts exports");
    assert_eq!(
        said, exported,
        "docs/ARCHITECTURE.md (\"Above the engine\", UI) counts the types of ui/src/generated (bindings.ts)"
    );
}

#[test]
fn the_readers_see_what_they_should() {
    // A check that cannot fail is no check: members() finds variants with fields and plain
    // ones, skips doc comments and attributes, and does not count what is nested.
    let body = "
        /// doc
        #[serde(rename = \"x\")]
        Plain,
        WithFields { times: u32, inner: Vec<u8> },
        Tuple(String),
    ";
    let want: BTreeSet<String> = ["Plain", "WithFields", "Tuple"].map(str::to_string).into();
    assert_eq!(members(body, false), want);
    let fields = "
        /// why
        pub a: u32,
        pub(super) b: Option<&'a str>,
        c: Vec<(u8, u8)>,
    ";
    let want: BTreeSet<String> = ["a", "b", "c"].map(str::to_string).into();
    assert_eq!(members(fields, true), want);
    assert_eq!(ticked("(`a`, `b`)"), ["a", "b"].map(str::to_string).into());
}

/// The files and folders of the file map ("The file map"), each where the map says: the map
/// is a tree, two spaces per level, an entry's description from column 28 on.
fn file_map_paths() -> Vec<String> {
    let doc = architecture();
    let block = doc
        .split("## The file map")
        .nth(1)
        .and_then(|rest| rest.split("```").nth(1))
        .expect("docs/ARCHITECTURE.md has its file map");
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut out = Vec::new();
    for line in block.lines().skip(1) {
        let indent = line.len() - line.trim_start().len();
        // A description carried over to the next line, or a blank one.
        if line.trim().is_empty() || indent >= 20 {
            continue;
        }
        let entry = line.trim().split("  ").next().unwrap_or_default();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path = format!("{}{entry}", stack.last().map_or("", |(_, p)| p.as_str()));
        if entry.ends_with('/') {
            stack.push((indent, path.clone()));
        }
        if !entry.contains('*') && !entry.contains(' ') {
            out.push(path);
        }
    }
    out
}

/// The paths ARCHITECTURE.md names in backticks (`src-tauri/…`, `crates/…`, `ui/…`, the
/// engine's `tests/…`), without a `::function` after them.
fn cited_paths() -> Vec<String> {
    let doc = architecture();
    let mut out: Vec<String> = ticked(&doc)
        .into_iter()
        .map(|t| t.split("::").next().unwrap_or_default().to_string())
        .filter(|p| {
            [
                "src-tauri/",
                "crates/",
                "ui/",
                "tests/",
                ".ci/",
                "docs/",
                "icons/",
            ]
            .iter()
            .any(|root| p.starts_with(root))
                && !p.contains(['*', '<', '{', '…', ' '])
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether `path` exists from the repository root, `src-tauri/` or the engine crate (the
/// document's own convention: a path in another crate starts with `crates/`).
fn exists(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    ["", "src-tauri/", "src-tauri/crates/engine/"]
        .iter()
        .any(|base| repo().join(format!("{base}{path}")).exists())
}

#[test]
fn every_path_the_document_names_exists() {
    let map = file_map_paths();
    assert!(
        map.len() > 100,
        "only {} entries in the file map",
        map.len()
    );
    let cited = cited_paths();
    assert!(cited.len() > 40, "only {} paths cited", cited.len());
    let missing: Vec<String> = map
        .iter()
        .filter(|p| !repo().join(p.trim_end_matches('/')).exists())
        .map(|p| format!("the file map's {p}"))
        .chain(
            cited
                .iter()
                .filter(|p| !exists(p))
                .map(|p| format!("`{p}`")),
        )
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names paths that are not there (moved or renamed?):\n{}",
        missing.join("\n")
    );
}
