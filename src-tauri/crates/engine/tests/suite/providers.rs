//! Provider configuration: keys go to the real keychain and never into the database file; with no
//! provider configured the Demo answers; a configured provider is used with its key.

use tollgate_engine::protocol::ProviderKind;
use tollgate_engine::providers::config::Providers;
use tollgate_engine::secrets::Keychain;
use tollgate_engine::store::ProviderInput;
use tollgate_engine::Store;
use tollgate_mock_llm::{openai, MockLlm};

#[tokio::test]
async fn keys_live_in_the_keychain_and_nowhere_in_the_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let providers = Providers::new(
        store.clone(),
        Keychain::new(format!(
            "app.tollgate.test.providers.{}",
            std::process::id()
        )),
    );

    // No provider: the Demo answers.
    let (p, model) = providers.resolve(None).await.unwrap();
    assert_eq!(p.kind(), ProviderKind::Demo);
    assert_eq!(model, "tollgate-demo");

    let mock = MockLlm::start().await.unwrap();
    let cfg = providers
        .add(ProviderInput {
            kind: ProviderKind::OpenAi,
            name: "Local".into(),
            base_url: format!("{}/v1", mock.url()),
            default_model: "mock-large".into(),
            tool_calling: Default::default(),
        })
        .await
        .unwrap();
    let secret = "sk-live-THIS-MUST-NOT-LEAK-1234567890";
    providers.save_key(cfg.id, secret).await.unwrap();
    assert!(store.provider(cfg.id).await.unwrap().unwrap().has_key);

    // The configured provider is used, with the key from the keychain.
    mock.push(openai::text("hi"));
    let (p, model) = providers.resolve(None).await.unwrap();
    assert_eq!(
        (p.kind(), model.as_str()),
        (ProviderKind::OpenAi, "mock-large")
    );
    let req = tollgate_engine::providers::ChatRequest {
        model,
        system: String::new(),
        messages: vec![tollgate_engine::providers::ChatMessage::User {
            content: "x".into(),
        }],
        tools: vec![],
        max_tokens: 10,
        temperature: None,
    };
    p.complete(
        &req,
        &mut |_| {},
        &tokio_util::sync::CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(
        mock.requests()[0].header("authorization"),
        Some(format!("Bearer {secret}").as_str())
    );

    // Nowhere in the database, its WAL, or its shared memory.
    store.flush().await.unwrap();
    drop(store);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the key leaked into a database file"
        );
    }

    // Removing the provider removes its key.
    assert!(providers.remove(cfg.id).await.unwrap());
    let (p, _) = providers.resolve(None).await.unwrap();
    assert_eq!(p.kind(), ProviderKind::Demo);
}

#[tokio::test]
async fn an_anthropic_provider_without_a_key_says_where_to_add_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let providers = Providers::new(
        store,
        Keychain::new(format!("app.tollgate.test.nokey.{}", std::process::id())),
    );
    providers
        .add(ProviderInput {
            kind: ProviderKind::Anthropic,
            name: "Claude".into(),
            base_url: String::new(),
            default_model: "claude-x".into(),
            tool_calling: Default::default(),
        })
        .await
        .unwrap();
    let err = providers.resolve(None).await.err().unwrap().to_string();
    assert!(
        err.contains("\"Claude\" has no API key yet") && err.contains("Settings"),
        "{err}"
    );
    let bad = providers
        .add(ProviderInput {
            kind: ProviderKind::OpenAi,
            name: "x".into(),
            base_url: "ftp://x".into(),
            default_model: String::new(),
            tool_calling: Default::default(),
        })
        .await;
    assert!(bad.is_err());
}
