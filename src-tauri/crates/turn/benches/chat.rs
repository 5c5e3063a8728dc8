//! Speed targets of the chat-loop issue:
//! - parsing a recorded 5 MB stream with tool-call deltas (OpenAI and Anthropic), in MB/s;
//! - a 50-round turn against the local mock server (no latency, auto no-op tools, real SQLite);
//! - 8 parallel read-only tools that each sleep 200 ms, as wall time of the whole turn.
#![allow(clippy::expect_used)] // benchmark set-up: a failure should stop the run

use async_trait::async_trait;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tollgate_engine::chat::{Turn, TurnInput, TurnOutcome, TurnSettings};
use tollgate_engine::router::Router;
use tollgate_engine::{ApprovalHub, Store, ToolExecutor};
use tollgate_executor::rules::RuleBook;
use tollgate_executor::ExecutorDeps;
use tollgate_mock_llm::{anthropic, openai, MockLlm};
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::NullSink;
use tollgate_protocol::ToolSettings;
use tollgate_providers::anthropic::AnthropicStream;
use tollgate_providers::openai::{OpenAiProvider, OpenAiStream};
use tollgate_providers::sse::SseParser;
use tollgate_providers::Provider;
use tollgate_providers::StreamAssembler;
use tollgate_tools::{Registry, Tool, ToolContext, ToolError, ToolGroup, ToolSpec};

/// A recorded stream of about 5 MB: many rounds of text and fragmented tool calls, concatenated.
fn recorded(frames: impl Fn(usize) -> Vec<String>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < 5 * 1024 * 1024 {
        for f in frames(i) {
            out.extend_from_slice(f.as_bytes());
        }
        i += 1;
    }
    out
}

fn parse(c: &mut Criterion) {
    let text =
        "The quick brown fox jumps over the lazy dog; streaming tokens arrive a few at a time. ";
    let args = r#"{"path": "src/main.rs", "offset": 120, "limit": 400, "pattern": "fn \\w+\\("}"#;
    let oa = recorded(|i| {
        let id = format!("call_{i}");
        openai::frames(
            &text.repeat(3),
            &[(id.as_str(), "read_file", args), ("call_b", "grep", args)],
        )
    });
    let an = recorded(|i| {
        let id = format!("toolu_{i}");
        anthropic::frames(
            &text.repeat(3),
            &[(id.as_str(), "read_file", args), ("toolu_b", "grep", args)],
        )
    });
    let mut group = c.benchmark_group("parse_stream");
    group.throughput(Throughput::Bytes(oa.len() as u64));
    group.bench_function("openai_5mb", |b| {
        b.iter(|| {
            let mut parser = SseParser::new();
            let mut stream = OpenAiStream::default();
            let mut deltas = 0usize;
            let mut calls = 0usize;
            for piece in oa.chunks(16 * 1024) {
                parser.feed(piece, &mut |ev| {
                    if ev.data == "[DONE]" {
                        // A recording of many streams: finish each and start the next.
                        let done = std::mem::take(&mut stream);
                        calls += done.finish().expect("complete").tool_calls.len();
                    } else {
                        stream
                            .on_data(&ev.data, &mut |_| deltas += 1)
                            .expect("valid chunk");
                    }
                });
            }
            black_box((deltas, calls))
        })
    });
    group.throughput(Throughput::Bytes(an.len() as u64));
    group.bench_function("anthropic_5mb", |b| {
        b.iter(|| {
            let mut parser = SseParser::new();
            let mut stream = AnthropicStream::default();
            let mut deltas = 0usize;
            let mut calls = 0usize;
            for piece in an.chunks(16 * 1024) {
                parser.feed(piece, &mut |ev| {
                    stream
                        .on_data(&ev.data, &mut |_| deltas += 1)
                        .expect("valid event");
                    if stream.is_done() {
                        let done = std::mem::take(&mut stream);
                        calls += done.finish().expect("complete").tool_calls.len();
                    }
                });
            }
            black_box((deltas, calls))
        })
    });
    group.finish();
}

struct Noop(ToolSpec, Duration);

#[async_trait]
impl Tool for Noop {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, _args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        if !self.1.is_zero() {
            tokio::time::sleep(self.1).await;
        }
        Ok(json!("ok"))
    }
}

struct Bench {
    _dir: tempfile::TempDir,
    store: Store,
    deps: ExecutorDeps,
    router: Arc<Router>,
    mock: MockLlm,
}

async fn bench_env() -> Bench {
    let dir = tempfile::tempdir().expect("dir");
    let store = Store::open_in(dir.path()).expect("store");
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false});
    let mut registry = Registry::with_groups([
        tollgate_tools::vars_tools::group(),
        tollgate_tools::basic::group(),
    ])
    .expect("builtins");
    registry
        .register_group(
            ToolGroup::new("bench", "Bench", "")
                .enabled_by_default(true)
                .tool(Noop(
                    ToolSpec::new("noop", "No-op.", schema.clone()).policy(ExecutionPolicy::Auto),
                    Duration::ZERO,
                ))
                .tool(Noop(
                    ToolSpec::new("nap", "Sleeps 200 ms.", schema)
                        .policy(ExecutionPolicy::Auto)
                        .read_only(),
                    Duration::from_millis(200),
                )),
        )
        .expect("group");
    let router = Arc::new(Router::new(Arc::new(NullSink)));
    let deps = ExecutorDeps {
        registry: Arc::new(registry),
        store: store.clone(),
        hub: Arc::new(ApprovalHub::new()),
        rules: Arc::new(RuleBook::load(store.clone()).await.expect("rules")),
        settings: Arc::new(parking_lot::RwLock::new(ToolSettings::default())),
        sink: router.clone(),
        hidden: Default::default(),
    };
    Bench {
        _dir: dir,
        store,
        deps,
        router,
        mock: MockLlm::start().await.expect("mock"),
    }
}

impl Bench {
    async fn turn(&self) -> Turn {
        let chat = self
            .store
            .create_chat(Default::default())
            .await
            .expect("chat")
            .id;
        let exec = ToolExecutor::open(chat, self.deps.clone())
            .await
            .expect("executor");
        let provider: Arc<dyn Provider> = Arc::new(OpenAiProvider {
            base_url: format!("{}/v1", self.mock.url()),
            api_key: Default::default(),
            tool_calling: Default::default(),
            ..Default::default()
        });
        Turn {
            exec,
            provider,
            store: self.store.clone(),
            router: Arc::clone(&self.router),
            model: "mock-large".into(),
            system_prompt: String::new(),
            settings: TurnSettings {
                max_rounds: 60,
                doom_loop_threshold: 0,
                ..Default::default()
            },
        }
    }
}

fn turns(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let env = rt.block_on(bench_env());
    let mut group = c.benchmark_group("turn");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    // Times whole turns; `script` queues the mock's replies for each one.
    let bench_turns =
        |group: &mut criterion::BenchmarkGroup<'_, _>, id: &str, script: &dyn Fn(&MockLlm)| {
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    rt.block_on(async {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            let turn = env.turn().await;
                            script(&env.mock);
                            let start = Instant::now();
                            let outcome =
                                tollgate_turn::start_turn(turn, TurnInput::Message("go".into()))
                                    .join()
                                    .await;
                            total += start.elapsed();
                            assert!(
                                matches!(outcome, TurnOutcome::Completed { .. }),
                                "{outcome:?}"
                            );
                        }
                        total
                    })
                })
            });
        };
    bench_turns(&mut group, "50_rounds_auto_noop_tools", &|mock| {
        for i in 0..49 {
            mock.push(openai::calls(
                "",
                &[(&format!("c{i}"), "noop", &format!(r#"{{"n": {i}}}"#))],
            ));
        }
        mock.push(openai::text("done"));
    });
    bench_turns(
        &mut group,
        "8_parallel_read_only_tools_sleeping_200ms",
        &|mock| {
            let ids: Vec<String> = (0..8).map(|i| format!("p{i}")).collect();
            let calls: Vec<(&str, &str, &str)> =
                ids.iter().map(|id| (id.as_str(), "nap", "{}")).collect();
            mock.push(openai::calls("", &calls));
            mock.push(openai::text("rested"));
        },
    );
    group.finish();
}

criterion_group!(benches, parse, turns);
criterion_main!(benches);
