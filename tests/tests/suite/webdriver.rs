//! The real app driven through WebDriver: its UI loads inside the app window and talks to the
//! backend (the tool catalog comes from the engine), and the page cannot read the clipboard
//! (SECURITY.md: "The window reads the clipboard").

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;

#[tokio::test]
async fn the_ui_loads_in_the_app_window_and_reaches_the_backend() {
    let _seat = Seat::take().await.unwrap();
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
        s.wait_text("body", Duration::from_secs(60)),
    )
    .await
    .expect("body within 40 s")
    .unwrap();
    eprintln!("body ok");
    assert!(body.contains("Tollgate"), "{body}");

    // The page writes to the clipboard (granted: the Copy buttons), then tries to read it back
    // both ways a script could: the clipboard plugin's command and the web API.
    let tried = s
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             const invoke = window.__TAURI_INTERNALS__.invoke; \
             (async () => { \
               const out = {}; \
               try { await invoke('plugin:clipboard-manager|write_text', { text: 'planted-in-the-clipboard' }); out.wrote = true; } \
               catch (e) { out.wrote = String(e); } \
               try { out.plugin = await invoke('plugin:clipboard-manager|read_text'); } \
               catch (e) { out.pluginRefused = String(e); } \
               try { out.web = await navigator.clipboard.readText(); } \
               catch (e) { out.webRefused = String(e); } \
               done(out); \
             })();",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(tried["wrote"], true, "{tried}");
    assert!(tried.get("plugin").is_none(), "{tried}");
    assert!(
        tried["pluginRefused"]
            .as_str()
            .is_some_and(|e| e.contains("not allowed")),
        "{tried}"
    );
    assert!(
        !tried.to_string().contains("planted-in-the-clipboard"),
        "the page read the clipboard: {tried}"
    );
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
