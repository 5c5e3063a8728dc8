//! MCP Apps views (F-96) against a real server run as a child process
//! (tests/mcp/view-server.mjs, on the official TypeScript SDK): what a view is shown, and what
//! becomes of what it asks for. Judged by what the server did (its files), not by our records.

use super::mcp::{approve_next, call, open, registry_has, servers_dir, settled};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use tollgate_engine::service::Tollgate;
use tollgate_engine::ChatId;
use tollgate_mcp::{McpServerConfig, McpStatus};
use tollgate_protocol::{
    ApprovalRequest, AskReason, GuardMark, McpViewDocument, McpViewOutcome, RuleAction, RuleScope,
};

fn views_server(dir: &Path) -> McpServerConfig {
    let script = servers_dir().join("view-server.mjs").display().to_string();
    let mut c = McpServerConfig::stdio("views", "node", &[&script]);
    if let tollgate_mcp::McpTransport::Stdio { env, .. } = &mut c.transport {
        env.insert("VIEW_DIR".into(), dir.display().to_string());
        env.insert("VIEW_REPORT".into(), "http://127.0.0.1:47001".into());
    }
    c
}

/// The view server ready, a chat, and `show_view` called in it (allowed by the user): the
/// call's number.
async fn shown(app: &Arc<Tollgate>, dir: &Path) -> (ChatId, u64) {
    app.mcp_servers()
        .save_mcp_server(views_server(dir), None)
        .await
        .unwrap();
    assert_eq!(settled(app, "views").await, McpStatus::Ready);
    registry_has(app, "views__show_view", true).await;
    let chat = crate::common::new_chat(app).await;
    let exec = app.executor(chat).await.unwrap();
    let task = tokio::spawn(async move {
        exec.execute(
            call("views__show_view", json!({"label": "first"})),
            Default::default(),
            &tokio_util::sync::CancellationToken::new(),
        )
        .await
    });
    approve_next(app, chat).await;
    let result = task.await.unwrap();
    assert!(!result.is_error, "{}", result.content);
    (chat, result.seq)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The view's document is served once, under a policy of the domains it declared and nothing
/// else, with the call's input and the server's own result; after a restart with the server
/// off, it shows again from what was kept, without the tool being called.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_view_is_served_once_under_its_declared_domains_and_shows_again_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let app = open(&data).await;
    let (chat, seq) = shown(&app, dir.path()).await;
    let doc = app.mcp_views().open_view(chat, seq).await.unwrap();
    assert_eq!(doc.server, "views");
    assert_eq!(doc.tool, "show_view");
    assert_eq!(doc.tool_input, json!({"label": "first"}));
    let Some(McpViewOutcome::Result { result }) = doc.outcome.clone() else {
        panic!("the server's result: {:?}", doc.outcome);
    };
    assert_eq!(
        result["structuredContent"],
        json!({"label": "first", "shown": true})
    );
    assert!(
        doc.csp.contains("connect-src http://127.0.0.1:47001;"),
        "{}",
        doc.csp
    );
    assert!(doc.csp.contains("default-src 'none'"), "{}", doc.csp);
    assert!(doc.csp.contains("sandbox allow-scripts"), "{}", doc.csp);
    assert!(!doc.csp.contains("allow-same-origin"), "{}", doc.csp);
    assert_eq!(doc.domains, ["http://127.0.0.1:47001"]);
    let docs = app.view_documents();
    assert!(docs.waiting(&doc.url));
    let served = docs.take(&doc.url).expect("served once");
    assert!(served.html.contains("Attack view"));
    assert!(docs.take(&doc.url).is_none(), "a second load gets nothing");

    // The server off, the app restarted: the view shows from the record and the kept document.
    let mut off = views_server(dir.path());
    off.enabled = false;
    app.mcp_servers()
        .save_mcp_server(off, Some("views"))
        .await
        .unwrap();
    app.mcp_servers().manager().shutdown().await;
    drop(app);
    let app = open(&data).await;
    assert!(
        app.mcp_servers().manager().connection("views").is_none(),
        "the server stays off"
    );
    let again = app.mcp_views().open_view(chat, seq).await.unwrap();
    assert_eq!(again.outcome, Some(McpViewOutcome::Result { result }));
    assert!(app
        .view_documents()
        .take(&again.url)
        .is_some_and(|v| v.html.contains("Attack view")));
    // A call with no view, and a call that is not there, have none.
    assert!(app.mcp_views().open_view(chat, seq + 1).await.is_err());
    app.mcp_servers().manager().shutdown().await;
}

/// A view's `tools/call` meets the chat's gate: a tool on "ask always" waits for the user (and
/// the server sees nothing until then), its record says the view made it; a tool the server
/// keeps from views, or one of another server or of Tollgate, is refused without running; under
/// an "always allow" rule, the page's own arguments still hold the call for the user.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_views_call_goes_through_the_gate_and_reaches_only_its_own_servers_tools() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(&dir.path().join("data")).await;
    let (chat, seq) = shown(&app, dir.path()).await;
    let nudges = dir.path().join("nudges.jsonl");

    // "nudge" is the view's alone and asks every time.
    let asking = {
        let app = Arc::clone(&app);
        tokio::spawn(async move {
            app.mcp_views()
                .view_call_tool(chat, seq, "nudge".into(), json!({"note": "one"}))
                .await
        })
    };
    let card =
        crate::common::eventually_some("the view's call asks", || app.asks().pending(chat).pop())
            .await;
    assert_eq!(card.tool, "views__nudge");
    assert!(lines(&nudges).is_empty(), "nothing ran before the answer");
    approve_next(&app, chat).await;
    let answer = asking.await.unwrap().unwrap();
    assert_eq!(
        answer["structuredContent"],
        json!({"nudged": "one"}),
        "{answer}"
    );
    assert_eq!(lines(&nudges), [json!({"note": "one"})]);
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    let made = calls
        .iter()
        .find(|c| c.tool.as_deref() == Some("views__nudge"))
        .unwrap();
    assert_eq!(made.view_of, Some(seq), "the record names the view");

    // Refused without running: the model's own tool, a built-in tool, another server's.
    for name in ["wipe", "read_file", "everything__echo", "../wipe"] {
        let refused = app
            .mcp_views()
            .view_call_tool(chat, seq, name.into(), json!({}))
            .await
            .unwrap();
        assert_eq!(refused["isError"], json!(true), "{name}: {refused}");
        assert!(
            refused["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("may not call"),
            "{name}: {refused}"
        );
    }
    assert!(!dir.path().join("wipes.jsonl").exists(), "wipe never ran");
    assert!(app.asks().pending(chat).is_empty());

    // An "always allow" rule: the page chose the arguments, so the gate holds the call.
    app.gate()
        .rules()
        .add(
            "views__nudge",
            None,
            RuleAction::Allow,
            RuleScope::Chat { chat },
        )
        .await
        .unwrap();
    let held = {
        let app = Arc::clone(&app);
        tokio::spawn(async move {
            app.mcp_views()
                .view_call_tool(chat, seq, "nudge".into(), json!({"note": "two"}))
                .await
        })
    };
    let card =
        crate::common::eventually_some("the gate holds it", || app.asks().pending(chat).pop())
            .await;
    let ApprovalRequest::Execution { reason, .. } = &card.request else {
        panic!("{card:?}")
    };
    assert!(matches!(reason, AskReason::Exposed { .. }), "{reason:?}");
    assert_eq!(lines(&nudges).len(), 1, "held before it ran");
    approve_next(&app, chat).await;
    held.await.unwrap().unwrap();
    assert_eq!(lines(&nudges).len(), 2);
    let calls = app.store().calls().chat_calls(chat).await.unwrap();
    assert_eq!(calls.last().unwrap().guard, GuardMark::Escalated);

    // Views off for the server: nothing shows and nothing is called.
    let mut off = views_server(dir.path());
    off.views = false;
    app.mcp_servers()
        .save_mcp_server(off, Some("views"))
        .await
        .unwrap();
    assert!(app.mcp_views().open_view(chat, seq).await.is_err());
    assert!(app
        .mcp_views()
        .view_call_tool(chat, seq, "nudge".into(), json!({"note": "three"}))
        .await
        .is_err());
    assert_eq!(lines(&nudges).len(), 2);
    app.mcp_servers().manager().shutdown().await;
}

/// Allows the next call that asks in `chat` once, if one asks now; its number.
async fn allow_next(app: &Tollgate, chat: ChatId) -> Option<u64> {
    let p = app.asks().pending(chat).pop()?;
    app.asks()
        .answer_approval(
            chat,
            &p.id,
            tollgate_protocol::Decision::Execution(tollgate_protocol::ExecutionDecision::AllowOnce),
        )
        .await
        .unwrap();
    Some(p.seq)
}

/// Approves the next call that asks in `chat`; its number.
async fn approve_seq(app: &Tollgate, chat: ChatId) -> u64 {
    let deadline = crate::common::deadline();
    loop {
        if let Some(seq) = allow_next(app, chat).await {
            return seq;
        }
        assert!(std::time::Instant::now() < deadline, "nothing asked");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Call `seq`'s view, once the call has started: while it is only asked for, it has none.
async fn view_once_started(app: &Tollgate, chat: ChatId, seq: u64) -> McpViewDocument {
    let deadline = crate::common::deadline();
    loop {
        match app.mcp_views().open_view(chat, seq).await {
            Ok(doc) => return doc,
            Err(e) => assert!(
                std::time::Instant::now() < deadline,
                "the view never showed: {e}"
            ),
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A call's view shows from the moment the gate let the call run, with its input and no end;
/// the end is told when it comes: a call stopped by the user is cancelled for its view (which
/// stays), and a call its own view released has its result.
#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_calls_view_shows_while_it_runs_and_is_told_how_it_ended() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(&dir.path().join("data")).await;
    app.mcp_servers()
        .save_mcp_server(views_server(dir.path()), None)
        .await
        .unwrap();
    assert_eq!(settled(&app, "views").await, McpStatus::Ready);
    registry_has(&app, "views__hold_view", true).await;
    let chat = crate::common::new_chat(&app).await;
    let hold = |label: &str, stop: &tokio_util::sync::CancellationToken| {
        let (app, stop, label) = (Arc::clone(&app), stop.clone(), label.to_string());
        tokio::spawn(async move {
            app.executor(chat)
                .await
                .unwrap()
                .execute(
                    call("views__hold_view", json!({ "label": label })),
                    Default::default(),
                    &stop,
                )
                .await
        })
    };

    // Stopped by the user while it runs: the view is told it was cancelled, and why.
    let stop = tokio_util::sync::CancellationToken::new();
    let stopped = hold("stopped", &stop);
    let seq = approve_seq(&app, chat).await;
    let doc = view_once_started(&app, chat, seq).await;
    assert_eq!(doc.tool_input, json!({"label": "stopped"}));
    assert_eq!(doc.outcome, None, "it still runs");
    assert_eq!(app.mcp_views().view_outcome(chat, seq).await.unwrap(), None);
    stop.cancel();
    assert!(stopped.await.unwrap().is_error);
    match app.mcp_views().view_outcome(chat, seq).await.unwrap() {
        Some(McpViewOutcome::Cancelled { reason }) => {
            assert!(reason.contains("stopped by the user"), "{reason}");
        }
        other => panic!("not cancelled: {other:?}"),
    }

    // Released by its own view (a call through the gate like any of a view's): the result.
    let held = hold("held", &tokio_util::sync::CancellationToken::new());
    let seq = approve_seq(&app, chat).await;
    let doc = view_once_started(&app, chat, seq).await;
    assert_eq!(doc.outcome, None, "it still runs");
    let releasing = {
        let app = Arc::clone(&app);
        tokio::spawn(async move {
            app.mcp_views()
                .view_call_tool(chat, seq, "release".into(), json!({}))
                .await
        })
    };
    let deadline = crate::common::deadline();
    while !releasing.is_finished() {
        allow_next(&app, chat).await;
        assert!(
            std::time::Instant::now() < deadline,
            "the release never ran"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let released = releasing.await.unwrap().unwrap();
    assert_eq!(
        released["content"][0]["text"],
        json!("released"),
        "{released}"
    );
    let result = held.await.unwrap();
    assert!(!result.is_error, "{}", result.content);
    match app.mcp_views().view_outcome(chat, seq).await.unwrap() {
        Some(McpViewOutcome::Result { result }) => assert_eq!(
            result["structuredContent"],
            json!({"label": "held", "released": true})
        ),
        other => panic!("no result: {other:?}"),
    }
    app.mcp_servers().manager().shutdown().await;
}
