//! A chat's own system prompt, temperature and longest answer (F-58), set in the chat header's
//! popover as a user does — typing, Tab between fields, Enter to save — and sent with the next
//! request; another chat keeps the defaults.

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_chats_prompt_and_parameters_go_with_its_next_request() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-prompt")
        .await
        .unwrap();
    s.new_chat().await.unwrap();
    s.click("[data-role=chat-prompt]").await.unwrap();
    let prompt = s.el("[data-role=system-prompt]").await.unwrap();
    prompt.send_keys("Answer like a pirate.").await.unwrap();
    // Tab to the temperature, type; Tab to the longest answer, type; Enter saves.
    s.press(keys::TAB).await.unwrap();
    assert!(s.focused().await.unwrap().contains("|temperature|"));
    s.el("[data-role=temperature]")
        .await
        .unwrap()
        .send_keys("0.2")
        .await
        .unwrap();
    s.press(keys::TAB).await.unwrap();
    s.el("[data-role=max-tokens]")
        .await
        .unwrap()
        .send_keys("321")
        .await
        .unwrap();
    s.screenshots("flow-chat-prompt").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_gone("[data-role=chat-prompt-form]", "the popover stayed open")
        .await
        .unwrap();
    // The header marks a chat with its own prompt once the saved chat is read back.
    s.wait_count("[data-role=chat-prompt] .dot--accent", 1)
        .await
        .unwrap();

    mock.push(openai::text("Arr, ahoy!"));
    s.send("hello").await.unwrap();
    s.wait_for_text("Arr, ahoy!", WAIT).await.unwrap();
    let body = &mock.bodies()[0];
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Answer like a pirate."),
        "{body}"
    );
    assert_eq!(body["temperature"], serde_json::json!(0.2f32));
    assert_eq!(body["max_tokens"], 321);

    // A new chat starts from the defaults.
    mock.push(openai::text("Hello."));
    s.new_chat_and_send("hi").await.unwrap();
    s.wait_for_text("Hello.", WAIT).await.unwrap();
    let body = &mock.bodies()[1];
    assert!(body.get("temperature").is_none(), "{body}");
    assert!(!s
        .exists("[data-role=chat-prompt] .dot--accent")
        .await
        .unwrap());
    s.close().await;
}

#[tokio::test]
async fn an_assistant_starts_a_chat_with_its_prompt_and_tools() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-preset")
        .await
        .unwrap();
    s.open_settings("Assistants").await.unwrap();
    s.click("[data-role=add-preset]").await.unwrap();
    s.el("[data-role=preset-name]")
        .await
        .unwrap()
        .send_keys("Pirate")
        .await
        .unwrap();
    s.el("[data-role=preset-prompt]")
        .await
        .unwrap()
        .send_keys("Answer like a pirate.")
        .await
        .unwrap();
    s.el("[data-group=basic] select")
        .await
        .unwrap()
        .select_by_value("off")
        .await
        .unwrap();
    s.screenshots("settings-assistant-form").await.unwrap();
    s.click_text("[data-role=preset-form] button", "Save")
        .await
        .unwrap();
    let card = s.wait_text("[data-preset=Pirate]", WAIT).await.unwrap();
    assert!(card.contains("Basics off"), "{card}");
    s.screenshots("settings-assistants").await.unwrap();
    s.back_to_chat().await.unwrap();

    // The ▾ beside New chat lists the assistant; choosing it starts a chat with its settings.
    s.click("[data-role=new-from-preset]").await.unwrap();
    s.click_text("[role=menu] .menu-item", "Pirate")
        .await
        .unwrap();
    mock.push(openai::text("Arr."));
    s.send("hello").await.unwrap();
    s.wait_for_text("Arr.", WAIT).await.unwrap();
    let body = &mock.bodies()[0];
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .starts_with("Answer like a pirate."));
    let tools: Vec<String> = body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|x| x["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    assert!(!tools.contains(&"calculate".to_string()), "{tools:?}");
    s.close().await;
}
