//! A provider that breaks mid-answer, and one that thinks before it answers, as a user meets them
//! in the real window against the mock LLM server (OpenAI wire format): the broken attempt's text
//! gives way to "Connection lost — retrying (1/4)…", then the whole answer arrives by itself; a
//! reasoning model's thinking streams into a "Thinking" section that folds once the answer starts
//! and opens again from the keyboard.

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::{openai, Gate, Reply};

const WAIT: Duration = Duration::from_secs(60);
const ANSWER: &str =
    "Alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november.";

/// Whether the answer's "Thinking" section is open.
async fn thinking_open(s: &Session) -> bool {
    s.el("[data-role=thinking]")
        .await
        .unwrap()
        .prop("open")
        .await
        .unwrap()
        .as_deref()
        == Some("true")
}

#[tokio::test]
async fn a_fault_mid_answer_shows_the_retry_notice_then_the_whole_answer() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-flaky")
        .await
        .unwrap();
    // Its options are edited in place on its card; nothing runs on the usual local ports here.
    s.open_settings("Providers").await.unwrap();
    let local = s
        .wait_text("[data-role=local-servers]", WAIT)
        .await
        .unwrap();
    assert!(local.contains("Found on this computer"), "{local}");
    s.click("[data-role=edit-provider]").await.unwrap();
    s.el("[data-role=provider-edit] [data-role=request-style]")
        .await
        .unwrap();
    s.screenshot("settings-provider-edit").await.unwrap();
    s.click_text("[data-role=provider-edit] button", "Cancel")
        .await
        .unwrap();
    s.back_to_chat().await.unwrap();
    // The first attempt shows some words, then the connection drops; the second holds its
    // first byte until the test has seen the notice.
    let notice_seen = Gate::new();
    mock.push(
        openai::text(ANSWER)
            .slow(Duration::from_millis(40))
            .drop_after(6),
    );
    mock.push(
        openai::text(ANSWER)
            .held_at(0, &notice_seen)
            .slow(Duration::from_millis(10)),
    );
    s.new_chat_and_send("spell it").await.unwrap();
    let notice = s.wait_text("[data-role=retry-notice]", WAIT).await.unwrap();
    assert!(
        notice.contains("Connection lost — retrying (1/4)…"),
        "{notice}"
    );
    assert!(
        !s.exists(".msg--assistant .markdown").await.unwrap(),
        "the broken attempt's text is gone from the answer"
    );
    s.screenshot("flow-retry-notice").await.unwrap();
    notice_seen.open();
    s.wait_for_text(ANSWER, WAIT).await.unwrap();
    assert!(!s.exists("[data-role=retry-notice]").await.unwrap());
    assert!(!s.body_text().await.unwrap().contains("failed"));
    s.screenshot("flow-retry-recovered").await.unwrap();
    assert_eq!(mock.bodies().len(), 2);
    assert_eq!(mock.bodies()[0], mock.bodies()[1], "the same request again");
    let (content, status) = s.last_answer_row().unwrap();
    assert_eq!((content.as_str(), status.as_str()), (ANSWER, "complete"));

    // A reasoning model: the thinking streams live above the answer, then folds.
    let mut thinking = openai::text("It is four.").slow(Duration::from_millis(60));
    for (i, piece) in ["Two ", "plus two ", "makes four."].iter().enumerate() {
        thinking.frames.insert(
            1 + i,
            format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"reasoning_content\":\"{piece}\"}}}}]}}\n\n"
            ),
        );
    }
    mock.push(thinking);
    s.send("2+2?").await.unwrap();
    s.wait_for_text("It is four.", WAIT).await.unwrap();
    // The turn is over when Stop gives way to Send.
    s.wait_gone(".composer-wrap button.btn--danger", "the turn never ended")
        .await
        .unwrap();
    assert!(!thinking_open(&s).await, "folded once the answer came");
    let folded = s.height("[data-role=thinking]").await.unwrap();
    s.screenshot("flow-thinking-folded").await.unwrap();
    let answers = s.el("[data-role=thinking] ~ .markdown").await.unwrap();
    assert_eq!(
        answers.text().await.unwrap().trim(),
        "It is four.",
        "the thinking is not answer text"
    );
    // From the composer, Shift+Tab back to "Thinking", Enter opens it.
    s.click("#composer").await.unwrap();
    s.back_tab_to("Thinking").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    assert!(
        thinking_open(&s).await,
        "Enter on the summary opens the thinking"
    );
    let opened = s.height("[data-role=thinking]").await.unwrap();
    assert!(
        opened > folded + 10.0,
        "the thinking shows when open ({folded} px folded, {opened} px open)"
    );
    assert_eq!(
        s.el(".thinking-body")
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
            .trim(),
        "Two plus two makes four."
    );
    s.screenshot("flow-thinking-open").await.unwrap();
    let db = rusqlite::Connection::open(s.data_path().join("tollgate.sqlite3")).unwrap();
    let reasoning: String = db
        .query_row(
            "SELECT json_extract(payload, '$.reasoning') FROM messages WHERE role = 'assistant' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(reasoning, "Two plus two makes four.");
    s.close().await;
}

/// A failed turn says in the user's words what went wrong and offers what fixes it, from the
/// keyboard: a refused key opens the provider's settings; a conversation longer than the model
/// reads starts a new chat with a summary of it in the composer, sent only when the user sends.
#[tokio::test]
async fn a_refused_key_and_a_conversation_too_long_say_what_to_do() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-refused")
        .await
        .unwrap();
    mock.push(Reply::status(401, "Incorrect API key provided"));
    s.new_chat_and_send("Plan a trip to Kyoto").await.unwrap();
    let title = s
        .wait_text("[data-failure=auth] strong", WAIT)
        .await
        .unwrap();
    assert_eq!(title, "The provider refused the key");
    let notice = s.wait_text("[data-failure=auth]", WAIT).await.unwrap();
    assert!(notice.contains("Incorrect API key provided"), "{notice}");
    assert!(notice.contains("then press Retry"), "{notice}");
    s.screenshots("failure-auth").await.unwrap();
    // From the composer, Shift+Tab to the button, Enter: Settings opens on Providers.
    s.click("#composer").await.unwrap();
    s.back_tab_to("Check the provider's key").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_text("[data-role=local-servers]", WAIT)
        .await
        .unwrap();
    s.back_to_chat().await.unwrap();

    mock.push(Reply::status(
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9021 tokens.",
    ));
    s.send("And the second day?").await.unwrap();
    let title = s
        .wait_text("[data-failure=contextTooLong] strong", WAIT)
        .await
        .unwrap();
    assert_eq!(title, "The conversation is longer than the model can read");
    s.screenshots("failure-context-too-long").await.unwrap();
    s.click("#composer").await.unwrap();
    s.back_tab_to("New chat from a summary").await.unwrap();
    s.press(keys::SPACE).await.unwrap();
    // A new chat opens with the summary waiting in its composer; nothing went to the model.
    let draft = s.until_composer(|v| !v.is_empty()).await.unwrap();
    assert!(draft.starts_with("Carrying on from the chat"), "{draft}");
    assert!(draft.contains("User: Plan a trip to Kyoto"), "{draft}");
    assert!(draft.contains("User: And the second day?"), "{draft}");
    assert_eq!(mock.bodies().len(), 2, "the summary is not sent by itself");
    let title = s.wait_text(".chat-title h1", WAIT).await.unwrap();
    assert_eq!(title, "Plan a trip to Kyoto (continued)");
    s.screenshots("failure-carried-over").await.unwrap();
    s.close().await;
}
