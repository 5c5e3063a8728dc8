//! The executor's test harness (feature `executor`): a real SQLite file in a temp dir, the real
//! registry with the built-in groups plus small test tools, an event sink the tests read, and
//! the calls a test makes. The executor's own tests and the engine's use it; the engine's
//! wraps it to run shell commands under the real supervisor.

use async_trait::async_trait;
use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tollgate_executor::approvals::ApprovalHub;
use tollgate_executor::rules::{RuleBook, RuleSubject};
use tollgate_executor::{CallOrigin, ExecutorDeps, SharedSettings};
use tollgate_executor::{ToolCallRequest, ToolCallResult, ToolExecutor};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::{EventSink, OutputStream, PendingApproval, ToolEvent, ToolSettings};
use tollgate_store::Store;
use tollgate_tools::{
    Guidance, Guide, Registry, Tool, ToolContext, ToolError, ToolGroup, ToolSpec,
};

pub use crate::wait::{deadline, eventually, eventually_some, Flag, PATIENCE};

type Handler =
    Arc<dyn Fn(Value, ToolContext) -> BoxFuture<'static, Result<Value, ToolError>> + Send + Sync>;

/// A tool whose behaviour is a closure.
pub struct FnTool {
    spec: ToolSpec,
    handler: Handler,
    subject: Option<fn(&Value) -> RuleSubject>,
}

impl FnTool {
    pub fn new<F, Fut>(spec: ToolSpec, f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        Self {
            spec,
            handler: Arc::new(move |a, c| Box::pin(f(a, c))),
            subject: None,
        }
    }

    pub fn subject(mut self, f: fn(&Value) -> RuleSubject) -> Self {
        self.subject = Some(f);
        self
    }
}

#[async_trait]
impl Tool for FnTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        (self.handler)(args, ctx).await
    }
    fn rule_subject(&self, args: &Value, _workspace: Option<&std::path::Path>) -> RuleSubject {
        match self.subject {
            Some(f) => f(args),
            None => RuleSubject::Args(tollgate_protocol::canonical::canonical_json(args)),
        }
    }
}

/// Collects every event and forwards approval requests to a channel.
pub struct Sink {
    pub events: Mutex<Vec<ToolEvent>>,
    approvals: mpsc::UnboundedSender<PendingApproval>,
}

impl EventSink for Sink {
    fn emit(&self, event: ToolEvent) {
        if let ToolEvent::ApprovalRequested { approval } = &event {
            let _ = self.approvals.send(approval.clone());
        }
        self.events.lock().push(event);
    }
}

/// What a test tool saw when it ran.
#[derive(Default)]
pub struct Ran {
    pub calls: Mutex<Vec<Value>>,
}

pub struct Harness {
    pub dir: tempfile::TempDir,
    pub store: Store,
    pub deps: ExecutorDeps,
    pub sink: Arc<Sink>,
    pub approvals: tokio::sync::Mutex<mpsc::UnboundedReceiver<PendingApproval>>,
    pub ran: Arc<Ran>,
    /// Raised by the `sleeps` tool when it has begun.
    pub sleeping: Flag,
    /// Raised when the `sleeps` tool's cancellation token fires.
    pub cancelled_seen: Flag,
}

fn obj_schema(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// `group` with the tools that go wrong as the pipeline must bear: one that fails, one that
/// streams output, one that panics, one stopped as it runs, one that sleeps past its timeout
/// (raising `sleeping` as it starts and `seen` once its token fired).
fn with_failing_tools(group: ToolGroup, sleeping: Flag, seen: Flag) -> ToolGroup {
    use tollgate_protocol::policy::{ExecutionPolicy::*, ResultPolicy};
    group
        .tool(FnTool::new(
            ToolSpec::new("fails", "Fails.", obj_schema(json!({}), &[]))
                .policy(Auto)
                .result_policy(ResultPolicy::OnError),
            |_, _| async move { Err(ToolError::not_found("no such thing: x.txt")) },
        ))
        .tool(FnTool::new(
            ToolSpec::new("chatty", "Streams output.", obj_schema(json!({}), &[])).policy(Auto),
            |_, ctx| async move {
                ctx.emit_output(OutputStream::Stdout, "first\n", 0);
                ctx.emit_output(OutputStream::Stderr, "warning\n", 0);
                Ok(json!("done"))
            },
        ))
        .tool(FnTool::new(
            ToolSpec::new("panics", "Panics.", obj_schema(json!({}), &[])).policy(Auto),
            |_, _| async move {
                let v: Option<u8> = None;
                #[allow(clippy::unnecessary_literal_unwrap)]
                Ok(json!(v.expect("tool bug: value missing")))
            },
        ))
        .tool(FnTool::new(
            ToolSpec::new(
                "stopped_mid_run",
                "Is stopped as it runs.",
                obj_schema(json!({}), &[]),
            )
            .policy(Auto),
            // Its Stop lands while the gate polls it, after the gate looked at the Stop: as a
            // tool does, it sees its token fired and ends in its own words.
            |_, ctx| async move {
                ctx.cancel.cancel();
                Err(ToolError::other("stopped by the user"))
            },
        ))
        .tool(FnTool::new(
            ToolSpec::new(
                "sleeps",
                "Sleeps.",
                obj_schema(json!({"ms": {"type": "integer"}}), &["ms"]),
            )
            .policy(Auto)
            .timeout(Duration::from_millis(300)),
            move |args, ctx| {
                let (seen, sleeping) = (seen.clone(), sleeping.clone());
                async move {
                    let ms = args["ms"].as_u64().unwrap_or(0);
                    let token = ctx.cancel.clone();
                    // Watch the token from a separate task, as a tool that owns a child process would.
                    tokio::spawn(async move {
                        token.cancelled().await;
                        seen.raise();
                    });
                    sleeping.raise();
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(json!("slept"))
                }
            },
        ))
}

/// The test group: tools with every policy and behaviour the pipeline must handle.
pub fn test_group(ran: Arc<Ran>, sleeping: Flag, cancelled_seen: Flag) -> ToolGroup {
    use tollgate_protocol::policy::{ExecutionPolicy::*, ResultPolicy};
    let text_schema = || obj_schema(json!({"text": {"type": "string"}}), &["text"]);
    let recorder = |ran: Arc<Ran>| {
        move |args: Value, _ctx: ToolContext| {
            let ran = Arc::clone(&ran);
            async move {
                ran.calls.lock().push(args.clone());
                Ok(json!(format!(
                    "did {}",
                    args["text"].as_str().unwrap_or_default()
                )))
            }
        }
    };
    let group = ToolGroup::new("test", "Test tools", "Tools for the engine's tests.")
        .enabled_by_default(true)
        .guidance(Guidance::Dynamic(Arc::new(|tools: &[&str]| {
            format!("Test tools available: {}.", tools.join(", "))
        })))
        .guide(Guide {
            name: "inline".into(),
            desc: "always here".into(),
            prompt: "INLINE RULE TEXT".into(),
            when: None,
            always_load: true,
        })
        .guide(Guide {
            name: "deep".into(),
            desc: "how to go deep".into(),
            prompt: "DEEP RULE TEXT".into(),
            when: Some("when going deep".into()),
            always_load: false,
        })
        .tool(FnTool::new(
            ToolSpec::new("echo", "Echo text.", text_schema())
                .policy(Auto)
                .read_only(),
            |args, _| async move { Ok(args["text"].clone()) },
        ))
        .tool(FnTool::new(
            ToolSpec::new(
                "lines",
                "N lines.",
                obj_schema(json!({"n": {"type": "integer"}}), &["n"]),
            )
            .policy(Auto),
            |args, _| async move {
                let n = args["n"].as_u64().unwrap_or(0);
                Ok(json!((0..n)
                    .map(|i| format!("line {i}\n"))
                    .collect::<String>()))
            },
        ))
        .tool(FnTool::new(
            ToolSpec::new("write_thing", "Mutates.", text_schema()).policy(AskAlways),
            recorder(Arc::clone(&ran)),
        ))
        .tool(FnTool::new(
            ToolSpec::new("read_thing", "Reads.", text_schema())
                .policy(AskOnce)
                .read_only(),
            recorder(Arc::clone(&ran)),
        ))
        .tool(
            FnTool::new(
                ToolSpec::new(
                    "run",
                    "Runs a command.",
                    obj_schema(json!({"command": {"type": "string"}}), &["command"]),
                )
                .policy(AskAlways),
                recorder(Arc::clone(&ran)),
            )
            .subject(|a| {
                RuleSubject::Command(a["command"].as_str().unwrap_or_default().to_string())
            }),
        )
        .tool(FnTool::new(
            ToolSpec::new("reviewed", "Result reviewed.", text_schema())
                .policy(Auto)
                .result_policy(ResultPolicy::Always),
            |args, _| async move {
                Ok(json!(format!(
                    "SECRET OUTPUT for {}",
                    args["text"].as_str().unwrap_or_default()
                )))
            },
        ));
    with_failing_tools(group, sleeping, cancelled_seen)
}

impl Harness {
    pub async fn new() -> Self {
        Self::with_settings(ToolSettings::default()).await
    }

    pub async fn with_settings(settings: ToolSettings) -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self::open(dir, settings).await
    }

    /// Opens (or re-opens) the app state on the database in `dir`.
    pub async fn open(dir: tempfile::TempDir, settings: ToolSettings) -> Self {
        let store = Store::open_in(dir.path()).unwrap();
        let ran = Arc::new(Ran::default());
        let (sleeping, cancelled_seen) = (Flag::default(), Flag::default());
        let mut registry = Registry::with_groups([
            tollgate_tools::vars_tools::group(),
            tollgate_tools::basic::group(),
        ])
        .unwrap();
        registry
            .register_group(test_group(
                Arc::clone(&ran),
                sleeping.clone(),
                cancelled_seen.clone(),
            ))
            .unwrap();
        registry
            .register_group(tollgate_tools::files::group())
            .unwrap();
        registry
            .register_group(tollgate_tools::shell::group())
            .unwrap();
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = Arc::new(Sink {
            events: Mutex::new(Vec::new()),
            approvals: tx,
        });
        let settings: SharedSettings = Arc::new(parking_lot::RwLock::new(settings));
        let deps = ExecutorDeps {
            registry: Arc::new(registry),
            store: store.clone(),
            hub: Arc::new(ApprovalHub::new()),
            rules: Arc::new(RuleBook::load(store.clone()).await.unwrap()),
            settings,
            sink: sink.clone(),
            hidden: Default::default(),
        };
        Self {
            dir,
            store,
            deps,
            sink,
            approvals: tokio::sync::Mutex::new(rx),
            ran,
            sleeping,
            cancelled_seen,
        }
    }

    /// Closes this state and opens a fresh one on the same database (an app restart).
    pub async fn restart(self) -> Self {
        self.store.flush().await.unwrap();
        let settings = self.deps.settings.read().clone();
        let Harness { dir, .. } = self;
        Self::open(dir, settings).await
    }

    pub async fn chat(&self) -> Arc<ToolExecutor> {
        let id = self.store.create_chat(Default::default()).await.unwrap().id;
        self.executor(id).await
    }

    /// A new chat whose workspace is a new temporary folder (kept as long as the guard lives).
    pub async fn chat_in_workspace(&self) -> (Arc<ToolExecutor>, tempfile::TempDir) {
        let exec = self.chat().await;
        let ws = tempfile::tempdir().unwrap();
        exec.set_workspace(Some(ws.path().to_path_buf()))
            .await
            .unwrap();
        (exec, ws)
    }

    pub async fn executor(&self, chat: ChatId) -> Arc<ToolExecutor> {
        ToolExecutor::open(chat, self.deps.clone()).await.unwrap()
    }

    /// The next approval request, waiting at most 5 s.
    pub async fn next_approval(&self) -> PendingApproval {
        tokio::time::timeout(Duration::from_secs(5), self.approvals.lock().await.recv())
            .await
            .expect("an approval request within 5 s")
            .expect("sink alive")
    }

    /// Whether an approval request is waiting right now.
    pub async fn no_approval_waiting(&self) -> bool {
        self.approvals.lock().await.try_recv().is_err()
    }

    pub fn ran(&self) -> Vec<Value> {
        self.ran.calls.lock().clone()
    }
}

pub fn call(name: &str, args: Value) -> ToolCallRequest {
    ToolCallRequest::new(format!("call_{name}"), name, RawArguments::Json(args))
}

pub fn call_text(name: &str, args: &str) -> ToolCallRequest {
    ToolCallRequest::new(
        format!("call_{name}"),
        name,
        RawArguments::Text(args.into()),
    )
}

/// Runs a call to completion (for calls that need no approval).
pub async fn run(exec: &ToolExecutor, req: ToolCallRequest) -> ToolCallResult {
    exec.execute(req, CallOrigin::default(), &CancellationToken::new())
        .await
}

/// Starts a call in the background (for calls that will wait for a decision).
pub fn spawn(
    exec: &Arc<ToolExecutor>,
    req: ToolCallRequest,
) -> tokio::task::JoinHandle<ToolCallResult> {
    let exec = Arc::clone(exec);
    tokio::spawn(async move {
        exec.execute(req, CallOrigin::default(), &CancellationToken::new())
            .await
    })
}
