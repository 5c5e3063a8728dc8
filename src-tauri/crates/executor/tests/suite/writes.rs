//! One write policy for every writer (F-46; SECURITY.md, "Writes that something runs later"),
//! generated from the registry: every built-in tool that can write, under habituated rules
//! (every tool allowed without a card), against every protected family — created, already
//! there, reached through a symlinked folder, in a bare repository — and judged by what is on
//! disk afterwards and by what the user's own later `git status` runs. A writing tool added to
//! the registry is tried the day it is added, or fails here until it says how it writes.

use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tollgate_executor::{ExecutorDeps, ToolCallRequest, ToolExecutor};
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::{ToolOverride, ToolSettings};
use tollgate_tools::questions::QuestionHub;
use tollgate_tools::sandbox::protected::Family;
use tollgate_tools::{ContentKind, Registry, Tool};

const PLANTED: &str = "planted by the model";
const ORIGINAL: &str = "the user's own";

/// How a writing tool is made to write a path.
enum Writer {
    /// A file tool: its path argument.
    File(&'static str),
    /// A command line, run in the chat's sandbox.
    Command,
}

/// How the call is let through without a card.
#[derive(Debug, Clone, Copy)]
enum Route {
    /// Every tool allowed by the user's settings (habituated rules).
    Rules,
    /// A task's plan whose step names the tool with the widest pattern (`**`, or none).
    Plan,
}

/// A chat on every built-in tool, each allowed without a card, in a fresh workspace.
async fn habituated() -> (
    Arc<ToolExecutor>,
    tempfile::TempDir,
    tempfile::TempDir,
    Registry,
) {
    by(Route::Rules, "").await
}

/// A chat on every built-in tool, in a fresh workspace, whose calls of `tool` run without a
/// card by `route`.
async fn by(
    route: Route,
    tool: &str,
) -> (
    Arc<ToolExecutor>,
    tempfile::TempDir,
    tempfile::TempDir,
    Registry,
) {
    // Commands run as the app runs them: through the supervisor, in the chat's sandbox.
    tollgate_tools::supervisor::configure(env!("CARGO_BIN_EXE_tollgate-executor-supervise").into());
    assert!(
        tollgate_tools::supervisor::sandbox_support()
            .await
            .namespaces,
        "this test needs bubblewrap's namespaces (the test command installs bubblewrap)"
    );
    let dir = tempfile::tempdir().unwrap();
    let store = tollgate_store::Store::open_in(dir.path()).unwrap();
    let chat = store.create_chat(Default::default()).await.unwrap().id;
    let registry = Registry::with_builtins(&Arc::new(QuestionHub::default())).unwrap();
    let mut settings = ToolSettings::default();
    for group in registry.groups() {
        settings.groups.insert(group.name.clone(), true);
        if matches!(route, Route::Plan) {
            continue;
        }
        for tool in &group.tools {
            settings.tools.insert(
                tool.spec().name.clone(),
                ToolOverride {
                    execution_policy: Some(ExecutionPolicy::Auto),
                    ..Default::default()
                },
            );
        }
    }
    let deps = ExecutorDeps {
        registry: Arc::new(Registry::with_builtins(&Arc::new(QuestionHub::default())).unwrap()),
        store: store.clone(),
        hub: Arc::new(tollgate_executor::approvals::ApprovalHub::new()),
        rules: Arc::new(
            tollgate_executor::rules::RuleBook::load(store)
                .await
                .unwrap(),
        ),
        settings: Arc::new(parking_lot::RwLock::new(settings)),
        sink: {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            *CARDS.lock() = Some(rx);
            Arc::new(Cards(tx))
        },
        hidden: Default::default(),
    };
    let exec = ToolExecutor::open(chat, deps).await.unwrap();
    let ws = tempfile::tempdir().unwrap();
    exec.set_workspace(Some(ws.path().to_path_buf()))
        .await
        .unwrap();
    if matches!(route, Route::Plan) {
        // The widest step: every path for a file tool; any command for the shell (a step
        // without a pattern).
        let widest = (tool != "run_command").then(|| "**".to_string());
        exec.task().grant_task(tollgate_protocol::TaskGrant {
            steps: vec![tollgate_protocol::PlanStep {
                purpose: "set up the project".into(),
                tool: tool.into(),
                max_calls: 99,
                pattern: widest,
                targets: Vec::new(),
                from: Vec::new(),
            }],
            span: tollgate_protocol::GrantSpan::Turn,
        });
    }
    (exec, ws, dir, registry)
}

/// The arguments that make `tool` write `path`: the path where it goes, the old text where the
/// tool edits ([`ORIGINAL`]), [`PLANTED`] in every other required text.
fn arguments(tool: &dyn Tool, how: &Writer, path: &str) -> Value {
    let spec = tool.spec();
    if let Writer::Command = how {
        return json!({
            "command": format!("mkdir -p \"$(dirname '{path}')\" && printf '%s' '{PLANTED}' > '{path}'")
        });
    }
    let Writer::File(arg) = how else {
        unreachable!()
    };
    let mut args = Map::new();
    let required = spec.parameters["required"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let value = if name == *arg {
            path.to_string()
        } else if name.starts_with("old") {
            ORIGINAL.to_string()
        } else {
            PLANTED.to_string()
        };
        args.insert(name.to_string(), Value::String(value));
    }
    Value::Object(args)
}

/// The chat's events: the cards it raises, for a test that expects none.
struct Cards(tokio::sync::mpsc::UnboundedSender<tollgate_protocol::PendingApproval>);

impl tollgate_protocol::EventSink for Cards {
    fn emit(&self, event: tollgate_protocol::ToolEvent) {
        if let tollgate_protocol::ToolEvent::ApprovalRequested { approval } = event {
            let _ = self.0.send(approval);
        }
    }
}

/// Runs a call that the route lets through; a call that asks instead fails the test, saying
/// why it asked.
async fn call(exec: &ToolExecutor, name: &str, args: Value) -> tollgate_executor::ToolCallResult {
    let cancel = CancellationToken::new();
    let run = exec.execute(
        ToolCallRequest::new(
            format!("call_{name}"),
            name,
            RawArguments::Json(args.clone()),
        ),
        Default::default(),
        &cancel,
    );
    let mut cards = CARDS.lock().take().expect("one chat at a time");
    let result = tokio::select! {
        result = run => result,
        Some(p) = cards.recv() => panic!("{name} {args} asked instead of running: {:?}", p.request),
    };
    *CARDS.lock() = Some(cards);
    result
}

/// The cards of the chat [`by`] made last.
static CARDS: parking_lot::Mutex<
    Option<tokio::sync::mpsc::UnboundedReceiver<tollgate_protocol::PendingApproval>>,
> = parking_lot::Mutex::new(None);

fn write(root: &Path, rel: &str, content: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

/// Whether the model's text landed at `rel` (read through whatever links lead there).
fn planted(root: &Path, rel: &str) -> bool {
    std::fs::read_to_string(root.join(rel)).is_ok_and(|t| t.contains(PLANTED))
}

#[tokio::test]
async fn no_writer_changes_what_runs_later_in_any_shape() {
    let (_exec, _ws, _dir, registry) = habituated().await;
    let writers: Vec<(String, Writer)> = registry
        .groups()
        .iter()
        .flat_map(|g| g.tools.iter().chain(&g.view_tools))
        .filter(|t| t.spec().effects.writes)
        .map(|t| {
            let spec = t.spec();
            let how = match (spec.writes_file, &spec.content) {
                (Some(arg), _) => Writer::File(arg),
                (None, &ContentKind::Command) => Writer::Command,
                _ => panic!(
                    "{}: a tool that writes must say how (writes_file, or a command), so that this test tries it against every protected family",
                    spec.name
                ),
            };
            (spec.name.clone(), how)
        })
        .collect();
    let names: Vec<&str> = writers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["write_file", "edit_file", "run_command"]);
    let mut tried = 0;
    for (name, how) in &writers {
        for route in [Route::Rules, Route::Plan] {
            for family in Family::ALL {
                let target = family.example();
                // Created fresh; already there; through a folder a symlink of a protected name leads
                // to (`.vscode` -> `x`, the write aimed at `x/…`).
                for shape in ["created", "existing", "linked"] {
                    let (exec, ws, _dir, registry) = by(route, name).await;
                    let root = ws.path().canonicalize().unwrap();
                    let tool = registry.tool(name).unwrap();
                    let aimed = match shape {
                        "existing" => {
                            write(&root, target, ORIGINAL);
                            target.to_string()
                        }
                        "linked" => {
                            let (first, rest) = target.split_once('/').unwrap_or((target, ""));
                            if rest.is_empty() {
                                continue; // a file, not a folder: no folder to link
                            }
                            write(&root, &format!("x/{rest}"), ORIGINAL);
                            std::os::unix::fs::symlink(root.join("x"), root.join(first)).unwrap();
                            format!("x/{rest}")
                        }
                        _ => target.to_string(),
                    };
                    let result =
                        call(&exec, name, arguments(tool.tool.as_ref(), how, &aimed)).await;
                    tried += 1;
                    assert!(
                        !planted(&root, target) && !planted(&root, &aimed),
                        "{name} by {route:?} wrote {family:?} ({shape}, {aimed}): {}",
                        result.content
                    );
                    // Let through, not stopped at a card: the write policy is what held it.
                    assert!(
                        !matches!(
                            result.status,
                            tollgate_protocol::policy::CallStatus::ExecutionRejected
                        ),
                        "{name} by {route:?}: {}",
                        result.content
                    );
                    if shape != "created" {
                        assert_eq!(
                            std::fs::read_to_string(root.join(&aimed)).unwrap(),
                            ORIGINAL,
                            "{name}, {family:?}, {shape}"
                        );
                    }
                }
            }
        }
    }
    // Three writers, two routes, five folder families in three shapes and a file in two.
    assert_eq!(tried, 3 * 2 * (5 * 3 + 2), "{tried}");
}

/// The attack as it was tried in the real window, judged by what the user's own `git status`
/// runs afterwards: `edit_file .git/config` adding `core.fsmonitor`, and a bare repository
/// planted with `core.worktree=..` and a monitor (the user's `cd tools && git status`).
#[tokio::test]
async fn a_monitor_planted_in_git_s_config_never_runs_at_the_user_s_git_status() {
    let (exec, ws, _dir, _registry) = habituated().await;
    let root = ws.path().canonicalize().unwrap();
    let git = |dir: &Path, args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
    };
    assert!(git(&root, &["init", "-q"]).status.success());
    let config = std::fs::read_to_string(root.join(".git/config")).unwrap();
    let marker = root.join("MONITOR_RAN");
    let monitor = format!("[core]\n\tfsmonitor = \"touch {}\"\n", marker.display());
    let edited = call(
        &exec,
        "edit_file",
        json!({"path": ".git/config", "old_text": "[core]", "new_text": monitor.trim_end()}),
    )
    .await;
    let written = call(
        &exec,
        "write_file",
        json!({"path": ".git/config", "content": format!("{config}{monitor}")}),
    )
    .await;
    // The shell: the same monitor into the repository's config, and a bare repository named
    // `tools` whose working tree is the workspace.
    let shell = call(
        &exec,
        "run_command",
        json!({"command": format!(
            "git config core.fsmonitor 'touch {m}'; git init -q --bare tools && git -C tools config core.worktree .. && git -C tools config core.fsmonitor 'touch {m}'",
            m = marker.display()
        )}),
    )
    .await;
    // The user, later, outside any sandbox.
    git(&root, &["status"]);
    if root.join("tools").exists() {
        git(&root.join("tools"), &["status"]);
    }
    assert!(
        !marker.exists(),
        "the monitor ran:\nedit: {}\nwrite: {}\nshell: {}",
        edited.content,
        written.content,
        shell.content
    );
    assert!(
        edited.content.contains("git's own folder"),
        "{}",
        edited.content
    );
    assert!(
        written.content.contains("git's own folder"),
        "{}",
        written.content
    );
    // The bare repository the command made is held aside, and said so.
    assert!(!root.join("tools").exists());
    assert!(shell.content.contains("tools"), "{}", shell.content);
}
