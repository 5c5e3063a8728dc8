//! Speed figures of the desktop app, printed beside their targets (F-71): cold start to first
//! paint, idle memory, a 5,000-message chat opened, and a 50,000-character answer streamed in
//! 5,000 chunks at 500 a second (no frame over 50 ms; the time past a frame's budget growing
//! with the answer's length, not its square); and on a generated year of heavy use (10,000
//! chats, 1,000,000 messages: `tollgate_scale`) cold start, idle memory, the sidebar's
//! first screen, opening and scrolling a 5,000-message chat, and search in the window; a 10 MB
//! shell output streamed into the open tool-chain log; and the memory curve of 500 turns with
//! tool calls in one app run; and a chat of 20 MCP views, views on and off. Measured, printed, never asserted: run `bash tests/speed.sh` (release build).

use serde_json::json;
use std::time::{Duration, Instant};
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::{completions, keys, tool_results};
use tollgate_e2e::webdriver::Session;
use tollgate_e2e::App;
use tollgate_engine::ChatId;
use tollgate_mock_llm::openai;
use tollgate_scale::{ensure, one_chat, ScaleSpec};
use tollgate_store::{MessageStatus, NewChat, Role, Store, DB_FILE};

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

/// The numeric fields of `/proc/<pid>/stat` after the command's ")", parsed (a field that is not
/// a number reads 0): the parent's pid is the 2nd, utime the 12th, stime the 13th. `None` when
/// the process is gone.
fn stat_fields(pid: u32) -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(
        stat.rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(|v| v.parse().unwrap_or(0))
            .collect(),
    )
}

/// The process and all its descendants.
fn process_tree(root: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Some(&ppid) = stat_fields(pid).as_ref().and_then(|f| f.get(1)) {
            parents.push((pid, ppid as u32));
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

/// CPU time (user and system) `pid` has used so far, in ms. `/proc` counts it in clock ticks,
/// 100 a second on Linux (`USER_HZ`).
fn cpu_ms(pid: u32) -> u64 {
    let fields = stat_fields(pid).unwrap_or_default();
    (fields.get(11).unwrap_or(&0) + fields.get(12).unwrap_or(&0)) * 10
}

/// The process under a WebDriver session named `name` (`/proc`'s name: at most 15 characters).
fn session_process(s: &Session, name: &str) -> u32 {
    process_tree(s.driver_pid())
        .into_iter()
        .find(|p| name_of(*p) == name)
        .unwrap_or_else(|| panic!("no {name} under the driver"))
}

/// The web process (where the page's scripts, layout and painting run) under a session.
fn web_process(s: &Session) -> u32 {
    session_process(s, "WebKitWebProces")
}

/// The processes from `root` down with their PSS in kB.
fn tree_memory(root: u32) -> Vec<(String, u64)> {
    process_tree(root)
        .iter()
        .map(|p| (name_of(*p), pss_kb(*p)))
        .collect()
}

/// The app's processes (it and its WebKit children) with their PSS in kB.
fn memory_of(app: &App) -> Vec<(String, u64)> {
    tree_memory(app.pid())
}

/// The app's processes under a WebDriver session (the app and its WebKit children, not the
/// drivers that started it) with their PSS in kB.
fn session_memory(s: &Session) -> Vec<(String, u64)> {
    tree_memory(session_process(s, "tollgate"))
}

/// The app's memory 30 s after its first paint (by then the web process has collected what
/// starting up left behind).
fn idle_memory(mut app: App) -> Vec<(String, u64)> {
    first_paint(&mut app);
    std::thread::sleep(Duration::from_secs(30));
    memory_of(&app)
}

/// `parts` as "12.3 MB total — name 1.2 MB, …".
fn describe_memory(parts: &[(String, u64)]) -> String {
    let total: u64 = parts.iter().map(|(_, kb)| kb).sum();
    format!(
        "{:.1} MB total — {}",
        total as f64 / 1024.0,
        parts
            .iter()
            .map(|(n, kb)| format!("{n} {:.1} MB", *kb as f64 / 1024.0))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn total_kb(parts: &[(String, u64)]) -> u64 {
    parts.iter().map(|(_, kb)| kb).sum()
}

fn median(values: &[u64]) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted[sorted.len() / 2]
}

/// Opens chat `to` from the sidebar (after opening chat `from`, so it is opened afresh) and
/// returns the ms from the click to the frame that shows its message `last`.
async fn open_ms(s: &Session, from: i64, to: i64, last: i64) -> f64 {
    s.client
        .execute_async(
            r#"
            const [from, to, last, done] = arguments;
            const item = (id) => document.querySelector(`.chat-list .chat-item[data-chat="${id}"]`);
            item(from).click();
            setTimeout(() => {
              const t0 = performance.now();
              item(to).click();
              const check = () => {
                if (document.querySelector(`.chat-scroll [data-message="${last}"]`)) {
                  requestAnimationFrame(() => done(performance.now() - t0));
                } else {
                  requestAnimationFrame(check);
                }
              };
              check();
            }, 300);
            "#,
            vec![json!(from), json!(to), json!(last)],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap()
}

/// Frame gaps (ms) while the open chat is scrolled from its end to its start and back, a
/// screen at a time as a fast wheel or a dragged scrollbar does, each step on the next frame.
async fn scroll_frames(s: &Session) -> Vec<f64> {
    let gaps = s
        .client
        .execute_async(
            r#"
            const done = arguments[0];
            const el = document.querySelector('.chat-scroll');
            const gaps = [];
            let last = performance.now();
            let up = true, still = 0;
            const step = (t) => {
              gaps.push(t - last); last = t;
              const before = el.scrollTop;
              el.scrollTop = up ? before - el.clientHeight : before + el.clientHeight;
              // The end is reached when a step moves nothing for a few frames (the list may
              // grow as it measures the messages it renders).
              still = Math.abs(el.scrollTop - before) < 1 ? still + 1 : 0;
              if (still >= 5) {
                if (up) { up = false; still = 0; } else { done(gaps); return; }
              }
              requestAnimationFrame(step);
            };
            requestAnimationFrame((t) => { last = t; requestAnimationFrame(step); });
            "#,
            vec![],
        )
        .await
        .unwrap();
    numbers(&gaps)
}

/// The numbers of a JSON array a page script returned.
fn numbers(value: &serde_json::Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_f64())
        .collect()
}

/// (longest, frames over 50 ms, frames, time past 16.7 ms summed) of `gaps`, in ms.
fn frame_figures(gaps: &[f64]) -> (f64, usize, usize, f64) {
    let longest = gaps.iter().copied().fold(0.0, f64::max);
    let long = gaps.iter().filter(|g| **g > 50.0).count();
    let busy: f64 = gaps.iter().map(|g| (g - 16.7).max(0.0)).sum();
    (longest, long, gaps.len(), busy)
}

#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_start_memory_and_long_chat() {
    let _seat = Seat::take().await.unwrap();

    // Cold start to first paint, five launches on fresh data folders.
    let mut starts = Vec::new();
    // Idle memory of the app and its WebKit processes, 5 s and 30 s after the first paint of
    // the first launch (by 30 s the web process has collected what starting up left behind).
    let mut memory = Vec::new();
    for run in 0..5 {
        let mut app = App::launch().unwrap();
        starts.push(first_paint(&mut app));
        if run == 0 {
            let mut waited = 0;
            for at in [5, 30] {
                std::thread::sleep(Duration::from_secs(at - waited));
                waited = at;
                memory.push((at, memory_of(&app)));
            }
        }
        drop(app);
        std::thread::sleep(Duration::from_millis(300));
    }
    println!(
        "SPEED cold start to first paint (ms), 5 launches: {starts:?}; median {} (target ≤ 700)",
        median(&starts)
    );
    for (at, parts) in &memory {
        println!(
            "SPEED idle memory (PSS) {at} s after first paint: {}",
            describe_memory(parts)
        );
    }

    // A chat of 5,000 messages: time from the click to its last message on screen.
    let dir = tempfile::tempdir().unwrap();
    let (big, small, last) = {
        let store = Store::open_in(dir.path()).unwrap();
        let big = store
            .create_chat(NewChat {
                title: "Five thousand messages".into(),
                ..NewChat::default()
            })
            .await
            .unwrap();
        let small = store
            .create_chat(NewChat {
                title: "Small".into(),
                ..NewChat::default()
            })
            .await
            .unwrap();
        let mut last = 0;
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
            last = store
                .messages()
                .insert_message(big.id, role, content, MessageStatus::Complete, None)
                .await
                .unwrap();
        }
        store.flush().await.unwrap();
        (big.id.0, small.id.0, last)
    };
    let s = Session::start_in(dir, &[]).await.unwrap();
    s.el(".chat-list .chat-item").await.unwrap();
    let mut opens = Vec::new();
    for round in 0..3 {
        opens.push(open_ms(&s, small, big, last).await.round() as u64);
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
        "SPEED open a 5,000-message chat (ms, click to last message painted), 3 runs: {opens:?} (target ≤ 300); messages in the DOM: {rendered}"
    );
    s.close().await;
}

/// A long markdown answer of about `len` characters (paragraphs, headings, lists, code), ending
/// with a marker the test waits for.
fn long_answer(len: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < len {
        out.push_str(&match i % 4 {
            0 => format!("## Part {i}\n\nThe gate **checks** call {i}, asks when the policy says so, and records the decision with who made it and when. Nothing runs before that.\n\n"),
            1 => format!("- policy: `ask-once` for call {i}\n- result kept in `call_{i}`\n- the model sees a truncated copy\n\n"),
            2 => format!("```rust\nfn step_{i}(x: u32) -> u32 {{\n    let y = x * {i};\n    y + 1\n}}\n```\n\n"),
            _ => format!("A longer paragraph about step {i}: the approval card shows the command, the folder it runs in and the sandbox level, and the keyboard answers it — Enter allows, Escape denies.\n\n"),
        });
        i += 1;
    }
    out.push_str("END-OF-ANSWER");
    out
}

/// Frame times in the window while `len` characters stream in `chunks` chunks at 500 a second:
/// (the longest frame, frames over 50 ms, frames, time past 16.7 ms summed over frames) in ms,
/// and the CPU time the web process spent meanwhile (all of the page's work: scripts, layout,
/// painting) in ms.
async fn stream_frames(
    s: &Session,
    mock: &tollgate_mock_llm::MockLlm,
    len: usize,
    chunks: usize,
) -> ((f64, usize, usize, f64), u64) {
    let text = long_answer(len);
    let per_chunk = text.chars().count().div_ceil(chunks);
    mock.push(openai::text_in(&text, per_chunk).slow(Duration::from_millis(2)));
    record_frames(s).await;
    let web = web_process(s);
    let cpu = cpu_ms(web);
    s.new_chat_and_send("a long answer please").await.unwrap();
    let gaps = frames_until(s, &answered("END-OF-ANSWER"), 250).await;
    (frame_figures(&gaps), cpu_ms(web) - cpu)
}

/// Starts recording the gaps between the page's frames (`window.__frames`).
async fn record_frames(s: &Session) {
    s.client
        .execute(
            r#"
            const f = { gaps: [], last: performance.now(), on: true };
            window.__frames = f;
            const tick = (t) => { f.gaps.push(t - f.last); f.last = t; if (f.on) requestAnimationFrame(tick); };
            requestAnimationFrame(tick);
            "#,
            vec![],
        )
        .await
        .unwrap();
}

/// Waits until the page script `finished` (an expression) holds, checked every `every_ms`,
/// then stops recording frames and returns their gaps (ms). Waited for in the page, cheaply:
/// asking WebDriver for the window's text would lay out and walk the whole page each time,
/// and be measured as the app's own work.
async fn frames_until(s: &Session, finished: &str, every_ms: u64) -> Vec<f64> {
    let script = format!(
        r#"
        const done = arguments[0];
        const check = () => {{
          if ({finished}) {{ window.__frames.on = false; done(window.__frames.gaps); }}
          else setTimeout(check, {every_ms});
        }};
        check();
        "#
    );
    numbers(&s.client.execute_async(&script, vec![]).await.unwrap())
}

/// A page expression: the newest answer contains `needle` and its turn is over (it can be
/// regenerated).
fn answered(needle: &str) -> String {
    format!(
        r#"(() => {{
          const answers = document.querySelectorAll('.msg--assistant');
          const last = answers[answers.length - 1];
          return !!last && last.textContent.includes({needle:?}) && !!last.querySelector('[data-role=regenerate]');
        }})()"#
    )
}

#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_streaming() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-speed-stream")
        .await
        .unwrap();
    // The in-page wait for a whole streamed answer may take longer than the default 30 s.
    s.script_timeout(Duration::from_secs(180)).await.unwrap();
    let mut work = Vec::new();
    for (len, chunks) in [(25_000, 2_500), (50_000, 5_000)] {
        let ((longest, long, frames, busy), cpu) = stream_frames(&s, &mock, len, chunks).await;
        println!(
            "SPEED stream {len} chars in {chunks} chunks at 500/s: longest frame {longest:.0} ms (target < 50), frames over 50 ms {long} of {frames}, time past 16.7 ms summed {busy:.0} ms; the web process's CPU time {cpu} ms"
        );
        work.push(cpu as f64);
    }
    println!(
        "SPEED stream: render work (the web process's CPU time) for twice the answer ×{:.2} (linear: ×2; quadratic: ×4)",
        work[1] / work[0]
    );
    s.screenshot("speed-streamed-answer").await.unwrap();
    s.close().await;
}

/// SPEC §12: the first-sight review of a server with 100 tools, from the click on Review to the
/// frame that shows it open (target ≤ 100 ms), and to the one with every tool in place.
#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_first_sight_review() {
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/inject-server.mjs");
    let logs = tempfile::tempdir().unwrap();
    let json = json!({"mcpServers": {"many": {
        "command": "node",
        "args": [script.display().to_string()],
        "env": {"INJECT_KIND": "many", "INJECT_DIR": logs.path().display().to_string()}
    }}});
    s.import_mcp_json(&json).await.unwrap();
    s.wait_text(
        "[data-server=many] [data-status=ready]",
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    // What any change to this pane costs the window, for comparison: one word added to the
    // server's card, from the change to the first frame after the one that shows it.
    let repaint = s
        .client
        .execute_async(
            r#"
            const done = arguments[0];
            const word = document.createElement('span');
            word.textContent = 'probe';
            const t0 = performance.now();
            document.querySelector('[data-server=many]').appendChild(word);
            requestAnimationFrame(() => requestAnimationFrame(() => {
              const ms = performance.now() - t0;
              word.remove();
              requestAnimationFrame(() => requestAnimationFrame(() => done(ms)));
            }));
            "#,
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    // Two moments: the frame that shows the review with its first tools (what the user sees
    // open), and the one with all 100 in place (the list fills in a batch per frame).
    let times = s
        .client
        .execute_async(
            r#"
            const done = arguments[0];
            const t0 = performance.now();
            let opened = null;
            document.querySelector('[data-server=many] [data-role=open-review]').click();
            const check = () => {
              const list = document.querySelector('[data-server=many] .review-tools');
              if (opened === null && list && list.querySelector('.review-tool')) {
                // Two frames on: WebKit may run a frame's callbacks before the paint it
                // started lands, so the second frame after the change is the first one known
                // to come after that paint.
                opened = -1;
                requestAnimationFrame(() => requestAnimationFrame(() => { opened = performance.now() - t0; }));
              }
              if (list && list.dataset.complete === 'true'
                  && list.querySelectorAll('.review-tool').length === 100) {
                requestAnimationFrame(() => requestAnimationFrame(() => done([opened, performance.now() - t0])));
              } else {
                requestAnimationFrame(check);
              }
            };
            check();
            "#,
            vec![],
        )
        .await;
    if times.is_err() {
        s.screenshot("speed-first-sight-review-failed")
            .await
            .unwrap();
        let body = s.body_text().await.unwrap();
        panic!("the review never showed its 100 tools: {times:?}\n{body}");
    }
    let times = numbers(&times.unwrap());
    let (opened, whole) = (times[0], times[1]);
    // Of which the backend's answer: the same command, asked from the page.
    let backend = s
        .client
        .execute_async(
            r#"
            const done = arguments[0];
            const t0 = performance.now();
            window.__TAURI_INTERNALS__.invoke('mcp_server_review', { server: 'many' })
              .then(() => done(performance.now() - t0), (e) => done(-1));
            "#,
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    println!(
        "SPEED first-sight review of a 100-tool server: open (the frame that shows it, first tools in place) {opened:.0} ms from the click (target ≤ 100 ms); all 100 tools in place {whole:.0} ms; the backend's answer alone {backend:.0} ms; one word added to the same card, for comparison, {repaint:.0} ms"
    );
    s.screenshot("speed-first-sight-review").await.unwrap();
    s.close().await;
}

/// F-98: the card of a plan of 50 steps, each with two targets, from the moment the model's
/// answer proposing it is let out of the provider (all of its arguments sent, its finish held
/// until then) to the second frame after the card is in the page (target ≤ 100 ms). The page's
/// clock starts looking only once WebDriver hands it the script, so a card already drawn by then
/// counts from that later frame: the figure is an upper bound. Three plans in one chat.
#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_plan_card() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-speed-plan-card-never-in-the-db")
        .await
        .unwrap();
    let steps: Vec<serde_json::Value> = (0..50)
        .map(|i| {
            json!({
                "purpose": format!("send receipt {i}"),
                "tool": "fetch_url",
                "maxCalls": 2,
                "targets": [format!("https://shop{i}.example/receipt"), format!("team{i}@example.org")]
            })
        })
        .collect();
    let plan = json!({ "steps": steps }).to_string();
    let mut figures = Vec::new();
    for run in 0..3 {
        let gate = tollgate_mock_llm::Gate::new();
        let reply = openai::calls("", &[(&format!("p{run}"), "propose_plan", &plan)]);
        let finish = reply.frames_before_finish();
        mock.push(reply.held_at(finish, &gate));
        mock.push(openai::text(&format!(
            "Declined {run}; going on call by call."
        )));
        let asked = mock.requests().len();
        let text = "send the fifty receipts to team0@example.org and the others";
        if run == 0 {
            s.new_chat_and_send(text).await.unwrap();
        } else {
            s.send(text).await.unwrap();
        }
        while mock.requests().len() == asked {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Notes when the card is put in the page, before the gate opens.
        s.client
            .execute(
                r#"
                window.__planCardAt = null;
                const seen = new MutationObserver(() => {
                  if (document.querySelector('.plan-card.is-active')) {
                    window.__planCardAt = Date.now();
                    seen.disconnect();
                  }
                });
                seen.observe(document.body, { childList: true, subtree: true });
                "#,
                vec![],
            )
            .await
            .unwrap();
        let let_out = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0;
        gate.open();
        let painted = s
            .client
            .execute_async(
                r#"
                const done = arguments[0];
                const check = () => {
                  if (document.querySelector('.plan-card.is-active')) {
                    requestAnimationFrame(() => requestAnimationFrame(() => done([window.__planCardAt, Date.now()])));
                  } else {
                    requestAnimationFrame(check);
                  }
                };
                check();
                "#,
                vec![],
            )
            .await
            .unwrap();
        let times = numbers(&painted);
        figures.push((times[0] - let_out, times[1] - let_out));
        if run == 2 {
            s.screenshot("speed-plan-card").await.unwrap();
        }
        s.press(keys::ESCAPE).await.unwrap();
        s.wait_for_text(&format!("Declined {run}"), Duration::from_secs(30))
            .await
            .unwrap();
    }
    let shown = |pick: fn(&(f64, f64)) -> f64| {
        figures
            .iter()
            .map(|f| format!("{:.0}", pick(f)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "SPEED plan card of 50 steps: from the proposal let out of the provider to the card in the page {} ms; to the second frame after it {} ms (target ≤ 100 ms)",
        shown(|f| f.0),
        shown(|f| f.1)
    );
    s.close().await;
}

/// Queries typed into the sidebar's search on the year (words the generated chats use).
const YEAR_QUERIES: &[&str] = &[
    "parser",
    "memory leak",
    "kubernetes pod",
    "retry backoff",
    "borrow lifetime",
];

/// The sidebar's wait after the last key before it searches (`SEARCH_DELAY_MS`).
const SEARCH_DELAY_MS: f64 = 150.0;

/// The generated year (`tollgate_scale`), shared with the scale bench: generated once
/// into `target/bench-data`, then copied for the app (which writes to its database).
async fn year_copy() -> (tempfile::TempDir, Vec<ChatId>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    let spec = ScaleSpec::year();
    let started = Instant::now();
    let (dir, long_chats) = ensure(&root, &spec, &|n| {
        if n % 1_000 == 0 {
            eprintln!(
                "generating the year: {n}/{} chats, {:.0} s",
                spec.chats,
                started.elapsed().as_secs_f64()
            );
        }
    })
    .await
    .unwrap();
    let copy = tempfile::tempdir().unwrap();
    std::fs::copy(dir.join(DB_FILE), copy.path().join(DB_FILE)).unwrap();
    (copy, long_chats)
}

/// The id of the newest user or assistant message of `chat` (the generated chats have one
/// branch) and of the newest chat besides it.
async fn year_ids(store: &Store, chat: ChatId) -> (i64, i64) {
    store
        .call(move |c| {
            let last = c.query_row(
                "SELECT max(id) FROM messages WHERE chat_id = ?1 AND role IN ('user', 'assistant')",
                [chat.0],
                |r| r.get(0),
            )?;
            let other = c.query_row(
                "SELECT id FROM chats WHERE id != ?1 ORDER BY updated_at DESC LIMIT 1",
                [chat.0],
                |r| r.get(0),
            )?;
            Ok((last, other))
        })
        .await
        .unwrap()
}

/// One reading of the sidebar's first screen as the window measured it (`FIRST_SCREEN_MEASURE`
/// in the UI), with where the page was when it began. Times in ms.
#[derive(Debug, Clone, Copy)]
struct FirstScreen {
    /// From the page having its first chats to the frame that shows them painted.
    total: f64,
    /// How far into the page (from its navigation) the chats were had: the app's script running.
    into_page: f64,
    /// Into the page: its HTML parsed (`domInteractive`).
    parsed: f64,
    /// From having the chats: the rows rendered into the page, and the frame that paints them beginning.
    rendered: f64,
    frame_began: f64,
}

/// Reads the sidebar's first screen from the page (waiting until it was measured).
async fn sidebar_first_screen(s: &Session) -> FirstScreen {
    let got = s
        .client
        .execute_async(
            r#"
            const done = arguments[0];
            const check = () => {
              const m = performance.getEntriesByName('tollgate:sidebar-first-screen', 'measure')[0];
              const at = (name) => performance.getEntriesByName(name, 'mark')[0]?.startTime;
              const frame = at('tollgate:chats-frame');
              const rendered = at('tollgate:chats-rendered');
              if (m && frame !== undefined && rendered !== undefined) {
                const nav = performance.getEntriesByType('navigation')[0];
                done([m.duration, m.startTime, nav ? nav.domInteractive : -1, rendered - m.startTime, frame - m.startTime]);
              }
              else setTimeout(check, 50);
            };
            check();
            "#,
            vec![],
        )
        .await
        .unwrap();
    let [total, into_page, parsed, rendered, frame_began] = numbers(&got)[..] else {
        panic!("first screen timings: {got:?}")
    };
    FirstScreen {
        total,
        into_page,
        parsed,
        rendered,
        frame_began,
    }
}

/// The sidebar's first screen over `runs` launches of the app on `data` (a cold web process
/// each: the figure varies from launch to launch on this machine by a third or more), then the
/// same page loaded again in each launch's warm web process (its fonts, glyphs and compiled
/// scripts kept: what the sidebar itself costs, without what the first page of a new process
/// costs), and the number of chat rows in the DOM at the last. Gives the folder back.
async fn first_screens(
    mut data: tempfile::TempDir,
    runs: usize,
) -> (
    Vec<FirstScreen>,
    Vec<FirstScreen>,
    serde_json::Value,
    tempfile::TempDir,
) {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut listed = serde_json::Value::Null;
    for _ in 0..runs {
        let s = Session::start_in(data, &[]).await.unwrap();
        s.el(".chat-list .chat-item").await.unwrap();
        cold.push(sidebar_first_screen(&s).await);
        listed = s
            .client
            .execute(
                "return document.querySelectorAll('.chat-list .chat-item').length",
                vec![],
            )
            .await
            .unwrap();
        s.client.refresh().await.unwrap();
        s.el(".chat-list .chat-item").await.unwrap();
        warm.push(sidebar_first_screen(&s).await);
        data = s.close_keeping_data().await.unwrap();
    }
    (cold, warm, listed, data)
}

/// The median reading of the first screen (by its total) and the totals' range, rounded.
fn first_screen_summary(readings: &[FirstScreen]) -> (FirstScreen, Vec<u64>) {
    let mut sorted = readings.to_vec();
    sorted.sort_by(|a, b| a.total.total_cmp(&b.total));
    let totals = sorted.iter().map(|r| r.total.round() as u64).collect();
    (sorted[sorted.len() / 2], totals)
}

/// A fresh data folder holding one chat shaped like the year's (the same kind of screen at
/// start as the year's newest chat, without the year behind it).
async fn one_chat_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    store.import_chat(one_chat(150, 1)).await.unwrap();
    store.flush().await.unwrap();
    dir
}

#[tokio::test]
#[ignore = "a measurement on a generated year: run tests/speed.sh"]
async fn measure_year_first_screen() {
    let _seat = Seat::take().await.unwrap();
    let (copy, _) = year_copy().await;
    let (small, ..) = first_screens(one_chat_folder().await, 3).await;
    let (_, small_totals) = first_screen_summary(&small);
    let (year, warm, listed, copy) = first_screens(copy, 7).await;
    let (m, totals) = first_screen_summary(&year);
    let (w, warm_totals) = first_screen_summary(&warm);
    println!(
        "SPEED year: sidebar first screen, median of {} launches {:.0} ms from the page having its chats to them painted (target ≤ 50), all {totals:?}; the median launch: HTML parsed {:.0} ms into the page, chats had at {:.0}, rendered after {:.0} ms, its frame began after {:.0} ms; chats in the DOM: {listed}; with one chat like the year's: {small_totals:?}",
        totals.len(), m.total, m.parsed, m.into_page, m.rendered, m.frame_began
    );
    println!(
        "SPEED year: the same page loaded again in each launch's warm web process: median {:.0} ms (rendered after {:.0}, frame began after {:.0}), all {warm_totals:?}",
        w.total, w.rendered, w.frame_began
    );
    let s = Session::start_in(copy, &[]).await.unwrap();
    s.el(".chat-list .chat-item").await.unwrap();
    s.screenshot("speed-year-start").await.unwrap();
    s.close().await;
}

#[tokio::test]
#[ignore = "a measurement on a generated year: run tests/speed.sh"]
async fn measure_a_year() {
    let _seat = Seat::take().await.unwrap();
    let (copy, _) = year_copy().await;

    // Cold start and idle memory on the year as generated, beside a fresh data folder's.
    let mut starts = Vec::new();
    let mut year_memory = Vec::new();
    for run in 0..5 {
        let mut app = App::launch_on(copy.path()).unwrap();
        starts.push(first_paint(&mut app));
        if run == 0 {
            std::thread::sleep(Duration::from_secs(30));
            year_memory = memory_of(&app);
        }
        drop(app);
        std::thread::sleep(Duration::from_millis(300));
    }
    let fresh_memory = idle_memory(App::launch().unwrap());
    let one_chat = one_chat_folder().await;
    let one_chat_memory = idle_memory(App::launch_on(one_chat.path()).unwrap());
    println!(
        "SPEED year: cold start to first paint (ms), 5 launches: {starts:?}; median {} (target ≤ 700)",
        median(&starts)
    );
    println!(
        "SPEED year: idle memory 30 s after first paint {:+.1} MB over a fresh data folder (target ≤ +20 MB): year {}; fresh {}",
        (total_kb(&year_memory) as f64 - total_kb(&fresh_memory) as f64) / 1024.0,
        describe_memory(&year_memory),
        describe_memory(&fresh_memory)
    );
    println!(
        "SPEED year: idle memory {:+.1} MB over a fresh data folder with one chat like the year's on screen: {}",
        (total_kb(&year_memory) as f64 - total_kb(&one_chat_memory) as f64) / 1024.0,
        describe_memory(&one_chat_memory)
    );
}

/// A copy of the year in which the user was reading the 5,000-message chat last (it is at the
/// top of the sidebar), with the ids of that chat, its newest message and the chat below it.
async fn year_reading_five_k() -> (tempfile::TempDir, ChatId, i64, i64) {
    let (copy, long_chats) = year_copy().await;
    let five_k = long_chats[1];
    let store = Store::open_in(copy.path()).unwrap();
    store
        .call(move |c| {
            c.execute(
                "UPDATE chats SET updated_at = (SELECT max(updated_at) + 1 FROM chats) WHERE id = ?1",
                [five_k.0],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let (last, other) = year_ids(&store, five_k).await;
    store.flush().await.unwrap();
    (copy, five_k, last, other)
}

#[tokio::test]
#[ignore = "a measurement on a generated year: run tests/speed.sh"]
async fn measure_year_chat_and_search() {
    let _seat = Seat::take().await.unwrap();
    let (copy, five_k, last, other) = year_reading_five_k().await;
    let s = Session::start_in(copy, &[]).await.unwrap();
    s.el(".chat-list .chat-item").await.unwrap();
    // Scrolling 5,000 messages end to end takes longer than the default 30 s.
    s.script_timeout(Duration::from_secs(600)).await.unwrap();
    let mut opens = Vec::new();
    for _ in 0..3 {
        opens.push(open_ms(&s, other, five_k.0, last).await.round() as u64);
    }
    println!(
        "SPEED year: open the 5,000-message chat (ms, click to last message painted), 3 runs: {opens:?} (target ≤ 300)"
    );
    // The scroll is of the whole chat: its earlier pages, read behind the first screen, are in.
    let whole_after = s
        .client
        .execute_async(
            r#"
            const done = arguments[0];
            const t0 = performance.now();
            const check = () => document.querySelector('.chat-scroll .virtual-head') ? requestAnimationFrame(check) : done(performance.now() - t0);
            check();
            "#,
            vec![],
        )
        .await
        .unwrap();
    println!(
        "SPEED year: the 5,000-message chat's earlier pages were all in {:.0} ms after the last open's measure ended",
        whole_after.as_f64().unwrap()
    );
    let web = web_process(&s);
    let cpu_before = cpu_ms(web);
    let gaps = scroll_frames(&s).await;
    let (longest, long, frames, busy) = frame_figures(&gaps);
    let cpu = cpu_ms(web) - cpu_before;
    let at: Vec<usize> = (0..gaps.len()).filter(|i| gaps[*i] > 50.0).collect();
    println!(
        "SPEED year: scroll the 5,000-message chat end to end and back, a screen a frame: longest frame {longest:.0} ms (target < 50), frames over 50 ms {long} of {frames} (at frames {at:?}), time past 16.7 ms summed {busy:.0} ms; the web process's CPU time {cpu} ms"
    );
    s.screenshot("speed-year-scrolled").await.unwrap();

    let mut searches = Vec::new();
    for q in YEAR_QUERIES {
        let ms = s
            .client
            .execute_async(
                r#"
                const [query, done] = arguments;
                const input = document.querySelector('.search input');
                const words = query.toLowerCase().split(' ');
                input.focus();
                input.value = query;
                const t0 = performance.now();
                input.dispatchEvent(new Event('input', { bubbles: true }));
                const check = () => {
                  const marks = [...document.querySelectorAll('.chat-list .snippet mark')];
                  if (marks.some((m) => words.some((w) => m.textContent.toLowerCase().startsWith(w)))) {
                    // Checked at a frame's start: the task after it runs once that frame is painted.
                    setTimeout(() => {
                      const end = performance.now();
                      const at = (name) => performance.getEntriesByName(name, 'mark').at(-1).startTime;
                      const asked = at('tollgate:search-asked');
                      const answered = at('tollgate:search-answered');
                      done([end - t0, asked - t0, answered - asked, end - answered]);
                    }, 0);
                  } else {
                    requestAnimationFrame(check);
                  }
                };
                check();
                "#,
                vec![json!(q)],
            )
            .await
            .unwrap();
        let [total, asked, call, shown] = numbers(&ms)[..] else {
            panic!("search timings: {ms:?}")
        };
        println!(
            "SPEED year: search {q:?}: asked {asked:.0} ms after the last key, the call answered in {call:.0} ms, results painted {shown:.0} ms after"
        );
        searches.push(((total - SEARCH_DELAY_MS).max(0.0)).round() as u64);
    }
    s.screenshot("speed-year-search").await.unwrap();
    println!(
        "SPEED year: search in the window, last key to ranked and highlighted results on screen, less the {SEARCH_DELAY_MS} ms typing pause (ms): {searches:?}; worst {} (target ≤ 100)",
        searches.iter().max().unwrap()
    );
    s.close().await;
}

/// What the big command prints: 10,000,000 bytes ("10 MB").
const BIG_OUTPUT: usize = 10_000_000;

#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_big_shell_output() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-speed-shell")
        .await
        .unwrap();
    s.script_timeout(Duration::from_secs(300)).await.unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let command = format!(
        "yes 'Compiling crate 0123456789 (build output, line after line)' | head -c {BIG_OUTPUT}"
    );
    let args = json!({ "command": command }).to_string();
    mock.push(openai::calls("", &[("call_1", "run_command", &args)]));
    mock.push(openai::text("BIG-OUTPUT-READ"));
    s.new_chat().await.unwrap();
    s.set_workspace(workspace.path()).await.unwrap();
    // The tool-chain log is open, as for a user watching the command.
    show_tool_log(&s, true).await;
    s.send("build it").await.unwrap();
    s.active_approval().await.unwrap();

    // Allowed from the keyboard; while it runs, its card in the log is opened to the live output.
    record_frames(&s).await;
    let t0 = Instant::now();
    s.press(keys::ENTER).await.unwrap();
    let watch = format!(
        r#"(() => {{
          const head = document.querySelector('.log-panel .tool-card:not(.is-open) .tool-card-head');
          if (head) head.click();
          return {};
        }})()"#,
        answered("BIG-OUTPUT-READ")
    );
    let gaps = frames_until(&s, &watch, 50).await;
    let elapsed = t0.elapsed();
    let (longest, long, frames, busy) = frame_figures(&gaps);
    let shown = s
        .client
        .execute(
            "return Math.max(0, ...[...document.querySelectorAll('.log-panel .tool-card.is-open pre')].map((p) => p.textContent.length));",
            vec![],
        )
        .await
        .unwrap();
    s.screenshot("speed-big-shell-output").await.unwrap();

    // The full output is kept in the call's variable; the model read a shortened copy.
    let chat: i64 = s.open_chat().await.unwrap().parse().unwrap();
    let store = Store::open_in(s.data_path()).unwrap();
    let kept = store
        .variables()
        .chat_variables(ChatId(chat))
        .await
        .unwrap()
        .into_iter()
        .find(|v| v.name == "run_command_c1_result")
        .map_or(0, |v| v.value.len());
    let read = tool_results(&completions(&mock)[1])[0].len();
    println!(
        "SPEED a {BIG_OUTPUT}-byte shell output streamed into the open tool-chain log: longest frame {longest:.0} ms (target < 50), frames over 50 ms {long} of {frames}, time past 16.7 ms summed {busy:.0} ms; allow to answer {:.1} s; live output on screen {shown} chars; kept in the variable {kept} bytes; the model read {read} bytes",
        elapsed.as_secs_f64()
    );
    s.close().await;
}

/// Opens or closes the tool-chain log. The window remembers the choice (in storage that the
/// measures of one run share), so each measure sets it rather than inheriting it.
async fn show_tool_log(s: &Session, open: bool) {
    let toggle = ".chat-actions button[aria-pressed]";
    let pressed = s
        .el(toggle)
        .await
        .unwrap()
        .attr("aria-pressed")
        .await
        .unwrap();
    if (pressed.as_deref() == Some("true")) != open {
        s.click(toggle).await.unwrap();
    }
}

/// Turns of the long session, and every how many its memory is read.
const SESSION_TURNS: usize = 500;
const SESSION_SAMPLE_EVERY: usize = 50;

/// The turn number in the newest user message of a request ("turn 17: …").
fn turn_of(body: &serde_json::Value) -> u64 {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .and_then(|t| t.strip_prefix("turn "))
        .and_then(|t| t.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The long session's model: each question gets a `calculate` call, each result an answer
/// (markdown with code, of an ordinary answer's length) naming its turn.
fn long_session_model(body: &serde_json::Value) -> tollgate_mock_llm::Reply {
    let turn = turn_of(body);
    let last = body["messages"].as_array().and_then(|m| m.last());
    if body.get("tools").is_none() {
        return openai::text("A long session");
    }
    if last.is_some_and(|m| m["role"] == "tool") {
        return openai::text(&format!(
            "Answered turn {turn}: the result is **{}**.\n\nThe gate ran `calculate` without asking (its policy is auto) and kept the result as a variable:\n\n```rust\nlet answer = {turn} * 3; // {}\n```\n\n- call recorded in the tool-chain log\n- nothing else ran",
            turn * 3,
            turn * 3
        ));
    }
    let args = json!({ "expression": format!("{turn} * 3") }).to_string();
    openai::calls("", &[(&format!("call_{turn}"), "calculate", args.as_str())])
}

#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_long_session() {
    let _seat = Seat::take().await.unwrap();
    long_session(false).await;
}

#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_long_session_log_open() {
    let _seat = Seat::take().await.unwrap();
    long_session(true).await;
}

/// 500 turns with a tool call each in one app run, the tool-chain log (which lists every call
/// of the chat) open or closed; prints the memory curve.
async fn long_session(log_open: bool) {
    let (s, mock) = Session::with_mock_provider(&[], "sk-speed-session")
        .await
        .unwrap();
    mock.respond_with(long_session_model);
    s.new_chat().await.unwrap();
    show_tool_log(&s, log_open).await;
    let mut curve = Vec::new();
    let sample = |turns: usize| {
        // A moment for the page to settle after the turn, then the median of three readings
        // 2 s apart: the web process's garbage collections come at their own times, and one
        // reading may fall just before or after one.
        std::thread::sleep(Duration::from_secs(3));
        let mut readings = Vec::new();
        for i in 0..3 {
            if i > 0 {
                std::thread::sleep(Duration::from_secs(2));
            }
            readings.push(session_memory(&s));
        }
        readings.sort_by_key(|parts| total_kb(parts));
        (turns, readings.swap_remove(1))
    };
    curve.push(sample(0));
    let started = Instant::now();
    for turn in 1..=SESSION_TURNS {
        s.send(&format!("turn {turn}: what is {turn} times 3?"))
            .await
            .unwrap();
        s.client
            .execute_async(
                &format!(
                    "const done = arguments[0]; const check = () => {} ? done(true) : setTimeout(check, 20); check();",
                    answered(&format!("Answered turn {turn}:"))
                ),
                vec![],
            )
            .await
            .unwrap();
        if turn % SESSION_SAMPLE_EVERY == 0 {
            curve.push(sample(turn));
        }
    }
    let took = started.elapsed();
    let parts = session_memory(&s);
    s.screenshot(if log_open {
        "speed-long-session-log-open"
    } else {
        "speed-long-session"
    })
    .await
    .unwrap();
    let at = |turns: usize| {
        curve
            .iter()
            .find(|(t, _)| *t == turns)
            .map_or(0, |(_, parts)| total_kb(parts))
    };
    let growth = (at(SESSION_TURNS) as f64 - at(SESSION_SAMPLE_EVERY) as f64) / 1024.0;
    println!(
        "SPEED {SESSION_TURNS} turns with a tool call each in one app run, the tool-chain log {} ({:.0} s): memory (PSS, all the app's processes) {growth:+.1} MB from turn {SESSION_SAMPLE_EVERY} to turn {SESSION_TURNS} (target ≤ +30 MB); curve (turn: MB, then each process as listed at the end) {}; at the end {}",
        if log_open { "open" } else { "closed" },
        took.as_secs_f64(),
        curve
            .iter()
            .map(|(t, parts)| format!(
                "{t}: {:.1} ({})",
                total_kb(parts) as f64 / 1024.0,
                parts
                    .iter()
                    .map(|(_, kb)| format!("{:.1}", *kb as f64 / 1024.0))
                    .collect::<Vec<_>>()
                    .join(" + ")
            ))
            .collect::<Vec<_>>()
            .join(", "),
        describe_memory(&parts)
    );
    s.close().await;
}

/// Views in the chat of the views measure.
const VIEWS: u64 = 20;

/// The views measure's model: turn 0 is answered in words; every other turn shows a view (the
/// test server's `show_view`), then says so.
fn views_model(body: &serde_json::Value) -> tollgate_mock_llm::Reply {
    let turn = turn_of(body);
    let last = body["messages"].as_array().and_then(|m| m.last());
    if body.get("tools").is_none() {
        return openai::text("Views");
    }
    if turn == 0 || last.is_some_and(|m| m["role"] == "tool") {
        return openai::text(&format!(
            "Answered turn {turn}: the view is above, with the result it was sent."
        ));
    }
    let args = json!({ "label": format!("view {turn}") }).to_string();
    openai::calls(
        "",
        &[(&format!("call_{turn}"), "views__show_view", args.as_str())],
    )
}

/// Sends turn `turn` and waits for its answer, allowing from the keyboard any call that asks.
async fn views_turn(s: &Session, turn: u64) {
    s.send(&format!("turn {turn}: show me view {turn}"))
        .await
        .unwrap();
    let done = answered(&format!("Answered turn {turn}:"));
    loop {
        let state = s
            .client
            .execute(
                &format!("return {done} ? 'answered' : document.querySelector('.approval-card.is-active') ? 'asking' : 'waiting';"),
                vec![],
            )
            .await
            .unwrap();
        match state.as_str() {
            Some("answered") => return,
            Some("asking") => {
                s.active_approval().await.unwrap();
                s.press(keys::ENTER).await.unwrap();
                s.approvals_gone().await.unwrap();
            }
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Turns every MCP view on or off in Settings → General, and comes back to the chat.
async fn switch_views(s: &Session) {
    s.open_settings("General").await.unwrap();
    let saves = s.settings_saves("general-settings").await.unwrap();
    s.click("[data-role=mcp-views-all]").await.unwrap();
    s.until_settings_saved("general-settings", saves)
        .await
        .unwrap();
    s.back_to_chat().await.unwrap();
}

/// Opens the views chat three times (from the small chat), scrolls it end to end and back,
/// and reads the app's memory 30 s after each: (opens in ms, scroll figures, memory after
/// opening, memory after scrolling, views alive after scrolling).
async fn views_figures(
    s: &Session,
    small: i64,
    views: i64,
    last: i64,
) -> (
    Vec<u64>,
    (f64, usize, usize, f64),
    Vec<(String, u64)>,
    Vec<(String, u64)>,
    u64,
) {
    let mut opens = Vec::new();
    for _ in 0..3 {
        opens.push(open_ms(s, small, views, last).await.round() as u64);
    }
    std::thread::sleep(Duration::from_secs(30));
    let opened = session_memory(s);
    let gaps = scroll_frames(s).await;
    let long: Vec<String> = (0..gaps.len())
        .filter(|i| gaps[*i] > 50.0)
        .map(|i| format!("frame {i} of {}: {:.0} ms", gaps.len(), gaps[i]))
        .collect();
    println!("SPEED twenty views: the frames over 50 ms: {long:?}");
    let scroll = frame_figures(&gaps);
    std::thread::sleep(Duration::from_secs(30));
    let scrolled = session_memory(s);
    let alive = s
        .client
        .execute(
            "return document.querySelectorAll('[data-role=view-frame]').length",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap_or(0);
    (opens, scroll, opened, scrolled, alive)
}

/// A chat of 20 turns, each showing an MCP view (F-96), measured as the long chat is
/// (opening it, scrolling it end to end, idle memory) in a fresh run of the app: with views
/// off in Settings first (the same chat, its calls shown as cards alone: before), then on.
#[tokio::test]
#[ignore = "a measurement: run tests/speed.sh"]
async fn measure_twenty_views() {
    let _seat = Seat::take().await.unwrap();
    let report = tollgate_e2e::recorder::Recorder::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-speed-views")
        .await
        .unwrap();
    let script = tollgate_e2e::node_servers::mcp_dir()
        .join("view-server.mjs")
        .display()
        .to_string();
    let env = json!({"VIEW_DIR": dir.path().display().to_string(), "VIEW_REPORT": report.origin, "VIEW_MODE": "show"});
    let servers =
        json!({"mcpServers": {"views": {"command": "node", "args": [script], "env": env}}});
    s.import_mcp_servers(&servers, "views").await.unwrap();
    s.back_to_chat().await.unwrap();
    mock.respond_with(views_model);
    s.new_chat().await.unwrap();
    views_turn(&s, 0).await;
    let chat_id = || async { s.open_chat().await.unwrap().parse::<i64>().unwrap() };
    let small = chat_id().await;
    s.new_chat().await.unwrap();
    let started = Instant::now();
    for turn in 1..=VIEWS {
        views_turn(&s, turn).await;
    }
    let made = started.elapsed();
    let views = chat_id().await;
    let last = s
        .client
        .execute(
            "const m = document.querySelectorAll('.chat-scroll [data-message]'); return Number(m[m.length - 1].dataset.message);",
            vec![],
        )
        .await
        .unwrap()
        .as_i64()
        .unwrap();
    let messages = s
        .client
        .execute(
            "return document.querySelectorAll('.chat-scroll .msg').length",
            vec![],
        )
        .await
        .unwrap();
    s.screenshot("speed-twenty-views").await.unwrap();

    // Measured in a fresh run of the app: views off first (before), then on (after).
    switch_views(&s).await;
    let data = s.close_keeping_data().await.unwrap();
    let s = Session::start_in(data, &[]).await.unwrap();
    s.el(".chat-list .chat-item").await.unwrap();
    let off = views_figures(&s, small, views, last).await;
    switch_views(&s).await;
    let on = views_figures(&s, small, views, last).await;

    println!(
        "SPEED twenty views: {VIEWS} turns each showing a view made in {:.1} s; messages drawn at the end: {messages}",
        made.as_secs_f64()
    );
    for (name, (opens, (longest, long, frames, busy), opened, scrolled, alive)) in
        [("views on", on), ("views off (before)", off)]
    {
        println!(
            "SPEED twenty views, {name}: open (ms, click to last message painted), 3 runs: {opens:?} (target ≤ 300); scroll end to end and back: longest frame {longest:.0} ms (target < 50), {long} of {frames} over 50 ms, time past 16.7 ms {busy:.0} ms; idle memory 30 s after opening: {}; 30 s after scrolling: {} ({alive} views alive)",
            describe_memory(&opened),
            describe_memory(&scrolled)
        );
    }
    s.close().await;
}
