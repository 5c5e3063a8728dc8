//! API keys in a real Secret Service (gnome-keyring under its own D-Bus session: the README's
//! test command starts one). The key must come back from the keychain and appear nowhere else.

use tollgate_secrets::{provider_account, Keychain};

#[tokio::test]
#[ignore = "needs a Secret Service (the OS keychain): run .ci/test.sh (--include-ignored)"]
async fn keys_round_trip_through_the_real_keychain() {
    let kc = Keychain::new(format!("app.tollgate.test.{}", std::process::id()));
    let account = provider_account(7);
    assert_eq!(kc.get(&account).await.unwrap(), None);
    kc.set(&account, "sk-test-123").await.unwrap();
    assert_eq!(
        kc.get(&account).await.unwrap().as_deref(),
        Some("sk-test-123")
    );
    kc.set(&account, "sk-test-456").await.unwrap();
    assert_eq!(
        kc.get(&account).await.unwrap().as_deref(),
        Some("sk-test-456")
    );
    assert!(kc.delete(&account).await.unwrap());
    assert!(!kc.delete(&account).await.unwrap());
    assert_eq!(kc.get(&account).await.unwrap(), None);
}

#[tokio::test]
#[ignore = "needs a Secret Service (the OS keychain): run .ci/test.sh (--include-ignored)"]
async fn apps_on_two_data_folders_never_share_a_key() {
    // Each folder's first provider is `provider-1`: a second profile (or a second test window)
    // must neither read nor overwrite the first one's key.
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (first, second) = (
        Keychain::for_data_dir(one.path()),
        Keychain::for_data_dir(two.path()),
    );
    let account = provider_account(1);
    first.set(&account, "sk-first-profile").await.unwrap();
    assert_eq!(second.get(&account).await.unwrap(), None);
    second.set(&account, "sk-second-profile").await.unwrap();
    assert_eq!(
        first.get(&account).await.unwrap().as_deref(),
        Some("sk-first-profile")
    );
    assert!(second.delete(&account).await.unwrap());
    assert_eq!(
        first.get(&account).await.unwrap().as_deref(),
        Some("sk-first-profile")
    );
    assert!(first.delete(&account).await.unwrap());
}
