//! The chaos soak (F-26): 200 tool-using turns per wire format against the mock server, with a
//! fifth of all replies broken at random (seeded) in every way providers break. Each turn ends
//! one of three ways — complete, recovered by retries, or a visible failure — and never as a
//! silently shortened answer; a tool call from a broken stream never runs. The figures are
//! printed and written to `target/chaos-report.txt`.

use super::chat::Env;
use serde_json::Value;
use std::fmt::Write as _;
use std::time::{Duration, Instant};
use tollgate_engine::chat::{ChatEvent, TurnOutcome};
use tollgate_mock_llm::chaos::Chaos;
use tollgate_mock_llm::{anthropic, openai, Reply};

const TURNS: usize = 200;
const FAULT_RATE: f64 = 0.2;

fn answer(n: usize) -> String {
    format!("Turn {n} is answered in full: the echo came back, and this sentence is its last.")
}

/// The turn number from the last user text ("turn N").
fn turn_number(body: &Value) -> usize {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .rev()
        .filter(|m| m["role"] == "user")
        .find_map(|m| {
            let text = match &m["content"] {
                Value::String(s) => Some(s.clone()),
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .find(|t| t.starts_with("turn "))
                    .map(str::to_string),
                _ => None,
            }?;
            text.strip_prefix("turn ")?.trim().parse().ok()
        })
        .unwrap_or(0)
}

/// Whether the request carries the results of the turn's tool call.
fn has_results(body: &Value) -> bool {
    let Some(last) = body["messages"].as_array().and_then(|m| m.last()) else {
        return false;
    };
    last["role"] == "tool"
        || last["content"]
            .as_array()
            .is_some_and(|b| b.iter().any(|x| x["type"] == "tool_result"))
}

#[derive(Default, Debug)]
struct Figures {
    complete: usize,
    recovered: usize,
    failed: usize,
    shortened: usize,
    retries: usize,
    echo_runs: usize,
    rounds_with_call: usize,
}

async fn soak(anthropic_format: bool, seed: u64) -> (Figures, Vec<String>, Duration) {
    let mut env = Env::new().await;
    env.settings.idle_timeout_ms = 150;
    env.settings.retry.max_retries = 4;
    env.settings.retry.base_delay_ms = 5;
    env.settings.retry.max_delay_ms = 100;
    env.settings.retry.jitter = true;
    env.mock.respond_with(move |body| {
        let n = turn_number(body);
        let args = format!(r#"{{"text":"turn {n}"}}"#);
        let reply: Reply = match (has_results(body), anthropic_format) {
            (true, false) => openai::text(&answer(n)),
            (true, true) => anthropic::text(&answer(n)),
            (false, false) => openai::calls("Checking.", &[("call_1", "echo", &args)]),
            (false, true) => anthropic::calls("Checking.", &[("toolu_1", "echo", &args)]),
        };
        reply
    });
    env.mock
        .set_chaos(Chaos::new(seed, FAULT_RATE, Duration::from_secs(5)));
    let provider = if anthropic_format {
        env.anthropic()
    } else {
        env.openai()
    };
    let mut f = Figures::default();
    let started = Instant::now();
    for n in 1..=TURNS {
        let (events, outcome) = env
            .start(provider.clone(), &format!("turn {n}"))
            .collect()
            .await;
        let retries = events
            .iter()
            .filter(|e| matches!(e, ChatEvent::Retrying { .. }))
            .count();
        f.retries += retries;
        let last = env
            .messages()
            .await
            .into_iter()
            .rev()
            .find(|m| m.role == tollgate_store::Role::Assistant)
            .unwrap();
        match outcome {
            TurnOutcome::Completed { .. } if last.content == answer(n) => {
                if retries == 0 {
                    f.complete += 1;
                } else {
                    f.recovered += 1;
                }
            }
            TurnOutcome::Completed { .. } => f.shortened += 1,
            TurnOutcome::Failed { .. } => f.failed += 1,
            TurnOutcome::Stopped { .. } => panic!("turn {n} stopped by itself"),
        }
    }
    f.echo_runs = env.log.lock().len();
    f.rounds_with_call = env
        .store
        .calls()
        .chat_calls(env.exec.chat())
        .await
        .unwrap()
        .len();
    let faults = env
        .mock
        .chaos_counts()
        .into_iter()
        .map(|(kind, n)| format!("{kind:?} {n}"))
        .collect();
    (f, faults, started.elapsed())
}

#[tokio::test]
async fn chaos_soak_never_shortens_an_answer_silently() {
    let mut report = String::new();
    for (name, anthropic_format, seed) in [("OpenAI", false, 7), ("Anthropic", true, 11)] {
        let (f, faults, took) = soak(anthropic_format, seed).await;
        let _ = writeln!(
            report,
            "{name}: {TURNS} turns, fault rate {FAULT_RATE} ({}) in {:.1} s — complete {}, recovered by retry {}, visible failures {}, silently shortened {} ({} retries; echo ran {} times for {} recorded calls)",
            faults.join(", "),
            took.as_secs_f64(),
            f.complete,
            f.recovered,
            f.failed,
            f.shortened,
            f.retries,
            f.echo_runs,
            f.rounds_with_call,
        );
        assert_eq!(f.shortened, 0, "{name}: {f:?}");
        assert_eq!(f.complete + f.recovered + f.failed, TURNS);
        assert!(f.recovered > 0, "{name}: the chaos broke something: {f:?}");
        assert_eq!(
            f.echo_runs, f.rounds_with_call,
            "{name}: every run is a recorded call — none came from a broken stream"
        );
        assert!(
            f.echo_runs <= TURNS,
            "{name}: at most one echo per turn: {f:?}"
        );
    }
    print!("{report}");
    let target = std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| format!("{}/../../../target", env!("CARGO_MANIFEST_DIR")));
    let _ = std::fs::write(format!("{target}/chaos-report.txt"), &report);
}
