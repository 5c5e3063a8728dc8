//! Edit, regenerate and versions (F-56) in the real window, from the keyboard where a person
//! would use it: a question is edited into a new branch, the old branch comes back with ‹, and
//! an answer is regenerated with another model (which the mock provider sees in the request).

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);

/// The user's messages on screen, then the answers, as text.
async fn conversation(s: &Session) -> String {
    s.body_text().await.unwrap()
}

/// Whether the page has typing it could undo (the webview's undo history).
async fn can_undo(s: &Session) -> bool {
    s.client
        .execute("return document.queryCommandEnabled('undo');", vec![])
        .await
        .unwrap()
        .as_bool()
        .unwrap()
}

#[tokio::test]
async fn edit_branches_switch_back_and_regenerate_with_another_model() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-branches")
        .await
        .unwrap();
    s.new_chat().await.unwrap();
    mock.push(openai::text("Paris."));
    // What is typed can be undone until it is sent; then the page keeps no undo history for it
    // (WebKit's would otherwise hold every keystroke of every message for the app's life).
    s.el("#composer")
        .await
        .unwrap()
        .send_keys("capital of France?")
        .await
        .unwrap();
    assert!(can_undo(&s).await, "typing left nothing to undo");
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Paris.", WAIT).await.unwrap();
    assert!(
        !can_undo(&s).await,
        "the sent message's typing is still in the undo history"
    );

    // Edit: Shift+Tab back from the composer to the question's Edit, Enter opens the editor
    // with the focus in it; the new text goes with Enter.
    s.back_tab_to("edit-message").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let editor = s.el("[data-role=edit-form] textarea").await.unwrap();
    assert!(s.focused().await.unwrap().starts_with("TEXTAREA|"));
    // Escape leaves the message as it was.
    s.press(keys::ESCAPE).await.unwrap();
    s.wait_gone("[data-role=edit-form]", "Escape did not close the editor")
        .await
        .unwrap();
    drop(editor);
    s.back_tab_to("edit-message").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let editor = s.el("[data-role=edit-form] textarea").await.unwrap();
    s.replace_text(&editor, "capital of Italy?").await.unwrap();
    s.screenshots("chat-edit").await.unwrap();
    mock.push(openai::text("Rome."));
    assert!(can_undo(&s).await, "typing the edit left nothing to undo");
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Rome.", WAIT).await.unwrap();
    assert!(
        !can_undo(&s).await,
        "the sent edit's typing is still in the undo history"
    );
    let sent = mock.bodies().last().unwrap().clone();
    let sent_text = sent["messages"].to_string();
    assert!(sent_text.contains("capital of Italy?"), "{sent}");
    assert!(
        !sent_text.contains("France") && !sent_text.contains("Paris"),
        "{sent}"
    );
    let versions = s
        .wait_text(".msg--user [data-role=versions]", WAIT)
        .await
        .unwrap();
    assert!(versions.contains("2/2"), "{versions}");
    assert!(!conversation(&s).await.contains("Paris."));
    s.screenshots("chat-versions").await.unwrap();

    // Back to the first version: its answer returns.
    s.click(".msg--user [data-role=version-previous]")
        .await
        .unwrap();
    s.wait_for_text("Paris.", WAIT).await.unwrap();
    let shown = conversation(&s).await;
    assert!(
        shown.contains("capital of France?") && !shown.contains("Rome."),
        "{shown}"
    );
    assert!(s
        .wait_text(".msg--user [data-role=versions]", WAIT)
        .await
        .unwrap()
        .contains("1/2"));

    // Regenerate with another model: ▾, type the model, Enter.
    s.click("[data-role=regenerate-with]").await.unwrap();
    let model = s.el(".regenerate .popover input").await.unwrap();
    model.send_keys("mock-tiny").await.unwrap();
    s.screenshots("chat-regenerate-with").await.unwrap();
    mock.push(openai::text("Paris, on the Seine."));
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Paris, on the Seine.", WAIT).await.unwrap();
    let sent = mock.bodies().last().unwrap().clone();
    assert_eq!(sent["model"], "mock-tiny");
    let sent_text = sent["messages"].to_string();
    assert!(sent_text.contains("capital of France?"), "{sent}");
    assert!(!sent_text.contains("\"Paris.\""), "{sent}");
    let footer = s
        .wait_text(".msg--assistant [data-role=versions]", WAIT)
        .await
        .unwrap();
    assert!(footer.contains("2/2"), "{footer}");
    assert_eq!(
        s.wait_text(".msg--assistant .msg-model", WAIT)
            .await
            .unwrap(),
        "mock-tiny"
    );
    // The chat's own model is unchanged: the next message goes to mock-large.
    mock.push(openai::text("You are welcome."));
    s.send("thanks").await.unwrap();
    s.wait_for_text("You are welcome.", WAIT).await.unwrap();
    assert_eq!(mock.bodies().last().unwrap()["model"], "mock-large");
    s.close().await;
}
