//! MCP resources and prompts in the composer (F-45), in the real window against a real MCP
//! server (tests/mcp/probe-server.mjs on the official SDK): `/` lists the server's prompts, a
//! prompt's argument is asked and the prompt fills the composer with its text and resource; a
//! resource is attached from the list; what the user sends reaches the mock model.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use fantoccini::Locator;
use std::time::Duration;
use tollgate_e2e::steps::{keys, SERIAL};
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);

fn probe_js() -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/probe-server.mjs");
    assert!(p.exists(), "tests/mcp/probe-server.mjs is missing");
    p.display().to_string()
}

#[tokio::test]
async fn prompts_fill_the_composer_and_resources_attach() {
    let _serial = SERIAL.lock().await;
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-mcp-composer")
        .await
        .unwrap();
    s.open_settings("MCP servers").await.unwrap();
    s.click(".mcp-import summary").await.unwrap();
    let json =
        serde_json::json!({"mcpServers": {"probe": {"command": "node", "args": [probe_js()]}}})
            .to_string();
    s.el(".mcp-import textarea")
        .await
        .unwrap()
        .send_keys(&json)
        .await
        .unwrap();
    s.client
        .find(Locator::XPath(
            "//details[contains(@class,'mcp-import')]//button",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let offers = s
        .wait_text("[data-server=probe] [data-role=mcp-offers]", WAIT)
        .await
        .unwrap();
    assert!(offers.starts_with("2 resources"), "{offers}");
    s.back_to_chat().await.unwrap();
    s.click("button.new-chat").await.unwrap();

    // `/` lists the prompts; Enter takes the highlighted one and asks its argument.
    s.el("#composer")
        .await
        .unwrap()
        .send_keys("/")
        .await
        .unwrap();
    let menu = s.wait_text("[data-role=prompt-menu]", WAIT).await.unwrap();
    assert!(menu.contains("/review"), "{menu}");
    s.screenshots("composer-prompts").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let file = s
        .el("[data-role=prompt-form] [data-arg=file]")
        .await
        .unwrap();
    assert!(s.focused().await.unwrap().starts_with("INPUT|"));
    file.send_keys("main.rs").await.unwrap();
    s.screenshots("composer-prompt-arguments").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_gone("[data-role=prompt-form]", "the prompt form stayed")
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let value = s
            .el("#composer")
            .await
            .unwrap()
            .prop("value")
            .await
            .unwrap()
            .unwrap_or_default();
        if value == "Review main.rs carefully." {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the composer holds {value:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // A resource from the list: the image.
    s.click("[data-role=attach-resource]").await.unwrap();
    s.wait_text(".resource-menu", WAIT).await.unwrap();
    s.screenshots("composer-resources").await.unwrap();
    s.click("[data-uri=\"probe://dot.png\"]").await.unwrap();
    s.wait_count(".composer [data-role=attachments] li", 2)
        .await
        .unwrap();

    // Sent as the user wrote it: the prompt's text, its resource inlined, the image as an image.
    mock.push(openai::text("Looks fine."));
    s.el("#composer").await.unwrap().click().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Looks fine.", WAIT).await.unwrap();
    let body = mock.bodies()[0].clone();
    let content = &body["messages"][1]["content"];
    let text = content[0]["text"].as_str().unwrap();
    assert!(text.starts_with("Review main.rs carefully."), "{body}");
    assert!(text.contains("Attached file \"notes.md\":"), "{body}");
    assert!(text.contains("Ship on Friday."), "{body}");
    assert_eq!(content[1]["type"], "image_url", "{body}");
    s.close().await;
}
