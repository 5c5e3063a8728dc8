//! The window and the instance (F-59): a second launch on the same data folder brings the
//! running window forward and exits, without opening the database twice; a launch on another
//! folder runs beside it; the window's size and position come back after a restart.

use std::process::Stdio;
use std::time::{Duration, Instant};
use tollgate_e2e::seat::{x_command, Seat};
use tollgate_e2e::webdriver::Session;
use tollgate_e2e::{app_binary, app_windows_on};

const WAIT: Duration = Duration::from_secs(60);

/// The page's size in CSS pixels.
async fn inner_size(s: &Session) -> (f64, f64) {
    let v = s
        .client
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .await
        .unwrap();
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

fn xdotool(args: &[&str]) -> String {
    let out = x_command("xdotool").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test]
async fn one_window_per_data_folder_and_its_size_and_place_are_remembered() {
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.unwrap();
    s.wait_for_text("New chat", WAIT).await.unwrap();
    let data = s.data_path().to_path_buf();
    let windows = app_windows_on(&data);
    assert_eq!(
        windows.len(),
        1,
        "windows {windows:?} of the apps {:?}",
        tollgate_e2e::apps_on(&data)
    );

    // A second launch on the same folder hands over to the running app and exits.
    let mut second = x_command(&app_binary().unwrap().to_string_lossy())
        .env("TOLLGATE_DATA_DIR", &data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = second.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the second launch kept running");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{status}");
    assert_eq!(app_windows_on(&data), windows);
    s.wait_for_text("New chat", WAIT).await.unwrap();

    // Another folder is another instance: it runs.
    let other = tempfile::tempdir().unwrap();
    let mut beside = x_command(&app_binary().unwrap().to_string_lossy())
        .env("TOLLGATE_DATA_DIR", other.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + WAIT;
    while app_windows_on(other.path()).is_empty() {
        assert!(
            beside.try_wait().unwrap().is_none(),
            "an app on another folder exited"
        );
        assert!(Instant::now() < deadline, "no second window");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Each app is counted by its own window: the first app's window is not the other's.
    let beside_windows = app_windows_on(other.path());
    assert_eq!(beside_windows.len(), 1, "{beside_windows:?}");
    assert!(!beside_windows.contains(&windows[0]), "{beside_windows:?}");
    assert_eq!(app_windows_on(&data), windows);
    beside.kill().unwrap();
    beside.wait().unwrap();

    // Resize and move the window; after a restart it comes back the same.
    let id = &windows[0];
    xdotool(&["windowsize", "--sync", id, "1000", "640"]);
    xdotool(&["windowmove", "--sync", id, "30", "20"]);
    let deadline = Instant::now() + WAIT;
    loop {
        let (w, h) = inner_size(&s).await;
        if (w - 1000.0).abs() < 2.0 && (h - 640.0).abs() < 2.0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the window was not resized: {w}x{h}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // Both the size and the place saved: the resize and the move are saved as each settles, and
    // on a busy machine the move's may come a while after the size's (a run closed the app in
    // between, and the window came back at 0,0).
    let saved = data.join("window-state.json");
    let deadline = Instant::now() + WAIT;
    let settled = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .is_some_and(|windows| {
                windows
                    .values()
                    .any(|w| w["width"] == 1000 && w["x"] == 30 && w["y"] == 20)
            })
    };
    while !std::fs::read_to_string(&saved).is_ok_and(|t| settled(&t)) {
        assert!(
            Instant::now() < deadline,
            "the window's size and place were never saved: {:?}",
            std::fs::read_to_string(&saved)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let dir = s.close_keeping_data().await.unwrap();
    let s = Session::start_in(dir, &[]).await.unwrap();
    s.wait_for_text("New chat", WAIT).await.unwrap();
    let (w, h) = inner_size(&s).await;
    assert!(
        (w - 1000.0).abs() < 2.0 && (h - 640.0).abs() < 2.0,
        "{w}x{h}"
    );
    let geometry = xdotool(&["getwindowgeometry", &app_windows_on(&data)[0]]);
    assert!(geometry.contains("Position: 30,20"), "{geometry}");
    s.close().await;
}
