//! MCP servers in the real window: import the `mcpServers` JSON of another client, watch the
//! server start (a real `@modelcontextprotocol/server-everything` child process), see its tools,
//! turn it off and on again; an MCP Apps server (`@modelcontextprotocol/server-pdf`) whose tool
//! for its view is marked and kept from the model.

use fantoccini::Locator;
use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;

/// The entry script of an npm registry server installed in tests/mcp.
fn server_js(package: &str, script: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp/node_modules/@modelcontextprotocol")
        .join(package)
        .join(script);
    assert!(
        p.exists(),
        "run `npm ci` in tests/mcp (the test command does)"
    );
    p.display().to_string()
}

fn everything_js() -> String {
    server_js("server-everything", "dist/index.js")
}

/// Opens Settings → MCP servers.
async fn open_mcp_settings(s: &Session) {
    let c = &s.client;
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("button.sidebar-settings"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let tabs = c.find_all(Locator::Css("[role=tab]")).await.unwrap();
    let mut mcp_tab = None;
    for tab in tabs {
        if tab.text().await.unwrap() == "MCP servers" {
            mcp_tab = Some(tab);
        }
    }
    mcp_tab.expect("an MCP servers tab").click().await.unwrap();
    s.wait_text(".empty-note", Duration::from_secs(10))
        .await
        .unwrap();
}

/// Imports `json` (an `mcpServers` object) and waits until `server` is ready.
async fn import_ready(s: &Session, json: &str, server: &str) {
    let c = &s.client;
    c.find(Locator::Css(".mcp-import summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let area = c.find(Locator::Css(".mcp-import textarea")).await.unwrap();
    area.send_keys(json).await.unwrap();
    c.find(Locator::XPath(
        "//details[contains(@class,'mcp-import')]//button",
    ))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    let ready = c
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css(&format!(
            "[data-server={server}] [data-status=ready]"
        )))
        .await;
    if ready.is_err() {
        let text = s.body_text().await.unwrap_or_default();
        panic!("{server} never became ready; the page shows:\n{text}");
    }
}

/// An MCP Apps server keeps a tool for its view (F-95): its card lists the tool marked "for its
/// view only", opened from the keyboard, and the tool is not among the chats' tools.
#[tokio::test]
async fn a_tool_a_server_keeps_for_its_view_is_marked_on_its_card() {
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.expect("session");
    open_mcp_settings(&s).await;
    let json = serde_json::json!({"mcpServers": {
        "pdf": {"command": "node", "args": [server_js("server-pdf", "dist/index.js"), "--stdio"]}
    }})
    .to_string();
    import_ready(&s, &json, "pdf").await;
    // The tools list opens from the keyboard: focus its summary, Enter.
    let summary = s
        .client
        .find(Locator::Css("[data-server=pdf] .mcp-tools summary"))
        .await
        .unwrap();
    s.client
        .execute(
            "arguments[0].focus();",
            vec![serde_json::to_value(&summary).unwrap()],
        )
        .await
        .unwrap();
    summary.send_keys("\u{E007}").await.unwrap();
    let mark = s
        .wait_text(
            "[data-server=pdf] [data-tool=read_pdf_bytes] [data-role=view-only]",
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    assert_eq!(mark, "for its view only");
    let listed = s
        .client
        .find_all(Locator::Css(
            "[data-server=pdf] [data-tool=list_pdfs] [data-role=view-only]",
        ))
        .await
        .unwrap();
    assert!(listed.is_empty(), "a tool for the model is not marked");
    s.screenshot("mcp-view-only-tool").await.unwrap();
    s.close().await;
}

#[tokio::test]
async fn importing_an_mcp_server_starts_it_and_lists_its_tools() {
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.expect("session");
    let c = &s.client;
    open_mcp_settings(&s).await;
    s.screenshot("mcp-empty").await.unwrap();
    let json = serde_json::json!({"mcpServers": {
        "everything": {"command": "node", "args": [everything_js(), "stdio"]}
    }})
    .to_string();
    import_ready(&s, &json, "everything").await;
    c.find(Locator::Css("[data-server=everything] .mcp-tools summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let card = s
        .wait_text("[data-server=everything]", Duration::from_secs(5))
        .await
        .unwrap();
    assert!(card.contains("everything__echo"), "{card}");
    assert!(card.contains("read-only"), "{card}");
    s.screenshot("mcp-server-running").await.unwrap();

    // Turn it off: the state follows, and its tools leave the Tools tab.
    c.find(Locator::Css("[data-server=everything] input.switch"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(
            "[data-server=everything] [data-status=disabled]",
        ))
        .await
        .unwrap();
    s.close().await;
}

/// A remote server's OAuth client, entered from the keyboard (F-96): the secret typed into
/// its password field goes to the keychain of this data folder and nowhere else — not the
/// database, not the window — and the form opened again says one is stored, without it.
#[tokio::test]
async fn a_client_secret_typed_in_the_form_is_kept_in_the_keychain_only() {
    const SECRET: &str = "partner-secret-7f3a9c1e5b";
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.expect("session");
    let c = &s.client;
    open_mcp_settings(&s).await;
    let add = c
        .find(Locator::XPath("//button[normalize-space()='Add server']"))
        .await
        .unwrap();
    add.click().await.unwrap();
    let form = c.find(Locator::Css("form.mcp-form")).await.unwrap();
    form.find(Locator::Css("input"))
        .await
        .unwrap()
        .send_keys("partner")
        .await
        .unwrap();
    form.find(Locator::Css("select option[value=http]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    s.el("form.mcp-form input[placeholder='https://example.org/mcp']")
        .await
        .unwrap()
        .send_keys("http://127.0.0.1:9/mcp")
        .await
        .unwrap();
    s.el("[data-role=mcp-client-id]")
        .await
        .unwrap()
        .send_keys("partner-client")
        .await
        .unwrap();
    let secret = s.el("[data-role=mcp-client-secret]").await.unwrap();
    assert_eq!(
        secret.attr("type").await.unwrap().as_deref(),
        Some("password")
    );
    secret.send_keys(SECRET).await.unwrap();
    s.screenshot("mcp-client-secret-typed").await.unwrap();
    // Enter in the field saves the form.
    secret.send_keys("\u{E007}").await.unwrap();
    c.wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-server=partner]"))
        .await
        .unwrap();

    let keychain = tollgate_secrets::Keychain::for_data_dir(s.data_path());
    let stored = keychain
        .get("mcp-server-partner-client-secret")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(stored.contains(SECRET), "the secret is in the OS keychain");
    let db = s.database_bytes();
    assert!(
        !db.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
        "the client secret reached the database file"
    );

    // Opened again: the field is empty and says one is stored.
    c.find(Locator::XPath(
        "//*[@data-server='partner']//button[normalize-space()='Edit']",
    ))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    let again = s.el("[data-role=mcp-client-secret]").await.unwrap();
    assert_eq!(again.prop("value").await.unwrap().as_deref(), Some(""));
    assert_eq!(
        again.attr("placeholder").await.unwrap().as_deref(),
        Some("stored in the keychain")
    );
    assert!(!s.body_text().await.unwrap().contains(SECRET));
    s.screenshot("mcp-client-secret-stored").await.unwrap();
    s.close().await;
}
