//! A first run in the real window: no provider configured, so the offline Demo model answers.
//! New chat → a question → the Demo model calls `calculate` through the gate → the answer uses
//! the result; the tool card is in the turn and the call is in the database.

use fantoccini::Locator;
use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;

#[tokio::test]
async fn first_run_with_the_demo_model_shows_the_gate_at_work() {
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.expect("session");
    let c = &s.client;
    let new_chat = c
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("button.btn--primary"))
        .await
        .unwrap();
    new_chat.click().await.unwrap();
    let composer = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#composer"))
        .await
        .unwrap();
    composer.send_keys("what is 6 * 7?").await.unwrap();
    composer.send_keys("\u{E007}").await.unwrap(); // Enter

    // The Demo model's answer quotes the tool's result.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let answer = loop {
        let text = c
            .find(Locator::Css("body"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.contains("→ 42") {
            break text;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no answer with the result; the page shows:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(answer.contains("demo model"), "{answer}");
    let card = c
        .find(Locator::Css(".tool-card .tool-card-name"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(card, "calculate");
    s.screenshot("demo-first-turn").await.unwrap();

    let db = rusqlite::Connection::open(s.data_path().join("tollgate.sqlite3")).unwrap();
    let (tool, status, result): (String, String, String) = db
        .query_row(
            "SELECT tool, status, result_text FROM tool_calls ORDER BY id LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (tool.as_str(), status.as_str(), result.as_str()),
        ("calculate", "success", "42")
    );
    s.close().await;
}
