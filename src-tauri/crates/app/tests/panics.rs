//! A panic in any thread of the app is written to the log file with its backtrace (F-28), and
//! the log file is redacted: the real `logs::init` wiring, with a real file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

#[test]
fn a_panic_in_any_thread_is_logged_with_its_backtrace() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    assert_eq!(tollgate_app::logs::init(Some(&logs)), Some(logs.clone()));
    tollgate_secrets::remember("sk-test-panic-key-0123456789");
    let joined = std::thread::Builder::new()
        .name("turn-worker".into())
        .spawn(|| panic!("a tool broke while holding sk-test-panic-key-0123456789"))
        .unwrap()
        .join();
    assert!(joined.is_err());
    tracing::warn!("after the panic");
    let text = std::fs::read_to_string(logs.join("tollgate.log")).unwrap();
    assert!(
        text.contains("panic in thread 'turn-worker' at ") && text.contains("panics.rs:"),
        "{text}"
    );
    assert!(
        text.contains("a tool broke while holding [redacted]"),
        "{text}"
    );
    assert!(!text.contains("sk-test-panic-key"), "{text}");
    // The backtrace names the function the panic came from.
    assert!(
        text.contains("panics::a_panic_in_any_thread_is_logged_with_its_backtrace"),
        "{text}"
    );
    assert!(text.contains("after the panic"), "{text}");
}
