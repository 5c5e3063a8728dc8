//! The sandbox of shell commands (F-46) as a user meets it, in the real window against the mock
//! model: the approval card says which sandbox a command will run under; an approved command
//! that reaches for `~/.ssh` and writes outside the workspace is blocked, the tool card says so
//! and the model is told in one line; turning the sandbox off in the tools popover asks first —
//! a stray Enter keeps it — and then the same command reaches out. A D-Bus call to the session
//! bus (the keyring's) is blocked and explained on the card. A blocked call runs again without
//! the sandbox only after the card showed exactly what will run, where, and what the blocked run
//! changed — all from the keyboard.

use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::steps::{completions, keys, tool_results};
use tollgate_e2e::webdriver::Session;
use tollgate_mock_llm::openai;

const KEY: &str = "sk-e2e-sandbox-4b1d-never-in-the-db";
const WAIT: Duration = Duration::from_secs(60);
const TOOLS: &str = "button[title=\"Tool groups in this chat\"]";

/// A temp folder a sandboxed command sees where it is: not under `/tmp` or `/run`, which are
/// private inside the sandbox (the target folder, or `/var/tmp` for a checkout under `/tmp`).
fn visible_temp() -> tempfile::TempDir {
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let base = if target.starts_with("/tmp") || target.starts_with("/run") {
        std::path::Path::new("/var/tmp")
    } else {
        target
    };
    tempfile::tempdir_in(base).unwrap()
}

/// The sandbox line of the active approval card.
async fn approval_sandbox_line(s: &Session) -> String {
    s.active_approval()
        .await
        .unwrap()
        .find(fantoccini::Locator::Css("[data-role=\"sandbox-approval\"]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_approved_command_is_held_by_the_sandbox_and_the_card_says_what_it_blocked() {
    let _seat = Seat::take().await.unwrap();
    // A home of our own with a planted key: the app (and its commands) run with it as $HOME.
    // Not under /tmp: commands in the sandbox have a private one.
    let home = visible_temp();
    let home_path = home.path().canonicalize().unwrap();
    std::fs::create_dir(home_path.join(".ssh")).unwrap();
    std::fs::write(home_path.join(".ssh/id_rsa"), "PLANTED PRIVATE KEY").unwrap();
    let home_dir = home_path.display().to_string();
    let (s, mock) = Session::with_mock_provider(&[("HOME", &home_dir)], KEY)
        .await
        .unwrap();
    let workspace = visible_temp();
    let command = "cat ~/.ssh/id_rsa; touch ~/outside; dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames; echo ok > inside.txt";
    let attack = serde_json::json!({ "command": command }).to_string();
    let attack = attack.as_str();
    mock.push(openai::calls("", &[("call_1", "run_command", attack)]));
    mock.push(openai::text("The sandbox stopped two of those."));
    s.new_chat().await.unwrap();
    s.set_workspace(workspace.path()).await.unwrap();
    s.send("set things up").await.unwrap();

    // The card says where the command will run before anyone allows it: level, network and
    // environment.
    let line = approval_sandbox_line(&s).await;
    assert!(
        line.starts_with("Will run in the sandbox: workspace only, network off"),
        "{line}"
    );
    assert!(
        line.ends_with("A clean environment: no session bus, display, agent or secret variables; its own processes, /tmp and /run."),
        "{line}"
    );
    s.screenshot("sandbox-approval").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("The sandbox stopped two of those.", WAIT)
        .await
        .unwrap();

    // The tool card shows what was blocked; the model read it in one line; nothing leaked.
    let blocked = s
        .el(".tool-card:not(.tool-card--compact) [data-role=\"sandbox-blocked\"]")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(blocked.starts_with("Blocked by the sandbox:"), "{blocked}");
    assert!(
        blocked.contains(&format!(
            "reading a protected folder ({home_dir}/.ssh): {home_dir}/.ssh/id_rsa"
        )),
        "{blocked}"
    );
    assert!(
        blocked.contains(&format!(
            "writing outside the workspace: {home_dir}/outside"
        )),
        "{blocked}"
    );
    assert!(
        blocked.contains(
            "reaching the session bus (D-Bus) and the services on it, the keyring among them"
        ),
        "{blocked}"
    );
    let results = tool_results(&completions(&mock)[1]);
    assert!(
        results[0].contains("Blocked by the sandbox: reading a protected folder"),
        "{results:?}"
    );
    assert!(!results[0].contains("PLANTED PRIVATE KEY"), "{results:?}");
    assert!(!home_path.join("outside").exists());
    let inside = workspace.path().join("inside.txt");
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), "ok\n");
    s.screenshots("sandbox-blocked-card").await.unwrap();

    // One explicit rerun, from the keyboard: the card first shows exactly what will run and
    // where, with the focus on Cancel (Escape closes it); then the same command runs with full
    // access, and the model reads the new result.
    mock.push(openai::text("It ran without the sandbox."));
    s.el("[data-role=\"sandbox-rerun\"]").await.unwrap();
    s.back_tab_to("Run again without the sandbox")
        .await
        .unwrap();
    s.press(keys::ENTER).await.unwrap();
    let shown = s
        .el("[data-role=\"sandbox-rerun-command\"]")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(shown, command);
    let place = s
        .el("[data-role=\"sandbox-rerun-workspace\"]")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        place,
        workspace
            .path()
            .canonicalize()
            .unwrap()
            .display()
            .to_string()
    );
    let changed = s
        .el("[data-role=\"sandbox-rerun-changed\"]")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(changed.contains("inside.txt"), "{changed}");
    let focused = s.focused().await.unwrap();
    assert!(focused.ends_with("|Cancel"), "{focused}");
    s.screenshots("sandbox-rerun-confirm").await.unwrap();
    s.press(keys::ESCAPE).await.unwrap();
    s.wait_gone(
        "[data-role=\"sandbox-rerun-confirm\"]",
        "the rerun question",
    )
    .await
    .unwrap();
    assert!(!home_path.join("outside").exists(), "Escape ran nothing");
    s.back_tab_to("Run again without the sandbox")
        .await
        .unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.el("[data-role=\"sandbox-rerun-confirm\"]").await.unwrap();
    s.back_tab_to("Run without the sandbox").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("It ran without the sandbox.", WAIT)
        .await
        .unwrap();
    assert!(home_path.join("outside").exists());
    let text = s.body_text().await.unwrap();
    assert!(
        text.contains("Run c1 again without the sandbox: cat ~/.ssh/id_rsa"),
        "{text}"
    );
    assert!(
        text.contains("Ran without the sandbox (full access)"),
        "{text}"
    );
    let results = tool_results(&completions(&mock)[2]);
    assert!(results[1].contains("PLANTED PRIVATE KEY"), "{results:?}");
    s.screenshot("sandbox-rerun").await.unwrap();

    // Off asks first. Read-only is chosen at once; from it, the arrow key moves to "Off": the
    // question takes the focus on Cancel, and Enter there keeps the sandbox.
    s.click(TOOLS).await.unwrap();
    s.el("[data-role=\"sandbox-settings\"]").await.unwrap();
    s.click("input[type=radio][value=\"readOnly\"]")
        .await
        .unwrap();
    s.press(keys::ARROW_DOWN).await.unwrap();
    s.el("[data-role=\"sandbox-confirm-off\"]").await.unwrap();
    let focused = s.focused().await.unwrap();
    assert!(focused.ends_with("|Cancel"), "{focused}");
    s.screenshots("sandbox-confirm-off").await.unwrap();
    s.press(keys::ENTER).await.unwrap();
    s.wait_gone("[data-role=\"sandbox-confirm-off\"]", "the question")
        .await
        .unwrap();
    assert!(s
        .el("input[type=radio][value=\"readOnly\"]")
        .await
        .unwrap()
        .prop("checked")
        .await
        .unwrap()
        .is_some_and(|v| v == "true"));

    // Confirmed from the keyboard: the chat's commands run with full access.
    s.click("input[type=radio][value=\"off\"]").await.unwrap();
    s.el("[data-role=\"sandbox-confirm-off\"]").await.unwrap();
    s.back_tab_to("Turn the sandbox off").await.unwrap();
    s.press(keys::SPACE).await.unwrap();
    s.wait_gone("[data-role=\"sandbox-confirm-off\"]", "the question")
        .await
        .unwrap();
    s.press(keys::ESCAPE).await.unwrap();
    mock.push(openai::calls(
        "",
        &[(
            "call_2",
            "run_command",
            r#"{"command": "touch ~/elsewhere"}"#,
        )],
    ));
    mock.push(openai::text("Done without the sandbox."));
    s.send("again, without the sandbox").await.unwrap();
    let line = approval_sandbox_line(&s).await;
    assert_eq!(line, "Will run without the sandbox (full access)");
    s.press(keys::ENTER).await.unwrap();
    s.wait_for_text("Done without the sandbox.", WAIT)
        .await
        .unwrap();
    assert!(home_path.join("elsewhere").exists());
    s.close().await;
}
