//! With no Secret Service reachable, saving a key fails with a message that says what to install.
//! (A process of its own: the keychain backend is chosen once per process.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use tollgate_secrets::{Keychain, SecretError};

#[tokio::test]
async fn a_missing_keychain_names_the_fix() {
    std::env::set_var(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/tollgate-test-bus",
    );
    let err = Keychain::new("app.tollgate.test.missing")
        .set("provider-1", "sk-x")
        .await
        .unwrap_err();
    assert!(matches!(err, SecretError::Unavailable(_)), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("No system keychain is available"), "{msg}");
    assert!(msg.contains("gnome-keyring"), "{msg}");
    assert!(!msg.contains("sk-x"));
}
