//! Attention (F-59) in the real window: an approval that starts waiting while the window is
//! hidden shows a system notification (through a stand-in notification server on the test's
//! D-Bus session) naming the chat and the tool; clicking it brings the window back on that chat.
//! With notifications turned off in Settings → General, none is shown.

use std::time::Duration;
use tollgate_e2e::notifications::FakeNotifications;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;
use tollgate_e2e::{map_window, unmap_window, window_shown};
use tollgate_mock_llm::{openai, Gate};

const WAIT: Duration = Duration::from_secs(60);
const TITLE: &str = "Tollgate";

#[tokio::test]
async fn a_waiting_approval_notifies_a_user_who_looks_away_and_the_click_opens_its_chat() {
    let _seat = Seat::alone().await.unwrap();
    let server = FakeNotifications::start().await.unwrap();
    let (s, mock) = Session::with_mock_provider(&[], "sk-e2e-attention")
        .await
        .unwrap();
    s.set_tool_policy("calculate", Some("ask-always"), None)
        .await
        .unwrap();
    s.new_chat().await.unwrap();

    // The model calls the tool once the user has gone to another chat and hidden the window.
    let looked_away = Gate::new();
    mock.push(
        openai::calls("", &[("c1", "calculate", r#"{"expression": "6*7"}"#)])
            .held_at(0, &looked_away),
    );
    mock.push(openai::text("It is 42."));
    s.send("Deploy sums").await.unwrap();
    s.new_chat().await.unwrap();
    s.wait_for_text("What should we work on?", WAIT)
        .await
        .unwrap();
    unmap_window(TITLE).unwrap();
    assert!(!window_shown(TITLE).unwrap());
    looked_away.open();

    let shown = server.wait_for(1, WAIT).await.unwrap();
    assert_eq!(shown.app, "Tollgate");
    assert_eq!(shown.summary, "Approval needed");
    assert_eq!(
        shown.body,
        "Deploy sums: calculate is waiting for your decision"
    );
    assert_eq!(shown.actions, ["default", "Open chat"]);

    // The click brings the window back, on the chat that waits. (The app listens for the click
    // once the notification is up; a click that comes before is sent again, as a user would.)
    let deadline = std::time::Instant::now() + WAIT;
    'clicked: loop {
        server.click(shown.id).await.unwrap();
        for _ in 0..10 {
            if window_shown(TITLE).unwrap() {
                break 'clicked;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the window never came back"
        );
    }
    let card = s.active_approval().await.unwrap();
    assert!(card.text().await.unwrap().contains("calculate"));
    let open = s.el("section.chat").await.unwrap();
    assert_eq!(
        open.attr("aria-label").await.unwrap().as_deref(),
        Some("Deploy sums")
    );
    s.screenshots("attention-approval").await.unwrap();
    s.press(keys::ENTER).await.unwrap(); // Allow once: the card's first button has the focus
    s.wait_for_text("It is 42.", WAIT).await.unwrap();

    // Turned off in Settings → General (Space on the switch, as from the keyboard): an approval
    // waiting while the window is hidden shows nothing.
    s.open_settings("General").await.unwrap();
    let switch = s.el("[data-role=notify]").await.unwrap();
    let saves = s.settings_saves("general-settings").await.unwrap();
    switch.send_keys(&keys::SPACE.to_string()).await.unwrap();
    assert!(!switch.is_selected().await.unwrap());
    s.until_settings_saved("general-settings", saves)
        .await
        .unwrap();
    s.screenshots("settings-general-attention").await.unwrap();
    s.back_to_chat().await.unwrap();
    let hidden_again = Gate::new();
    mock.push(
        openai::calls("", &[("c2", "calculate", r#"{"expression": "1+1"}"#)])
            .held_at(0, &hidden_again),
    );
    mock.push(openai::text("Two."));
    s.send("again").await.unwrap();
    let hidden = unmap_window(TITLE).unwrap();
    hidden_again.open();
    // The model's call arrives while the window is hidden (the page does not draw then): the
    // app's log says when it decided about the user's attention, and it decided on none.
    let log = s.data_path().join("logs/tollgate.log");
    let deadline = std::time::Instant::now() + WAIT;
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("waits for the user: no notification (turned off)")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the app never decided about the second approval: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    map_window(&hidden).unwrap();
    assert!(s
        .active_approval()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
        .contains("1+1"));
    assert_eq!(server.shown().len(), 1, "{:?}", server.shown());
    s.close().await;
}
