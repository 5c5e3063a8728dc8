//! The real app starts in a real window, opens its database in the data folder it was given,
//! and shows the UI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::time::Duration;
use tollgate_e2e::App;

#[test]
fn the_app_opens_its_window_and_database() {
    let mut app = App::launch().expect("launch");
    app.wait_for_window("Tollgate", Duration::from_secs(60))
        .expect("window");
    let db = app.data_dir.path().join("tollgate.sqlite3");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !db.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        db.exists(),
        "database created in TOLLGATE_DATA_DIR; log:\n{}",
        app.stderr()
    );
    // Give WebKit time to paint, then keep a picture of the first screen.
    std::thread::sleep(Duration::from_secs(3));
    app.check_alive().expect("still running after first paint");
    let shot = app.screenshot("startup").expect("screenshot");
    assert!(std::fs::metadata(&shot)
        .map(|m| m.len() > 1000)
        .unwrap_or(false));

    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(version >= 1, "migrations ran");
}
