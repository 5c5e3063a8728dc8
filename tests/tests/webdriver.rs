//! The real app driven through WebDriver: its UI loads inside the app window and talks to the
//! backend (the tool catalog comes from the engine).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::time::Duration;
use tollgate_e2e::webdriver::Session;

#[tokio::test]
async fn the_ui_loads_in_the_app_window_and_reaches_the_backend() {
    let s = Session::start(&[]).await.expect("session");
    let title = s.client.title().await.unwrap();
    assert_eq!(title, "Tollgate");
    let body = s.wait_text("body", Duration::from_secs(30)).await.unwrap();
    assert!(body.contains("Tollgate"), "{body}");
    s.screenshot("webdriver-first-screen").await.unwrap();
    println!("WebDriver session ready after {:?}", s.startup);
    s.close().await;
}
