//! The manager (`McpManager`): servers started from their settings, watched while they run, a
//! server that dies marked failed with what it wrote, and started again when asked.

use super::{args, options, probe};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_mcp::{McpLaunch, McpManager, McpServerConfig, McpStatus};
use tollgate_test_support::wait::{eventually, eventually_some};

fn launch(config: McpServerConfig) -> McpLaunch {
    McpLaunch {
        config,
        blocked: None,
        oauth: None,
    }
}

/// Waits until `name` leaves `Connecting`, and gives its status then.
async fn settled(manager: &McpManager, name: &str) -> McpStatus {
    eventually_some(&format!("{name} settles"), || {
        manager
            .state(name)
            .map(|s| s.status)
            .filter(|s| *s != McpStatus::Connecting)
    })
    .await
}

#[tokio::test]
async fn a_server_that_dies_is_marked_failed_with_what_it_wrote_and_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let manager = McpManager::new(Arc::from(Vec::new()), None, None);
    manager.configure(vec![launch(probe("probe", &dir.path().join("m")))]);
    assert_eq!(settled(&manager, "probe").await, McpStatus::Ready);
    let first = manager.pid("probe").unwrap();
    assert!(manager
        .groups()
        .iter()
        .any(|g| g.name == "probe" && !g.tools.is_empty()));

    // The server dies in the middle of a call: the call fails, and the server is marked failed
    // with what it wrote to stderr.
    let (conn, _) = manager.connection("probe").unwrap();
    let call = conn
        .call(
            "crash",
            args(serde_json::json!({})),
            &options(Duration::from_secs(60), &CancellationToken::new()),
        )
        .await;
    assert!(call.is_err(), "a call the server died in: {call:?}");
    let McpStatus::Failed { error } = settled(&manager, "probe").await else {
        panic!("not failed")
    };
    assert!(error.contains("stopped unexpectedly"), "{error}");
    assert!(error.contains("crashing on purpose"), "{error}");
    assert!(manager.connection("probe").is_none());

    // Started again when asked: a new process, ready again.
    assert!(manager.restart("probe"));
    assert_eq!(settled(&manager, "probe").await, McpStatus::Ready);
    assert_ne!(manager.pid("probe").unwrap(), first);
    assert!(!manager.restart("nope"));

    // A server that cannot start says why, and the others go on.
    manager.upsert(launch(McpServerConfig::stdio(
        "broken",
        "no-such-program-tollgate",
        &[],
    )));
    let McpStatus::Failed { error } = settled(&manager, "broken").await else {
        panic!("a missing program started")
    };
    assert!(error.contains("not found"), "{error}");
    assert_eq!(settled(&manager, "probe").await, McpStatus::Ready);

    // Removed, it stops.
    let pid = manager.pid("probe").unwrap();
    assert!(manager.remove("probe"));
    eventually("the removed server's process ends", || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
    })
    .await;
    manager.shutdown().await;
}
