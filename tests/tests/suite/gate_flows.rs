//! The gate as a user meets it, in the real window, against the mock LLM server speaking the
//! OpenAI streaming wire format: a provider added in Settings (its key in the real keychain), then
//! streamed answers, every kind of approval decision, Stop, group toggles and a restart.

use serde_json::Value;
use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::{completions, keys, tool_results};
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::{openai, MockLlm};

const KEY: &str = "sk-e2e-7f3a9c-never-in-the-db";
const WAIT: Duration = Duration::from_secs(60);

/// A fresh app with the mock server added as its provider (through Settings, key and all).
async fn app_with_mock() -> (Session, MockLlm) {
    Session::with_mock_provider(&[], KEY).await.unwrap()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn calc(id: &str, expression: &str) -> tollgate_mock_llm::Reply {
    let args = format!("{{\"expression\": \"{expression}\"}}");
    openai::calls("", &[(id, "calculate", &args)])
}

#[tokio::test]
async fn a_streamed_answer_and_a_key_kept_only_in_the_keychain() {
    let _seat = Seat::take().await.unwrap();
    // The key typed into Settings → Providers, as a user does.
    let (s, mock) = Session::with_mock_provider_from_settings(&[], KEY)
        .await
        .unwrap();
    mock.push(
        openai::text("Hello from the **mock** model, streamed in small pieces.")
            .slow(Duration::from_millis(20)),
    );
    s.new_chat_and_send("hello").await.unwrap();
    s.wait_for_text("Hello from the mock model, streamed in small pieces.", WAIT)
        .await
        .unwrap();
    let strong = s.el(".msg--assistant .markdown strong").await.unwrap();
    assert_eq!(strong.text().await.unwrap(), "mock", "markdown is rendered");
    s.screenshot("flow-streamed-answer").await.unwrap();

    let request = mock
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/chat/completions"))
        .unwrap();
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let db = s.database_bytes();
    assert!(
        !db.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
        "the API key reached the database file"
    );
    let stored = tollgate_secrets::Keychain::for_data_dir(s.data_path())
        .get("provider-1")
        .await
        .unwrap();
    assert_eq!(
        stored.as_deref(),
        Some(KEY),
        "the key is in the OS keychain"
    );
    assert!(!s.body_text().await.unwrap().contains(KEY));

    // Another model for this chat: the next request asks for it.
    assert_eq!(completions(&mock)[0]["model"], "mock-large");
    s.click(".model-picker .link-btn").await.unwrap();
    let model = s.el(".model-picker input").await.unwrap();
    model.send_keys("mock-small").await.unwrap();
    s.screenshot("flow-model-picker").await.unwrap();
    s.click(".model-picker button[type=submit]").await.unwrap();
    s.wait_for_text("mock-small · Mock", WAIT).await.unwrap();
    mock.push(openai::text("Now from the small model."));
    s.send("again").await.unwrap();
    s.wait_for_text("Now from the small model.", WAIT)
        .await
        .unwrap();
    assert_eq!(completions(&mock)[1]["model"], "mock-small");
    s.close().await;
}

#[tokio::test]
async fn allow_once_allow_for_this_chat_and_always_allow_then_restart_keeps_everything() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = app_with_mock().await;
    s.set_tool_policy("calculate", Some("ask-always"), None)
        .await
        .unwrap();

    // Ask → Enter allows once → the result reaches the model → its answer shows.
    mock.push(calc("call_1", "6*7"));
    mock.push(openai::text("The answer is 42."));
    s.new_chat_and_send("what is 6*7?").await.unwrap();
    let card = s.active_approval().await.unwrap();
    let card_text = card.text().await.unwrap();
    assert!(
        card_text.contains("calculate") && card_text.contains("6*7"),
        "{card_text}"
    );
    s.screenshot("flow-approval-card").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("The answer is 42.", WAIT).await.unwrap();
    assert_eq!(tool_results(&completions(&mock)[1]), ["42"]);

    // "A" allows for this chat; the identical call then runs without asking.
    mock.push(calc("call_2", "6*7"));
    mock.push(openai::text("Asked once more: 42."));
    s.send("again").await.unwrap();
    s.active_approval().await.unwrap();
    s.press('a').await.unwrap();
    s.wait_for_text("Asked once more: 42.", WAIT).await.unwrap();
    mock.push(calc("call_3", "6*7"));
    mock.push(openai::text("No question this time: 42."));
    s.send("and again").await.unwrap();
    s.wait_for_text("No question this time: 42.", WAIT)
        .await
        .unwrap();

    // "Always allow…" for all chats with no pattern creates a rule.
    mock.push(calc("call_4", "1+1"));
    mock.push(openai::text("One and one make 2."));
    s.send("1+1?").await.unwrap();
    s.active_approval().await.unwrap();
    // From the keyboard, as people do: Tab to "Always allow…" and Enter; the panel opens on its
    // first choice (this chat), and ↓ moves to "all chats".
    s.tab_to("Always allow").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.el(".approval-card.is-active .scope-choice")
        .await
        .unwrap();
    s.press(keys::ARROW_DOWN).await.unwrap();
    assert!(s
        .el(".approval-card.is-active .scope-choice label:nth-of-type(2) input")
        .await
        .unwrap()
        .is_selected()
        .await
        .unwrap());
    // An empty pattern cannot create a rule; "every call" is chosen as such.
    let pattern = s
        .el(".approval-card.is-active input[data-role=pattern]")
        .await
        .unwrap();
    assert_eq!(
        pattern.prop("value").await.unwrap().as_deref(),
        Some(r#"{"expression":"1+1"}"#),
        "the suggestion is exactly this call"
    );
    // Tab to the grant's choices, ↓ from "matching" to "every call".
    s.tab_to("grant-matching").await.unwrap();
    s.press(keys::ARROW_DOWN).await.unwrap();
    assert!(s
        .el(".approval-card.is-active input[data-role=grant-every]")
        .await
        .unwrap()
        .is_selected()
        .await
        .unwrap());
    let warning = s
        .wait_text(
            ".approval-card.is-active [data-role=every-call-warning]",
            WAIT,
        )
        .await
        .unwrap();
    assert!(warning.contains("Every call of calculate"), "{warning}");
    s.screenshot("flow-always-allow").await.unwrap();
    s.tab_to("Create rule").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("One and one make 2.", WAIT).await.unwrap();
    s.approvals_gone().await.unwrap();

    // Restart: the chat, its record and the rule are still there.
    let dir = s.close_keeping_data().await.unwrap();
    let s = Session::start_in(dir, &[]).await.unwrap();
    s.click(".sidebar .chat-list .chat-item").await.unwrap();
    s.wait_for_text("The answer is 42.", WAIT).await.unwrap();
    s.open_settings("Rules & records").await.unwrap();
    let text = s.wait_for_text("Allowed", WAIT).await.unwrap();
    assert!(text.contains("calculate"), "{text}");
    assert!(text.contains("in every chat"), "{text}");
    s.screenshot("flow-rules-after-restart").await.unwrap();
    s.close().await;
}

#[tokio::test]
async fn deny_with_a_reason_and_edited_arguments() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = app_with_mock().await;
    s.set_tool_policy("calculate", Some("ask-always"), None)
        .await
        .unwrap();

    mock.push(calc("call_1", "6*7"));
    mock.push(openai::text("Understood, I will do it by hand."));
    s.new_chat_and_send("what is 6*7?").await.unwrap();
    let reason = s
        .el(".approval-card.is-active input[data-role=reason]")
        .await
        .unwrap();
    reason
        .send_keys("use mental arithmetic instead")
        .await
        .unwrap();
    // From the reason, Tab to Deny and Enter.
    s.tab_to("Deny").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Understood, I will do it by hand.", WAIT)
        .await
        .unwrap();
    let denied = tool_results(&completions(&mock)[1]);
    assert_eq!(denied.len(), 1);
    assert!(
        denied[0].contains("use mental arithmetic instead"),
        "{denied:?}"
    );
    assert!(!denied[0].contains("42"));

    // Dark mode, for the screenshots of the next approval card and of the settings.
    s.open_settings("General").await.unwrap();
    s.el(".settings-body select")
        .await
        .unwrap()
        .select_by_value("dark")
        .await
        .unwrap();
    s.screenshot("flow-dark-settings").await.unwrap();
    s.back_to_chat().await.unwrap();

    mock.push(calc("call_2", "6*7"));
    mock.push(openai::text("Edited: 43."));
    s.send("try again").await.unwrap();
    s.active_approval().await.unwrap();
    s.click_text(".approval-card.is-active button", "Edit arguments")
        .await
        .unwrap();
    let editor = s
        .el(".approval-card.is-active textarea[data-role=args]")
        .await
        .unwrap();
    s.replace_text(&editor, r#"{"expression": "7*6+1"}"#)
        .await
        .unwrap();
    s.screenshot("flow-edit-arguments").await.unwrap();
    s.click_text(
        ".approval-card.is-active button",
        "Allow with these arguments",
    )
    .await
    .unwrap();
    s.wait_for_text("Edited: 43.", WAIT).await.unwrap();
    assert_eq!(tool_results(&completions(&mock)[3]).last().unwrap(), "43");
    s.close().await;
}

#[tokio::test]
async fn a_withheld_result_never_reaches_the_model() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = app_with_mock().await;
    s.set_tool_policy("calculate", Some("auto"), Some("always"))
        .await
        .unwrap();
    mock.push(calc("call_1", "6*7"));
    mock.push(openai::text("I was not shown the result."));
    s.new_chat_and_send("what is 6*7?").await.unwrap();
    let card = s.el(".approval-card--result.is-active").await.unwrap();
    assert!(card.text().await.unwrap().contains("42"));
    s.screenshot("flow-result-approval").await.unwrap();
    s.el(".approval-card--result input[data-role=reason]")
        .await
        .unwrap()
        .send_keys("private")
        .await
        .unwrap();
    // From the reason, Tab to "Withhold result" and Space.
    s.tab_to("Withhold result").await.unwrap();
    s.press(keys::SPACE).await.unwrap();
    s.wait_for_text("I was not shown the result.", WAIT)
        .await
        .unwrap();
    let seen = tool_results(&completions(&mock)[1]);
    assert_eq!(seen.len(), 1);
    assert!(
        !seen[0].contains("42"),
        "the withheld output reached the model: {seen:?}"
    );
    assert!(seen[0].contains("private"), "{seen:?}");
    s.close().await;
}

#[tokio::test]
async fn stop_keeps_the_partial_answer_and_disabling_a_group_removes_its_tools() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = app_with_mock().await;
    let words: Vec<String> = (1..=80).map(|i| format!("word{i}")).collect();
    mock.push(openai::text(&words.join(" ")).slow(Duration::from_millis(60)));
    s.new_chat_and_send("tell me a long story").await.unwrap();
    s.wait_for_text("word3", WAIT).await.unwrap();
    // From the message box, Tab to Stop and Enter.
    s.click("#composer").await.unwrap();
    s.tab_to("stop").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let text = s.wait_for_text("Stopped", WAIT).await.unwrap();
    assert!(text.contains("word3"), "{text}");
    assert!(!text.contains("word80"), "the answer was not stopped");
    s.screenshot("flow-stopped").await.unwrap();
    let (content, status) = s.last_answer_row().unwrap();
    assert_eq!(status, "stopped");
    assert!(content.starts_with("word1 word2 word3"), "{content}");
    assert!(completions(&mock).len() == 1);
    assert!(tool_names(&completions(&mock)[0]).contains(&"calculate".to_string()));

    // The basic group off in Settings: its tools are gone from the very next request.
    s.set_group_enabled("basic", false).await.unwrap();
    mock.push(openai::text("Fine without tools."));
    s.send("next").await.unwrap();
    s.wait_for_text("Fine without tools.", WAIT).await.unwrap();
    let names = tool_names(&completions(&mock)[1]);
    assert!(!names.contains(&"calculate".to_string()), "{names:?}");
    assert!(!names.contains(&"current_time".to_string()), "{names:?}");
    s.close().await;
}

#[tokio::test]
async fn a_shell_command_shows_what_will_run_and_where_then_its_output() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = app_with_mock().await;
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "gate").unwrap();
    let args = r#"{"command": "ls; echo done >&2; exit 3"}"#;
    mock.push(openai::calls("", &[("call_sh", "run_command", args)]));
    mock.push(openai::text("The listing shows notes.txt."));
    s.new_chat().await.unwrap();
    s.set_workspace(workspace.path()).await.unwrap();
    s.send("what is in my folder?").await.unwrap();
    let card = s.active_approval().await.unwrap();
    let text = card.text().await.unwrap();
    assert!(
        text.contains("run_command") && text.contains("ask-always"),
        "{text}"
    );
    assert!(text.contains("$ ls; echo done >&2; exit 3"), "{text}");
    assert!(
        text.contains(&workspace.path().display().to_string()),
        "{text}"
    );
    s.screenshot("flow-shell-approval").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("The listing shows notes.txt.", WAIT)
        .await
        .unwrap();
    let result = tool_results(&completions(&mock)[1]);
    assert!(result[0].starts_with("Exit code 3."), "{result:?}");
    assert!(
        result[0].contains("notes.txt") && result[0].contains("done"),
        "{result:?}"
    );
    s.screenshot("flow-shell-result").await.unwrap();
    s.close().await;
}

/// Every button of both approval cards, reached with Tab and pressed with Enter or with Space,
/// records exactly the decision written on it — the model gets what that decision means.
#[tokio::test]
async fn every_card_button_does_what_it_says_from_the_keyboard() {
    use keys::{ENTER, SPACE};
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = app_with_mock().await;
    s.set_tool_policy("calculate", Some("ask-always"), None)
        .await
        .unwrap();

    // (button, key, decision line, whether the model gets the result)
    let execution: [(&str, char, &str, bool); 12] = [
        ("Deny and stop", ENTER, "Denied and stopped · by you", false),
        ("Deny and stop", SPACE, "Denied and stopped · by you", false),
        ("Deny", ENTER, "Denied · by you", false),
        ("Deny", SPACE, "Denied · by you", false),
        ("Allow once", ENTER, "Allowed once · by you", true),
        ("Allow once", SPACE, "Allowed once · by you", true),
        (
            "Allow for this chat",
            ENTER,
            "Allowed for this chat · by you",
            true,
        ),
        (
            "Allow for this chat",
            SPACE,
            "Allowed for this chat · by you",
            true,
        ),
        ("Edit arguments", ENTER, "Edited and allowed · by you", true),
        ("Edit arguments", SPACE, "Edited and allowed · by you", true),
        ("Always allow", ENTER, "Always allowed · by you", true),
        ("Always allow", SPACE, "Always allowed · by you", true),
    ];
    let mut first = true;
    for (i, (button, key, line, runs)) in execution.into_iter().enumerate() {
        let expression = format!("{i}+1");
        let stops = button == "Deny and stop";
        mock.push(calc(&format!("k{i}"), &expression));
        if !stops {
            mock.push(openai::text(&format!("Step {i} done.")));
        }
        if first {
            s.new_chat_and_send(&format!("step {i}")).await.unwrap();
            first = false;
        } else {
            s.send(&format!("step {i}")).await.unwrap();
        }
        s.active_approval().await.unwrap();
        s.tab_to(button).await.unwrap();
        s.press(key).await.unwrap();
        match button {
            // These open a panel; its own button (reached with Tab, pressed with the same key)
            // confirms.
            "Edit arguments" => {
                s.tab_to("Allow with these arguments").await.unwrap();
                s.press(key).await.unwrap();
            }
            "Always allow" => {
                s.tab_to("Create rule and allow").await.unwrap();
                s.press(key).await.unwrap();
            }
            _ => {}
        }
        let lines = s.wait_for_decision(line).await.unwrap();
        assert!(!lines.contains("Allowed") || runs, "{button}: {lines}");
        if stops {
            s.approvals_gone().await.unwrap();
        } else {
            s.wait_for_text(&format!("Step {i} done."), WAIT)
                .await
                .unwrap();
        }
        let requests = completions(&mock);
        let last = requests.last().unwrap();
        let results = tool_results(last);
        if runs {
            let want = (i + 1).to_string();
            assert_eq!(
                results.last().map(String::as_str),
                Some(want.as_str()),
                "{button} with {key:?}"
            );
        } else if !stops {
            assert!(
                results.last().unwrap().contains("The user denied"),
                "{button}: {results:?}"
            );
        }
        if i == 0 {
            s.screenshot("keyboard-denied-and-stopped").await.unwrap();
        }
    }
    let rules_before_results = completions(&mock).len();
    assert!(rules_before_results >= 10);

    // The result card: Approve, Edit then approve, Withhold — each by Enter and by Space.
    s.set_tool_policy("calculate", Some("auto"), Some("always"))
        .await
        .unwrap();
    let result: [(&str, char, &str, Option<&str>); 6] = [
        ("Withhold result", ENTER, "Result withheld · by you", None),
        ("Withhold result", SPACE, "Result withheld · by you", None),
        (
            "Approve",
            ENTER,
            "Result approved · by you",
            Some("approved"),
        ),
        (
            "Approve",
            SPACE,
            "Result approved · by you",
            Some("approved"),
        ),
        (
            "Edit, then approve",
            ENTER,
            "Result edited · by you",
            Some("edited"),
        ),
        (
            "Edit, then approve",
            SPACE,
            "Result edited · by you",
            Some("edited"),
        ),
    ];
    for (j, (button, key, line, reaches)) in result.into_iter().enumerate() {
        let expression = format!("{}*2", j + 1);
        mock.push(calc(&format!("r{j}"), &expression));
        mock.push(openai::text(&format!("Result step {j} done.")));
        s.send(&format!("result step {j}")).await.unwrap();
        s.active_approval().await.unwrap();
        s.tab_to(button).await.unwrap();
        s.press(key).await.unwrap();
        if button == "Edit, then approve" {
            s.tab_to("Approve edited text").await.unwrap();
            s.press(key).await.unwrap();
        }
        s.wait_for_decision(line).await.unwrap();
        s.wait_for_text(&format!("Result step {j} done."), WAIT)
            .await
            .unwrap();
        let results = tool_results(completions(&mock).last().unwrap());
        let got = results.last().unwrap();
        let product = ((j + 1) * 2).to_string();
        match reaches {
            None => assert!(got.contains("withheld") && !got.contains(&product), "{got}"),
            Some(_) => assert_eq!(
                got, &product,
                "{button}: the result as shown (unchanged edit)"
            ),
        }
    }
    s.screenshot("keyboard-result-decisions").await.unwrap();
    s.close().await;
}
