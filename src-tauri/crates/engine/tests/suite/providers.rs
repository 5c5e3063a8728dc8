//! Provider configuration: keys go to the real keychain and never into the database file; with no
//! provider configured the Demo answers; a configured provider is used with its key.

use tollgate_engine::Store;
use tollgate_mock_llm::{openai, MockLlm};
use tollgate_protocol::ProviderKind;
use tollgate_providers::config::Providers;
use tollgate_secrets::Keychain;
use tollgate_store::ProviderInput;

#[tokio::test]
#[ignore = "needs a Secret Service (the OS keychain): run .ci/test.sh (--include-ignored)"]
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
            options: Default::default(),
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
    let req = tollgate_providers::ChatRequest {
        model,
        system: String::new(),
        messages: vec![tollgate_providers::ChatMessage::User {
            content: "x".into(),
            images: Vec::new(),
        }],
        tools: vec![],
        max_tokens: 10,
        temperature: None,
        ..Default::default()
    };
    p.complete(
        &req.into(),
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
            options: Default::default(),
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
            options: Default::default(),
        })
        .await;
    assert!(bad.is_err());
}

#[tokio::test]
async fn a_running_local_server_is_found_with_its_models() {
    use tollgate_providers::local::{detect, Candidate};
    let mock = MockLlm::start().await.unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let found = detect(&[
        Candidate::new("LM Studio", &nowhere),
        Candidate::new("Ollama", &format!("{}/v1", mock.url())),
    ])
    .await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].name, "Ollama");
    assert_eq!(found[0].base_url, format!("{}/v1", mock.url()));
    assert_eq!(found[0].models, ["mock-large", "mock-small"]);
}

#[tokio::test]
async fn edited_options_are_stored_and_shape_the_next_request() {
    use tollgate_protocol::{ProviderOptions, RequestStyle};
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let providers = Providers::new(
        store.clone(),
        Keychain::new(format!("app.tollgate.test.options.{}", std::process::id())),
    );
    let mock = MockLlm::start().await.unwrap();
    let input = ProviderInput {
        kind: ProviderKind::OpenAi,
        name: "Proxy".into(),
        base_url: format!("{}/v1", mock.url()),
        default_model: "my-finetune".into(),
        tool_calling: Default::default(),
        options: Default::default(),
    };
    let cfg = providers.add(input.clone()).await.unwrap();
    let edited = providers
        .update(
            cfg.id,
            ProviderInput {
                name: "  ".into(),
                options: ProviderOptions {
                    request_style: RequestStyle::Reasoning,
                    thinking_budget: None,
                },
                ..input.clone()
            },
        )
        .await
        .unwrap();
    assert_eq!(edited.options.request_style, RequestStyle::Reasoning);
    assert_eq!(
        edited.name, edited.base_url,
        "a blank name becomes the address"
    );
    // Read back from the file, as after a restart.
    drop(providers);
    let reopened = Store::open_in(dir.path()).unwrap();
    let cfg = reopened.provider(cfg.id).await.unwrap().unwrap();
    assert_eq!(cfg.options.request_style, RequestStyle::Reasoning);
    let providers = Providers::new(
        reopened,
        Keychain::new(format!("app.tollgate.test.options.{}", std::process::id())),
    );
    let provider = providers.build(&cfg).await.unwrap();
    mock.push(openai::text("ok"));
    let request = tollgate_providers::ChatRequest {
        model: cfg.default_model.clone(),
        max_tokens: 300,
        temperature: Some(0.5),
        ..Default::default()
    };
    provider
        .complete(&request.into(), &mut |_| {}, &Default::default())
        .await
        .unwrap();
    let body = &mock.bodies()[0];
    assert_eq!(body["max_completion_tokens"], 300);
    assert!(body.get("max_tokens").is_none() && body.get("temperature").is_none());
    let bad = providers
        .update(
            cfg.id,
            ProviderInput {
                base_url: "file:///etc".into(),
                ..input
            },
        )
        .await;
    assert!(bad.is_err(), "an edit is checked like an add");
}
