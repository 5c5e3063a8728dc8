//! No production file over 800 lines (CONTRIBUTING.md, "Small modules with one job each"): a
//! file that grows past it is split by what its parts do. Production files are the Rust sources
//! under a crate's `src/` (tests beside them in `*_tests.rs` files, `tests/`, `benches/` and the
//! fuzz crate are not counted) and the UI's sources and styles (its `*.test.ts(x)` files and the
//! generated bindings, which `crates/app/tests/bindings.rs` keeps small itself, are not).

use std::path::{Path, PathBuf};

/// The most lines a production file may have.
const MAX_LINES: usize = 800;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// Every file under `dir`: build output, installed packages and generated bindings skipped.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    super::layers::files_under(dir, &["target", "node_modules", "dist", "generated"], out);
}

/// Whether `path` (relative to the repository) is a production source file.
fn production(rel: &str) -> bool {
    let rust = rel.starts_with("src-tauri/")
        && rel.ends_with(".rs")
        && rel.contains("/src/")
        && !rel.ends_with("_tests.rs")
        && !rel.contains("/tests/")
        && !rel.contains("/benches/")
        && !rel.contains("/fuzz/");
    let ui = rel.starts_with("ui/src/")
        && [".ts", ".tsx", ".css"].iter().any(|x| rel.ends_with(x))
        && !rel.contains(".test.")
        && rel != "ui/src/bindings.ts";
    rust || ui
}

fn too_long() -> Vec<String> {
    let root = root();
    let mut all = Vec::new();
    files(&root.join("src-tauri"), &mut all);
    files(&root.join("ui/src"), &mut all);
    let mut counted = 0;
    let mut out = Vec::new();
    for path in all {
        let rel = path
            .strip_prefix(&root)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if !production(&rel) {
            continue;
        }
        counted += 1;
        let lines = std::fs::read_to_string(&path)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines > MAX_LINES {
            out.push(format!("{rel}: {lines} lines"));
        }
    }
    assert!(
        counted > 200,
        "only {counted} production files found: is the walk still reading the tree?"
    );
    out
}

#[test]
fn no_production_file_is_over_800_lines() {
    let long = too_long();
    assert!(
        long.is_empty(),
        "split these by what their parts do (CONTRIBUTING.md):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_check_counts_what_it_should() {
    for counted in [
        "src-tauri/crates/executor/src/pipeline.rs",
        "src-tauri/src/main.rs",
        "ui/src/timeline.ts",
        "ui/src/components/ApprovalCard.tsx",
        "ui/src/styles/chat.css",
    ] {
        assert!(production(counted), "{counted}");
    }
    for left_out in [
        "src-tauri/crates/provenance/src/guard_tests.rs",
        "src-tauri/crates/engine/tests/suite/injection.rs",
        "src-tauri/crates/turn/benches/chat.rs",
        "src-tauri/crates/fuzz/src/lib.rs",
        "ui/src/timeline.test.ts",
        "ui/src/bindings.ts",
        "ui/vite.config.ts",
    ] {
        assert!(!production(left_out), "{left_out}");
    }
}
