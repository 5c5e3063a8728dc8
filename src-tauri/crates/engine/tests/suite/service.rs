//! The app-level service: one executor per chat, one turn per chat, decisions and answers routed
//! by chat, settings that persist, full-text search and export.

use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tollgate_engine::chat::{ChatEvent, TurnInput, TurnOutcome};
use tollgate_engine::service::{AppSettings, Language, ServiceError, Theme, Tollgate};
use tollgate_engine::{ChatId, Decision, ExecutionDecision};
use tollgate_mock_llm::{openai, MockLlm};
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::ProviderKind;
use tollgate_protocol::ToolEvent;
use tollgate_store::{NewChat, ProviderInput};

pub(super) async fn open(dir: &std::path::Path) -> Arc<Tollgate> {
    crate::common::app_in(dir).open().await
}

pub(super) fn collector() -> (
    Box<dyn Fn(ChatEvent) + Send + Sync>,
    mpsc::UnboundedReceiver<ChatEvent>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    (
        Box::new(move |e| {
            let _ = tx.send(e);
        }),
        rx,
    )
}

pub(super) async fn until_finished(
    rx: &mut mpsc::UnboundedReceiver<ChatEvent>,
) -> (Vec<ChatEvent>, TurnOutcome) {
    let mut events = Vec::new();
    loop {
        let e = tokio::time::timeout(crate::common::PATIENCE, rx.recv())
            .await
            .unwrap()
            .unwrap();
        if let ChatEvent::TurnFinished { outcome } = &e {
            return (events, outcome.clone());
        }
        events.push(e);
    }
}

/// Runs one turn to its end: sends `input` in `chat` and waits for the turn to finish.
pub(super) async fn turn(app: &Arc<Tollgate>, chat: ChatId, input: TurnInput) -> TurnOutcome {
    let (on_event, mut rx) = collector();
    app.send(chat, input, on_event).await.unwrap();
    until_finished(&mut rx).await.1
}

/// Waits until `chat` has no turn running any more (its task ends just after the turn's last
/// event): the state, not a number of milliseconds.
pub(super) async fn until_idle(app: &Tollgate, chat: ChatId) {
    let deadline = crate::common::deadline();
    while app.is_running(chat) {
        assert!(std::time::Instant::now() < deadline, "the turn never ended");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits for the first streamed text of a turn: the answer has begun.
pub(super) async fn until_text(rx: &mut mpsc::UnboundedReceiver<ChatEvent>) {
    loop {
        let e = tokio::time::timeout(crate::common::PATIENCE, rx.recv())
            .await
            .unwrap()
            .unwrap();
        match e {
            ChatEvent::TextDelta { .. } => return,
            ChatEvent::TurnFinished { outcome } => {
                panic!("the turn ended without text: {outcome:?}")
            }
            _ => {}
        }
    }
}

pub(super) async fn with_mock(app: &Tollgate) -> MockLlm {
    let mock = MockLlm::start().await.unwrap();
    app.model_providers()
        .providers()
        .add(ProviderInput {
            kind: ProviderKind::OpenAi,
            name: "Mock".into(),
            base_url: format!("{}/v1", mock.url()),
            default_model: "mock-large".into(),
            tool_calling: Default::default(),
            options: Default::default(),
        })
        .await
        .unwrap();
    mock
}

#[tokio::test]
async fn with_no_provider_the_demo_answers_and_one_executor_serves_each_chat() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let chat = crate::common::new_chat(&app).await;
    assert!(Arc::ptr_eq(
        &app.executor(chat).await.unwrap(),
        &app.executor(chat).await.unwrap()
    ));
    let (on_event, mut rx) = collector();
    app.send(chat, TurnInput::Message("what is 2 + 3?".into()), on_event)
        .await
        .unwrap();
    let (events, outcome) = until_finished(&mut rx).await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert!(events.iter().any(
        |e| matches!(e, ChatEvent::Tool { event } if matches!(**event, ToolEvent::Finished { .. }))
    ));
    until_idle(&app, chat).await;
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    assert_eq!(calls[0].result_text.as_deref(), Some("5"));
}

#[tokio::test]
async fn one_turn_per_chat_stop_and_waiting_counts() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let mut s = app.preferences().tool_settings();
    s.tool_mut("calculate").execution_policy = Some(ExecutionPolicy::AskAlways);
    app.preferences().set_tool_settings(s).await.unwrap();
    let chat = crate::common::new_chat(&app).await;
    let other = crate::common::new_chat(&app).await;

    mock.push(openai::calls(
        "",
        &[("c1", "calculate", r#"{"expression": "1+1"}"#)],
    ));
    mock.push(openai::text("Two."));
    let (on_event, mut rx) = collector();
    app.send(chat, TurnInput::Message("1+1".into()), on_event)
        .await
        .unwrap();
    let approval = loop {
        let e = tokio::time::timeout(crate::common::PATIENCE, rx.recv())
            .await
            .unwrap()
            .unwrap();
        if let ChatEvent::Tool { event } = e {
            if let ToolEvent::ApprovalRequested { approval } = *event {
                break approval;
            }
        }
    };
    assert_eq!(app.asks().waiting().get(&chat), Some(&1));
    let (again, _rx2) = collector();
    assert!(matches!(
        app.send(chat, TurnInput::Message("x".into()), again).await,
        Err(ServiceError::Busy)
    ));
    // A decision sent to the wrong chat is refused; the right one goes through.
    assert!(app
        .asks()
        .answer_approval(
            other,
            &approval.id,
            Decision::Execution(ExecutionDecision::AllowOnce)
        )
        .await
        .is_err());
    app.asks()
        .answer_approval(
            chat,
            &approval.id,
            Decision::Execution(ExecutionDecision::AllowOnce),
        )
        .await
        .unwrap();
    let (_e, outcome) = until_finished(&mut rx).await;
    assert!(matches!(outcome, TurnOutcome::Completed { .. }));
    assert!(app.asks().waiting().is_empty());

    // Stop a slow answer once it has begun, then the chat takes a new message.
    until_idle(&app, chat).await;
    mock.push(openai::text("a b c d e f g h i j k l m n o p").slow(Duration::from_millis(50)));
    let (on_event, mut rx) = collector();
    app.send(chat, TurnInput::Message("slow".into()), on_event)
        .await
        .unwrap();
    until_text(&mut rx).await;
    assert!(app.stop(chat));
    let (_e, outcome) = until_finished(&mut rx).await;
    assert!(
        matches!(outcome, TurnOutcome::Stopped { .. }),
        "{outcome:?}"
    );
    until_idle(&app, chat).await;
    assert!(!app.stop(chat));
}

#[tokio::test]
async fn settings_persist_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let app = open(dir.path()).await;
        let mut general = AppSettings {
            theme: Theme::Dark,
            language: Language::SimplifiedChinese,
            ..Default::default()
        };
        general.turn.max_rounds = 7;
        app.preferences().set_app_settings(general).await.unwrap();
        let mut tools = app.preferences().tool_settings();
        tools.default_output_limit = 1234;
        tools.groups.insert("basic".into(), false);
        app.preferences().set_tool_settings(tools).await.unwrap();
    }
    let app = open(dir.path()).await;
    let general = app.preferences().app_settings();
    assert_eq!(
        (general.theme, general.language, general.turn.max_rounds),
        (Theme::Dark, Language::SimplifiedChinese, 7)
    );
    assert_eq!(app.preferences().tool_settings().default_output_limit, 1234);
    let chat = crate::common::new_chat(&app).await;
    let names: Vec<String> = app
        .executor(chat)
        .await
        .unwrap()
        .toolbox()
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert!(!names.contains(&"calculate".to_string()), "{names:?}");
    assert_eq!(serde_json::to_value(&general).unwrap()["language"], "zh-CN");
}

#[tokio::test]
async fn search_finds_words_and_titles_and_survives_odd_input() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let a = app
        .store()
        .create_chat(NewChat {
            title: "Trip planning".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .id;
    let b = app
        .store()
        .create_chat(NewChat {
            title: "Other".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .id;
    use tollgate_store::{MessageStatus, Role, MATCH_END, MATCH_START};
    app.store()
        .messages()
        .insert_message(
            b,
            Role::User,
            "the ferry to Helsinki leaves at noon from pier [3]".into(),
            MessageStatus::Complete,
            None,
        )
        .await
        .unwrap();
    let hits = app
        .store()
        .search_index()
        .search_chats("helsin")
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].chat, b);
    // The match is marked with characters no text contains: the literal brackets stay text.
    assert!(
        hits[0]
            .snippet
            .contains(&format!("{MATCH_START}Helsinki{MATCH_END}")),
        "{}",
        hits[0].snippet
    );
    assert!(hits[0].snippet.contains("pier [3]"), "{}", hits[0].snippet);
    assert_eq!(hits[0].snippet.matches(MATCH_START).count(), 1);
    let hits = app
        .store()
        .search_index()
        .search_chats("trip")
        .await
        .unwrap();
    assert_eq!(hits[0].chat, a);
    assert!(app
        .store()
        .search_index()
        .search_chats("   ")
        .await
        .unwrap()
        .is_empty());
}

/// What the user types is words, never FTS5 syntax: a column filter, `NEAR`, `AND`/`OR`, a
/// star and quotes are searched for as text, and what each finds says so.
#[tokio::test]
async fn search_reads_what_is_typed_as_words_never_as_fts5_syntax() {
    use tollgate_store::{MessageStatus, Role};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mut chats = Vec::new();
    for text in [
        "we anchored NEAR harbour lights",
        "the harbour and far away lights",
        "an OR gate beside an AND gate",
        "see title:lantern in the docs",
        "a lantern on the quay",
    ] {
        let chat = app
            .store()
            .create_chat(NewChat {
                title: format!("Chat {}", chats.len() + 1),
                ..Default::default()
            })
            .await
            .unwrap()
            .id;
        app.store()
            .messages()
            .insert_message(chat, Role::User, text.into(), MessageStatus::Complete, None)
            .await
            .unwrap();
        chats.push(chat);
    }
    let [near, far, gates, column, lantern] = chats[..] else {
        unreachable!()
    };
    let found = |query: &'static str| {
        let store = app.store().clone();
        async move {
            let mut hits: Vec<_> = store
                .search_index()
                .search_chats(query)
                .await
                .unwrap_or_else(|e| panic!("{query:?} failed: {e}"))
                .into_iter()
                .map(|h| h.chat)
                .collect();
            hits.sort();
            hits
        }
    };
    // As the operator, NEAR(harbour lights) would find both harbour chats; as words, "near
    // harbour" side by side is in one.
    assert_eq!(found("NEAR(harbour lights)").await, [near]);
    // As a column filter, title:lantern would search a column (or fail); as words, "title
    // lantern" side by side is in one message, and the other lantern is not it.
    assert_eq!(found("title:lantern").await, [column]);
    assert_eq!(found("lantern").await, [column, lantern]);
    // AND alone is a syntax error as an operator; as a word it is in two messages.
    assert_eq!(found("AND").await, [far, gates]);
    assert_eq!(
        found("harbour OR gate").await,
        Vec::<tollgate_engine::ChatId>::new()
    );
    // Quotes do not make a phrase: "gate OR" is not in that order anywhere, but both words are.
    assert_eq!(found("\"gate OR\"").await, [gates]);
    // A star is a prefix only where the app puts it (after the last word).
    assert_eq!(found("lant*").await, [column, lantern]);
    assert_eq!(
        found("lant* quay").await,
        Vec::<tollgate_engine::ChatId>::new()
    );
    assert_eq!(
        found("lant quay").await,
        Vec::<tollgate_engine::ChatId>::new()
    );
    assert_eq!(found("lantern qu").await, [lantern]);
    // Nothing but syntax finds nothing, and fails nowhere.
    for odd in ["\"", "*", "100%", "a\"b OR", "^", "-", ":"] {
        assert_eq!(
            found(odd).await,
            Vec::<tollgate_engine::ChatId>::new(),
            "{odd}"
        );
    }
}

#[tokio::test]
async fn search_ranks_the_best_match_first_and_reaches_past_thousands_of_matches() {
    use tollgate_store::{MessageStatus, Role};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let chat = |title: &'static str| {
        let store = app.store().clone();
        async move {
            store
                .create_chat(NewChat {
                    title: title.into(),
                    ..Default::default()
                })
                .await
                .unwrap()
                .id
        }
    };
    let say = |chat, text: String| {
        let store = app.store().clone();
        async move {
            store
                .messages()
                .insert_message(chat, Role::User, text, MessageStatus::Complete, None)
                .await
                .unwrap();
        }
    };
    // An old chat where "ferry" is everywhere: more matches than are ranked.
    let busy = chat("Timetables").await;
    for i in 0..2_500 {
        say(busy, format!("ferry number {i} of the day, and a long line of other words about boats and harbours")).await;
    }
    let passing = chat("Weekend").await;
    say(
        passing,
        "we might take a ferry, or a long walk along the harbour, or stay in and read".into(),
    )
    .await;
    let focused = chat("Crossing").await;
    say(focused, "ferry ferry ferry".into()).await;
    app.store().flush().await.unwrap();
    let hits = app
        .store()
        .search_index()
        .search_chats("ferry")
        .await
        .unwrap();
    let order: Vec<_> = hits.iter().map(|h| h.chat).collect();
    assert_eq!(order.len(), 3, "{hits:?}");
    assert_eq!(
        order[0], focused,
        "the message that is most about it first: {hits:?}"
    );
    assert!(
        order.contains(&passing) && order.contains(&busy),
        "{hits:?}"
    );
}

#[tokio::test]
async fn export_has_messages_and_every_tool_call() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let chat = app
        .store()
        .create_chat(NewChat {
            title: "Sums".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .id;
    turn(&app, chat, TurnInput::Message("what is 6 * 7?".into())).await;
    let md = tollgate_engine::chat::export::markdown(app.store(), chat)
        .await
        .unwrap();
    assert!(md.starts_with("# Sums\n"), "{md}");
    assert!(md.contains("## You\n\nwhat is 6 * 7?"));
    assert!(
        md.contains("**Tool call** `calculate` — success (allow, by auto)"),
        "{md}"
    );
    assert!(md.contains("\"expression\": \"6 * 7\""), "{md}");
    assert!(md.contains("```\n42\n```"), "{md}");
    let js = tollgate_engine::chat::export::json(app.store(), chat)
        .await
        .unwrap();
    assert_eq!(js["format"], "tollgate-chat");
    assert_eq!(js["toolCalls"][0]["tool"], "calculate");
    assert_eq!(js["toolCalls"][0]["resultText"], "42");
    let roles: Vec<&str> = js["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(js["messages"][2]["results"][0]["content"], json!("42"));
    assert!(js["messages"][3].get("reasoning").is_none());

    // A reasoning model's thinking is exported apart from its answer.
    app.store()
        .messages()
        .insert_message(
            chat,
            tollgate_store::Role::Assistant,
            "Forty-two.".into(),
            tollgate_store::MessageStatus::Complete,
            Some(json!({"toolCalls": [], "reasoning": "Six sevens.\nThat is 42."})),
        )
        .await
        .unwrap();
    let md = tollgate_engine::chat::export::markdown(app.store(), chat)
        .await
        .unwrap();
    assert!(
        md.ends_with(
            "> **Thinking**\n>\n> Six sevens.\n> That is 42.\n\n## Assistant\n\nForty-two.\n\n"
        ),
        "{md}"
    );
    let js = tollgate_engine::chat::export::json(app.store(), chat)
        .await
        .unwrap();
    assert_eq!(js["messages"][4]["reasoning"], "Six sevens.\nThat is 42.");
    assert_eq!(js["messages"][4]["content"], "Forty-two.");
    assert!(app.store().chat(ChatId(999)).await.unwrap().is_none());
    assert!(
        tollgate_engine::chat::export::markdown(app.store(), ChatId(999))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn deleting_a_chat_stops_its_turn_and_removes_everything() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    mock.push(openai::text("x y z w v u t s r q").slow(Duration::from_millis(50)));
    let (on_event, mut rx) = collector();
    app.send(chat, TurnInput::Message("go".into()), on_event)
        .await
        .unwrap();
    // Deleted while the answer streams.
    until_text(&mut rx).await;
    app.chats().delete_chat(chat).await.unwrap();
    let (_e, outcome) = until_finished(&mut rx).await;
    assert!(
        matches!(
            outcome,
            TurnOutcome::Stopped { .. } | TurnOutcome::Failed { .. }
        ),
        "{outcome:?}"
    );
    assert!(app.store().chat(chat).await.unwrap().is_none());
    assert!(app
        .store()
        .branches()
        .chat_messages(chat)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_chats_own_prompt_and_parameters_reach_the_next_request_and_survive_a_restart() {
    use tollgate_store::ChatParams;
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    let refused = [
        ChatParams {
            temperature: Some(2.5),
            max_tokens: None,
        },
        ChatParams {
            temperature: Some(-0.1),
            max_tokens: None,
        },
        ChatParams {
            temperature: None,
            max_tokens: Some(0),
        },
    ];
    for params in refused {
        assert!(
            matches!(
                app.set_chat_prompt(chat, "x", params).await,
                Err(ServiceError::Invalid(_))
            ),
            "{params:?}"
        );
    }
    assert!(matches!(
        app.set_chat_prompt(ChatId(999), "x", ChatParams::default())
            .await,
        Err(ServiceError::NotFound(_))
    ));
    let params = ChatParams {
        temperature: Some(0.3),
        max_tokens: Some(777),
    };
    app.set_chat_prompt(chat, "  You answer in haiku.  ", params)
        .await
        .unwrap();

    mock.push(openai::text("Five, seven, five."));
    turn(&app, chat, TurnInput::Message("hello".into())).await;
    let body = &mock.bodies()[0];
    assert_eq!(body["temperature"], json!(0.3f32));
    assert_eq!(body["max_tokens"], 777);
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You answer in haiku."), "{system}");

    // Another chat keeps the app's defaults.
    let other = crate::common::new_chat(&app).await;
    mock.push(openai::text("Hi."));
    let (on_event, mut rx) = collector();
    app.send(other, TurnInput::Message("hello".into()), on_event)
        .await
        .unwrap();
    until_finished(&mut rx).await;
    let body = &mock.bodies()[1];
    assert!(body.get("temperature").is_none());
    assert_eq!(body["max_tokens"], 8_192);

    drop(app);
    let reopened = open(dir.path()).await;
    let row = reopened.store().chat(chat).await.unwrap().unwrap();
    assert_eq!(row.system_prompt, "You answer in haiku.");
    assert_eq!(row.params, params);
}

#[tokio::test]
async fn a_preset_starts_a_chat_with_its_prompt_model_parameters_and_tools() {
    use std::collections::BTreeMap;
    use tollgate_store::{ChatParams, PresetInput};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let provider = app.store().providers().await.unwrap()[0].id;
    let input = PresetInput {
        name: "  Reviewer ".into(),
        system_prompt: "Review the code you are shown.".into(),
        provider_id: Some(provider),
        model: "mock-small".into(),
        params: ChatParams {
            temperature: Some(0.1),
            max_tokens: Some(999),
        },
        groups: BTreeMap::from([("basic".to_string(), false)]),
    };
    for bad in [
        PresetInput {
            name: " ".into(),
            ..input.clone()
        },
        PresetInput {
            provider_id: Some(4242),
            ..input.clone()
        },
        PresetInput {
            params: ChatParams {
                temperature: Some(9.0),
                max_tokens: None,
            },
            ..input.clone()
        },
    ] {
        assert!(
            matches!(
                app.presets().save_preset(None, bad).await,
                Err(ServiceError::Invalid(_))
            ),
            "refused"
        );
    }
    let preset = app
        .presets()
        .save_preset(None, input.clone())
        .await
        .unwrap();
    assert_eq!(preset.input.name, "Reviewer");
    assert!(matches!(
        app.presets().save_preset(Some(4242), input.clone()).await,
        Err(ServiceError::Store(_))
    ));

    let chat = app
        .presets()
        .create_chat_from_preset(preset.id)
        .await
        .unwrap();
    assert_eq!(chat.system_prompt, "Review the code you are shown.");
    assert_eq!(chat.model, "mock-small");
    assert_eq!(chat.provider_id, Some(provider));
    assert_eq!(chat.params.max_tokens, Some(999));
    assert_eq!(chat.tool_overrides.groups.get("basic"), Some(&false));

    mock.push(openai::text("Looks fine."));
    let (on_event, mut rx) = collector();
    app.send(chat.id, TurnInput::Message("fn main() {}".into()), on_event)
        .await
        .unwrap();
    until_finished(&mut rx).await;
    let body = &mock.bodies()[0];
    assert_eq!(body["model"], "mock-small");
    assert_eq!(body["temperature"], json!(0.1f32));
    assert_eq!(body["max_tokens"], 999);
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|x| x["function"]["name"].as_str().unwrap())
                .collect()
        })
        .unwrap_or_default();
    assert!(!tools.contains(&"calculate"), "{tools:?}");
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .starts_with("Review the code you are shown."));

    // Editing the preset changes later chats, not this one; removing it leaves the chat as is.
    app.presets()
        .save_preset(
            Some(preset.id),
            PresetInput {
                system_prompt: "Be terse.".into(),
                ..input
            },
        )
        .await
        .unwrap();
    assert_eq!(
        app.presets()
            .create_chat_from_preset(preset.id)
            .await
            .unwrap()
            .system_prompt,
        "Be terse."
    );
    assert!(app.presets().delete_preset(preset.id).await.unwrap());
    assert!(!app.presets().delete_preset(preset.id).await.unwrap());
    assert_eq!(
        app.store()
            .chat(chat.id)
            .await
            .unwrap()
            .unwrap()
            .system_prompt,
        "Review the code you are shown."
    );
    assert!(matches!(
        app.presets().create_chat_from_preset(preset.id).await,
        Err(ServiceError::NotFound(_))
    ));
    assert!(app.presets().list_presets().await.unwrap().is_empty());
}

/// The rows a deleted chat has left to purge: its messages and its place in the purge list.
async fn left_to_purge(store: &tollgate_engine::Store, chat: ChatId) -> i64 {
    store
        .call(move |c| {
            Ok(c.query_row(
                "SELECT (SELECT count(*) FROM messages WHERE chat_id = ?1) \
                      + (SELECT count(*) FROM chat_purges WHERE chat_id = ?1)",
                [chat.0],
                |r| r.get::<_, i64>(0),
            )?)
        })
        .await
        .unwrap()
}

/// Rows left by a chat deleted just before a quit (or a crash) stay until start-up is over, so
/// the first screens' reads never wait behind a purge step; then they go.
#[tokio::test]
async fn a_purge_left_at_quit_waits_for_start_up_then_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let (chat, before) = {
        let store = tollgate_engine::Store::open_in(dir.path()).unwrap();
        let chat = store
            .import_chat(tollgate_scale::one_chat(60, 7))
            .await
            .unwrap()
            .id;
        store.delete_chat(chat).await.unwrap();
        let before = left_to_purge(&store, chat).await;
        // Its 60 messages or more, and its place in the purge list.
        assert!(before > 60, "{before}");
        store.flush().await.unwrap();
        (chat, before)
    };
    let app = open(dir.path()).await;
    // A purge queued while opening would run on the store's writer before this flush returns.
    app.store().flush().await.unwrap();
    assert_eq!(
        left_to_purge(app.store(), chat).await,
        before,
        "purged during start-up"
    );
    app.start_background_work();
    let deadline = crate::common::deadline();
    while std::time::Instant::now() < deadline {
        if left_to_purge(app.store(), chat).await == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the rows of the deleted chat were never purged");
}

/// Opening a chat makes its history ready at the secrets' door in the background, so its first
/// request after the app starts costs what a later round costs (docs/PERFORMANCE.md): the
/// executor made for the chat holds its texts and its tools' texts, ready for the next request.
#[tokio::test]
async fn opening_a_chat_makes_its_history_ready_at_the_secrets_door() {
    use tollgate_store::{MessageStatus, Role};
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let chat = crate::common::new_chat(&app).await;
    app.store()
        .messages()
        .insert_message(
            chat,
            Role::User,
            "summarise the quarterly report".into(),
            MessageStatus::Complete,
            None,
        )
        .await
        .unwrap();
    let exec = app.executor(chat).await.unwrap();
    let tool = exec
        .toolbox()
        .offered_tools()
        .into_iter()
        .next()
        .expect("a tool is offered");
    crate::common::eventually("the chat's history is ready at the door", || {
        let door = exec.secret_door();
        door.is_ready_for("summarise the quarterly report")
            && door.is_ready_for(&tool.definition.description)
    })
    .await;
}
