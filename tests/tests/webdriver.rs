//! The real app driven through WebDriver: its UI loads inside the app window and talks to the
//! backend (the tool catalog comes from the engine).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::time::Duration;
use tollgate_e2e::webdriver::Session;

#[tokio::test]
async fn the_ui_loads_in_the_app_window_and_reaches_the_backend() {
    let s = Session::start(&[]).await.expect("session");
    eprintln!("session up after {:?}", s.startup);
    let title = tokio::time::timeout(Duration::from_secs(20), s.client.title())
        .await
        .expect("title within 20 s")
        .unwrap();
    eprintln!("title {title}");
    assert_eq!(title, "Tollgate");
    let body = tokio::time::timeout(
        Duration::from_secs(40),
        s.wait_text("body", Duration::from_secs(30)),
    )
    .await
    .expect("body within 40 s")
    .unwrap();
    eprintln!("body ok");
    assert!(body.contains("Tollgate"), "{body}");
    tokio::time::timeout(
        Duration::from_secs(20),
        s.screenshot("webdriver-first-screen"),
    )
    .await
    .expect("screenshot within 20 s")
    .unwrap();
    println!("WebDriver session ready after {:?}", s.startup);
    s.close().await;
}
