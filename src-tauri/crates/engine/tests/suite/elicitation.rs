//! MCP servers' questions to the user (elicitation, SPEC §11) against the official TypeScript
//! SDK's `elicitationFormExample` server: its `register_user` tool asks for a form while it
//! runs. The question reaches the call's chat saying which server asks; an answer that does not
//! fit the schema is refused and the question keeps waiting; the answer the user gives is the
//! one the server gets; a declined question is declined.

use super::oauth::{free_port, open, servers_dir, settled, Node};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tollgate_engine::service::{ServiceError, Tollgate};
use tollgate_engine::{CallOrigin, ChatId, Decision, ExecutionDecision, ToolCallRequest};
use tollgate_mcp::{McpServerConfig, McpStatus};
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::{ElicitationAnswer, ElicitationKind, Invalid, PendingElicitation};

/// Runs `register_user` in `chat`, allowing the call when it asks; returns the task.
async fn register(
    app: &std::sync::Arc<Tollgate>,
    chat: ChatId,
) -> tokio::task::JoinHandle<tollgate_engine::ToolCallResult> {
    let exec = app.executor(chat).await.unwrap();
    let task = tokio::spawn(async move {
        exec.execute(
            ToolCallRequest::new(
                "call_register",
                "forms__register_user",
                RawArguments::Json(json!({})),
            ),
            CallOrigin::default(),
            &CancellationToken::new(),
        )
        .await
    });
    crate::common::eventually("the call asks", || !app.asks().pending(chat).is_empty()).await;
    let approval = app.asks().pending(chat).pop().unwrap();
    app.asks()
        .answer_approval(
            chat,
            &approval.id,
            Decision::Execution(ExecutionDecision::AllowOnce),
        )
        .await
        .unwrap();
    task
}

async fn question(app: &Tollgate, chat: ChatId) -> PendingElicitation {
    crate::common::eventually("the server asks", || {
        !app.asks().pending_elicitations(chat).is_empty()
    })
    .await;
    app.asks().pending_elicitations(chat).pop().unwrap()
}

#[tokio::test]
#[ignore = "needs the MCP servers of tests/mcp and a Secret Service: run .ci/test.sh (--include-ignored)"]
async fn a_server_s_form_is_answered_by_the_user_and_declined_by_the_user() {
    let port = free_port();
    let script = servers_dir().join(
        "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/elicitationFormExample.js",
    );
    let server = Node::start(
        &script,
        &[],
        &[("PORT", port.to_string())],
        &["Form elicitation example server is running"],
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    app.mcp_servers()
        .save_mcp_server(
            McpServerConfig::http("forms", format!("http://localhost:{port}/mcp")),
            None,
        )
        .await
        .unwrap();
    assert_eq!(settled(&app, "forms").await, McpStatus::Ready);
    crate::common::eventually("the tool reaches the registry", || {
        app.registry().tool("forms__register_user").is_some()
    })
    .await;
    let chat = crate::common::new_chat(&app).await;

    let task = register(&app, chat).await;
    let asked = question(&app, chat).await;
    assert_eq!(asked.server, "forms");
    assert_eq!(
        asked.message,
        "Please provide your registration information:"
    );
    let ElicitationKind::Form { schema } = &asked.kind else {
        panic!("a form: {asked:?}")
    };
    assert_eq!(schema["required"], json!(["username", "email", "password"]));
    assert_eq!(
        schema["properties"]["role"]["oneOf"][0]["const"],
        "developer"
    );

    // An answer without the email does not fit: refused, and the question still waits.
    let refused = app
        .asks()
        .answer_elicitation(
            chat,
            &asked.id,
            ElicitationAnswer::Accept {
                content: Some(json!({"username": "ada", "password": "analytical"})),
            },
        )
        .unwrap_err();
    assert!(
        matches!(&refused, ServiceError::Invalid(Invalid::ElicitationAnswer { reason }) if reason.contains("email")),
        "{refused:?}"
    );
    assert_eq!(app.asks().pending_elicitations(chat).len(), 1);
    app.asks()
        .answer_elicitation(
            chat,
            &asked.id,
            ElicitationAnswer::Accept {
                content: Some(json!({
                    "username": "ada",
                    "email": "ada@example.org",
                    "password": "analytical",
                    "newsletter": true
                })),
            },
        )
        .unwrap();
    let registered = task.await.unwrap();
    assert_eq!(
        registered.content,
        "Registration successful!\n\nUsername: ada\nEmail: ada@example.org\nNewsletter: Yes"
    );

    // The next one is declined.
    let task = register(&app, chat).await;
    let asked = question(&app, chat).await;
    app.asks()
        .answer_elicitation(chat, &asked.id, ElicitationAnswer::Decline)
        .unwrap();
    assert_eq!(
        task.await.unwrap().content,
        "Registration cancelled by user."
    );
    assert!(app.asks().pending_elicitations(chat).is_empty());
    app.mcp_servers().manager().shutdown().await;
    server.stop().await;
}
