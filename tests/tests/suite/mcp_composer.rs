//! MCP resources, prompts and images (F-45), in the real window against a real MCP server
//! (tests/mcp/probe-server.mjs on the official SDK): `/` lists the server's prompts, a prompt's
//! argument is asked and the prompt fills the composer with its text and resource; a resource is
//! attached from the list; what the user sends reaches the mock model. An image a tool returns
//! is shown in its card (a fake one is not), opens at full size, and the model reads only a note.

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);

fn probe_js() -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/probe-server.mjs");
    assert!(p.exists(), "tests/mcp/probe-server.mjs is missing");
    p.display().to_string()
}

/// Adds the probe server in Settings → MCP servers and waits until it is connected.
async fn add_probe(s: &Session) {
    let json =
        serde_json::json!({"mcpServers": {"probe": {"command": "node", "args": [probe_js()]}}});
    let offers = s.import_mcp_servers(&json, "probe").await.unwrap();
    assert!(offers.starts_with("Resources: 2 "), "{offers}");
    s.back_to_chat().await.unwrap();
}

#[tokio::test]
async fn prompts_fill_the_composer_and_resources_attach() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-mcp-composer")
        .await
        .unwrap();
    add_probe(&s).await;
    s.new_chat().await.unwrap();

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
    s.until_composer(|v| v == "Review main.rs carefully.")
        .await
        .unwrap();

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

#[tokio::test]
async fn a_tools_image_is_shown_to_the_user_and_only_described_to_the_model() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-mcp-images")
        .await
        .unwrap();
    add_probe(&s).await;
    mock.push(openai::calls("", &[("c1", "probe__snapshot", "{}")]));
    mock.push(openai::text("I took the snapshot."));
    s.new_chat_and_send("Take a snapshot").await.unwrap();

    // The read-only tool asks once; Enter on the focused Allow runs it.
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("I took the snapshot.", WAIT).await.unwrap();
    s.wait_count("[data-role=tool-images] li", 1).await.unwrap();
    let src = s
        .el("[data-role=tool-images] img")
        .await
        .unwrap()
        .attr("src")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        src.starts_with("data:image/png;base64,iVBORw0KGgo"),
        "{src}"
    );
    s.screenshots("tool-card-image").await.unwrap();

    // The model read a note for each image: the real one shown, the SVG refused; no base64.
    let body = mock.bodies()[1].clone();
    let result = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.contains("Snapshot taken."), "{result}");
    assert!(
        result.contains("[image 1: image/png, 70 bytes, shown to the user; you cannot see it]"),
        "{result}"
    );
    assert!(
        result.contains("not shown: it is not a PNG, JPEG, GIF or WebP image"),
        "{result}"
    );
    assert!(!result.contains("iVBORw0KGgo"), "{result}");

    // The thumbnail is a button: focused and Enter opens the image; Escape closes it.
    s.client
        .execute(
            "document.querySelector('[data-role=tool-images] .attachment-view').focus()",
            vec![],
        )
        .await
        .unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_text("[data-role=image-viewer]", WAIT).await.unwrap();
    s.screenshots("image-viewer").await.unwrap();
    s.press(keys::ESCAPE).await.unwrap();
    s.wait_gone("[data-role=image-viewer]", "the image viewer stayed open")
        .await
        .unwrap();

    // The image stays with the call when the chat is opened again.
    s.new_chat().await.unwrap();
    s.click(".chat-list .chat-item[title=\"Take a snapshot\"]")
        .await
        .unwrap();
    s.wait_count("[data-role=tool-images] li", 1).await.unwrap();
    s.close().await;
}
