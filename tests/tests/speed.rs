//! Speed figures of the desktop app (issue targets: cold start to first paint ≤ 1.5 s under Xvfb,
//! idle memory of the app and its WebKit processes ≤ 200 MB, a 5,000-message chat open in
//! ≤ 300 ms). Measured, printed, never asserted: run `bash tests/speed.sh` (release build).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // measurement code: a failure should stop it

use serde_json::json;
use std::time::{Duration, Instant};
use tollgate_e2e::steps::SERIAL;
use tollgate_e2e::webdriver::Session;
use tollgate_e2e::App;
use tollgate_engine::store::{MessageStatus, NewChat, Role, Store};

/// The first-paint time the app logged, in ms.
fn first_paint(app: &mut App) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        app.check_alive().unwrap();
        let log = app.stderr();
        if let Some(ms) = log.lines().find_map(|l| {
            let rest = l.split("first paint ").nth(1)?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        }) {
            return ms;
        }
        assert!(Instant::now() < deadline, "no first paint logged:\n{log}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The process and all its descendants.
fn process_tree(root: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let after = stat.rsplit(')').next().unwrap_or("");
        if let Some(ppid) = after.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
            parents.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    tree
}

/// Proportional set size of a process, in kB (shared pages split among their users).
fn pss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn name_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_start_memory_and_long_chat() {
    let _serial = SERIAL.lock().await;

    // Cold start to first paint, five launches on fresh data folders.
    let mut starts = Vec::new();
    // Idle memory of the app and its WebKit processes, 5 s and 30 s after the first paint of
    // the first launch (by 30 s the web process has collected what starting up left behind).
    let mut memory: Vec<(u64, Vec<(String, u64)>)> = Vec::new();
    for run in 0..5 {
        let mut app = App::launch().unwrap();
        starts.push(first_paint(&mut app));
        if run == 0 {
            let mut waited = 0;
            for at in [5, 30] {
                std::thread::sleep(Duration::from_secs(at - waited));
                waited = at;
                let tree = process_tree(app.pid());
                memory.push((at, tree.iter().map(|p| (name_of(*p), pss_kb(*p))).collect()));
            }
        }
        drop(app);
        std::thread::sleep(Duration::from_millis(300));
    }
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    println!(
        "SPEED cold start to first paint (ms), 5 launches: {starts:?}; median {}",
        sorted[2]
    );
    for (at, parts) in &memory {
        let total: u64 = parts.iter().map(|(_, kb)| kb).sum();
        println!(
            "SPEED idle memory (PSS) {at} s after first paint: {:.1} MB total — {}",
            total as f64 / 1024.0,
            parts
                .iter()
                .map(|(n, kb)| format!("{n} {:.1} MB", *kb as f64 / 1024.0))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    // A chat of 5,000 messages: time from the click to its last message on screen.
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open_in(dir.path()).unwrap();
        let big = store
            .create_chat(NewChat {
                title: "Five thousand messages".into(),
                ..NewChat::default()
            })
            .await
            .unwrap();
        store
            .create_chat(NewChat {
                title: "Small".into(),
                ..NewChat::default()
            })
            .await
            .unwrap();
        for i in 0..5_000 {
            let (role, content) = if i % 2 == 0 {
                (
                    Role::User,
                    format!("Question {i}: what does the gate do with call {i}?"),
                )
            } else {
                (
                    Role::Assistant,
                    format!(
                        "Answer {i}. The gate **checks** the call, asks when the policy says so, and records it.\n\n- policy: `ask-once`\n- result kept in `call_{i}`\n\n```rust\nlet x = {i};\n```"
                    ),
                )
            };
            store
                .insert_message(big.id, role, content, MessageStatus::Complete, None)
                .await
                .unwrap();
        }
        store.flush().await.unwrap();
    }
    let s = Session::start_in(dir, &[]).await.unwrap();
    s.el(".chat-list .chat-item").await.unwrap();
    let mut opens = Vec::new();
    for round in 0..3 {
        // Open the small chat first so each round opens the big one afresh.
        let ms = s
            .client
            .execute_async(
                r#"
                const [target, done] = arguments;
                const items = [...document.querySelectorAll('.chat-list .chat-item')];
                const small = items.find((b) => b.textContent.includes('Small'));
                const big = items.find((b) => b.textContent.includes('Five thousand'));
                small.click();
                setTimeout(() => {
                  const t0 = performance.now();
                  big.click();
                  const check = () => {
                    const text = document.querySelector('.chat-scroll')?.textContent ?? '';
                    if (text.includes(target)) {
                      requestAnimationFrame(() => done(performance.now() - t0));
                    } else {
                      requestAnimationFrame(check);
                    }
                  };
                  check();
                }, 300);
                "#,
                vec![json!("Answer 4999.")],
            )
            .await
            .unwrap();
        let ms = ms.as_f64().unwrap();
        opens.push(ms.round() as u64);
        if round == 0 {
            s.screenshot("speed-5000-messages").await.unwrap();
        }
    }
    let rendered = s
        .client
        .execute("return document.querySelectorAll('.msg').length", vec![])
        .await
        .unwrap();
    println!(
        "SPEED open a 5,000-message chat (ms, click to last message painted), 3 runs: {opens:?}; messages in the DOM: {rendered}"
    );
    s.close().await;
}
