//! The client the official MCP conformance suite grades (F-96):
//! `tollgate-mcp-conformance <server-url>`, started by `@modelcontextprotocol/conformance` once
//! per scenario, with the scenario's name in `MCP_CONFORMANCE_SCENARIO` (and, where a scenario
//! has one, a client registered in advance in `MCP_CONFORMANCE_CONTEXT`).
//!
//! It does with a remote server what the app does, through the same code, and nothing else:
//! connect ([`McpConnection::connect`]); when the server wants a signed-in user, sign in
//! ([`oauth::sign_in`], the tokens in the real keychain) and connect again; list the tools; call
//! each one, as a model would, with arguments made from its input schema (or the calls the
//! scenario names in `toolCalls`, with its arguments). The browser's part of
//! the sign-in is done by following the authorization address with an HTTP client: the suite's
//! authorization server answers at once, redirecting to Tollgate's loopback address. A question
//! the server asks while a tool runs goes through the app's own hub ([`ElicitationHub`]), where
//! the stand-in user accepts the form without filling anything in. Exits 0 when
//! every step worked, 1 (with the reason on stderr) when one did not: the suite judges what its
//! servers received either way.

use rmcp::model::JsonObject;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_mcp::elicitation::ElicitationHub;
use tollgate_mcp::oauth::{self, Browser, OAuthAccess, SignIn};
use tollgate_mcp::{
    Asks, CallOptions, McpConnection, McpError, McpServerConfig, ServerSlot, Session,
};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::{ElicitationAnswer, EventSink, PendingElicitation, ToolEvent};
use tollgate_secrets::Keychain;

/// The keychain service of the tokens this client is given (never the app's own).
const KEYCHAIN_SERVICE: &str = "app.tollgate.conformance";

/// The address of the Client ID Metadata Document the suite's authorization servers expect
/// (SEP-991): every conformance client is set up with it, as a user whose organisation publishes
/// Tollgate's document would enter it in the server's settings. Where a server does not read
/// such documents, Tollgate registers itself as before.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::main]
async fn main() {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: tollgate-mcp-conformance <server-url>");
        std::process::exit(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&url).await {
        Ok(report) => {
            println!("{scenario}: {report}");
        }
        Err(e) => {
            eprintln!("{scenario}: {e}");
            std::process::exit(1);
        }
    }
}

/// What the scenario hands over in `MCP_CONFORMANCE_CONTEXT` (`null` when nothing).
fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default()
}

/// The client registered in advance that a scenario hands over, if any: its id and secret,
/// as a user would enter them in the server's settings.
fn preregistered_client() -> (Option<String>, Option<String>) {
    let context = context();
    let field = |key: &str| context[key].as_str().map(str::to_string);
    (field("client_id"), field("client_secret"))
}

/// The calls a scenario asks for (`toolCalls`: a tool's name and the arguments a model would
/// give it, such as values that must be encoded in a header), in its order.
fn scenario_calls() -> Vec<(String, JsonObject)> {
    let context = context();
    context["toolCalls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .filter_map(|c| {
                    let name = c["name"].as_str()?.to_string();
                    let arguments = c["arguments"].as_object().cloned().unwrap_or_default();
                    Some((name, arguments))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The server as the settings would hold it.
fn config(url: &str) -> McpServerConfig {
    let (client_id, client_secret) = preregistered_client();
    McpServerConfig {
        timeout_secs: CALL_TIMEOUT.as_secs(),
        oauth_client_id: client_id,
        oauth_client_secret: client_secret,
        oauth_client_metadata_url: Some(CLIENT_METADATA_URL.to_string()),
        ..McpServerConfig::http("conformance", url)
    }
}

/// The chat the driver's calls run in, as far as the hub is concerned.
const CHAT: ChatId = ChatId(1);

/// Hands each question the hub puts to the user to the stand-in user.
struct ToTheUser(tokio::sync::mpsc::UnboundedSender<PendingElicitation>);

impl EventSink for ToTheUser {
    fn emit(&self, event: ToolEvent) {
        if let ToolEvent::ElicitationRequested { elicitation } = event {
            let _ = self.0.send(elicitation);
        }
    }
}

/// Where the server's questions go: the app's hub, answered by a stand-in user who accepts
/// every form as it is, filling in nothing.
fn asks() -> Asks {
    let (tx, mut questions) = tokio::sync::mpsc::unbounded_channel();
    let hub = ElicitationHub::new(Arc::new(ToTheUser(tx)));
    let answering = Arc::clone(&hub);
    tokio::spawn(async move {
        while let Some(q) = questions.recv().await {
            let accept = ElicitationAnswer::Accept {
                content: Some(json!({})),
            };
            if let Err(e) = answering.answer(q.chat, &q.id, accept) {
                eprintln!("the question could not be answered: {e}");
            }
        }
    });
    Asks {
        slot: Arc::new(ServerSlot::new("conformance")),
        hub,
        sampler: None,
    }
}

/// The most sign-ins one run makes: a server that asks again after three (a scope it never
/// grants) is not asked a fourth time, as a user would stop pressing Sign in.
const MAX_SIGN_INS: usize = 3;

/// Why one attempt stopped.
enum Stop {
    /// The server asked for a (further) sign-in, with its `WWW-Authenticate` header if any.
    SignIn(Option<String>),
    Failed(String),
}

/// Connects, lists and calls every tool; when the server asks for a sign-in at any step (a
/// `401`, or a `403` asking for more scope), signs in from its challenge and starts again.
async fn run(url: &str) -> Result<String, String> {
    let config = config(url);
    let keychain = Keychain::new(KEYCHAIN_SERVICE);
    let asks = asks();
    let mut session = Session {
        oauth: None,
        asks: Some(asks.clone()),
    };
    let mut sign_ins = 0;
    loop {
        match attempt(&config, session.clone()).await {
            Ok(report) => return Ok(report),
            Err(Stop::Failed(e)) => return Err(e),
            Err(Stop::SignIn(_)) if sign_ins == MAX_SIGN_INS => {
                return Err(format!(
                    "the server still asks for a sign-in after {MAX_SIGN_INS}"
                ))
            }
            Err(Stop::SignIn(challenge)) => {
                sign_ins += 1;
                let record = sign_in(&config, url, &keychain, challenge.as_deref()).await?;
                session = Session {
                    oauth: Some(OAuthAccess {
                        keychain: keychain.clone(),
                        account: record.account(),
                    }),
                    asks: Some(asks.clone()),
                };
            }
        }
    }
}

/// What a failed step says: a sign-in to make, or the end.
fn stop(step: &str, e: McpError) -> Stop {
    match e {
        McpError::AuthRequired { challenge, .. } => Stop::SignIn(challenge),
        other => Stop::Failed(format!("{step} failed: {other}")),
    }
}

/// One connection: the handshake, the tool list, a call of each tool.
async fn attempt(config: &McpServerConfig, session: Session) -> Result<String, Stop> {
    let slot = session.asks.as_ref().map(|a| Arc::clone(&a.slot));
    let connection = McpConnection::connect(config, &[], session)
        .await
        .map_err(|e| stop("connecting", e))?;
    let tools = connection
        .tools()
        .await
        .map_err(|e| stop("listing the tools", e))?;
    // The scenario's own calls where it names them; else each tool once, with arguments
    // made from its schema.
    let mut calls = scenario_calls();
    if calls.is_empty() {
        calls = tools
            .iter()
            .map(|tool| {
                let schema = Value::Object((*tool.input_schema).clone());
                (tool.name.to_string(), arguments_for(&schema))
            })
            .collect();
    }
    let mut called = Vec::new();
    for (seq, (name, arguments)) in (1..).zip(calls) {
        let clock = tollgate_tools::clock::CallClock::new();
        let cancel = CancellationToken::new();
        // The call is registered with its server while it runs, so its questions reach the hub.
        let running = slot
            .as_ref()
            .map(|slot| slot.begin_call(CHAT, seq, &cancel, &clock));
        let options = CallOptions {
            clock,
            asked_in: running.as_ref().map(|r| r.call().clone()),
            ..CallOptions::unobserved(CALL_TIMEOUT, cancel)
        };
        connection
            .call(&name, arguments, &options)
            .await
            .map_err(|e| stop(&format!("calling {name}"), e))?;
        called.push(name);
    }
    connection.shutdown().await;
    Ok(format!("called {}", called.join(", ")))
}

/// Signs in as the app does, the browser's part done by an HTTP client.
async fn sign_in(
    config: &McpServerConfig,
    url: &str,
    keychain: &Keychain,
    challenge: Option<&str>,
) -> Result<oauth::OAuthRecord, String> {
    let browser: Browser = Arc::new(|address: &str| {
        let address = address.to_string();
        tokio::spawn(async move {
            // Following every redirect ends at Tollgate's loopback address with the code.
            if let Err(e) = reqwest::get(&address).await {
                eprintln!("the authorization address could not be followed: {e}");
            }
        });
        Ok(())
    });
    let cancel = CancellationToken::new();
    oauth::sign_in(SignIn {
        url,
        stored_url: url,
        client_id: config.oauth_client_id.as_deref(),
        client_secret: config.oauth_client_secret.as_deref(),
        client_metadata_url: config.oauth_client_metadata_url.as_deref(),
        challenge,
        keychain,
        browser: &browser,
        cancel: &cancel,
    })
    .await
    .map_err(|e| format!("signing in failed: {e}"))
}

/// Arguments a model would send for a tool with this input schema: each required property with
/// a value of its type.
fn arguments_for(schema: &Value) -> JsonObject {
    let mut out = JsonObject::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            if required.contains(&name.as_str()) {
                out.insert(name.clone(), value_of(property));
            }
        }
    }
    out
}

/// A value of the type a property's schema names (its default or first choice where it has one).
fn value_of(property: &Value) -> Value {
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    if let Some(first) = property["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match property["type"].as_str() {
        Some("number") | Some("integer") => json!(1),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => json!({}),
        _ => json!("conformance"),
    }
}
