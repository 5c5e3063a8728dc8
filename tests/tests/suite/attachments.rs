//! Attachments (F-57) in the real window: a picked image and a text file show as chips, go with
//! the message, and reach the mock model as an image part — OpenAI's `image_url`, then, after the
//! chat moves to an Anthropic provider, an `image` block; the sent message shows the thumbnail.
//! A file that is not an image or text is refused with its name.

use fantoccini::Locator;
use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::{anthropic, openai};

const WAIT: Duration = Duration::from_secs(60);

use tollgate_mock_llm::fixtures::TINY_PNG as PNG;

/// Picks `path` in the composer's file input, as the file dialog would.
async fn pick(s: &Session, path: &std::path::Path) {
    let input = s
        .client
        .find(Locator::Css("[data-role=attach-input]"))
        .await
        .unwrap();
    input.send_keys(&path.display().to_string()).await.unwrap();
}

#[tokio::test]
async fn an_image_reaches_the_model_as_an_image_in_both_wire_formats() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-attach")
        .await
        .unwrap();
    let folder = tempfile::tempdir().unwrap();
    let image = folder.path().join("dot.png");
    std::fs::write(&image, PNG).unwrap();
    let notes = folder.path().join("notes.md");
    std::fs::write(&notes, "- buy milk").unwrap();
    let program = folder.path().join("tool.exe");
    std::fs::write(&program, b"MZ\x90\x00").unwrap();
    s.new_chat().await.unwrap();

    pick(&s, &image).await;
    pick(&s, &notes).await;
    pick(&s, &program).await;
    let refused = s.wait_text("[data-role=attach-error]", WAIT).await.unwrap();
    assert!(
        refused.contains("\"tool.exe\" is not an image"),
        "{refused}"
    );
    s.wait_count(".composer [data-role=attachments] li", 2)
        .await
        .unwrap();
    s.el("#composer")
        .await
        .unwrap()
        .send_keys("What is in the picture?")
        .await
        .unwrap();
    s.screenshots("composer-attachments").await.unwrap();
    mock.push(openai::text("A single dot."));
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("A single dot.", WAIT).await.unwrap();
    let body = mock.bodies()[0].clone();
    let content = &body["messages"][1]["content"];
    assert_eq!(content[0]["type"], "text", "{body}");
    assert!(content[0]["text"]
        .as_str()
        .unwrap()
        .starts_with("What is in the picture?\n\nAttached file \"notes.md\""));
    assert_eq!(content[1]["type"], "image_url", "{body}");
    assert!(content[1]["image_url"]["url"]
        .as_str()
        .unwrap()
        .starts_with("data:image/png;base64,iVBORw0KGgo"));
    assert!(s
        .exists(".msg--user [data-role=attachments] img")
        .await
        .unwrap());
    s.screenshots("chat-attachments").await.unwrap();

    // The chat moves to an Anthropic provider: the image goes as an image block.
    s.add_provider(
        "anthropic",
        "Claude",
        &mock.url(),
        "claude-mock",
        "sk-ant-e2e",
    )
    .await
    .unwrap();
    s.click(".model-picker > button").await.unwrap();
    let provider = s.el(".model-picker select").await.unwrap();
    let options = provider.find_all(Locator::Css("option")).await.unwrap();
    let mut claude = None;
    for o in options {
        if o.text().await.unwrap().contains("Claude") {
            claude = o.attr("value").await.unwrap();
        }
    }
    provider
        .select_by_value(&claude.expect("Claude is offered"))
        .await
        .unwrap();
    s.click(".model-picker button[type=submit]").await.unwrap();
    mock.push(anthropic::text("Still one dot."));
    s.send("And now?").await.unwrap();
    s.wait_for_text("Still one dot.", WAIT).await.unwrap();
    let body = mock.bodies()[1].clone();
    let first = &body["messages"][0]["content"];
    assert_eq!(first[0]["type"], "image", "{body}");
    assert_eq!(first[0]["source"]["media_type"], "image/png");
    assert_eq!(first[0]["source"]["type"], "base64");
    s.close().await;
}
