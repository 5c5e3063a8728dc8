//! Writes a heavy user's year into a data folder (F-71): by default 10,000 chats,
//! 1,000,000 messages and 200,000 tool calls, deterministic for a seed. For the scale figures:
//! `tollgate-scale-db <data-folder> [--chats N] [--messages N] [--calls N] [--seed N]`, then
//! `TOLLGATE_DATA_DIR=<data-folder> tollgate`.

use std::time::Instant;
use tollgate_scale::{generate, ScaleSpec};
use tollgate_store::Store;

fn main() {
    if let Err(e) = run() {
        eprintln!("tollgate-scale-db: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or(
        "usage: tollgate-scale-db <data-folder> [--chats N] [--messages N] [--calls N] [--seed N]",
    )?;
    let mut spec = ScaleSpec::year();
    while let Some(flag) = args.next() {
        let value: u64 = args
            .next()
            .and_then(|v| v.replace('_', "").parse().ok())
            .ok_or(format!("{flag} needs a number"))?;
        let n = usize::try_from(value).map_err(|e| e.to_string())?;
        match flag.as_str() {
            "--chats" => spec.chats = n,
            "--messages" => spec.messages = n,
            "--calls" => spec.calls = n,
            "--seed" => spec.seed = value,
            other => return Err(format!("unknown option {other}")),
        }
    }
    let folder = std::path::Path::new(&dir);
    if folder.join("tollgate.db").exists() {
        return Err(format!(
            "{dir} already holds a database; choose an empty folder"
        ));
    }
    std::fs::create_dir_all(folder).map_err(|e| format!("{dir}: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let stats = runtime.block_on(async {
        let store = Store::open_in(folder).map_err(|e| e.to_string())?;
        let total = spec.chats;
        generate(&store, &spec, &|done| {
            if done % 1_000 == 0 || done == total {
                eprintln!(
                    "{done}/{total} chats, {:.0} s",
                    started.elapsed().as_secs_f64()
                );
            }
        })
        .await
        .map_err(|e| e.to_string())
    })?;
    println!(
        "{} chats, {} messages, {} tool calls, {} ask-once records, {} rules, {} variables in {:.1} s; long chats: {}",
        stats.chats,
        stats.messages,
        stats.calls,
        stats.records,
        stats.rules,
        stats.variables,
        started.elapsed().as_secs_f64(),
        stats
            .long_chats
            .iter()
            .map(|c| c.0.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
