//! The house's dependency direction where Cargo cannot see it (docs/ARCHITECTURE.md, "Crates"
//! and "Layers"). Between crates Cargo keeps the direction: a crate cannot name one it does not
//! depend on, and dependencies cannot form a circle. Inside the engine crate the modules keep
//! one more order:
//!
//! ```text
//! heap, router  →  chat  →  service  →  (the app)
//! ```
//!
//! A module may use modules of a lower layer only, never one of its own layer or above; inside
//! any crate, its files (other than a `mod.rs` or `lib.rs`, a module's face) must not use each
//! other in a circle. Test modules (`#[cfg(test)]`) are not counted. The check reads `crate::…`,
//! `super::…` and `self::…` paths, including grouped `use` trees, after removing comments and
//! string literals. A path into another crate re-exported by the engine (`crate::store::…`)
//! names no module of the engine, and Cargo already checks it.
//!
//! The same file checks that the crate table of docs/ARCHITECTURE.md is what the manifests say,
//! and that every feature id (`F-nn`) and section (`SPEC §n`) cited in the code resolves to
//! `docs/SPEC.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of the engine crate and its layer; a module may use only modules with
/// a smaller number.
const LAYERS: &[(&str, u8)] = &[("heap", 0), ("router", 0), ("chat", 1), ("service", 2)];

fn engine_src() -> PathBuf {
    crates_dir().join("engine/src")
}

/// The folder holding every library crate of the house (`src-tauri/crates`).
fn crates_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The repository's root (also for `architecture_doc.rs`).
pub(super) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// Every file under `dir`, in a stable order, leaving out the folders named in `skip`; a missing
/// folder has none. (The one walk of the repository's checks.)
pub(super) fn files_under(dir: &Path, skip: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.is_dir() {
            if !skip.contains(&name.as_str()) {
                files_under(&p, skip, out);
            }
        } else {
            out.push(p);
        }
    }
}

/// Source files under `dir` whose names end with one of `exts`, in a stable order; build output,
/// installed packages and the fuzz crate are skipped.
fn source_files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let mut all = Vec::new();
    files_under(dir, &["target", "node_modules", "dist", "fuzz"], &mut all);
    out.extend(
        all.into_iter()
            .filter(|p| exts.iter().any(|x| p.to_string_lossy().ends_with(x))),
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    source_files(dir, &[".rs"], out);
}

/// The module path of a source file: `executor/permission.rs` → `["executor", "permission"]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// Source without comments, string and char literals, and `#[cfg(test)]` items.
fn code_only(text: &str) -> String {
    strip_test_items(&blanked(text))
}

/// `text` with comments, strings and character literals blanked, line breaks kept.
pub(super) fn blanked(text: &str) -> String {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let blank = |out: &mut Vec<u8>, bytes: &[u8]| {
        out.extend(bytes.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
    };
    let mut i = 0;
    while i < b.len() {
        let start = i;
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'r' if matches!(b.get(i + 1), Some(b'#') | Some(b'"'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    out.push(b'r');
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                j += 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = (j + close.len()).min(b.len());
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
            }
            _ => {
                out.push(b[i]);
                i += 1;
                continue;
            }
        }
        blank(&mut out, &b[start..i.min(b.len())]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Removes `#[cfg(test)]` items (test modules and test-only functions) with their braces.
fn strip_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let (Some(open), semi) = (after.find('{'), after.find(';')) else {
            rest = "";
            break;
        };
        if semi.is_some_and(|s| s < open) {
            // `#[cfg(test)] mod x;` or a `use`: skip to the semicolon.
            rest = &after[semi.unwrap() + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = after.len();
        for (k, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Expands a `use` tree body (`a::{b, c::d}`) into full paths.
fn expand_tree(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let base = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_tree(&base, &inner[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand_tree(&base, &inner[start..], out);
    } else if !tree.is_empty() {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        out.push(join(prefix, path));
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}::{b}"),
    }
}

/// Every `crate::`/`super::`/`self::` path the code names, as written.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Grouped `use` trees first, so `use crate::{a::X, b::Y}` counts both.
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let boundary_ok = at == 0
            || !rest.as_bytes()[at - 1].is_ascii_alphanumeric() && rest.as_bytes()[at - 1] != b'_';
        let after = &rest[at + 4..];
        let Some(end) = after.find(';') else { break };
        let stmt = &after[..end];
        if boundary_ok && stmt.contains('{') {
            let stmt: String = stmt.split_whitespace().collect::<Vec<_>>().join(" ");
            expand_tree("", &stmt, &mut out);
        }
        rest = &after[end..];
    }
    let b = code.as_bytes();
    for root in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(root) {
            let at = from + k;
            from = at + root.len();
            if at > 0
                && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_' || b[at - 1] == b':')
            {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            out.push(code[at..end].trim_end_matches(':').to_string());
        }
    }
    out
}

/// The module (as a path of names) a path points into, given the modules that exist.
fn target(from: &[String], path: &str, modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<String> = match segs.first().copied() {
        Some("crate") => {
            segs.remove(0);
            Vec::new()
        }
        Some("super") | Some("self") => {
            // In `a/b.rs` (module a::b) `super` is `a`; in `a/mod.rs` (module a) it is the root.
            let mut base = from.to_vec();
            while let Some(s) = segs.first().copied() {
                match s {
                    "super" => {
                        base.pop();
                        segs.remove(0);
                    }
                    "self" => {
                        segs.remove(0);
                    }
                    _ => break,
                }
            }
            base
        }
        _ => return None,
    };
    // The longest prefix of the path that is a module.
    let mut best = base.clone();
    for s in segs {
        base.push(s.to_string());
        if modules.contains(&base) {
            best = base.clone();
        } else {
            break;
        }
    }
    Some(best)
}

struct Graph {
    /// Every module (file) and the modules it uses.
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    /// Modules whose file is a `mod.rs` (or `lib.rs`).
    roots: BTreeSet<Vec<String>>,
}

fn graph() -> Graph {
    graph_of(&engine_src())
}

/// The module graph of one crate's `src` folder (its `bin/` left out).
fn graph_of(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| !f.starts_with(src.join("bin")))
        .collect();
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_path(src, f))
        .filter(|m| m.first().is_some_and(|f| f != "lib"))
        .collect();
    let mut edges = BTreeMap::new();
    let mut roots = BTreeSet::new();
    for f in &files {
        let from = module_path(src, f);
        if from.first().is_some_and(|f| f == "lib") {
            continue;
        }
        let is_mod_rs = f.file_name().is_some_and(|n| n == "mod.rs");
        if is_mod_rs {
            roots.insert(from.clone());
        }
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        let used: BTreeSet<Vec<String>> = paths(&code)
            .iter()
            .filter_map(|p| target(&from, p, &modules))
            .filter(|t| !t.is_empty() && *t != from)
            .collect();
        edges.insert(from, used);
    }
    Graph { edges, roots }
}

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(m, _)| *m == module)
        .map(|(_, l)| *l)
        .unwrap_or_else(|| {
            panic!(
                "module `{module}` has no layer: add it to LAYERS here and to docs/ARCHITECTURE.md"
            )
        })
}

/// The layer table of docs/ARCHITECTURE.md ("Layers"): each row's layer and module.
fn documented_layers() -> BTreeSet<(String, u8)> {
    let doc = std::fs::read_to_string(repo_root().join("docs/ARCHITECTURE.md")).unwrap();
    let table = doc
        .split(" layer  module ")
        .nth(1)
        .and_then(|t| t.split("```").next())
        .expect("docs/ARCHITECTURE.md has its layer table");
    table
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let layer = words.next()?.parse::<u8>().ok()?;
            let module = words.next()?;
            // A row starts with its layer in the first columns; a continued line is indented
            // under the description.
            let indent = line.len() - line.trim_start().len();
            (indent <= 3).then(|| (module.to_string(), layer))
        })
        .collect()
}

#[test]
fn the_documented_layers_are_the_checked_ones() {
    let checked: BTreeSet<(String, u8)> =
        LAYERS.iter().map(|(m, l)| ((*m).to_string(), *l)).collect();
    let documented = documented_layers();
    assert_eq!(
        documented.difference(&checked).collect::<Vec<_>>(),
        Vec::<&(String, u8)>::new(),
        "in docs/ARCHITECTURE.md's layer table but not in LAYERS"
    );
    assert_eq!(
        checked.difference(&documented).collect::<Vec<_>>(),
        Vec::<&(String, u8)>::new(),
        "in LAYERS but not in docs/ARCHITECTURE.md's layer table"
    );
}

#[test]
fn no_module_uses_a_module_of_its_own_layer_or_above() {
    let g = graph();
    let mut wrong = Vec::new();
    for (from, used) in &g.edges {
        let a = &from[0];
        for to in used {
            let b = &to[0];
            if a != b && layer(b) >= layer(a) {
                wrong.push(format!(
                    "{} → {} (layer {} uses layer {})",
                    from.join("::"),
                    to.join("::"),
                    layer(a),
                    layer(b)
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layer order:\n{}",
        wrong.join("\n")
    );
    // Every module has a layer, even one nothing imports.
    for m in g.edges.keys() {
        layer(&m[0]);
    }
}

#[test]
fn nothing_in_the_engine_imports_through_the_crate_roots_re_exports() {
    // `crate::ApprovalHub` names no module, so the layer check could not see which layer it
    // reaches into: inside the engine, every path names the module that defines the item.
    let src = engine_src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("lib.rs")) {
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        for p in paths(&code) {
            let Some(rest) = p.strip_prefix("crate::") else {
                continue;
            };
            let first = rest.split("::").next().unwrap_or_default();
            if first.chars().next().is_some_and(char::is_uppercase) {
                wrong.push(format!("{}: {p}", f.strip_prefix(&src).unwrap().display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "paths through the crate root's re-exports:\n{}",
        wrong.join("\n")
    );
}

/// The library crates of the house: each folder of `src-tauri/crates` with a `src`.
fn crate_sources() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(crates_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir() && p.join("Cargo.toml").is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, p.join("src"))
        })
        .collect();
    out.sort();
    out
}

/// Circles among the files of `g` (other than module faces): in the engine, among the files of
/// one top-level module (the layers order the modules); elsewhere, among any files of the crate.
fn circles(g: &Graph, whole_crate: bool) -> Vec<String> {
    let nodes: Vec<&Vec<String>> = g.edges.keys().filter(|m| !g.roots.contains(*m)).collect();
    let mut cycles = Vec::new();
    for start in &nodes {
        // Depth-first search for a path back to `start`.
        let mut stack: Vec<(Vec<String>, Vec<Vec<String>>)> =
            vec![((*start).clone(), vec![(*start).clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for next in g.edges.get(&at).into_iter().flatten() {
                if g.roots.contains(next) || (!whole_crate && next[0] != start[0]) {
                    continue;
                }
                if next == *start {
                    let names: Vec<String> =
                        trail.iter().chain([next]).map(|m| m.join("::")).collect();
                    cycles.push(names.join(" → "));
                } else if seen.insert(next.clone()) {
                    let mut t = trail.clone();
                    t.push(next.clone());
                    stack.push((next.clone(), t));
                }
            }
        }
    }
    cycles
}

#[test]
fn the_files_of_a_crate_do_not_use_each_other_in_a_circle() {
    let mut cycles = Vec::new();
    for (name, src) in crate_sources() {
        let whole_crate = name != "engine";
        for c in circles(&graph_of(&src), whole_crate) {
            cycles.push(format!("{name}: {c}"));
        }
    }
    assert!(
        cycles.is_empty(),
        "files that use each other in a circle (move the shared types into a file both use):\n{}",
        cycles.join("\n")
    );
}

/// The crate table of docs/ARCHITECTURE.md ("Crates"): each crate and the Tollgate crates it
/// depends on.
fn documented_crates() -> BTreeMap<String, BTreeSet<String>> {
    let doc = std::fs::read_to_string(repo_root().join("docs/ARCHITECTURE.md")).unwrap();
    let table = doc
        .split(" crate                depends on")
        .nth(1)
        .and_then(|t| t.split("```").next())
        .expect("docs/ARCHITECTURE.md has its crate table");
    table
        .lines()
        .filter(|l| l.starts_with(" tollgate"))
        .map(|l| {
            let mut cols = l.split("  ").map(str::trim).filter(|c| !c.is_empty());
            let name = cols.next().unwrap_or_default().to_string();
            let deps = cols.next().unwrap_or_default();
            let deps = deps
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty() && *d != "—")
                .map(|d| format!("tollgate-{d}"))
                .collect();
            (name, deps)
        })
        .collect()
}

/// Each library crate's name and the Tollgate crates its manifest depends on (not counting
/// dev-dependencies, which tests may use from any height).
fn manifest_crates() -> BTreeMap<String, BTreeSet<String>> {
    crate_sources()
        .into_iter()
        .map(|(_, src)| {
            let manifest = std::fs::read_to_string(src.join("../Cargo.toml")).unwrap();
            let name = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = "))
                .unwrap_or_default()
                .trim_matches('"')
                .to_string();
            let deps = manifest
                .split("\n[")
                .filter(|section| {
                    let head = section.trim_start_matches('[');
                    head.starts_with("dependencies]")
                        || (head.starts_with("target.") && head.contains(".dependencies]"))
                })
                .flat_map(|section| section.lines().skip(1))
                .filter_map(|l| l.split(&['.', ' ', '='][..]).next())
                .filter(|d| d.starts_with("tollgate-"))
                .map(str::to_string)
                .collect();
            (name, deps)
        })
        .filter(|(name, _)| name.starts_with("tollgate-"))
        .filter(|(name, _)| {
            !matches!(
                name.as_str(),
                "tollgate-mock-llm"
                    | "tollgate-scale"
                    | "tollgate-repo-checks"
                    | "tollgate-test-support"
                    | "tollgate-fuzz"
            )
        })
        .collect()
}

#[test]
fn the_documented_crates_are_the_manifests() {
    let documented = documented_crates();
    let manifests = manifest_crates();
    assert_eq!(
        documented, manifests,
        "docs/ARCHITECTURE.md's crate table and the crates' Cargo.toml files disagree"
    );
}

#[test]
fn the_checker_sees_what_it_should() {
    // A check that cannot fail is no check: the parser must find grouped, nested and relative
    // paths, and must not see paths inside comments, strings or test modules.
    let code = code_only(
        "use crate::{a::X, b::{c::Y, Z}};\n// crate::commented\nlet s = \"crate::quoted\";\nfn f() { super::sibling::f(); }\n#[cfg(test)]\nmod tests { use crate::tested; }\n",
    );
    let found: BTreeSet<String> = paths(&code).into_iter().collect();
    for want in [
        "crate::a::X",
        "crate::b::c::Y",
        "crate::b::Z",
        "super::sibling::f",
    ] {
        assert!(found.contains(want), "{want} not found in {found:?}");
    }
    for never in ["crate::commented", "crate::quoted", "crate::tested"] {
        assert!(
            !found.iter().any(|p| p.starts_with(never)),
            "{never} was counted: {found:?}"
        );
    }
    let modules: BTreeSet<Vec<String>> = [
        vec!["executor".to_string()],
        vec!["executor".into(), "pipeline".into()],
    ]
    .into();
    let from = vec!["executor".to_string(), "permission".to_string()];
    assert_eq!(
        target(&from, "super::pipeline::Outcome", &modules),
        Some(vec!["executor".into(), "pipeline".into()])
    );
    assert_eq!(
        target(&from, "super::CallCtx", &modules),
        Some(vec!["executor".into()])
    );
}

#[test]
fn every_feature_the_code_cites_is_in_the_spec() {
    let root = repo_root();
    let spec = std::fs::read_to_string(root.join("docs/SPEC.md")).expect("docs/SPEC.md exists");
    let defined: BTreeSet<String> = spec
        .lines()
        .filter(|l| l.starts_with('#'))
        .flat_map(|l| ids_in(l, "F-").into_iter().chain(sections_in(l)))
        .collect();
    let mut files = Vec::new();
    for dir in [
        "src-tauri/src",
        "src-tauri/crates",
        "ui/src",
        "tests/src",
        "tests/tests",
    ] {
        source_files(&root.join(dir), &[".rs", ".ts", ".tsx"], &mut files);
    }
    // bindings.ts is generated from the Rust types, which are read themselves.
    files.retain(|f| !f.ends_with("bindings.ts"));
    let mut missing = BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for id in ids_in(&text, "F-") {
            if !defined.contains(&id) {
                missing.insert(format!(
                    "{id} ({})",
                    f.strip_prefix(&root).unwrap_or(f).display()
                ));
            }
        }
        for sec in text
            .match_indices("SPEC §")
            .filter_map(|(k, _)| section_at(&text[k + "SPEC ".len()..]))
        {
            if !defined.contains(&sec) {
                missing.insert(format!(
                    "{sec} ({})",
                    f.strip_prefix(&root).unwrap_or(f).display()
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cited but not in docs/SPEC.md:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// Code cites what a reader of the repository can look up: a feature id (`F-nn`), a section
/// (`SPEC §n`) or a document, never the number of an issue in a tracker the repository does not
/// hold (the word, then a number).
#[test]
fn the_code_cites_the_spec_not_issue_numbers() {
    let root = repo_root();
    let mut files = Vec::new();
    for dir in [
        "src-tauri/src",
        "src-tauri/crates",
        "ui/src",
        "tests/src",
        "tests/tests",
        "tests/mcp/src",
        ".ci",
    ] {
        source_files(
            &root.join(dir),
            &[".rs", ".ts", ".tsx", ".css", ".mjs", ".sh", ".toml"],
            &mut files,
        );
    }
    let mut cited = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let next = lines.get(n + 1).copied().unwrap_or_default();
            if cites_an_issue(line) || cites_across(line, next) {
                cited.push(format!(
                    "{}:{}: {}",
                    f.strip_prefix(&root).unwrap_or(f).display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        cited.is_empty(),
        "cite an F-nn id or a SPEC section instead of an issue number:\n{}",
        cited.join("\n")
    );
    // The check itself: it must see each shape, and only those (built here, so this file does
    // not cite one).
    let word = "issue";
    for shape in [
        format!("({word} 45)"),
        format!("{word}s 36 and 45"),
        format!("I{} 7: x", &word[1..]),
    ] {
        assert!(cites_an_issue(&shape), "{shape}");
    }
    for not in ["tissue 45", "an issue with 45 lines", "issues", "F-45"] {
        assert!(!cites_an_issue(not), "{not}");
    }
    // Wrapped over two lines of a comment, in any comment style.
    for (line, next) in [
        (format!("// as {word}"), "// 45 found".to_string()),
        (format!("/// the {word}s"), "///   36 and 45".to_string()),
        (format!("# see {word}"), "# 7".to_string()),
        (format!(" * {word}"), " * 12: x".to_string()),
    ] {
        assert!(cites_across(&line, &next), "{line} / {next}");
    }
    assert!(!cites_across(&format!("// an {word}"), "// with 45 lines"));
    assert!(!cites_across(&format!("// t{word}"), "// 45"));
}

/// A citation wrapped over two lines: `line` ends with "issue" or "issues" as a word and `next`,
/// once its comment marks are dropped, starts with a number.
fn cites_across(line: &str, next: &str) -> bool {
    let lower = line.trim_end().to_ascii_lowercase();
    let Some(before) = lower
        .strip_suffix("issues")
        .or_else(|| lower.strip_suffix("issue"))
    else {
        return false;
    };
    if before.ends_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    next.trim_start()
        .trim_start_matches(|c: char| "/!*#-".contains(c))
        .trim_start()
        .starts_with(|c: char| c.is_ascii_digit())
}

/// "issue" or "issues" as a word, followed by a number.
fn cites_an_issue(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let b = lower.as_bytes();
    lower.match_indices("issue").any(|(k, _)| {
        let starts_a_word = k == 0 || !b[k - 1].is_ascii_alphabetic();
        let rest = lower[k + "issue".len()..].trim_start_matches('s');
        let number = rest
            .strip_prefix(' ')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        starts_a_word && number
    })
}

/// `F-nn` ids not preceded by a letter or digit (so `UTF-8` is not one).
fn ids_in(text: &str, prefix: &str) -> Vec<String> {
    let b = text.as_bytes();
    text.match_indices(prefix)
        .filter(|(k, _)| *k == 0 || !b[k - 1].is_ascii_alphanumeric())
        .filter_map(|(k, _)| {
            let digits: String = text[k + prefix.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (digits.len() == 2).then(|| format!("{prefix}{digits}"))
        })
        .collect()
}

fn section_at(text: &str) -> Option<String> {
    let digits: String = text
        .trim_start_matches('§')
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then(|| format!("§{digits}"))
}

fn sections_in(heading: &str) -> Vec<String> {
    heading
        .match_indices('§')
        .filter_map(|(k, _)| section_at(&heading[k..]))
        .collect()
}
