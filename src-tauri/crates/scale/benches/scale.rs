//! The engine's scale figures of F-71 (F-71) on a heavy user's year — 10,000 chats,
//! 1,000,000 messages, 200,000 tool calls (`tollgate_scale`, generated once into
//! `target/bench-data/scale-year-<seed>` and reused) — through the same service calls the
//! window makes. Each figure is printed beside its target first, then measured by criterion:
//!
//! - the sidebar's first screen of chats (≤ 50 ms);
//! - full-text search, p95 over a set of queries (≤ 100 ms), ranked and highlighted;
//! - opening the 5,000-message chat: its branch and its calls (≤ 300 ms);
//! - deleting a 10,000-message chat (≤ 200 ms), and the database file not growing over
//!   repeated write-and-delete cycles;
//! - exporting the 5,000-message chat as Markdown (≤ 1 s).
//!
//! Set `TOLLGATE_SCALE_SMALL=1` for a tenth of the year (a quick look, not the figures).
#![allow(clippy::expect_used, clippy::unwrap_used)] // benchmark set-up: a failure should stop the run

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tollgate_engine::service::{ExportFormat, Tollgate, HISTORY_FIRST_PAGE};
use tollgate_engine::ChatId;
use tollgate_protocol::NullSink;
use tollgate_scale::{ensure, one_chat, ScaleSpec};
use tollgate_secrets::Keychain;
use tollgate_store::DB_FILE;

/// Chats the sidebar reads at a time (the UI's `CHAT_PAGE`).
const SIDEBAR_PAGE: u32 = 100;

/// Queries a user types: common words, a rare one, two words, a prefix.
const QUERIES: &[&str] = &[
    "parser",
    "timezone differs",
    "zebracorn",
    "memory leak",
    "borrow lifetime",
    "kubernetes pod",
    "criter",
    "flamegraph allocation",
    "escape key focus",
    "retry backoff",
];

fn spec() -> ScaleSpec {
    let mut spec = ScaleSpec::year();
    if std::env::var_os("TOLLGATE_SCALE_SMALL").is_some() {
        spec.chats /= 10;
        spec.messages /= 10;
        spec.calls /= 10;
    }
    spec
}

/// The generated year, written once into `target/bench-data` and reused.
fn year(rt: &tokio::runtime::Runtime) -> (PathBuf, Vec<ChatId>) {
    let spec = spec();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/bench-data");
    let started = Instant::now();
    let year = rt
        .block_on(ensure(&root, &spec, &|n| {
            if n % 1_000 == 0 {
                eprintln!(
                    "generating: {n}/{} chats, {:.0} s",
                    spec.chats,
                    started.elapsed().as_secs_f64()
                );
            }
        }))
        .unwrap();
    eprintln!("the year: {}", year.0.display());
    year
}

fn open(rt: &tokio::runtime::Runtime, dir: &Path) -> Arc<Tollgate> {
    rt.block_on(Tollgate::open(
        dir,
        Keychain::new("app.tollgate.bench.scale"),
        Arc::new(NullSink),
        tollgate_turn::start_turn,
    ))
    .unwrap()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The `p`-th percentile (0–100) of `samples`.
fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p / 100.0).round() as usize;
    samples[i.min(samples.len() - 1)]
}

fn report(name: &str, value: f64, unit: &str, target: &str) {
    println!("SCALE {name:<44} {value:>10.1} {unit:<3} (target {target})");
}

fn scale(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (year_dir, long_chats) = year(&rt);
    // The bench writes and deletes chats: it works on a copy, so the year every later run (and
    // the speed script) starts from stays as generated, its search index as merged.
    let copy = tempfile::tempdir().unwrap();
    std::fs::copy(year_dir.join(DB_FILE), copy.path().join(DB_FILE)).unwrap();
    let dir = copy.path().to_path_buf();
    let app = open(&rt, &dir);
    let five_k = long_chats[1];
    let size_of = |dir: &Path| {
        [DB_FILE.to_string(), format!("{DB_FILE}-wal")]
            .iter()
            .map(|f| std::fs::metadata(dir.join(f)).map_or(0, |m| m.len()))
            .sum::<u64>()
    };

    // The figures beside their targets.
    let mut sidebar = (0..20)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(
                rt.block_on(app.list_chats_page(None, SIDEBAR_PAGE))
                    .unwrap(),
            );
            t.elapsed()
        })
        .collect::<Vec<_>>();
    report(
        "sidebar, first page of 100 chats (median)",
        ms(percentile(&mut sidebar, 50.0)),
        "ms",
        "≤ 50 ms",
    );
    let mut search = Vec::new();
    for _ in 0..5 {
        for q in QUERIES {
            let t = Instant::now();
            std::hint::black_box(rt.block_on(app.search_chats(q)).unwrap());
            search.push(t.elapsed());
        }
    }
    report(
        "search, p95 over 50 queries",
        ms(percentile(&mut search, 95.0)),
        "ms",
        "≤ 100 ms",
    );
    let mut opening = (0..10)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(
                rt.block_on(
                    app.chats()
                        .chat_history(five_k, None, Some(HISTORY_FIRST_PAGE)),
                )
                .unwrap(),
            );
            t.elapsed()
        })
        .collect::<Vec<_>>();
    report(
        "open the 5,000-message chat, its first page (median)",
        ms(percentile(&mut opening, 50.0)),
        "ms",
        "≤ 300 ms",
    );
    let mut whole = (0..10)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(
                rt.block_on(app.chats().chat_history(five_k, None, None))
                    .unwrap(),
            );
            t.elapsed()
        })
        .collect::<Vec<_>>();
    report(
        "the 5,000-message chat read whole (median)",
        ms(percentile(&mut whole, 50.0)),
        "ms",
        "all of its pages",
    );
    let mut export = (0..5)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(
                rt.block_on(app.chats().export_chat(five_k, ExportFormat::Markdown))
                    .unwrap(),
            );
            t.elapsed()
        })
        .collect::<Vec<_>>();
    report(
        "export the 5,000-message chat (median)",
        ms(percentile(&mut export, 50.0)),
        "ms",
        "≤ 1000 ms",
    );
    // The generated chats stay (the next run reuses them): deletes take fresh copies. The first
    // cycle settles the file (pages the purge frees are used again by the next copy).
    let cycle = |round: u64| {
        let id = rt
            .block_on(app.store().import_chat(one_chat(10_000, 100 + round)))
            .unwrap()
            .id;
        let t = Instant::now();
        rt.block_on(app.chats().delete_chat(id)).unwrap();
        let deleted = t.elapsed();
        let t = Instant::now();
        rt.block_on(app.store().purge_deleted()).unwrap();
        (deleted, t.elapsed())
    };
    let checkpoint = || {
        rt.block_on(
            app.store()
                .call(|c| Ok(c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?)),
        )
        .unwrap()
    };
    cycle(0);
    checkpoint();
    let before = size_of(&dir);
    let (mut deletes, mut purges): (Vec<_>, Vec<_>) = (1..=5).map(cycle).unzip();
    checkpoint();
    let after = size_of(&dir);
    report(
        "delete a 10,000-message chat, p95 of 5",
        ms(percentile(&mut deletes, 95.0)),
        "ms",
        "≤ 200 ms",
    );
    report(
        "  its rows purged in the background (median)",
        ms(percentile(&mut purges, 50.0)),
        "ms",
        "in steps of ≤ 1,000 rows",
    );
    report(
        "database growth over 5 write+delete cycles",
        (after as f64 - before as f64) / 1_048_576.0,
        "MB",
        "bounded: about 0",
    );

    let mut g = c.benchmark_group("scale");
    g.sample_size(10);
    g.bench_function("sidebar first page", |b| {
        b.iter(|| {
            rt.block_on(app.list_chats_page(None, SIDEBAR_PAGE))
                .unwrap()
        })
    });
    g.bench_function("search (10 queries)", |b| {
        b.iter(|| {
            for q in QUERIES {
                std::hint::black_box(rt.block_on(app.search_chats(q)).unwrap());
            }
        })
    });
    g.bench_function("open 5,000-message chat (first page)", |b| {
        b.iter(|| {
            rt.block_on(
                app.chats()
                    .chat_history(five_k, None, Some(HISTORY_FIRST_PAGE)),
            )
            .unwrap()
        })
    });
    g.bench_function("read 5,000-message chat whole", |b| {
        b.iter(|| {
            rt.block_on(app.chats().chat_history(five_k, None, None))
                .unwrap()
        })
    });
    g.bench_function("export 5,000-message chat", |b| {
        b.iter(|| {
            rt.block_on(app.chats().export_chat(five_k, ExportFormat::Markdown))
                .unwrap()
        })
    });
    g.bench_function("delete 10,000-message chat", |b| {
        b.iter_batched(
            || {
                rt.block_on(app.store().import_chat(one_chat(10_000, 7)))
                    .unwrap()
                    .id
            },
            |id| rt.block_on(app.chats().delete_chat(id)).unwrap(),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
