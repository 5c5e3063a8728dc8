//! The installed package (F-28): `.ci/install-test.sh` installs the `.deb` with apt and runs
//! this against `/usr/bin/tollgate` (`TOLLGATE_E2E_APP`), then removes it. Started the way a
//! desktop entry starts it — the session's minimal `PATH` — it completes a Demo turn through the
//! gate, and an MCP server whose command only the user's login shell can find gets connected.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::keys;
use tollgate_e2e::webdriver::Session;

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test]
#[ignore = "needs the installed package: run .ci/install-test.sh"]
async fn the_installed_app_runs_a_demo_turn_and_finds_tools_on_the_login_path() {
    let _seat = Seat::take().await.unwrap();
    let app =
        std::env::var("TOLLGATE_E2E_APP").expect("TOLLGATE_E2E_APP names the installed binary");
    assert!(
        app.starts_with("/usr/"),
        "{app} is not the installed binary"
    );

    // A home whose login shell adds ~/tools to PATH, where a command starts the probe MCP server.
    let home = tempfile::tempdir().unwrap();
    let tools = home.path().join("tools");
    std::fs::create_dir(&tools).unwrap();
    let probe = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/probe-server.mjs");
    let server = tools.join("tollgate-probe-server");
    std::fs::write(
        &server,
        format!("#!/bin/sh\nexec node {} \"$@\"\n", probe.display()),
    )
    .unwrap();
    std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        home.path().join(".bash_profile"),
        "export PATH=\"$HOME/tools:$PATH\"\n",
    )
    .unwrap();
    let home_dir = home.path().display().to_string();
    let s = Session::start(&[
        ("PATH", "/usr/bin:/bin"),
        ("SHELL", "/bin/bash"),
        ("HOME", &home_dir),
    ])
    .await
    .unwrap();

    // A Demo turn: the model calls `calculate` through the gate and quotes the result.
    s.new_chat().await.unwrap();
    s.send("what is 6 * 7?").await.unwrap();
    s.wait_for_text("→ 42", WAIT).await.unwrap();
    let card = s
        .el(".tool-card .tool-card-name")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(card, "calculate");
    s.screenshot("installed-demo-turn").await.unwrap();

    // The MCP server's command is on the login shell's PATH only.
    let json = serde_json::json!({"mcpServers": {"probe": {"command": "tollgate-probe-server"}}});
    let offers = s.import_mcp_servers(&json, "probe").await.unwrap();
    assert!(offers.starts_with("Resources: 2 "), "{offers}");
    s.screenshot("installed-mcp-on-login-path").await.unwrap();
    s.press(keys::ESCAPE).await.unwrap();

    // The log went to the data folder's log file.
    let log = std::fs::read_to_string(s.data_path().join("logs/tollgate.log")).unwrap();
    assert!(log.contains("data folder:"), "{log}");
    let added = format!("PATH: added from the login shell: {}", tools.display());
    assert!(log.contains(&added), "{log}");
    s.close().await;
}
