//! The log a user can send (F-28): after a run the log file is in the data folder's `logs`
//! (the OS log folder when no data folder is chosen), Settings → General names it, and no key is
//! in it — even at trace level, even when a provider's error message quotes the key back.

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::Reply;

const WAIT: Duration = Duration::from_secs(60);
const KEY: &str = "sk-e2e-planted-LOGKEY-0123456789abcdef";

#[tokio::test]
async fn the_log_file_is_written_named_in_settings_and_holds_no_key() {
    let _seat = Seat::take().await.unwrap();
    let (s, mock) = Session::with_mock_provider_from_settings(&[("TOLLGATE_LOG", "trace")], KEY)
        .await
        .unwrap();
    // The provider refuses the key and quotes it, as some do.
    mock.push(Reply::status(
        401,
        &format!("Incorrect API key provided: {KEY}"),
    ));
    s.new_chat_and_send("hello").await.unwrap();
    let shown = s.wait_for_text("Incorrect API key", WAIT).await.unwrap();
    assert!(!shown.contains(KEY), "the window shows the key:\n{shown}");
    assert!(
        mock.requests()
            .iter()
            .any(|r| r.header("authorization") == Some(format!("Bearer {KEY}").as_str())),
        "the key was really sent to the provider"
    );

    s.open_settings("General").await.unwrap();
    let folder = s.wait_text("[data-role=log-folder]", WAIT).await.unwrap();
    let logs = s.data_path().join("logs");
    assert_eq!(folder, logs.display().to_string());
    s.el("[data-role=open-log-folder]").await.unwrap();
    s.client
        .execute(
            "document.querySelector('[data-role=log-folder]').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await
        .unwrap();
    s.screenshots("settings-general-logs").await.unwrap();

    let data = s.close_keeping_data().await.unwrap();
    let log = std::fs::read_to_string(data.path().join("logs/tollgate.log")).unwrap();
    assert!(log.contains("data folder:"), "{log}");
    assert!(
        log.contains("401: Incorrect API key provided: [redacted]"),
        "the refused request is in the log, its key replaced:\n{log}"
    );
    assert!(!log.contains(KEY), "the key is in the log");
    assert!(!log.contains("LOGKEY"), "part of the key is in the log");
}
