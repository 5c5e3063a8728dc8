//! The real app starts in a real window, opens its database in the data folder it was given,
//! and shows the UI.

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::App;

#[test]
fn the_app_opens_its_window_and_database() {
    let _seat = Seat::take_blocking().unwrap();
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
    // The page says when it has painted (the app logs it); then a picture of the first screen.
    app.wait_for_log("first paint", Duration::from_secs(60))
        .expect("first paint");
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

/// Without a GPU render node (as under Xvfb here), the app draws without GL: it says so in its
/// log and never loads Mesa's software rasteriser; with one, it leaves GTK and WebKit alone.
#[test]
fn without_a_gpu_the_app_draws_without_loading_gl() {
    let _seat = Seat::take_blocking().unwrap();
    let mut app = App::launch().expect("launch");
    app.wait_for_window("Tollgate", Duration::from_secs(60))
        .expect("window");
    app.wait_for_log("first paint", Duration::from_secs(60))
        .expect("first paint");
    app.check_alive().expect("still running after first paint");
    let log = app.stderr();
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", app.pid())).unwrap();
    let mesa: Vec<&str> = maps
        .lines()
        .filter(|l| l.contains("/dri/") || l.contains("libLLVM"))
        .collect();
    // The test's own look at the machine, independent of the app's.
    let render_node = std::fs::read_dir("/dev/dri")
        .map(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false);
    if render_node {
        assert!(
            log.contains("rendering: GTK and WebKit defaults"),
            "log:\n{log}"
        );
    } else {
        assert!(
            log.contains("rendering: no GPU render node, drawing without GL"),
            "log:\n{log}"
        );
        assert!(mesa.is_empty(), "Mesa loaded in the app process: {mesa:?}");
    }
}
