//! Signing in to remote MCP servers (SPEC §11) in the real window, against the official
//! TypeScript SDK's example server (`simpleStreamableHttp.js --oauth`, and `--oauth-strict`)
//! and its own authorization server. The system browser is a stand-in on the app's `PATH`
//! (`xdg-open`, what the opener runs) that follows the authorization server's redirect back to
//! the app, as a browser does after the user clicks "Allow".

use std::time::Duration;
use tollgate_e2e::node_servers::{free_port, oauth_example, StandInBrowser};
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::{completions, data_files_holding, keys, tool_results};
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const WAIT: Duration = Duration::from_secs(60);

/// The access token the keychain of the app on `data` holds for the server at `url`, signed in
/// with `issuer`.
async fn keychain_token(data: &std::path::Path, issuer: &str, url: &str) -> String {
    let keychain = tollgate_secrets::Keychain::for_data_dir(data);
    for issuer in [issuer.to_string(), format!("{issuer}/")] {
        let account = tollgate_mcp::oauth::account(&issuer, url);
        if let Some(json) = keychain.get(&account).await.unwrap() {
            let stored: serde_json::Value = serde_json::from_str(&json).unwrap();
            return stored["token_response"]["access_token"]
                .as_str()
                .unwrap()
                .to_string();
        }
    }
    panic!("no token for {url} from {issuer} in the keychain");
}

#[tokio::test]
async fn signing_in_to_a_remote_server_keeps_the_token_in_the_keychain_and_asks_again_when_it_is_gone(
) {
    let _seat = Seat::take().await.unwrap();
    let (mcp, auth) = (free_port(), free_port());
    let server = oauth_example(mcp, auth, false).await.unwrap();
    let browser = StandInBrowser::new().unwrap();
    let path = browser.path_env();
    let (s, mock) = Session::with_mock_provider(&[("PATH", &path)], "sk-e2e-oauth")
        .await
        .unwrap();
    let url = format!("http://localhost:{mcp}/mcp");
    s.import_mcp_json(&serde_json::json!({"mcpServers": {"demo": {"url": url}}}))
        .await
        .unwrap();
    let needed = s
        .wait_text("[data-server=demo] [data-role=sign-in-needed]", WAIT)
        .await
        .unwrap();
    assert_eq!(needed, "This server needs you to sign in.");
    s.screenshots("mcp-sign-in-needed").await.unwrap();

    // From the keyboard: Shift+Tab up from the Import button to "Sign in", then Enter.
    s.back_tab_to("sign-in").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let signed = s
        .wait_text("[data-server=demo] [data-role=signed-in]", WAIT)
        .await
        .unwrap();
    let issuer = format!("http://localhost:{auth}");
    assert!(
        signed.starts_with(&format!("Signed in with {issuer}")),
        "{signed}"
    );
    s.wait_text("[data-server=demo] [data-status=ready]", WAIT)
        .await
        .unwrap();
    let opened = browser.opened();
    assert_eq!(opened.len(), 1, "{opened:?}");
    assert!(
        opened[0].starts_with(&format!("{issuer}/authorize?"))
            && opened[0].contains("code_challenge_method=S256")
            && opened[0].contains("resource="),
        "{opened:?}"
    );
    s.screenshots("mcp-signed-in").await.unwrap();

    // The token is in the keychain and nowhere else: not in any file of the data folder (the
    // database, its journal, the log), not in the settings the window shows.
    let token = keychain_token(s.data_path(), &issuer, &url).await;
    assert_eq!(
        data_files_holding(s.data_path(), &token).unwrap(),
        Vec::<std::path::PathBuf>::new(),
        "the token is in a file of the data folder"
    );
    let page = s.client.source().await.unwrap();
    assert!(!page.contains(&token));

    // A tool call with the token succeeds.
    s.back_to_chat().await.unwrap();
    mock.push(openai::calls(
        "",
        &[("c1", "demo__greet", r#"{"name":"Ada"}"#)],
    ));
    mock.push(openai::text("I greeted Ada."));
    s.new_chat_and_send("Greet Ada").await.unwrap();
    s.active_approval().await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("I greeted Ada.", WAIT).await.unwrap();
    let results = tool_results(&completions(&mock)[1]);
    assert!(results[0].contains("Hello, Ada!"), "{results:?}");

    // The authorization server forgets every token (it restarts): the server asks to sign in
    // again, saying why.
    server.stop().await;
    let server = oauth_example(mcp, auth, false).await.unwrap();
    s.open_settings("MCP servers").await.unwrap();
    s.wait_text("[data-server=demo] [data-status=ready]", WAIT)
        .await
        .unwrap();
    s.tab_to("Restart").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    let expired = s
        .wait_text("[data-server=demo] [data-role=sign-in-needed]", WAIT)
        .await
        .unwrap();
    assert_eq!(
        expired,
        "Your sign-in to this server expired or was revoked."
    );
    s.screenshots("mcp-sign-in-expired").await.unwrap();

    // A second server on another issuer (strict about the resource its tokens are for) is not
    // sent the first one's token: it asks for its own sign-in, and gets one.
    let (mcp2, auth2) = (free_port(), free_port());
    let other = oauth_example(mcp2, auth2, true).await.unwrap();
    s.import_mcp_json(&serde_json::json!({"mcpServers": {"other": {"url": format!("http://localhost:{mcp2}/mcp")}}}))
        .await
        .unwrap();
    let needed = s
        .wait_text("[data-server=other] [data-role=sign-in-needed]", WAIT)
        .await
        .unwrap();
    assert_eq!(needed, "This server needs you to sign in.");
    s.click("[data-server=other] [data-role=sign-in]")
        .await
        .unwrap();
    let signed = s
        .wait_text("[data-server=other] [data-role=signed-in]", WAIT)
        .await
        .unwrap();
    assert!(
        signed.starts_with(&format!("Signed in with http://localhost:{auth2}")),
        "{signed}"
    );
    s.wait_text("[data-server=other] [data-status=ready]", WAIT)
        .await
        .unwrap();
    assert_ne!(
        keychain_token(
            s.data_path(),
            &format!("http://localhost:{auth2}"),
            &format!("http://localhost:{mcp2}/mcp")
        )
        .await,
        token
    );
    s.close().await;
    other.stop().await;
    server.stop().await;
}
