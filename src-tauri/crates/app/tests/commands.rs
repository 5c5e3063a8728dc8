//! The command layer through Tauri's IPC (mock runtime): the argument names and JSON shapes the
//! UI sends reach the engine, and failures come back as `{ kind, message }`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use serde_json::{json, Value};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, INVOKE_KEY};
use tauri::webview::InvokeRequest;

type Window = tauri::WebviewWindow<tauri::test::MockRuntime>;

fn invoke(webview: &Window, cmd: &str, body: Value) -> Result<Value, Value> {
    invoke_from(webview, "tauri://localhost", cmd, body)
}

fn invoke_from(webview: &Window, origin: &str, cmd: &str, body: Value) -> Result<Value, Value> {
    get_ipc_response(
        webview,
        InvokeRequest {
            cmd: cmd.into(),
            callback: tauri::ipc::CallbackFn(0),
            error: tauri::ipc::CallbackFn(1),
            url: origin.parse().unwrap(),
            body: tauri::ipc::InvokeBody::Json(body),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|b| b.deserialize::<Value>().unwrap())
}

#[test]
fn commands_reach_the_engine_with_the_uis_argument_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let app = mock_builder()
        .invoke_handler(tollgate_app::commands::handler())
        .build(mock_context(noop_assets()))
        .unwrap();
    tollgate_app::manage_state(app.handle(), dir.path(), tollgate_turn::start_turn).unwrap();
    let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();

    let chat = invoke(&webview, "create_chat", json!({"chat": {"title": "First"}})).unwrap();
    let id = chat["id"].as_i64().unwrap();
    let chats = invoke(&webview, "list_chats", json!({"after": null, "limit": 100})).unwrap();
    assert_eq!(chats[0]["title"], "First");
    // The next page starts after the last row the UI has.
    let after = json!({"updatedAt": chats[0]["updatedAt"], "id": id});
    let rest = invoke(
        &webview,
        "list_chats",
        json!({"after": after, "limit": 100}),
    )
    .unwrap();
    assert_eq!(rest, json!([]));
    let one = invoke(&webview, "get_chat", json!({"chat": id})).unwrap();
    assert_eq!(one["title"], "First");
    invoke(
        &webview,
        "rename_chat",
        json!({"chat": id, "title": "  Renamed  "}),
    )
    .unwrap();
    assert_eq!(
        invoke(&webview, "list_chats", json!({"after": null, "limit": 1})).unwrap()[0]["title"],
        "Renamed"
    );

    let groups = invoke(&webview, "chat_tool_groups", json!({"chat": id})).unwrap();
    let names: Vec<&str> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["vars", "basic", "chat", "files", "shell", "web"]);
    invoke(
        &webview,
        "set_chat_group_enabled",
        json!({"chat": id, "group": "basic", "enabled": false}),
    )
    .unwrap();
    let groups = invoke(&webview, "chat_tool_groups", json!({"chat": id})).unwrap();
    assert_eq!(groups[1]["enabled"], false);
    assert_eq!(
        invoke(&webview, "list_tool_groups", json!({})).unwrap()[1]["enabled"],
        true,
        "app-wide view unchanged"
    );

    // An override changes the effective policy; the tool's own default stays visible.
    let mut tools = invoke(&webview, "get_settings", json!({})).unwrap()["tools"].clone();
    tools["tools"]["calculate"] = json!({"executionPolicy": "deny"});
    invoke(&webview, "set_tool_settings", json!({"settings": tools})).unwrap();
    let basic = &invoke(&webview, "list_tool_groups", json!({})).unwrap()[1];
    let calc = basic["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "calculate")
        .unwrap()
        .clone();
    assert_eq!(
        (
            calc["executionPolicy"].as_str(),
            calc["defaultExecutionPolicy"].as_str()
        ),
        (Some("deny"), Some("auto"))
    );

    let settings = invoke(&webview, "get_settings", json!({})).unwrap();
    assert_eq!(settings["app"]["theme"], "system");
    assert_eq!(settings["tools"]["defaultOutputLimit"], 8000);
    let mut app_settings = settings["app"].clone();
    app_settings["theme"] = json!("dark");
    invoke(
        &webview,
        "set_app_settings",
        json!({"settings": app_settings}),
    )
    .unwrap();
    assert_eq!(
        invoke(&webview, "get_settings", json!({})).unwrap()["app"]["theme"],
        "dark"
    );

    let err = invoke(&webview, "answer_approval", json!({"chat": id, "id": "0123", "decision": {"kind": "execution", "decision": {"type": "allowOnce"}}})).unwrap_err();
    assert_eq!(
        err,
        json!({"kind": "notFound", "message": "no approval with id 0123 is waiting", "missing": null, "invalid": null})
    );
    // The provenance gate's commands, in the shapes the UI sends (F-82, F-85).
    let exposure = invoke(&webview, "chat_exposure", json!({"chat": id})).unwrap();
    assert_eq!(exposure["untrustedCount"], 0, "{exposure}");
    assert_eq!(exposure["guard"], true, "{exposure}");
    invoke(
        &webview,
        "set_ways_out_off",
        json!({"chat": id, "off": true}),
    )
    .unwrap();
    let exposure = invoke(&webview, "chat_exposure", json!({"chat": id})).unwrap();
    assert_eq!(exposure["waysOutOff"], true, "{exposure}");
    invoke(
        &webview,
        "endorse_source",
        json!({"chat": id, "source": {"type": "host", "host": "docs.rs"}}),
    )
    .unwrap();
    invoke(
        &webview,
        "unendorse_source",
        json!({"chat": id, "source": {"type": "host", "host": "docs.rs"}}),
    )
    .unwrap();
    let written = invoke(&webview, "written_files", json!({})).unwrap();
    assert_eq!(written, json!([]), "{written}");
    invoke(
        &webview,
        "trust_written_file",
        json!({"workspace": "/w", "path": "a.md"}),
    )
    .unwrap();
    let figures = invoke(&webview, "autonomy", json!({"chat": null})).unwrap();
    assert_eq!(figures["consequential"], 0, "{figures}");
    let coverage = invoke(
        &webview,
        "rule_coverage",
        json!({"tool": "run_command", "pattern": "git status", "scope": {"type": "chat", "chat": id}}),
    )
    .unwrap();
    assert_eq!(coverage["examined"], 0, "{coverage}");
    let err = invoke(
        &webview,
        "rule_coverage",
        json!({"tool": "no_such_tool", "pattern": null, "scope": {"type": "global"}}),
    )
    .unwrap_err();
    assert_eq!(
        err["missing"],
        json!({"type": "tool", "tool": "no_such_tool"}),
        "{err}"
    );
    let err = invoke(&webview, "rename_chat", json!({"chat": 999, "title": "x"})).unwrap_err();
    assert_eq!(
        err,
        json!({"kind": "notFound", "message": "chat 999 does not exist", "missing": {"type": "chat", "chat": 999}, "invalid": null})
    );
    let err = invoke(&webview, "rename_chat", json!({"chat": id, "title": "   "})).unwrap_err();
    assert_eq!(err["kind"], "invalid", "{err}");
    assert_eq!(err["invalid"], json!({"type": "emptyTitle"}), "{err}");
    let err = invoke(
        &webview,
        "send_message",
        json!({"chat": id, "text": " ", "attachments": [], "sources": [], "onEvent": "__CHANNEL__:1"}),
    );
    assert_eq!(err.unwrap_err()["kind"], "invalid");
    // A "photo" that is a script is refused before anything is stored.
    let err = invoke(
        &webview,
        "send_message",
        json!({"chat": id, "text": "look", "attachments": [{"name": "a.png", "kind": "image", "mediaType": "image/png", "data": "IyEvYmluL3NoCg=="}], "sources": [], "onEvent": "__CHANNEL__:1"}),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "invalid", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("is not a PNG, JPEG, GIF or WebP image"),
        "{err}"
    );

    // Export takes no path from the window: a missing chat is refused before any dialog, and
    // without the dialog plugin (this mock runtime has none) the command fails, never panics.
    let err = invoke(
        &webview,
        "save_chat_export",
        json!({"chat": 999, "format": "markdown"}),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "notFound", "{err}");
    let err = invoke(
        &webview,
        "save_chat_export",
        json!({"chat": id, "format": "json", "path": "/tmp/planted.json"}),
    )
    .unwrap_err();
    assert_eq!(
        err,
        json!({"kind": "internal", "message": "file dialogs are not available", "missing": null, "invalid": null})
    );
    assert!(!std::path::Path::new("/tmp/planted.json").exists());
    // Import reads only the file the open dialog names: a path from the window is ignored.
    let planted = std::env::temp_dir().join("tollgate-planted-import.json");
    std::fs::write(&planted, r#"{"format": "tollgate-chat", "version": 2}"#).unwrap();
    let err = invoke(
        &webview,
        "import_chats",
        json!({"path": planted.display().to_string()}),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "internal", "{err}");
    let _ = std::fs::remove_file(&planted);
    let history = invoke(&webview, "chat_history", json!({"chat": id})).unwrap();
    assert_eq!(history["messages"], json!([]));
    assert_eq!(history["running"], false);
    assert_eq!(
        invoke(&webview, "search_chats", json!({"query": "renam"})).unwrap()[0]["chat"],
        id
    );
    assert_eq!(
        invoke(&webview, "waiting_counts", json!({})).unwrap(),
        json!({})
    );
    assert_eq!(
        invoke(&webview, "list_rules", json!({})).unwrap(),
        json!([])
    );
    assert_eq!(
        invoke(&webview, "list_providers", json!({})).unwrap(),
        json!([])
    );
    // Remote content can never reach the commands.
    let page = json!({"after": null, "limit": 100});
    assert!(invoke_from(&webview, "https://evil.example", "list_chats", page.clone()).is_err());
    invoke(&webview, "delete_chat", json!({"chat": id})).unwrap();
    assert_eq!(invoke(&webview, "list_chats", page).unwrap(), json!([]));
    assert_eq!(
        invoke(&webview, "get_chat", json!({"chat": id})).unwrap(),
        json!(null)
    );

    // MCP servers: the UI's shapes in and out; secret values never come back.
    assert_eq!(
        invoke(&webview, "list_mcp_servers", json!({})).unwrap(),
        json!([])
    );
    let bad = invoke(
        &webview,
        "save_mcp_server",
        json!({"config": {"name": "shell", "transport": {"type": "stdio", "command": "x"}}, "previous": null}),
    )
    .unwrap_err();
    assert_eq!(bad["kind"], "invalid", "{bad}");
    assert!(
        bad["message"]
            .as_str()
            .unwrap()
            .contains("built-in tool group"),
        "{bad}"
    );
    invoke(
        &webview,
        "save_mcp_server",
        json!({"config": {"name": "later", "enabled": false, "timeoutSecs": 30, "executionPolicy": "ask-always", "resultPolicy": null,
                          "transport": {"type": "http", "url": "https://example.org/mcp", "headers": {}}},
               "previous": null}),
    )
    .unwrap();
    let servers = invoke(&webview, "list_mcp_servers", json!({})).unwrap();
    assert_eq!(servers[0]["config"]["name"], "later");
    assert_eq!(servers[0]["config"]["executionPolicy"], "ask-always");
    assert_eq!(servers[0]["state"]["status"]["state"], "disabled");
    let imported = invoke(
        &webview,
        "import_mcp_servers",
        json!({"json": r#"{"mcpServers": {"off": {"command": "node", "args": ["x.js"], "disabled": true}}}"#}),
    )
    .unwrap();
    assert_eq!(imported, json!(["off"]));
    assert!(invoke(&webview, "restart_mcp_server", json!({"name": "nope"})).is_err());
    // Accepting a change of a server that is not running is refused in the backend's shape.
    let refused = invoke(
        &webview,
        "accept_mcp_tool_change",
        json!({"server": "later", "tool": "forecast", "fingerprint": "00"}),
    )
    .unwrap_err();
    assert_eq!(refused["invalid"]["type"], "mcpNotRunning", "{refused}");
    // Sign-in (SPEC §11): a local server does not sign in; nothing waits to be cancelled; an
    // unknown server cannot be signed out of.
    let local = invoke(&webview, "sign_in_mcp_server", json!({"name": "off"})).unwrap_err();
    assert_eq!(local["invalid"]["type"], "mcpNotRemote", "{local}");
    assert_eq!(
        invoke(&webview, "cancel_mcp_sign_in", json!({"name": "off"})).unwrap(),
        json!(false)
    );
    let unknown = invoke(&webview, "sign_out_mcp_server", json!({"name": "nope"})).unwrap_err();
    assert_eq!(unknown["missing"]["type"], "mcpServer", "{unknown}");
    // Answering a server's question that is not waiting: refused as not found.
    let gone = invoke(
        &webview,
        "answer_elicitation",
        json!({"chat": 1, "id": "0123", "answer": {"action": "accept", "content": {"name": "Ada"}}}),
    )
    .unwrap_err();
    assert_eq!(gone["kind"], "notFound", "{gone}");
    invoke(&webview, "remove_mcp_server", json!({"name": "later"})).unwrap();
    invoke(&webview, "remove_mcp_server", json!({"name": "off"})).unwrap();
    assert_eq!(
        invoke(&webview, "list_mcp_servers", json!({})).unwrap(),
        json!([])
    );
}
