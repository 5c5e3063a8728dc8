//! Speed targets of the tools issue:
//! - grep for a literal over a generated tree of 20,000 files / 200 MB, side by side with the
//!   `rg` binary (Debian's ripgrep) on the same tree in the same run (target: within 1.5×);
//! - listing a folder of 20,000 files (target: ≤ 50 ms).
//!
//! The trees are generated once under `target/bench-data/` and reused by later runs.
#![allow(clippy::expect_used)] // benchmark set-up: a failure should stop the run

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use tollgate_tools::files::workspace::Workspace;
use tollgate_tools::files::{grep_files, list_folder, GrepOptions};

const FILES: usize = 20_000;
const FILE_BYTES: usize = 10 * 1024;
const NEEDLE: &str = "tollgate_needle_42";
/// Every this many files holds the needle once.
const NEEDLE_EVERY: usize = 250;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/bench-data")
}

/// Deterministic words so the tree is the same on every machine.
fn filler(seed: usize, bytes: usize) -> String {
    const WORDS: [&str; 16] = [
        "approve",
        "deny",
        "gate",
        "tool",
        "chat",
        "record",
        "rule",
        "variable",
        "result",
        "stream",
        "model",
        "provider",
        "workspace",
        "policy",
        "request",
        "turn",
    ];
    let mut out = String::with_capacity(bytes + 64);
    let mut x = seed as u64 * 2_654_435_761 + 1;
    let mut col = 0;
    while out.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let w = WORDS[(x % 16) as usize];
        out.push_str(w);
        col += w.len() + 1;
        if col > 72 {
            out.push('\n');
            col = 0;
        } else {
            out.push(' ');
        }
    }
    out.truncate(bytes);
    out
}

/// The 20,000-file / 200 MB tree: 200 folders of 100 files.
fn grep_tree() -> PathBuf {
    let root = data_dir().join("grep-20k");
    let done = root.join(".complete");
    if done.exists() {
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    for i in 0..FILES {
        let dir = root.join(format!("d{:03}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).expect("create bench folder");
        }
        let mut text = filler(i, FILE_BYTES);
        if i % NEEDLE_EVERY == 0 {
            let at = text.len() / 2;
            let at = text[..at].rfind('\n').map_or(0, |n| n + 1);
            text.insert_str(at, &format!("{NEEDLE} found here\n"));
            text.truncate(FILE_BYTES);
        }
        let mut f = std::fs::File::create(dir.join(format!("f{i:05}.txt"))).expect("create file");
        f.write_all(text.as_bytes()).expect("write file");
    }
    std::fs::write(&done, b"").expect("mark tree complete");
    root
}

/// One folder holding 20,000 small files.
fn flat_folder() -> PathBuf {
    let root = data_dir().join("list-20k");
    let done = data_dir().join("list-20k.complete");
    if done.exists() {
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("create folder");
    for i in 0..FILES {
        std::fs::write(root.join(format!("file-{i:05}.rs")), b"fn main() {}\n").expect("write");
    }
    std::fs::write(&done, b"").expect("mark folder complete");
    root
}

fn rg_available() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn grep(c: &mut Criterion) {
    let root = grep_tree();
    let ws = Workspace::of(Some(&root)).expect("workspace");
    let opts = GrepOptions {
        pattern: NEEDLE.into(),
        glob: None,
        ignore_case: false,
        literal: true,
        max_results: 1_000,
    };
    let (hits, _) = grep_files(&ws, ws.root(), &opts).expect("grep");
    assert_eq!(hits.len(), FILES / NEEDLE_EVERY, "the needle count is off");

    let mut g = c.benchmark_group("grep_literal_20k_files_200MB");
    g.sample_size(20).measurement_time(Duration::from_secs(15));
    g.bench_function("tollgate_grep_files", |b| {
        b.iter(|| black_box(grep_files(&ws, ws.root(), &opts).expect("grep")))
    });
    if rg_available() {
        g.bench_function("rg_binary", |b| {
            b.iter(|| {
                let out = Command::new("rg")
                    .args(["--fixed-strings", "--line-number", "--no-config", NEEDLE])
                    .arg(&root)
                    .stderr(Stdio::null())
                    .output()
                    .expect("run rg");
                assert_eq!(
                    out.stdout.iter().filter(|b| **b == b'\n').count(),
                    FILES / NEEDLE_EVERY
                );
                black_box(out)
            })
        });
    } else {
        eprintln!("rg is not installed; install ripgrep to compare");
    }
    g.finish();
}

fn list(c: &mut Criterion) {
    let root = flat_folder();
    c.bench_function("list_dir_20k_files", |b| {
        b.iter(|| {
            let listing = list_folder(&root).expect("list");
            black_box(listing.render("list-20k"))
        })
    });
}

criterion_group!(benches, grep, list);
criterion_main!(benches);
