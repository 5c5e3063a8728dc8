//! A server that asks for the chat's model (MCP sampling, F-99), in both eras, through the whole
//! app: only a server the user lets use the model is answered, and only once the user agrees
//! on the card of the call the request belongs to; the model is sent the server's text alone.
//! Judged by what the model's server (the mock LLM) received and what the era server (Python SDK
//! 2.x, tests/mcp/python) got back.

use super::rounds::{era, on_the_calls_card, received, run_allowed, with_era_as};
use super::service::with_mock;
use serde_json::{json, Value};
use std::sync::Arc;
use tollgate_engine::service::Tollgate;
use tollgate_engine::ChatId;
use tollgate_mcp::McpServerConfig;
use tollgate_mock_llm::{openai, MockLlm};
use tollgate_protocol::{ElicitationAnswer, ElicitationKind, SampledRole};

/// What the era server's `summarise` asks the model for `passage`.
fn asked_for(passage: &str) -> String {
    format!("Summarise in one line: {passage}")
}

/// The era server as `era`, letting it use the chat's model where `share` says; in its older
/// era only (it does not know `server/discover`) where `legacy` says.
fn era_sharing(log: &std::path::Path, share: bool, legacy: bool) -> McpServerConfig {
    let mut config = era(log);
    if legacy {
        config = config.with_env("ERA_LEGACY", "1");
    }
    config.share_model = share;
    config
}

/// An app with the era server as `config` says, the mock model as its provider, and a chat.
async fn app_with(
    dir: &std::path::Path,
    config: McpServerConfig,
) -> (Arc<Tollgate>, MockLlm, ChatId) {
    let (app, chat) = with_era_as(dir, config).await;
    let mock = with_mock(&app).await;
    (app, mock, chat)
}

/// `summarise` run and allowed in `chat`, its request for the model answered `answer` on the
/// call's card: the call's result for the model.
async fn summarised(
    app: &Arc<Tollgate>,
    chat: ChatId,
    passage: &str,
    answer: ElicitationAnswer,
) -> tollgate_engine::ToolCallResult {
    let task = run_allowed(app, chat, "era__summarise", json!({ "passage": passage })).await;
    let asked = on_the_calls_card(app, chat).await;
    app.asks()
        .answer_elicitation(chat, &asked.id, answer)
        .unwrap();
    task.await.unwrap()
}

/// What call 1 of `chat` keeps of the model lent to its server, once it keeps something.
async fn kept_exchanges(app: &Arc<Tollgate>, chat: ChatId) -> Vec<tollgate_protocol::LentModel> {
    tollgate_test_support::wait::eventually_some_async("the exchange is kept", || {
        let app = Arc::clone(app);
        async move {
            let call = app.store().calls().recorded_call(chat, 1).await.ok()??;
            (!call.lent.is_empty()).then_some(call.lent)
        }
    })
    .await
}

fn accept() -> ElicitationAnswer {
    ElicitationAnswer::Accept { content: None }
}

/// The texts of the messages of a request the model's server received.
fn message_texts(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_server_borrows_the_chats_model_only_after_the_user_agrees_on_the_calls_card() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("era.log");
    let (app, mock, chat) = app_with(dir.path(), era_sharing(&log, true, false)).await;
    mock.push(openai::text("Rivers run to the sea."));
    let task = run_allowed(&app, chat, "era__summarise", json!({"passage": "rivers"})).await;
    let asked = on_the_calls_card(&app, chat).await;
    // The card shows what the model would read, all of it, before anything is sent.
    assert_eq!((asked.server.as_str(), asked.seq), ("era", 1));
    let ElicitationKind::Sampling {
        system,
        messages,
        max_tokens,
        model,
    } = &asked.kind
    else {
        panic!("not a request for the model: {asked:?}");
    };
    assert_eq!(system.as_deref(), Some("You write one-line summaries."));
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].role, SampledRole::User);
    assert_eq!(messages[0].text, asked_for("rivers"));
    assert_eq!(*max_tokens, 200);
    // …and which model would answer: the chat's, as its header names it.
    assert_eq!(model, "mock-large · Mock");
    assert!(
        mock.bodies().is_empty(),
        "the model was asked before the user agreed"
    );

    app.asks()
        .answer_elicitation(chat, &asked.id, accept())
        .unwrap();
    let result = task.await.unwrap();
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.content,
        "summary: Rivers run to the sea. (mock-large)"
    );
    // The model read the server's text and nothing of the chat: no history, no tool.
    let bodies = mock.bodies();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert_eq!(
        message_texts(&bodies[0]),
        vec![
            (
                "system".to_string(),
                "You write one-line summaries.".to_string()
            ),
            ("user".to_string(), asked_for("rivers")),
        ]
    );
    assert!(
        bodies[0]["tools"].as_array().is_none_or(|t| t.is_empty()),
        "tools went with the server's request: {}",
        bodies[0]
    );
    assert_eq!(bodies[0]["max_tokens"], 200);
    // The server's two rounds carried the arguments the user approved.
    let calls = received(&log);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls
        .iter()
        .all(|c| c["arguments"] == json!({"passage": "rivers"}) && c["protocol"] == "2026-07-28"));
    assert_eq!(
        calls[1]["input_responses"]["summary"]["content"]["text"],
        "Rivers run to the sea."
    );
    // The call keeps what the model was sent and what went back, for the user to read later.
    let lent = kept_exchanges(&app, chat).await;
    assert_eq!(lent.len(), 1, "{lent:?}");
    assert_eq!(lent[0].model, "mock-large");
    assert_eq!(
        lent[0].system.as_deref(),
        Some("You write one-line summaries.")
    );
    assert_eq!(lent[0].messages[0].text, asked_for("rivers"));
    assert_eq!(lent[0].answer, "Rivers run to the sea.");
    // The cost, as the provider reported it (the mock reports 11 in, 7 out).
    assert_eq!((lent[0].input_tokens, lent[0].output_tokens), (11, 7));
    app.mcp_servers().manager().shutdown().await;
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_server_of_the_older_era_asks_mid_call_and_gets_the_answer_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("era.log");
    let (app, mock, chat) = app_with(dir.path(), era_sharing(&log, true, true)).await;
    mock.push(openai::text("Lakes are still."));
    let result = summarised(&app, chat, "lakes", accept()).await;
    assert_eq!(result.content, "summary: Lakes are still. (mock-large)");
    assert_eq!(message_texts(&mock.bodies()[0])[1].1, asked_for("lakes"));
    let calls = received(&log);
    assert_eq!(calls.len(), 1, "one call, asked mid-call: {calls:?}");
    assert_ne!(calls[0]["protocol"], "2026-07-28");
    app.mcp_servers().manager().shutdown().await;
}

/// A server the user did not let use the model, in either era, and one whose request the user
/// declined: the model's server never received the server's text, and the call says why.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_model_not_lent_or_declined_is_never_sent_the_servers_text() {
    for legacy in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("era.log");
        let (app, mock, chat) = app_with(dir.path(), era_sharing(&log, false, legacy)).await;
        let task = run_allowed(&app, chat, "era__summarise", json!({"passage": "rivers"})).await;
        let result = task.await.unwrap();
        assert!(
            result.content.contains("the user has not let it"),
            "legacy {legacy}: {result:?}"
        );
        assert!(
            mock.bodies().is_empty(),
            "legacy {legacy}: the model was asked"
        );
        // A round's call ends at the refusal: the server gets no retry.
        if !legacy {
            assert_eq!(received(&log).len(), 1, "{:?}", received(&log));
        }
        app.mcp_servers().manager().shutdown().await;

        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("era.log");
        let (app, mock, chat) = app_with(dir.path(), era_sharing(&log, true, legacy)).await;
        let result = summarised(&app, chat, "rivers", ElicitationAnswer::Decline).await;
        assert!(
            result.content.contains("declined"),
            "legacy {legacy}: {result:?}"
        );
        assert!(
            mock.bodies().is_empty(),
            "legacy {legacy}: the model was asked"
        );
        app.mcp_servers().manager().shutdown().await;
    }
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_key_in_a_servers_request_never_reaches_the_model() {
    const KEY: &str = "sk-sampled-9f3a7c1e5b2d4a6f8e0c";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("era.log");
    let (app, mock, chat) = app_with(dir.path(), era_sharing(&log, true, false)).await;
    let provider = app.store().providers().await.unwrap()[0].id;
    app.model_providers()
        .providers()
        .save_key(provider, KEY)
        .await
        .unwrap();
    // The model echoes the key it was never given: it must not reach the server either.
    mock.push(openai::text(&format!("the key is {KEY}")));
    let task = run_allowed(
        &app,
        chat,
        "era__summarise",
        json!({ "passage": format!("the key is {KEY}") }),
    )
    .await;
    let asked = on_the_calls_card(&app, chat).await;
    // The card shows the request as the model would read it: without the key.
    let shown = serde_json::to_string(&asked.kind).unwrap();
    assert!(shown.contains("the key is"), "{shown}");
    assert!(!shown.contains(KEY), "{shown}");
    app.asks()
        .answer_elicitation(chat, &asked.id, accept())
        .unwrap();
    let result = task.await.unwrap();
    let bodies = mock.bodies();
    assert_eq!(bodies.len(), 1);
    assert!(!bodies[0].to_string().contains(KEY), "{}", bodies[0]);
    // The server's own text carried the key (its arguments); the answer it got back does not.
    let calls = received(&log);
    let answer = calls[1]["input_responses"].to_string();
    assert!(answer.contains("the key is"), "{answer}");
    assert!(!answer.contains(KEY), "{answer}");
    assert!(!result.content.contains(KEY), "{result:?}");
    // Nor does what the call keeps of the exchange (the database holds no key).
    let lent = kept_exchanges(&app, chat).await;
    let kept = serde_json::to_string(&lent).unwrap();
    assert!(kept.contains("the key is"), "{kept}");
    assert!(!kept.contains(KEY), "{kept}");
    app.mcp_servers().manager().shutdown().await;
}
