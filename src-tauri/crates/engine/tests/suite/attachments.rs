//! Attachments (F-57) through the service, against a mock provider in both wire formats: an
//! image reaches the model as an image part (OpenAI `image_url`, Anthropic `image` block), a
//! text file is inlined under its name, both are stored with the message and go with it again
//! in later turns; what is not an image or is too big is refused before anything is stored.

use super::service::{collector, open, turn, until_finished, with_mock};
use base64::Engine;
use serde_json::{json, Value};
use tollgate_engine::chat::attachments::{Attachment, AttachmentKind};
use tollgate_engine::chat::{TurnInput, UserInput};
use tollgate_mock_llm::{anthropic, openai};
use tollgate_protocol::{CommandError, ErrorKind, ProviderKind};
use tollgate_store::ProviderInput;

use tollgate_mock_llm::fixtures::TINY_PNG as PNG;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn files() -> Vec<Attachment> {
    vec![
        Attachment {
            name: "dot.png".into(),
            kind: AttachmentKind::Image,
            // The window's guess; the bytes decide.
            media_type: "image/jpeg".into(),
            data: b64(PNG),
            source: None,
        },
        Attachment {
            name: "notes.md".into(),
            kind: AttachmentKind::Text,
            media_type: "text/markdown".into(),
            data: "- buy milk".into(),
            source: None,
        },
    ]
}

fn last_user(body: &Value) -> Value {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()
        .clone()
}

#[tokio::test]
#[ignore = "needs a Secret Service (the OS keychain): run .ci/test.sh (--include-ignored)"]
async fn an_image_and_a_text_file_reach_the_model_in_both_wire_formats() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;

    mock.push(openai::text("A dot."));
    let (on_event, mut rx) = collector();
    let input = UserInput {
        text: "What is this?".into(),
        attachments: files(),
        sources: Vec::new(),
    };
    app.send(chat, TurnInput::Message(input), on_event)
        .await
        .unwrap();
    until_finished(&mut rx).await;
    let sent = last_user(&mock.bodies()[0]);
    assert_eq!(
        sent["content"],
        json!([
            {"type": "text", "text": "What is this?\n\nAttached file \"notes.md\":\n```\n- buy milk\n```"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(PNG))}}
        ])
    );
    // Stored with the message (the image's type as its bytes say).
    let stored = app
        .chats()
        .chat_history(chat, None, None)
        .await
        .unwrap()
        .messages[0]
        .clone();
    assert_eq!(stored.content, "What is this?");
    let kept = &stored.payload.unwrap()["attachments"];
    assert_eq!(kept[0]["mediaType"], "image/png");
    assert_eq!(kept[1]["name"], "notes.md");

    // Exported and imported back, the files come with the message; Markdown names them.
    let md = tollgate_engine::chat::export::markdown(app.store(), chat)
        .await
        .unwrap();
    assert!(md.contains("_Attached: `dot.png`, `notes.md`_"), "{md}");
    let js = tollgate_engine::chat::export::json(app.store(), chat)
        .await
        .unwrap();
    let copy = app
        .chats()
        .import_chats(js.to_string().as_bytes())
        .await
        .unwrap()[0]
        .id;
    let imported = app
        .chats()
        .chat_history(copy, None, None)
        .await
        .unwrap()
        .messages[0]
        .clone();
    assert_eq!(imported.payload.unwrap()["attachments"], *kept);

    // The same chat on an Anthropic provider: the history's image goes as an image block.
    let claude = app
        .model_providers()
        .add_provider(ProviderInput {
            kind: ProviderKind::Anthropic,
            name: "Claude".into(),
            base_url: mock.url(),
            default_model: "claude-mock".into(),
            tool_calling: Default::default(),
            options: Default::default(),
        })
        .await
        .unwrap();
    app.model_providers()
        .save_provider_key(claude.id, "sk-ant-attachments")
        .await
        .unwrap();
    app.chats()
        .set_chat_model(chat, Some(claude.id), "")
        .await
        .unwrap();
    mock.push(anthropic::text("Still a dot."));
    turn(&app, chat, TurnInput::Message("And now?".into())).await;
    let body = &mock.bodies()[1];
    let first = &body["messages"][0]["content"];
    assert_eq!(
        first[0],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}})
    );
    assert_eq!(first[1]["type"], "text");
    assert!(first[1]["text"].as_str().unwrap().contains("- buy milk"));

    // An edit keeps the files of the message it replaces.
    mock.push(anthropic::text("A red dot."));
    let (on_event, mut rx) = collector();
    let question = app
        .chats()
        .chat_history(chat, None, None)
        .await
        .unwrap()
        .messages[0]
        .id;
    app.edit_message(chat, question, "Which colour?".into(), on_event)
        .await
        .unwrap();
    until_finished(&mut rx).await;
    let edited = &mock.bodies()[2]["messages"][0]["content"];
    assert_eq!(edited[0]["type"], "image");
    assert!(edited[1]["text"]
        .as_str()
        .unwrap()
        .starts_with("Which colour?"));
}

#[tokio::test]
async fn what_is_not_an_image_or_too_big_is_refused_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    let refuse = |attachments: Vec<Attachment>| {
        let app = app.clone();
        async move {
            let (on_event, _rx) = collector();
            let input = UserInput {
                text: "look".into(),
                attachments,
                sources: Vec::new(),
            };
            let err = app
                .send(chat, TurnInput::Message(input), on_event)
                .await
                .expect_err("refused");
            CommandError::from(err)
        }
    };
    let script = Attachment {
        name: "photo.png".into(),
        kind: AttachmentKind::Image,
        media_type: "image/png".into(),
        data: b64(b"#!/bin/sh\necho pwned"),
        source: None,
    };
    let err = refuse(vec![script]).await;
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert!(
        err.message
            .contains("\"photo.png\" is not a PNG, JPEG, GIF or WebP image"),
        "{}",
        err.message
    );
    let big = Attachment {
        name: "log.txt".into(),
        kind: AttachmentKind::Text,
        media_type: "text/plain".into(),
        data: "x".repeat(300 * 1024),
        source: None,
    };
    let err = refuse(vec![big]).await;
    assert!(
        err.message.contains("a text file can be at most 256 KB"),
        "{}",
        err.message
    );
    let (on_event, _rx) = collector();
    let empty = app
        .send(chat, TurnInput::Message("  ".into()), on_event)
        .await
        .expect_err("refused");
    assert_eq!(CommandError::from(empty).kind, ErrorKind::Invalid);
    assert!(app
        .chats()
        .chat_history(chat, None, None)
        .await
        .unwrap()
        .messages
        .is_empty());
    assert!(mock.bodies().is_empty());
}
