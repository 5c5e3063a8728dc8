//! A provider key kept in the keychain that is also in a workspace file never reaches the model,
//! whatever shape a command gives it (F-46; SECURITY.md, "Redaction"). Whole turns against the
//! mock LLM with the real shell tool in a real workspace; judged by what the model's server
//! received, read back with the decoder that undoes each command.

use serde_json::json;
use std::sync::Arc;
use tollgate_engine::chat::{ChatEvent, Turn, TurnInput, TurnOutcome, TurnSettings};
use tollgate_engine::router::Router;
use tollgate_engine::{ApprovalHub, Decision, ExecutionDecision, Store, ToolExecutor};
use tollgate_executor::rules::RuleBook;
use tollgate_executor::ExecutorDeps;
use tollgate_mock_llm::{openai, MockLlm};
use tollgate_protocol::{NullSink, ToolSettings};
use tollgate_providers::openai::OpenAiProvider;
use tollgate_tools::Registry;

/// The key: random, as a provider's key is.
const KEY: &str = "sk-proj-Tq8vN3pL0wXy7RbT4mKd9sHc2JfGuE6aQe";

/// A chat whose workspace holds `key.txt` with the key behind other text on its line.
struct Workspace {
    _dir: tempfile::TempDir,
    ws: tempfile::TempDir,
    store: Store,
    exec: Arc<ToolExecutor>,
    router: Arc<Router>,
    mock: MockLlm,
}

impl Workspace {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        let registry = Registry::with_groups([
            tollgate_tools::vars_tools::group(),
            tollgate_tools::shell::group(),
        ])
        .unwrap();
        let mut settings = ToolSettings::default();
        settings.groups.insert("shell".into(), true);
        let router = Arc::new(Router::new(Arc::new(NullSink)));
        let deps = ExecutorDeps {
            registry: Arc::new(registry),
            store: store.clone(),
            hub: Arc::new(ApprovalHub::new()),
            rules: Arc::new(RuleBook::load(store.clone()).await.unwrap()),
            settings: Arc::new(parking_lot::RwLock::new(settings)),
            sink: router.clone(),
            hidden: Default::default(),
        };
        let exec = ToolExecutor::open(chat, deps).await.unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(
            ws.path().join("key.txt"),
            format!("token={KEY} expires=never\n"),
        )
        .unwrap();
        exec.set_workspace(Some(ws.path().to_path_buf()))
            .await
            .unwrap();
        // The key as the user typed it in Settings: kept in the keychain, so remembered.
        tollgate_secrets::remember(KEY);
        Self {
            _dir: dir,
            ws,
            store,
            exec,
            router,
            mock: MockLlm::start().await.unwrap(),
        }
    }

    /// One turn in which the model runs each of `commands`, one a round, then answers; returns
    /// each command's result as the model's server received it.
    async fn run(&self, commands: &[&str]) -> Vec<String> {
        for (i, command) in commands.iter().enumerate() {
            let args = json!({ "command": command }).to_string();
            self.mock.push(openai::calls(
                "",
                &[(&format!("c{i}"), "run_command", &args)],
            ));
        }
        self.mock.push(openai::text("Done."));
        let turn = Turn {
            exec: Arc::clone(&self.exec),
            provider: Arc::new(OpenAiProvider {
                base_url: format!("{}/v1", self.mock.url()),
                api_key: "sk-test-openai".into(),
                ..Default::default()
            }),
            store: self.store.clone(),
            router: Arc::clone(&self.router),
            model: "mock-large".into(),
            system_prompt: String::new(),
            settings: TurnSettings::default(),
        };
        let mut handle = tollgate_turn::start_turn(turn, TurnInput::Message("look".into()));
        // The user allows each command on its card, as one who wrote the commands would.
        while let Some(event) = handle.events.recv().await {
            if let Some(card) = super::chat::approval(&event) {
                self.exec
                    .asks()
                    .answer_approval(&card.id, Decision::Execution(ExecutionDecision::AllowOnce))
                    .unwrap();
            }
            if matches!(event, ChatEvent::TurnFinished { .. }) {
                break;
            }
        }
        let outcome = handle.join().await;
        assert!(
            matches!(outcome, TurnOutcome::Completed { .. }),
            "{outcome:?}"
        );
        tollgate_mock_llm::openai::tool_results(&self.mock.bodies().pop().unwrap())
    }
}

/// Runs `script` in `sh` with `input` on its standard input; its output.
fn sh(script: &str, input: &str, cwd: &std::path::Path) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(cwd)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).into_owned()
}

/// Every 10-character stretch of the key.
fn stretches() -> Vec<String> {
    let chars: Vec<char> = KEY.chars().collect();
    chars.windows(10).map(|w| w.iter().collect()).collect()
}

/// Whether `text` gives away a stretch of the key: as it stands, without whitespace or dashes,
/// in any case.
fn gives_away(text: &str) -> Option<String> {
    let plain = text.to_lowercase();
    let joined: String = plain
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    stretches().into_iter().find(|s| {
        let s = s.to_lowercase();
        let s_joined: String = s.chars().filter(|c| *c != '-').collect();
        plain.contains(&s) || joined.contains(&s_joined)
    })
}

/// The command family tried in the real window: the file printed with its encodings in one output, one
/// character a line, one byte a line, spaced out, chained encodings, a case swap, a character
/// put between every two; each graded by the decoder that undoes it, applied to what the model
/// received (its output section only).
#[tokio::test]
async fn a_key_in_a_workspace_file_never_reaches_the_model_in_any_shape() {
    let w = Workspace::new().await;
    // (the command, how a reader turns its output back)
    let family: &[(&str, &str)] = &[
        (
            "cat key.txt; base64 key.txt; xxd -p key.txt; od -An -tx1 key.txt",
            "cat",
        ),
        ("base64 key.txt", "base64 -d"),
        ("xxd -p key.txt", "xxd -r -p"),
        ("od -An -tx1 key.txt", "xxd -r -p"),
        ("fold -w1 key.txt", "tr -d '\\n'"),
        ("xxd -p -c1 key.txt", "xxd -r -p"),
        ("base64 key.txt | fold -w1", "tr -d '\\n' | base64 -d"),
        ("sed 's/./& /g' key.txt", "tr -d ' '"),
        ("base64 key.txt | base64", "base64 -d | base64 -d"),
        ("rev key.txt | base64", "base64 -d | rev"),
        ("tr a-zA-Z A-Za-z < key.txt", "tr a-zA-Z A-Za-z"),
        ("sed 's/./&-/g' key.txt", "sed 's/\\(.\\)-/\\1/g'"),
        (
            "base64 key.txt | tr a-zA-Z A-Za-z",
            "tr a-zA-Z A-Za-z | base64 -d",
        ),
        ("xxd -p key.txt | base64", "base64 -d | xxd -r -p"),
    ];
    let commands: Vec<&str> = family.iter().map(|(c, _)| *c).collect();
    let received = w.run(&commands).await;
    assert_eq!(received.len(), family.len(), "{received:?}");
    for ((command, decode), got) in family.iter().zip(&received) {
        // What the command printed, as the model got it: the section after `--- stdout ---`.
        let output = got.split("--- stdout ---\n").nth(1).unwrap_or(got);
        let decoded = sh(decode, output, w.ws.path());
        for text in [got.as_str(), decoded.as_str()] {
            assert_eq!(
                gives_away(text),
                None,
                "{command}: the model received\n{got}\n--- decoded ---\n{decoded}"
            );
        }
    }
}

/// The key's two halves, each printed by its own command in the same chat (and a base64 half
/// and a hex half): neither half reaches the model.
#[tokio::test]
async fn the_keys_halves_in_two_outputs_never_both_reach_the_model() {
    let w = Workspace::new().await;
    let half = "token=".len() + KEY.len() / 2;
    let first = format!("cut -c1-{half} key.txt");
    let second = format!("cut -c{}- key.txt", half + 1);
    let first_b64 = format!("cut -c1-{half} key.txt | base64");
    let second_hex = format!("cut -c{}- key.txt | xxd -p", half + 1);
    let received = w.run(&[&first, &second, &first_b64, &second_hex]).await;
    let decoded = [
        received[0].clone(),
        received[1].clone(),
        sh(
            "base64 -d",
            received[2].split("--- stdout ---\n").nth(1).unwrap_or(""),
            w.ws.path(),
        ),
        sh(
            "xxd -r -p",
            received[3].split("--- stdout ---\n").nth(1).unwrap_or(""),
            w.ws.path(),
        ),
    ];
    for (i, text) in decoded.iter().enumerate() {
        assert_eq!(gives_away(text), None, "output {i}: {:?}", received[i]);
    }
    // Not a vacuous test: the halves are what the commands print.
    let raw = sh(&first, "", w.ws.path()) + &sh(&second, "", w.ws.path());
    assert!(gives_away(&raw).is_some());
}
