//! MCP servers in the real window: import the `mcpServers` JSON of another client, watch the
//! server start (a real `@modelcontextprotocol/server-everything` child process), see its tools,
//! turn it off and on again.

use fantoccini::Locator;
use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;

fn everything_js() -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        p.exists(),
        "run `npm ci` in tests/mcp (the test command does)"
    );
    p.display().to_string()
}

#[tokio::test]
async fn importing_an_mcp_server_starts_it_and_lists_its_tools() {
    let _seat = Seat::take().await.unwrap();
    let s = Session::start(&[]).await.expect("session");
    let c = &s.client;
    c.wait()
        .at_most(Duration::from_secs(30))
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
    s.screenshot("mcp-empty").await.unwrap();

    c.find(Locator::Css(".mcp-import summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let json = serde_json::json!({"mcpServers": {
        "everything": {"command": "node", "args": [everything_js(), "stdio"]}
    }})
    .to_string();
    let area = c.find(Locator::Css(".mcp-import textarea")).await.unwrap();
    area.send_keys(&json).await.unwrap();
    let import = c
        .find(Locator::XPath(
            "//details[contains(@class,'mcp-import')]//button",
        ))
        .await
        .unwrap();
    import.click().await.unwrap();
    let ready = c
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("[data-server=everything] [data-status=ready]"))
        .await;
    if ready.is_err() {
        let text = c
            .find(Locator::Css("body"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        panic!("the server never became ready; the page shows:\n{text}");
    }
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
