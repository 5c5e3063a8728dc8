//! Whole turns of the chat loop (SPEC §4, §5) against a real local server that speaks the
//! OpenAI and Anthropic streaming wire formats, with the real executor and a real SQLite file.

use async_trait::async_trait;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;
use tollgate_engine::chat::{
    ChatEvent, RetryPolicy, Turn, TurnHandle, TurnInput, TurnOutcome, TurnSettings,
};
use tollgate_engine::router::Router;
use tollgate_engine::{ApprovalHub, Decision, ExecutionDecision, Store, ToolExecutor};
use tollgate_executor::rules::RuleBook;
use tollgate_executor::ExecutorDeps;
use tollgate_mock_llm::{anthropic, openai, MockLlm, Reply};
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::ToolCalling;
use tollgate_protocol::ToolSettings;
use tollgate_protocol::{NullSink, ToolEvent};
use tollgate_providers::anthropic::AnthropicProvider;
use tollgate_providers::demo::DemoProvider;
use tollgate_providers::openai::OpenAiProvider;
use tollgate_providers::Provider;
use tollgate_store::{MessageStatus, RecordStatus, Role};
use tollgate_tools::questions::{self, QuestionHub};
use tollgate_tools::{Registry, Tool, ToolContext, ToolError, ToolGroup, ToolSpec};

/// A test tool: records when it ran; optionally sleeps, or waits until as many calls of it as
/// its barrier counts run at the same time.
struct Probe {
    spec: ToolSpec,
    sleep: Duration,
    meet: Option<Arc<tokio::sync::Barrier>>,
    log: Arc<Mutex<Vec<(String, Instant, Instant)>>>,
}

#[async_trait]
impl Tool for Probe {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        if self.spec.name == "boom" {
            panic!("tool bug: {}", args["text"]);
        }
        let start = Instant::now();
        if let Some(meet) = &self.meet {
            // Calls run one after another never all arrive: the first gives up.
            tokio::time::timeout(tollgate_test_support::wait::PATIENCE, meet.wait())
                .await
                .map_err(|_| ToolError::other("the other calls never ran alongside"))?;
        }
        tokio::select! {
            () = tokio::time::sleep(self.sleep) => {}
            () = ctx.cancel.cancelled() => return Err(ToolError::other("cancelled")),
        }
        let label = format!(
            "{}:{}",
            self.spec.name,
            args["text"].as_str().unwrap_or_default()
        );
        self.log.lock().push((label.clone(), start, Instant::now()));
        Ok(json!(format!("{label} done")))
    }
}

pub(super) struct Env {
    _dir: tempfile::TempDir,
    pub(super) store: Store,
    pub(super) exec: Arc<ToolExecutor>,
    pub(super) router: Arc<Router>,
    pub(super) mock: MockLlm,
    pub(super) questions: Arc<QuestionHub>,
    pub(super) log: Arc<Mutex<Vec<(String, Instant, Instant)>>>,
    pub(super) settings: TurnSettings,
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false})
}

impl Env {
    pub(super) async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        let log = Arc::new(Mutex::new(Vec::new()));
        let questions = Arc::new(QuestionHub::new());
        let probe = |name: &str, policy: ExecutionPolicy, read_only: bool, sleep_ms: u64| {
            let mut spec = ToolSpec::new(name, format!("{name} tool"), schema()).policy(policy);
            if read_only {
                spec = spec.read_only();
            }
            Probe {
                spec,
                sleep: Duration::from_millis(sleep_ms),
                meet: None,
                log: Arc::clone(&log),
            }
        };
        let mut registry = Registry::with_groups([
            tollgate_tools::vars_tools::group(),
            tollgate_tools::basic::group(),
        ])
        .unwrap();
        registry
            .register_group(questions::group(Arc::clone(&questions)))
            .unwrap();
        registry
            .register_group(
                ToolGroup::new("test", "Test", "Test tools.")
                    .enabled_by_default(true)
                    .tool(Probe {
                        // Four calls meet here: the parallel test's proof that they overlap.
                        meet: Some(Arc::new(tokio::sync::Barrier::new(4))),
                        ..probe("peek", ExecutionPolicy::Auto, true, 0)
                    })
                    .tool(probe("echo", ExecutionPolicy::Auto, false, 0))
                    .tool(probe("note", ExecutionPolicy::AskAlways, false, 20))
                    .tool(probe("slow", ExecutionPolicy::Auto, false, 60_000))
                    .tool(probe("boom", ExecutionPolicy::Auto, false, 0)),
            )
            .unwrap();
        let router = Arc::new(Router::new(Arc::new(NullSink)));
        let deps = ExecutorDeps {
            registry: Arc::new(registry),
            store: store.clone(),
            hub: Arc::new(ApprovalHub::new()),
            rules: Arc::new(RuleBook::load(store.clone()).await.unwrap()),
            settings: Arc::new(parking_lot::RwLock::new(ToolSettings::default())),
            sink: router.clone(),
            hidden: Default::default(),
        };
        let exec = ToolExecutor::open(chat, deps).await.unwrap();
        let settings = TurnSettings {
            retry: RetryPolicy {
                max_retries: 3,
                base_delay_ms: 10,
                max_delay_ms: 200,
                jitter: false,
            },
            idle_timeout_ms: 2_000,
            save_interval_ms: 10,
            ..Default::default()
        };
        Self {
            _dir: dir,
            store,
            exec,
            router,
            mock: MockLlm::start().await.unwrap(),
            questions,
            log,
            settings,
        }
    }

    pub(super) fn openai(&self) -> Arc<dyn Provider> {
        self.openai_calling(ToolCalling::Native)
    }

    fn openai_calling(&self, tool_calling: ToolCalling) -> Arc<dyn Provider> {
        Arc::new(OpenAiProvider {
            base_url: format!("{}/v1", self.mock.url()),
            api_key: "sk-test-openai".into(),
            tool_calling,
            ..Default::default()
        })
    }

    pub(super) fn anthropic(&self) -> Arc<dyn Provider> {
        Arc::new(AnthropicProvider {
            base_url: self.mock.url(),
            api_key: "sk-ant-test".into(),
            ..Default::default()
        })
    }

    pub(super) fn start(&self, provider: Arc<dyn Provider>, text: &str) -> TurnHandle {
        tollgate_turn::start_turn(self.turn(provider), TurnInput::Message(text.into()))
    }

    pub(super) fn turn(&self, provider: Arc<dyn Provider>) -> Turn {
        Turn {
            exec: Arc::clone(&self.exec),
            provider,
            store: self.store.clone(),
            router: Arc::clone(&self.router),
            model: "mock-large".into(),
            system_prompt: "You are a test assistant.".into(),
            settings: self.settings.clone(),
        }
    }

    pub(super) async fn messages(&self) -> Vec<tollgate_store::MessageRow> {
        self.store
            .branches()
            .chat_messages(self.exec.chat())
            .await
            .unwrap()
    }
}

pub(super) async fn next_event(
    events: &mut UnboundedReceiver<ChatEvent>,
    what: &str,
    pred: impl Fn(&ChatEvent) -> bool,
) -> ChatEvent {
    let deadline = tokio::time::Instant::now() + tollgate_test_support::wait::PATIENCE;
    loop {
        let e = tokio::time::timeout_at(deadline, events.recv())
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
            .unwrap_or_else(|| panic!("turn ended before {what}"));
        if pred(&e) {
            return e;
        }
    }
}

fn tool_event(e: &ChatEvent) -> Option<&ToolEvent> {
    match e {
        ChatEvent::Tool { event } => Some(event),
        _ => None,
    }
}

pub(super) fn approval(e: &ChatEvent) -> Option<tollgate_engine::PendingApproval> {
    match tool_event(e) {
        Some(ToolEvent::ApprovalRequested { approval }) => Some(approval.clone()),
        _ => None,
    }
}

/// The error and "Retry may help" of a failed turn (any other outcome fails the test).
pub(super) fn failure(outcome: TurnOutcome) -> (String, bool) {
    match outcome {
        TurnOutcome::Failed {
            error, retryable, ..
        } => (error, retryable),
        other => panic!("the turn did not fail: {other:?}"),
    }
}

pub(super) fn text_of(events: &[ChatEvent]) -> String {
    events
        .iter()
        .filter_map(|e| {
            if let ChatEvent::TextDelta { text, .. } = e {
                Some(text.as_str())
            } else {
                None
            }
        })
        .collect()
}

#[tokio::test]
async fn openai_streams_an_answer_with_system_prompt_tools_key_and_usage() {
    let env = Env::new().await;
    env.mock.push(openai::text("Hello from the mock model."));
    let (events, outcome) = env.start(env.openai(), "hi").collect().await;
    assert_eq!(text_of(&events), "Hello from the mock model.");
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, ChatEvent::TextDelta { .. }))
            .count()
            > 3,
        "streamed in pieces"
    );
    assert_eq!(
        outcome,
        TurnOutcome::Completed {
            usage: tollgate_protocol::Usage {
                input_tokens: 11,
                output_tokens: 7,
                ..Default::default()
            }
        }
    );

    let req = &env.mock.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer sk-test-openai"));
    let body = &req.body;
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You are a test assistant.\n\n# Tools"),
        "{system}"
    );
    assert!(system.contains("## Test (`test`)"));
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "hi"})
    );
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"peek") && tools.contains(&"ask_user") && tools.contains(&"ReadVar"),
        "{tools:?}"
    );

    let msgs = env.messages().await;
    assert_eq!(msgs.len(), 2);
    assert_eq!((msgs[0].role, msgs[0].content.as_str()), (Role::User, "hi"));
    assert_eq!(
        (msgs[1].role, msgs[1].status),
        (Role::Assistant, MessageStatus::Complete)
    );
    assert_eq!(msgs[1].content, "Hello from the mock model.");
    assert_eq!(
        msgs[1].usage,
        Some(
            json!({"inputTokens": 11, "outputTokens": 7, "cacheReadTokens": 0, "cacheWriteTokens": 0})
        )
    );
}

#[tokio::test]
async fn openai_tool_round_trip_sends_results_back_natively() {
    let env = Env::new().await;
    env.mock.push(openai::calls(
        "Let me compute.",
        &[("call_1", "calculate", r#"{"expression": "6*7"}"#)],
    ));
    env.mock.push(openai::text("It is 42."));
    let (_events, outcome) = env.start(env.openai(), "6 times 7?").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let second = &env.mock.bodies()[1];
    let msgs = second["messages"].as_array().unwrap();
    let assistant = &msgs[msgs.len() - 2];
    assert_eq!(assistant["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        r#"{"expression": "6*7"}"#
    );
    assert_eq!(
        msgs[msgs.len() - 1],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "42"})
    );
    let stored = env.messages().await;
    let roles: Vec<Role> = stored.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    let calls = env.store.calls().chat_calls(env.exec.chat()).await.unwrap();
    assert_eq!(calls[0].message_id, Some(stored[1].id));
    assert_eq!(calls[0].round, 1);
}

#[tokio::test]
async fn anthropic_tool_round_trip_with_tool_result_and_is_error() {
    let env = Env::new().await;
    env.mock.push(anthropic::calls(
        "Checking.",
        &[
            ("toolu_1", "calculate", r#"{"expression": "2+2"}"#),
            ("toolu_2", "calculate", r#"{"expression": "1/0"}"#),
        ],
    ));
    env.mock
        .push(anthropic::text("Four, and the other failed."));
    let (events, outcome) = env.start(env.anthropic(), "sums").collect().await;
    let usage = tollgate_protocol::Usage {
        input_tokens: 42,
        output_tokens: 18,
        ..Default::default()
    };
    assert_eq!(
        outcome,
        TurnOutcome::Completed { usage },
        "both rounds' usage, from message_start and message_delta"
    );
    assert!(text_of(&events).ends_with("Four, and the other failed."));
    let reqs = env.mock.requests();
    assert_eq!(reqs[0].path, "/v1/messages");
    assert_eq!(reqs[0].header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(reqs[0].header("anthropic-version"), Some("2023-06-01"));
    assert!(reqs[0].body["system"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("You are a test assistant."));
    assert!(reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "calculate" && t["input_schema"].is_object()));
    let msgs = reqs[1].body["messages"].as_array().unwrap();
    let results = msgs.last().unwrap();
    assert_eq!(results["role"], "user");
    assert_eq!(
        results["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "4", "is_error": false})
    );
    assert_eq!(results["content"][1]["is_error"], true);
    assert!(results["content"][1]["content"]
        .as_str()
        .unwrap()
        .contains("division by zero"));
}

#[tokio::test]
async fn read_only_calls_run_in_parallel_and_results_keep_the_models_order() {
    let env = Env::new().await;
    let calls: Vec<(String, String)> = (0..4)
        .map(|i| (format!("c{i}"), format!(r#"{{"text": "{i}"}}"#)))
        .collect();
    let call_refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, a)| (id.as_str(), "peek", a.as_str()))
        .collect();
    env.mock.push(openai::calls("", &call_refs));
    env.mock.push(openai::text("done"));
    let (_e, outcome) = env
        .start(env.openai(), "peek at four things")
        .collect()
        .await;
    assert!(matches!(outcome, TurnOutcome::Completed { .. }));
    // All four ran at the same time: each waited at a barrier of four before it finished.
    assert_eq!(env.log.lock().len(), 4);
    let msgs = env.mock.bodies()[1]["messages"].as_array().unwrap().clone();
    let tool_ids: Vec<&str> = msgs
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(tool_ids, ["c0", "c1", "c2", "c3"]);
    let contents: Vec<&str> = msgs
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents,
        ["peek:0 done", "peek:1 done", "peek:2 done", "peek:3 done"]
    );
}

#[tokio::test]
async fn calls_that_need_approval_are_asked_together_and_run_in_order() {
    let env = Env::new().await;
    env.mock.push(openai::calls(
        "",
        &[
            ("n1", "note", r#"{"text": "first"}"#),
            ("n2", "note", r#"{"text": "second"}"#),
        ],
    ));
    env.mock.push(openai::text("noted"));
    let mut handle = env.start(env.openai(), "take notes");
    let a1 = approval(
        &next_event(&mut handle.events, "first approval", |e| {
            approval(e).is_some()
        })
        .await,
    )
    .unwrap();
    let a2 = approval(
        &next_event(&mut handle.events, "second approval", |e| {
            approval(e).is_some()
        })
        .await,
    )
    .unwrap();
    assert!(
        env.log.lock().is_empty(),
        "both cards are up before anything runs"
    );
    assert_eq!(env.exec.asks().pending().len(), 2);
    // Approve the second first: it still runs after the first.
    env.exec
        .asks()
        .answer_approval(&a2.id, Decision::Execution(ExecutionDecision::AllowOnce))
        .unwrap();
    // (Had the second run at once, it would stand first in the order checked below.)
    assert!(env.log.lock().is_empty(), "the second waits for the first");
    env.exec
        .asks()
        .answer_approval(&a1.id, Decision::Execution(ExecutionDecision::AllowOnce))
        .unwrap();
    let outcome = handle.join().await;
    assert!(matches!(outcome, TurnOutcome::Completed { .. }));
    let order: Vec<String> = env.log.lock().iter().map(|l| l.0.clone()).collect();
    assert_eq!(order, ["note:first", "note:second"]);
}

#[tokio::test]
async fn the_round_limit_ends_with_a_final_answer_without_tools() {
    let mut env = Env::new().await;
    env.settings.max_rounds = 2;
    for i in 0..3 {
        env.mock.push(openai::calls(
            "",
            &[(&format!("e{i}"), "echo", &format!(r#"{{"text": "{i}"}}"#))],
        ));
    }
    let (_e, outcome) = env.start(env.openai(), "loop").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let bodies = env.mock.bodies();
    assert_eq!(bodies.len(), 3);
    assert!(bodies[1]["tools"].is_array());
    assert!(
        bodies[2].get("tools").is_none(),
        "the final request offers no tools"
    );
    assert!(bodies[2]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("Answer the user now"));
    let calls = env.store.calls().chat_calls(env.exec.chat()).await.unwrap();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[2].status, RecordStatus::Cancelled);
    assert!(calls[2]
        .result_text
        .as_deref()
        .unwrap()
        .contains("round limit reached"));
    assert_eq!(env.log.lock().len(), 2, "only two rounds of calls ran");
}

#[tokio::test]
async fn the_same_call_three_times_in_a_row_asks_even_for_an_auto_tool() {
    let env = Env::new().await;
    for i in 0..3 {
        env.mock.push(openai::calls(
            "",
            &[(&format!("e{i}"), "echo", r#"{"text": "same"}"#)],
        ));
    }
    env.mock.push(openai::text("ok, stopping"));
    let mut handle = env.start(env.openai(), "go");
    let a = approval(
        &next_event(&mut handle.events, "doom-loop approval", |e| {
            approval(e).is_some()
        })
        .await,
    )
    .unwrap();
    let tollgate_protocol::ApprovalRequest::Execution { reason, .. } = &a.request else {
        panic!()
    };
    assert!(
        matches!(
            reason,
            tollgate_protocol::AskReason::Repeated { times: 3, .. }
        ),
        "{reason:?}"
    );
    assert_eq!(env.log.lock().len(), 2, "the first two ran without asking");
    env.exec
        .asks()
        .answer_approval(
            &a.id,
            Decision::Execution(ExecutionDecision::Deny {
                reason: Some("you are looping".into()),
            }),
        )
        .unwrap();
    assert!(matches!(handle.join().await, TurnOutcome::Completed { .. }));
    let last = env.mock.bodies()[3]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("Reason: you are looping"),
        "{last}"
    );
}

#[tokio::test]
async fn ask_user_pauses_the_turn_and_the_answer_is_the_result() {
    let env = Env::new().await;
    env.mock.push(openai::calls(
        "",
        &[(
            "q1",
            "ask_user",
            r#"{"question": "Which color?", "choices": ["red", "blue"]}"#,
        )],
    ));
    env.mock.push(openai::text("Blue it is."));
    let mut handle = env.start(env.openai(), "paint it");
    let asked = next_event(&mut handle.events, "question", |e| {
        matches!(tool_event(e), Some(ToolEvent::QuestionAsked { .. }))
    })
    .await;
    let Some(ToolEvent::QuestionAsked {
        id,
        question,
        choices,
        chat,
        ..
    }) = tool_event(&asked).cloned()
    else {
        panic!()
    };
    assert_eq!(question, "Which color?");
    assert_eq!(choices, ["red", "blue"]);
    assert!(
        env.questions
            .answer(tollgate_engine::ChatId(chat.0 + 100), &id, "x".into())
            .is_err(),
        "foreign chat refused"
    );
    env.questions.answer(chat, &id, "blue".into()).unwrap();
    let resolved = next_event(&mut handle.events, "question resolved", |e| {
        matches!(tool_event(e), Some(ToolEvent::QuestionResolved { .. }))
    })
    .await;
    assert!(
        matches!(tool_event(&resolved), Some(ToolEvent::QuestionResolved { id: rid, answered: true, .. }) if *rid == id),
        "the card learns the question was answered"
    );
    assert!(matches!(handle.join().await, TurnOutcome::Completed { .. }));
    let last = env.mock.bodies()[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "The user answered: blue");
}

#[tokio::test]
async fn stop_mid_stream_keeps_the_partial_answer() {
    let env = Env::new().await;
    env.mock.push(
        openai::text("one two three four five six seven eight nine ten")
            .slow(Duration::from_millis(40)),
    );
    let mut handle = env.start(env.openai(), "count");
    next_event(&mut handle.events, "some text", |e| {
        matches!(e, ChatEvent::TextDelta { .. })
    })
    .await;
    next_event(&mut handle.events, "more text", |e| {
        matches!(e, ChatEvent::TextDelta { .. })
    })
    .await;
    handle.stop();
    let outcome = handle.join().await;
    assert!(
        matches!(outcome, TurnOutcome::Stopped { .. }),
        "{outcome:?}"
    );
    let msgs = env.messages().await;
    let answer = &msgs[1];
    assert_eq!(answer.status, MessageStatus::Stopped);
    assert!(answer.content.starts_with("one "), "{:?}", answer.content);
    assert!(answer.content.len() < "one two three four five six seven eight nine ten".len());
}

#[tokio::test]
async fn stop_while_waiting_for_approval_cancels_it() {
    let env = Env::new().await;
    env.mock
        .push(openai::calls("", &[("n1", "note", r#"{"text": "x"}"#)]));
    let mut handle = env.start(env.openai(), "note it");
    let a = approval(&next_event(&mut handle.events, "approval", |e| approval(e).is_some()).await)
        .unwrap();
    handle.stop();
    let (events, outcome) = handle.collect().await;
    assert!(matches!(outcome, TurnOutcome::Stopped { .. }));
    assert!(events.iter().any(|e| matches!(
        tool_event(e),
        Some(ToolEvent::ApprovalResolved {
            outcome: tollgate_protocol::ApprovalOutcome::Cancelled,
            ..
        })
    )));
    assert!(env
        .exec
        .asks()
        .answer_approval(&a.id, Decision::Execution(ExecutionDecision::AllowOnce))
        .is_err());
    assert!(env.log.lock().is_empty());
    let calls = env.store.calls().chat_calls(env.exec.chat()).await.unwrap();
    assert_eq!(calls[0].status, RecordStatus::Cancelled);
}

#[tokio::test]
async fn stop_cancels_a_running_tool() {
    let env = Env::new().await;
    env.mock
        .push(openai::calls("", &[("s1", "slow", r#"{"text": "x"}"#)]));
    let mut handle = env.start(env.openai(), "slow");
    next_event(&mut handle.events, "tool start", |e| {
        matches!(tool_event(e), Some(ToolEvent::Started { .. }))
    })
    .await;
    handle.stop();
    let outcome = tokio::time::timeout(tollgate_test_support::wait::PATIENCE, handle.join())
        .await
        .unwrap();
    assert!(matches!(outcome, TurnOutcome::Stopped { .. }));
    let calls = env.store.calls().chat_calls(env.exec.chat()).await.unwrap();
    assert_eq!(calls[0].status, RecordStatus::Cancelled);
}

#[tokio::test]
async fn rate_limits_are_retried_after_the_servers_wait() {
    let env = Env::new().await;
    env.mock
        .push(Reply::status(429, "slow down").header("retry-after-ms", "120"));
    env.mock.push(Reply::status(503, "busy"));
    env.mock.push(openai::text("finally"));
    let (events, outcome) = env.start(env.openai(), "hi").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let retries: Vec<(u32, u64, String)> = events
        .iter()
        .filter_map(|e| {
            if let ChatEvent::Retrying {
                attempt,
                delay_ms,
                error,
                ..
            } = e
            {
                Some((*attempt, *delay_ms, error.clone()))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(retries.len(), 2);
    assert_eq!(
        (retries[0].0, retries[0].1),
        (1, 120),
        "Retry-After honoured"
    );
    assert!(
        retries[0].2.contains("429") && retries[0].2.contains("slow down"),
        "{}",
        retries[0].2
    );
    assert_eq!(
        (retries[1].0, retries[1].1),
        (2, 20),
        "then exponential backoff"
    );
    assert_eq!(env.mock.bodies().len(), 3);
}

#[tokio::test]
async fn client_errors_are_not_retried_and_say_what_the_server_said() {
    let env = Env::new().await;
    env.mock.push(Reply::status(401, "invalid api key"));
    let (_e, outcome) = env.start(env.openai(), "hi").collect().await;
    let (error, retryable) = failure(outcome);
    assert!(
        error.contains("401") && error.contains("invalid api key"),
        "{error}"
    );
    assert!(
        !error.contains("sk-test-openai"),
        "the key never appears in errors"
    );
    assert!(!retryable);
    assert_eq!(env.mock.bodies().len(), 1);
}

/// A failed turn says what kind of failure it was (the window acts on it: the provider's key,
/// a new chat for a conversation too long for the model), and the answer saved with the
/// failure keeps the kind for when the chat is opened again.
#[tokio::test]
async fn a_failed_turn_says_what_kind_of_failure_it_was_and_keeps_it() {
    use tollgate_protocol::FailureKind;
    let cases = [
        (Reply::status(401, "invalid api key"), FailureKind::Auth),
        (Reply::status(403, "this key may not use the model"), FailureKind::Auth),
        (
            Reply::status(
                400,
                "This model's maximum context length is 8192 tokens. However, your messages resulted in 9021 tokens.",
            ),
            FailureKind::ContextTooLong,
        ),
        (
            Reply::status(400, "prompt is too long: 210000 tokens > 200000 maximum"),
            FailureKind::ContextTooLong,
        ),
        (Reply::status(400, "bad request"), FailureKind::Refused),
        (
            Reply::status(429, "quota exhausted").header("retry-after", "7500"),
            FailureKind::RateLimited,
        ),
        (Reply::status(503, "overloaded"), FailureKind::Server),
    ];
    for (reply, kind) in cases {
        let mut env = Env::new().await;
        env.settings.retry.max_retries = 0;
        env.mock.push(reply);
        let (_e, outcome) = env.start(env.openai(), "hi").collect().await;
        match &outcome {
            TurnOutcome::Failed { kind: got, .. } => assert_eq!(*got, kind, "{outcome:?}"),
            other => panic!("the turn did not fail: {other:?}"),
        }
        let answer = env.messages().await.pop().unwrap();
        let stored = &answer.payload.unwrap()["failure"];
        assert_eq!(
            stored["kind"],
            serde_json::to_value(kind).unwrap(),
            "{stored}"
        );
    }
}

#[tokio::test]
async fn invalid_arguments_and_unknown_tools_go_back_to_the_model_and_the_turn_goes_on() {
    let env = Env::new().await;
    env.mock.push(openai::calls(
        "",
        &[
            ("b1", "calculate", r#"{"expression": "#),
            ("u1", "launch_rockets", "{}"),
        ],
    ));
    env.mock.push(openai::text("Sorry, let me fix that."));
    let (_e, outcome) = env.start(env.openai(), "hi").collect().await;
    assert!(matches!(outcome, TurnOutcome::Completed { .. }));
    let msgs = env.mock.bodies()[1]["messages"].as_array().unwrap().clone();
    let tool_msgs: Vec<&Value> = msgs.iter().filter(|m| m["role"] == "tool").collect();
    let bad = tool_msgs[0]["content"].as_str().unwrap();
    assert!(
        bad.contains("Invalid JSON in the arguments") && bad.contains(r#"{"expression": "#),
        "{bad}"
    );
    let unknown = tool_msgs[1]["content"].as_str().unwrap();
    assert!(
        unknown.contains("There is no tool called \"launch_rockets\"")
            && unknown.contains("Enabled tools:"),
        "{unknown}"
    );
}

#[tokio::test]
async fn a_very_long_answer_streams_and_is_saved_whole() {
    let env = Env::new().await;
    let long = "lorem ipsum dolor sit amet ".repeat(40_000);
    env.mock.push(openai::text(&long));
    let (events, outcome) = env.start(env.openai(), "write a lot").collect().await;
    assert!(matches!(outcome, TurnOutcome::Completed { .. }));
    assert_eq!(text_of(&events).len(), long.len());
    assert_eq!(env.messages().await[1].content, long);
}

#[tokio::test]
async fn tool_calls_written_as_text_are_executed_for_a_text_model() {
    let env = Env::new().await;
    env.mock.push(openai::text("I'll calculate.\n<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": \"3*3\"}}</tool_call>"));
    env.mock.push(openai::text("Nine."));
    let (_e, outcome) = env
        .start(env.openai_calling(ToolCalling::Text), "3*3?")
        .collect()
        .await;
    assert!(matches!(outcome, TurnOutcome::Completed { .. }));
    let msgs = env.messages().await;
    assert_eq!(msgs[1].content, "I'll calculate.");
    let first = &env.mock.bodies()[0];
    assert!(
        first.get("tools").is_none(),
        "a text model is not sent native tools"
    );
    assert!(first["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("<tool_call>"));
    let last = env.mock.bodies()[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "9");
}

/// The issue's attack: an answer that shows a call as an example (or quotes a line a fetched
/// page asked it to quote) must not run it, and the example must stay in the answer.
#[tokio::test]
async fn a_native_models_text_is_never_run_and_examples_stay_visible() {
    let quoted = "Here is an example: ```calculate(expression=\"6*7\")```";
    for (calling, answer) in [
        (ToolCalling::Native, quoted.to_string()),
        (
            ToolCalling::Native,
            "<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": \"6*7\"}}</tool_call>".to_string(),
        ),
        (ToolCalling::Native, "calculate(expression=\"6*7\")".to_string()),
        (ToolCalling::Text, quoted.to_string()),
        (
            ToolCalling::Text,
            "Quote:\n```\n<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": \"6*7\"}}</tool_call>\n```".to_string(),
        ),
    ] {
        let env = Env::new().await;
        env.mock.push(openai::text(&answer));
        let (_e, outcome) = env
            .start(env.openai_calling(calling), "show me")
            .collect()
            .await;
        assert!(matches!(outcome, TurnOutcome::Completed { .. }), "{answer}");
        assert_eq!(env.mock.bodies().len(), 1, "no tool ran for {calling:?}: {answer}");
        assert_eq!(env.messages().await[1].content, answer, "the text stays as written");
        env.store.flush().await.unwrap();
        assert!(env.store.calls().chat_calls(env.exec.chat()).await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn deny_and_stop_ends_the_turn() {
    let env = Env::new().await;
    env.mock
        .push(openai::calls("", &[("n1", "note", r#"{"text": "x"}"#)]));
    let mut handle = env.start(env.openai(), "note");
    let a = approval(&next_event(&mut handle.events, "approval", |e| approval(e).is_some()).await)
        .unwrap();
    env.exec
        .asks()
        .answer_approval(
            &a.id,
            Decision::Execution(ExecutionDecision::DenyAndStop { reason: None }),
        )
        .unwrap();
    assert!(matches!(handle.join().await, TurnOutcome::Stopped { .. }));
    assert_eq!(env.mock.bodies().len(), 1, "no further request");
}

#[tokio::test]
async fn text_is_saved_while_it_streams() {
    let env = Env::new().await;
    env.mock.push(
        openai::text("streaming text that arrives slowly over time")
            .slow(Duration::from_millis(30)),
    );
    let mut handle = env.start(env.openai(), "go");
    next_event(
        &mut handle.events,
        "a few deltas",
        |e| matches!(e, ChatEvent::TextDelta { text, .. } if text.contains("ar")),
    )
    .await;
    // Part of the answer reaches the disk while it streams (saved in batches): wait for it.
    let deadline = tollgate_test_support::wait::deadline();
    let msgs = loop {
        env.store.flush().await.unwrap();
        let msgs = env.messages().await;
        if msgs.len() > 1 && !msgs[1].content.is_empty() {
            break msgs;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no part of the answer reached the disk while it streamed: {msgs:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_eq!(msgs[0].content, "go", "the user message was saved first");
    assert_eq!(msgs[1].status, MessageStatus::Streaming);
    assert!(matches!(handle.join().await, TurnOutcome::Completed { .. }));
}

#[tokio::test]
async fn models_are_listed_where_the_api_offers_them() {
    let env = Env::new().await;
    assert_eq!(
        env.openai().models().await.unwrap(),
        ["mock-large", "mock-small"]
    );
    assert_eq!(env.mock.requests()[0].path, "/v1/models");
}

#[tokio::test]
async fn the_demo_provider_runs_a_whole_turn_through_the_gate() {
    let env = Env::new().await;
    let demo: Arc<dyn Provider> = Arc::new(DemoProvider {
        word_delay: Duration::ZERO,
    });
    let (events, outcome) = env.start(demo, "what is 12 * 12?").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let text = text_of(&events);
    assert!(text.contains("demo model"), "{text}");
    assert!(text.contains("`calculate` → 144"), "{text}");
    let calls = env.store.calls().chat_calls(env.exec.chat()).await.unwrap();
    assert_eq!(calls[0].tool.as_deref(), Some("calculate"));
    assert_eq!(calls[0].status, RecordStatus::Success);
}

/// A provider with a bug: it streams a little, then panics inside the stream handling.
struct PanickingProvider;

#[async_trait]
impl Provider for PanickingProvider {
    fn kind(&self) -> tollgate_protocol::ProviderKind {
        tollgate_protocol::ProviderKind::OpenAi
    }

    async fn complete(
        &self,
        _request: &tollgate_providers::Outgoing,
        on_delta: &mut (dyn FnMut(tollgate_providers::StreamDelta) + Send),
        _cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<tollgate_providers::Completion, tollgate_providers::ProviderError> {
        on_delta(tollgate_providers::StreamDelta::Text {
            text: "half an ans".into(),
        });
        tokio::time::sleep(Duration::from_millis(30)).await;
        panic!("index out of bounds in the stream decoder");
    }

    async fn models(&self) -> Result<Vec<String>, tollgate_providers::ProviderError> {
        Ok(Vec::new())
    }
}

#[tokio::test]
async fn a_turn_whose_task_panics_ends_visibly_and_the_chat_can_go_on() {
    let env = Env::new().await;
    let handle = env.start(Arc::new(PanickingProvider), "go");
    let (events, outcome) = handle.collect().await;
    // The window hears the end of the turn, with the reason and Retry: never "Working…" forever.
    let finished = events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::TurnFinished { outcome } => Some(outcome),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(finished.len(), 1, "{events:?}");
    for o in [finished[0], &outcome] {
        assert!(
            matches!(o, TurnOutcome::Failed { error, retryable: true, .. }
                if error.contains("internal error") && error.contains("stream decoder")),
            "{o:?}"
        );
    }
    // What streamed is kept, marked interrupted rather than left streaming.
    env.store.flush().await.unwrap();
    let msgs = env.messages().await;
    assert_eq!(msgs[1].role, Role::Assistant);
    assert_eq!(msgs[1].status, MessageStatus::Interrupted);
    // The chat goes on: the next turn runs normally.
    env.mock.push(openai::text("all good"));
    let next = env.start(env.openai(), "again").join().await;
    assert!(matches!(next, TurnOutcome::Completed { .. }), "{next:?}");
}

#[tokio::test]
async fn a_tool_that_panics_mid_turn_fails_visibly_and_the_turn_goes_on() {
    let env = Env::new().await;
    env.mock.push(openai::calls(
        "",
        &[("call_1", "boom", r#"{"text":"value missing"}"#)],
    ));
    env.mock
        .push(openai::text("The tool crashed; here is what I know."));
    let (events, outcome) = env.start(env.openai(), "go").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let finished = events
        .iter()
        .filter_map(tool_event)
        .find_map(|e| match e {
            ToolEvent::Finished { summary, .. } => Some(summary.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        finished.status,
        tollgate_protocol::policy::CallStatus::Error,
        "the window's tool card shows the failure"
    );
    assert!(
        finished.content.contains("crashed") && finished.content.contains("value missing"),
        "{}",
        finished.content
    );
    let calls = env.store.calls().chat_calls(env.exec.chat()).await.unwrap();
    assert_eq!(calls[0].status, RecordStatus::Error);
    let results = &env.mock.bodies()[1]["messages"];
    let tool_msg = results.as_array().unwrap().last().unwrap();
    assert_eq!(tool_msg["role"], "tool");
    assert!(tool_msg["content"].as_str().unwrap().contains("crashed"));
    assert_eq!(text_of(&events), "The tool crashed; here is what I know.");
}
