//! Speed targets of the engine issue:
//! - pipeline overhead of an `auto` no-op call, including validation, the variable store and the
//!   SQLite record (the store's queued writes are flushed inside every measured sample);
//! - truncating a 10 MB result and storing it as a variable;
//! - resolving a 1 MB argument that holds 100 `$VAR_REF`s;
//! - the plan card (F-98): from a `propose_plan` call of 50 steps, each with two targets,
//!   reaching the executor in a chat that has read 1 MB of pages, to its card's request
//!   leaving for the window (target: 100 ms; the window draws it on the next frame).
#![allow(clippy::expect_used)] // benchmark set-up: a failure should stop the run

use async_trait::async_trait;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tollgate_engine::{ApprovalHub, CallOrigin, ChatId, Store, ToolCallRequest, ToolExecutor};
use tollgate_executor::rules::RuleBook;
use tollgate_executor::ExecutorDeps;
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::ToolSettings;
use tollgate_protocol::{
    Decision, EventSink, ExecutionDecision, NullSink, PendingApproval, Source, ToolEvent,
};
use tollgate_provenance::ExposureBuilder;
use tollgate_tools::vars::reference::resolve_value;
use tollgate_tools::vars::truncate::truncate_head_tail;
use tollgate_tools::vars::{VarKind, VarLimits, VarStore};
use tollgate_tools::{Registry, Tool, ToolContext, ToolError, ToolGroup, ToolSpec};

struct Noop(ToolSpec);

#[async_trait]
impl Tool for Noop {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        Ok(args.get("text").cloned().unwrap_or(Value::Null))
    }
}

struct Big(ToolSpec, Arc<str>);

#[async_trait]
impl Tool for Big {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, _args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        Ok(Value::String(self.1.to_string()))
    }
}

fn ten_mb_text() -> String {
    let line = "The quick brown fox jumps over the lazy dog — 0123456789 äöü\n";
    line.repeat(10 * 1024 * 1024 / line.len() + 1)
}

/// The executor of a new chat in `store`, offering `registry`'s tools, its events to `sink`.
async fn executor_over(
    store: &Store,
    registry: Registry,
    sink: Arc<dyn EventSink>,
) -> Arc<ToolExecutor> {
    let chat = store
        .create_chat(Default::default())
        .await
        .expect("chat")
        .id;
    let deps = ExecutorDeps {
        registry: Arc::new(registry),
        store: store.clone(),
        hub: Arc::new(ApprovalHub::new()),
        rules: Arc::new(RuleBook::load(store.clone()).await.expect("rules")),
        settings: Arc::new(parking_lot::RwLock::new(ToolSettings::default())),
        sink,
        hidden: Default::default(),
    };
    ToolExecutor::open(chat, deps).await.expect("executor")
}

struct Setup {
    _dir: tempfile::TempDir,
    store: Store,
    exec: Arc<ToolExecutor>,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_in(dir.path()).expect("store");
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false});
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
                ))
                .tool(Big(
                    ToolSpec::new("big", "10 MB.", json!({"type": "object"}))
                        .policy(ExecutionPolicy::Auto),
                    Arc::from(ten_mb_text()),
                )),
        )
        .expect("group");
    let exec = executor_over(&store, registry, Arc::new(NullSink)).await;
    Setup {
        _dir: dir,
        store,
        exec,
    }
}

fn pipeline(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let s = rt.block_on(setup());
    let cancel = CancellationToken::new();
    let mut group = c.benchmark_group("pipeline");
    group.measurement_time(Duration::from_secs(8));
    let bench_calls =
        |group: &mut criterion::BenchmarkGroup<'_, _>, id: &str, tool: &str, args: &str| {
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    rt.block_on(async {
                        let start = Instant::now();
                        for i in 0..iters {
                            let req = ToolCallRequest::new(
                                format!("call_{i}"),
                                tool,
                                RawArguments::Text(args.into()),
                            );
                            black_box(s.exec.execute(req, CallOrigin::default(), &cancel).await);
                        }
                        s.store.flush().await.expect("flush");
                        start.elapsed()
                    })
                })
            });
        };
    bench_calls(
        &mut group,
        "auto_noop_call_with_sqlite_record",
        "noop",
        r#"{"text":"hello"}"#,
    );
    group.sample_size(20);
    bench_calls(
        &mut group,
        "call_returning_10mb_with_sqlite_record",
        "big",
        "{}",
    );
    group.finish();
}

fn truncation(c: &mut Criterion) {
    let text = ten_mb_text();
    let vars = VarStore::in_memory(
        ChatId(1),
        VarLimits {
            max_count: 1000,
            max_bytes: 1 << 30,
        },
    );
    let mut group = c.benchmark_group("truncate");
    group.sample_size(30);
    group.bench_function("10mb_truncate_and_store_variable", |b| {
        b.iter_batched(
            || text.clone(),
            |full| {
                let shown = truncate_head_tail(&full, 8_000, Some("big_c1_result"));
                vars.set("big_c1_result", Arc::from(full), VarKind::ToolResult)
                    .expect("stored");
                black_box(shown)
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn references(c: &mut Criterion) {
    let vars = VarStore::in_memory(
        ChatId(1),
        VarLimits {
            max_count: 1000,
            max_bytes: 1 << 30,
        },
    );
    for i in 0..100 {
        vars.set(
            &format!("v{i}"),
            Arc::from(format!("value number {i} ").repeat(8)),
            VarKind::User,
        )
        .expect("var");
    }
    let filler = "x".repeat(10 * 1024);
    let mut arg = String::new();
    for i in 0..100 {
        arg.push_str(&filler);
        if i % 2 == 0 {
            arg.push_str(&format!("$VAR_REF{{{{v{i}}}}}"));
        } else {
            arg.push_str(&format!("$VAR_REF{{{{v{i}:3:20}}}}"));
        }
    }
    assert!(arg.len() >= 1_000_000);
    let args = json!({ "text": arg });
    c.bench_function("resolve/1mb_argument_100_refs", |b| {
        b.iter(|| black_box(resolve_value(black_box(&args), &vars).expect("resolves")))
    });
}

/// Hands each approval request to the bench, as the window's channel would.
struct Cards(tokio::sync::mpsc::UnboundedSender<PendingApproval>);

impl EventSink for Cards {
    fn emit(&self, event: ToolEvent) {
        if let ToolEvent::ApprovalRequested { approval } = event {
            let _ = self.0.send(approval);
        }
    }
}

fn plan_card(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let rx = tokio::sync::Mutex::new(rx);
    let exec = rt.block_on(async {
        let store = Store::open_in(dir.path()).expect("store");
        let registry = Registry::with_groups([tollgate_tools::questions::group(Arc::new(
            tollgate_tools::questions::QuestionHub::new(),
        ))])
        .expect("chat tools");
        executor_over(&store, registry, Arc::new(Cards(tx))).await
    });
    // The chat has read 100 pages of 10 KB, one of which names a target of the plan.
    let mut read = ExposureBuilder::new();
    read.add_typed("pay the June bills and mail the receipts to person0@example.com");
    for i in 0..100u32 {
        let mut page = "The quarterly report lists the usual figures. ".repeat(220);
        if i == 42 {
            page.push_str("Send the receipts to team7@example.org.");
        }
        read.add(
            &[Source::Web {
                url: format!("https://site{i}.example/page"),
                host: format!("site{i}.example"),
            }],
            &page,
        );
    }
    let origin = CallOrigin {
        exposure: Some(read.shared()),
        ..CallOrigin::default()
    };
    let steps: Vec<Value> = (0..50)
        .map(|i| {
            json!({
                "purpose": format!("send receipt {i}"),
                "tool": "send_mail",
                "maxCalls": 2,
                "targets": [format!("person{i}@example.com"), format!("team{i}@example.org")]
            })
        })
        .collect();
    let args = json!({ "steps": steps }).to_string();
    let cancel = CancellationToken::new();
    c.bench_function("plan card of 50 steps asked for, 1 MB read", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut waited = Duration::ZERO;
                for i in 0..iters {
                    let req = ToolCallRequest::new(
                        format!("plan_{i}"),
                        "propose_plan",
                        RawArguments::Text(args.clone()),
                    );
                    let runner = Arc::clone(&exec);
                    let origin = origin.clone();
                    let cancel = cancel.clone();
                    let start = Instant::now();
                    let call =
                        tokio::spawn(
                            async move { runner.execute(req, origin, &cancel).await.is_error },
                        );
                    let card = rx.lock().await.recv().await.expect("the plan's card");
                    waited += start.elapsed();
                    assert_eq!(card.tool, "propose_plan", "the plan's card: {card:?}");
                    exec.asks()
                        .answer_approval(
                            &card.id,
                            Decision::Execution(ExecutionDecision::Deny { reason: None }),
                        )
                        .expect("declined");
                    assert!(call.await.expect("the call ends"), "declined");
                }
                waited
            })
        })
    });
}

criterion_group!(benches, pipeline, truncation, references, plan_card);
criterion_main!(benches);
