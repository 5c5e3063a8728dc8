//! The gate's invariant, tried over random sequences of calls, decisions, rule edits, record
//! revocations, workspace changes, chat deletions and Stop (proptest, 10,000 cases):
//!
//! > every execution has a matching decision — the auto policy, a rule, an ask-once record or the
//! > user — for exactly the arguments that ran, and every result the model received was allowed
//! > by the result policy or the user.
//!
//! A small model of the rules written from SPEC F-01…F-06 predicts, before each call, whether it
//! runs, is denied or asks, and with which arguments; the real executor (real SQLite file, real
//! rule book, real approval hub) must do exactly that. Tools record every run, so a run the
//! model did not allow — or with other arguments — fails the case.

use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tollgate_engine::{
    ApprovalHub, CallOrigin, Decision, ExecutionDecision, ResultDecision, Store, ToolCallRequest,
    ToolExecutor,
};
use tollgate_executor::rules::RuleBook;
use tollgate_executor::ExecutorDeps;
use tollgate_protocol::canonical::canonical_json;
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::policy::{CallStatus, ExecutionPolicy, ResultPolicy};
use tollgate_protocol::ToolSettings;
use tollgate_protocol::{ApprovalRequest, PendingApproval, RuleGrant, RuleScopeChoice};
use tollgate_protocol::{EventSink, ToolEvent};
use tollgate_protocol::{RuleAction, RuleScope};
use tollgate_tools::{Registry, Tool, ToolContext, ToolError, ToolGroup, ToolSpec};

/// The tools of the model: one per policy pair. Each records the arguments it ran with.
const TOOLS: [(&str, ExecutionPolicy, ResultPolicy); 6] = [
    ("p_auto", ExecutionPolicy::Auto, ResultPolicy::Never),
    ("p_once", ExecutionPolicy::AskOnce, ResultPolicy::Never),
    ("p_always", ExecutionPolicy::AskAlways, ResultPolicy::Never),
    ("p_deny", ExecutionPolicy::Deny, ResultPolicy::Never),
    ("p_review", ExecutionPolicy::Auto, ResultPolicy::Always),
    (
        "p_once_review",
        ExecutionPolicy::AskOnce,
        ResultPolicy::Always,
    ),
];
const ARGS: [&str; 3] = ["a", "b", "c"];

struct Recorder {
    spec: ToolSpec,
    ran: Arc<parking_lot::Mutex<Vec<(String, Value)>>>,
}

#[async_trait::async_trait]
impl Tool for Recorder {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    async fn execute(&self, args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        self.ran.lock().push((self.spec.name.clone(), args.clone()));
        Ok(json!(format!(
            "output of {} for {}",
            self.spec.name,
            args["text"].as_str().unwrap_or_default()
        )))
    }
}

struct Approvals(mpsc::UnboundedSender<PendingApproval>);

impl EventSink for Approvals {
    fn emit(&self, event: ToolEvent) {
        if let ToolEvent::ApprovalRequested { approval } = event {
            let _ = self.0.send(approval);
        }
    }
}

/// What every case shares: one database, registry, rule book and hub (each case gets a chat of
/// its own), and the runtime.
struct World {
    rt: tokio::runtime::Runtime,
    deps: ExecutorDeps,
    store: Store,
    ran: Arc<parking_lot::Mutex<Vec<(String, Value)>>>,
    approvals: tokio::sync::Mutex<mpsc::UnboundedReceiver<PendingApproval>>,
    workspaces: [std::path::PathBuf; 2],
    _dirs: Vec<tempfile::TempDir>,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let db = tempfile::tempdir().unwrap();
        let ws_a = tempfile::tempdir().unwrap();
        let ws_b = tempfile::tempdir().unwrap();
        let ran = Arc::new(parking_lot::Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::unbounded_channel();
        let (store, deps) = rt.block_on(async {
            let store = Store::open_in(db.path()).unwrap();
            let mut group = ToolGroup::new("model", "Model", "Tools of the invariant test.")
                .enabled_by_default(true);
            for (name, policy, result) in TOOLS {
                group = group.tool(Recorder {
                    spec: ToolSpec::new(
                        name,
                        "A tool that records its runs.",
                        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false}),
                    )
                    .policy(policy)
                    .result_policy(result),
                    ran: Arc::clone(&ran),
                });
            }
            let mut registry = Registry::with_groups([tollgate_tools::vars_tools::group(), tollgate_tools::basic::group()]).unwrap();
            registry.register_group(group).unwrap();
            let deps = ExecutorDeps {
                registry: Arc::new(registry),
                store: store.clone(),
                hub: Arc::new(ApprovalHub::new()),
                rules: Arc::new(RuleBook::load(store.clone()).await.unwrap()),
                settings: Arc::new(parking_lot::RwLock::new(ToolSettings::default())),
                sink: Arc::new(Approvals(tx)),
                hidden: Default::default(),
            };
            (store, deps)
        });
        World {
            rt,
            deps,
            store,
            ran,
            approvals: tokio::sync::Mutex::new(rx),
            workspaces: [ws_a.path().to_path_buf(), ws_b.path().to_path_buf()],
            _dirs: vec![db, ws_a, ws_b],
        }
    })
}

#[derive(Debug, Clone, Copy)]
enum Answer {
    AllowOnce,
    AllowForChat,
    AlwaysExact { global: bool },
    AlwaysEvery { global: bool },
    Edit(usize),
    Deny,
    DenyAndStop,
    Stop,
}

#[derive(Debug, Clone, Copy)]
enum ResultAnswer {
    Approve,
    Edit,
    Reject,
    Stop,
}

#[derive(Debug, Clone)]
enum Op {
    Call {
        tool: usize,
        arg: usize,
        answer: Answer,
        result: ResultAnswer,
    },
    AddRule {
        tool: usize,
        arg: Option<usize>,
        action: RuleAction,
        global: bool,
    },
    RemoveRule(usize),
    SetWorkspace(Option<usize>),
    RevokeRecords,
    /// Delete the chat (as the service does: its rows, then its rules in memory) and go on in
    /// a new one.
    DeleteChat,
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        Just(Answer::AllowOnce),
        Just(Answer::AllowForChat),
        any::<bool>().prop_map(|global| Answer::AlwaysExact { global }),
        any::<bool>().prop_map(|global| Answer::AlwaysEvery { global }),
        (0..ARGS.len()).prop_map(Answer::Edit),
        Just(Answer::Deny),
        Just(Answer::DenyAndStop),
        Just(Answer::Stop),
    ]
}

fn result_answer() -> impl Strategy<Value = ResultAnswer> {
    prop_oneof![
        Just(ResultAnswer::Approve),
        Just(ResultAnswer::Edit),
        Just(ResultAnswer::Reject),
        Just(ResultAnswer::Stop),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let action = prop_oneof![
        Just(RuleAction::Allow),
        Just(RuleAction::Ask),
        Just(RuleAction::Deny)
    ];
    prop_oneof![
        6 => (0..TOOLS.len(), 0..ARGS.len(), answer(), result_answer())
            .prop_map(|(tool, arg, answer, result)| Op::Call { tool, arg, answer, result }),
        2 => (0..TOOLS.len(), proptest::option::of(0..ARGS.len()), action, any::<bool>())
            .prop_map(|(tool, arg, action, global)| Op::AddRule { tool, arg, action, global }),
        1 => (0usize..8).prop_map(Op::RemoveRule),
        1 => proptest::option::of(0usize..2).prop_map(Op::SetWorkspace),
        1 => Just(Op::RevokeRecords),
        1 => Just(Op::DeleteChat),
    ]
}

fn args_of(arg: usize) -> Value {
    json!({ "text": ARGS[arg] })
}

/// The model's view of one chat.
#[derive(Default)]
struct Model {
    /// (rule id, tool, pattern, action, chat-scoped)
    rules: Vec<(i64, String, Option<String>, RuleAction, bool)>,
    /// (tool, canonical args, workspace) → allowed
    records: HashMap<(String, String, Option<usize>), bool>,
    workspace: Option<usize>,
}

#[derive(Debug, PartialEq, Eq)]
enum Expect {
    Allow,
    Ask,
    Deny,
}

impl Model {
    /// F-01, F-03, F-04: policy deny → the most specific rule (deny before ask before allow, this
    /// chat before all chats) → an ask-once record → the policy.
    fn verdict(&self, tool: usize, args: &Value) -> Expect {
        let (name, policy, _) = TOOLS[tool];
        if policy == ExecutionPolicy::Deny {
            return Expect::Deny;
        }
        let canon = canonical_json(args);
        let rank = |a: RuleAction| match a {
            RuleAction::Deny => 2,
            RuleAction::Ask => 1,
            RuleAction::Allow => 0,
        };
        let rule = self
            .rules
            .iter()
            .filter(|(_, t, p, _, _)| t == name && p.as_ref().is_none_or(|p| *p == canon))
            .max_by_key(|(_, _, p, a, chat)| (p.is_some(), rank(*a), *chat));
        if let Some((_, _, _, action, _)) = rule {
            return match action {
                RuleAction::Allow => Expect::Allow,
                RuleAction::Ask => Expect::Ask,
                RuleAction::Deny => Expect::Deny,
            };
        }
        if matches!(
            policy,
            ExecutionPolicy::AskOnce | ExecutionPolicy::AskAlways
        ) {
            if let Some(allowed) = self.records.get(&(name.to_string(), canon, self.workspace)) {
                return if *allowed {
                    Expect::Allow
                } else {
                    Expect::Deny
                };
            }
        }
        match policy {
            ExecutionPolicy::Auto => Expect::Allow,
            ExecutionPolicy::AskOnce | ExecutionPolicy::AskAlways => Expect::Ask,
            ExecutionPolicy::Deny => Expect::Deny,
        }
    }
}

/// The next approval, or `None` when the call finished without asking.
async fn approval_or_end(
    task: &mut tokio::task::JoinHandle<tollgate_engine::ToolCallResult>,
    approvals: &mut mpsc::UnboundedReceiver<PendingApproval>,
) -> Result<PendingApproval, tollgate_engine::ToolCallResult> {
    let next = tokio::time::timeout(crate::common::PATIENCE, async {
        tokio::select! {
            biased;
            a = approvals.recv() => Ok(a.expect("sink alive")),
            r = task => Err(r.expect("the call task")),
        }
    })
    .await;
    next.expect("the call neither finished nor asked within 10 s")
}

async fn run_case(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let w = world();
    let mut approvals = w.approvals.lock().await;
    while approvals.try_recv().is_ok() {}
    for rule in w.deps.rules.list() {
        w.deps.rules.remove(rule.id).await.unwrap();
    }
    let mut chat = w.store.create_chat(Default::default()).await.unwrap().id;
    let mut exec = ToolExecutor::open(chat, w.deps.clone()).await.unwrap();
    let mut model = Model::default();
    let scope_of = |global: bool, chat| {
        if global {
            RuleScope::Global
        } else {
            RuleScope::Chat { chat }
        }
    };
    for op in ops {
        match op {
            Op::AddRule {
                tool,
                arg,
                action,
                global,
            } => {
                let pattern = arg.map(|a| canonical_json(&args_of(a)));
                let rule = w
                    .deps
                    .rules
                    .add(
                        TOOLS[tool].0,
                        pattern.clone(),
                        action,
                        scope_of(global, chat),
                    )
                    .await
                    .unwrap();
                model
                    .rules
                    .push((rule.id, TOOLS[tool].0.into(), pattern, action, !global));
            }
            Op::RemoveRule(i) => {
                if !model.rules.is_empty() {
                    let (id, ..) = model.rules.remove(i % model.rules.len());
                    prop_assert!(w.deps.rules.remove(id).await.unwrap());
                }
            }
            Op::SetWorkspace(ws) => {
                exec.set_workspace(ws.map(|i| w.workspaces[i].clone()))
                    .await
                    .unwrap();
                model.workspace = ws;
            }
            Op::DeleteChat => {
                w.store.delete_chat(chat).await.unwrap();
                w.deps.rules.forget_chat(chat);
                let old = chat;
                chat = w.store.create_chat(Default::default()).await.unwrap().id;
                prop_assert!(chat.0 > old.0, "chat id {} reused", chat);
                exec = ToolExecutor::open(chat, w.deps.clone()).await.unwrap();
                // The new chat inherits nothing: no chat rule, no record, no folder.
                model.rules.retain(|(_, _, _, _, chat_scoped)| !chat_scoped);
                model.records.clear();
                model.workspace = None;
            }
            Op::RevokeRecords => {
                for r in exec.asks().records().await.unwrap() {
                    exec.asks()
                        .revoke_record(&r.tool, &r.args_hash)
                        .await
                        .unwrap();
                }
                model.records.clear();
            }
            Op::Call {
                tool,
                arg,
                answer,
                result,
            } => {
                let (name, policy, result_policy) = TOOLS[tool];
                let args = args_of(arg);
                let expect = model.verdict(tool, &args);
                w.ran.lock().clear();
                let stop = CancellationToken::new();
                let mut task = {
                    let (exec, stop) = (Arc::clone(&exec), stop.clone());
                    let req = ToolCallRequest::new("c", name, RawArguments::Json(args.clone()));
                    tokio::spawn(
                        async move { exec.execute(req, CallOrigin::default(), &stop).await },
                    )
                };
                // What should run, if anything, after the execution decision.
                let mut runs: Option<Value> = None;
                let mut pending_rule: Option<(String, Option<String>, bool)> = None;
                match (expect, approval_or_end(&mut task, &mut approvals).await) {
                    (Expect::Deny, Err(r)) => {
                        prop_assert_eq!(r.status, CallStatus::ExecutionRejected, "{}", r.content);
                        prop_assert!(w.ran.lock().is_empty(), "a denied call ran");
                        continue;
                    }
                    (Expect::Allow, Err(r)) if result_policy == ResultPolicy::Never => {
                        prop_assert_eq!(r.status, CallStatus::Success, "{}", r.content);
                        prop_assert_eq!(
                            w.ran.lock().clone(),
                            vec![(name.to_string(), args.clone())]
                        );
                        let wanted = format!("for {}", ARGS[arg]);
                        prop_assert!(r.content.contains(&wanted), "{}", r.content);
                        continue;
                    }
                    (Expect::Allow, Ok(a)) => {
                        // Only a result review may ask for an allowed call.
                        prop_assert!(
                            matches!(a.request, ApprovalRequest::Result { .. }),
                            "an allowed call asked: {:?}",
                            a.request
                        );
                        return_review(&exec, &w.ran, a, name, &args, result, &stop, task).await?;
                        continue;
                    }
                    (Expect::Ask, Ok(a)) => {
                        let ApprovalRequest::Execution { arguments, .. } = &a.request else {
                            return Err(TestCaseError::fail(format!(
                                "expected an execution approval, got {:?}",
                                a.request
                            )));
                        };
                        prop_assert_eq!(
                            arguments,
                            &args,
                            "the card shows the arguments that would run"
                        );
                        let decision = match answer {
                            Answer::AllowOnce => Some(ExecutionDecision::AllowOnce),
                            Answer::AllowForChat => Some(ExecutionDecision::AllowForChat),
                            Answer::AlwaysExact { global } => {
                                Some(ExecutionDecision::AlwaysAllow {
                                    scope: if global {
                                        RuleScopeChoice::AllChats
                                    } else {
                                        RuleScopeChoice::ThisChat
                                    },
                                    grant: RuleGrant::Matching {
                                        pattern: canonical_json(&args),
                                    },
                                })
                            }
                            Answer::AlwaysEvery { global } => {
                                Some(ExecutionDecision::AlwaysAllow {
                                    scope: if global {
                                        RuleScopeChoice::AllChats
                                    } else {
                                        RuleScopeChoice::ThisChat
                                    },
                                    grant: RuleGrant::EveryCall,
                                })
                            }
                            Answer::Edit(e) => Some(ExecutionDecision::EditAndAllow {
                                arguments: args_of(e),
                            }),
                            Answer::Deny => Some(ExecutionDecision::Deny { reason: None }),
                            Answer::DenyAndStop => {
                                Some(ExecutionDecision::DenyAndStop { reason: None })
                            }
                            Answer::Stop => None,
                        };
                        let Some(decision) = decision else {
                            stop.cancel();
                            let r = task.await.unwrap();
                            prop_assert_eq!(r.status, CallStatus::Cancelled);
                            prop_assert!(w.ran.lock().is_empty(), "a stopped call ran");
                            continue;
                        };
                        exec.asks()
                            .answer_approval(&a.id, Decision::Execution(decision.clone()))
                            .unwrap();
                        match decision {
                            ExecutionDecision::AllowOnce => runs = Some(args.clone()),
                            ExecutionDecision::AllowForChat => {
                                model.records.insert(
                                    (name.into(), canonical_json(&args), model.workspace),
                                    true,
                                );
                                runs = Some(args.clone());
                            }
                            ExecutionDecision::AlwaysAllow { scope, grant } => {
                                let pattern = match grant {
                                    RuleGrant::Matching { pattern } => Some(pattern),
                                    RuleGrant::EveryCall => None,
                                };
                                // The rule is written before the call runs; the model takes it
                                // up once the call is over (see `take_new_rule`).
                                pending_rule = Some((
                                    name.to_string(),
                                    pattern,
                                    scope == RuleScopeChoice::ThisChat,
                                ));
                                runs = Some(args.clone());
                            }
                            ExecutionDecision::EndorseAndAllow { .. } => {
                                // No call here is held by the provenance gate (nothing read):
                                // no card offers an endorsement, so this answer is never made.
                                prop_assert!(false, "an endorsement without a held card");
                            }
                            ExecutionDecision::EditAndAllow { arguments } => {
                                // The edit runs unless today's rules deny the edited arguments.
                                if model.verdict(tool, &arguments) != Expect::Deny {
                                    runs = Some(arguments);
                                }
                            }
                            ExecutionDecision::Deny { .. }
                            | ExecutionDecision::DenyAndStop { .. } => {
                                if policy == ExecutionPolicy::AskOnce {
                                    model.records.insert(
                                        (name.into(), canonical_json(&args), model.workspace),
                                        false,
                                    );
                                }
                            }
                        }
                    }
                    (expect, got) => {
                        return Err(TestCaseError::fail(format!(
                            "expected {expect:?} for {name}({args}), got {got:?}"
                        )));
                    }
                }
                match runs {
                    None => {
                        let r = task.await.unwrap();
                        prop_assert!(r.is_error, "{:?}", r);
                        prop_assert!(
                            w.ran.lock().is_empty(),
                            "a call ran without an allow: {:?}",
                            w.ran.lock()
                        );
                        prop_assert_eq!(r.stop_turn, matches!(answer, Answer::DenyAndStop));
                    }
                    Some(ran_args) => {
                        if result_policy == ResultPolicy::Always {
                            let a = match approval_or_end(&mut task, &mut approvals).await {
                                Ok(a) => a,
                                Err(r) => {
                                    return Err(TestCaseError::fail(format!(
                                        "no result review: {r:?}"
                                    )))
                                }
                            };
                            return_review(&exec, &w.ran, a, name, &ran_args, result, &stop, task)
                                .await?;
                        } else {
                            let r = task.await.unwrap();
                            prop_assert_eq!(r.status, CallStatus::Success, "{}", r.content);
                            prop_assert_eq!(
                                w.ran.lock().clone(),
                                vec![(name.to_string(), ran_args.clone())],
                                "ran exactly the approved arguments"
                            );
                        }
                    }
                }
                take_new_rule(&w.deps.rules, &mut model, pending_rule)?;
            }
        }
    }
    drop(approvals);
    Ok(())
}

/// Checks that the rule book gained exactly the rule the user's "always allow" asked for (and
/// nothing otherwise), and adds it to the model.
fn take_new_rule(
    book: &RuleBook,
    model: &mut Model,
    expected: Option<(String, Option<String>, bool)>,
) -> Result<(), TestCaseError> {
    let new: Vec<_> = book
        .list()
        .into_iter()
        .filter(|r| !model.rules.iter().any(|(id, ..)| *id == r.id))
        .collect();
    match expected {
        None => prop_assert!(
            new.is_empty(),
            "a rule appeared without an always-allow: {new:?}"
        ),
        Some((tool, pattern, chat)) => {
            prop_assert_eq!(new.len(), 1, "{:?}", new);
            let rule = &new[0];
            prop_assert_eq!(&rule.tool, &tool);
            prop_assert_eq!(
                &rule.pattern,
                &pattern,
                "the rule covers what the user chose, no more"
            );
            prop_assert_eq!(rule.action, RuleAction::Allow);
            prop_assert_eq!(matches!(rule.scope, RuleScope::Chat { .. }), chat);
            model
                .rules
                .push((rule.id, tool, pattern, RuleAction::Allow, chat));
        }
    }
    Ok(())
}

/// The result stage of a call that ran with `args`: the review shows exactly what ran, and the
/// model gets the approved text, the user's edit, or nothing of the output.
#[allow(clippy::too_many_arguments)]
async fn return_review(
    exec: &ToolExecutor,
    ran: &parking_lot::Mutex<Vec<(String, Value)>>,
    a: PendingApproval,
    name: &str,
    args: &Value,
    answer: ResultAnswer,
    stop: &CancellationToken,
    task: tokio::task::JoinHandle<tollgate_engine::ToolCallResult>,
) -> Result<(), TestCaseError> {
    let ApprovalRequest::Result { text_for_model, .. } = &a.request else {
        return Err(TestCaseError::fail(format!(
            "expected a result review, got {:?}",
            a.request
        )));
    };
    let output = format!(
        "output of {name} for {}",
        args["text"].as_str().unwrap_or_default()
    );
    prop_assert_eq!(text_for_model, &output);
    prop_assert_eq!(ran.lock().clone(), vec![(name.to_string(), args.clone())]);
    let decision = match answer {
        ResultAnswer::Approve => Some(ResultDecision::Approve),
        ResultAnswer::Edit => Some(ResultDecision::EditAndApprove {
            text: "EDITED BY THE USER".into(),
        }),
        ResultAnswer::Reject => Some(ResultDecision::Reject { reason: None }),
        ResultAnswer::Stop => None,
    };
    match decision {
        Some(d) => exec
            .asks()
            .answer_approval(&a.id, Decision::Result(d))
            .unwrap(),
        None => stop.cancel(),
    }
    let r = task.await.unwrap();
    match answer {
        ResultAnswer::Approve => {
            prop_assert_eq!(r.status, CallStatus::Success);
            prop_assert_eq!(&r.content, &output);
        }
        ResultAnswer::Edit => {
            prop_assert_eq!(r.status, CallStatus::Success);
            prop_assert_eq!(&r.content, "EDITED BY THE USER");
        }
        ResultAnswer::Reject | ResultAnswer::Stop => {
            prop_assert!(r.is_error);
            prop_assert!(
                !r.content.contains(&output),
                "a withheld result reached the model"
            );
            prop_assert!(
                r.result_var.is_none(),
                "a withheld result was stored for the model"
            );
            prop_assert!(
                exec.vars()
                    .get(&format!("{name}_c{}_result", r.seq))
                    .is_none(),
                "a withheld result is readable through a variable"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    #[test]
    fn every_run_and_every_result_has_a_matching_decision(ops in proptest::collection::vec(op(), 1..10)) {
        world().rt.block_on(run_case(ops))?;
    }
}
