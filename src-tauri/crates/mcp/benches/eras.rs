//! The price of speaking both eras of MCP (F-99; the targets: the discover probe adds ≤ 50 ms to
//! a stdio server's start, and a call's retry adds ≤ 1 ms in the gate).
//!
//! - `start/*`: a stdio server started and its session begun, then ended: the npm registry's
//!   everything server (2025-11-25 only) with `initialize` alone and as Tollgate opens every
//!   session (the probe, answered "method not found", then `initialize`); the era server (Python
//!   SDK 2.x, both eras) with `initialize` alone and with the probe it answers.
//! - `call/*`: on one session of the era server, a call answered at once (`echo`) and a call of
//!   two rounds (`state_only`: `input_required` with a state and no question, then the answer):
//!   the difference, less the 50 ms the client waits before retrying a round that asked
//!   nothing, is what one round costs end to end (the server's own work included). A question
//!   adds the user's time and the hub's, as a mid-call question does (the hub lets a server ask
//!   five a minute, so it is not timed here). The rounds never leave the connection: the gate
//!   sees one call.
#![allow(clippy::expect_used, clippy::unwrap_used)] // benchmark set-up: a failure should stop the run

use criterion::{criterion_group, criterion_main, Criterion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_mcp::{CallOptions, McpConnection, McpServerConfig};
use tollgate_test_support::mcp_servers::{era_server, everything_js};

/// Starts `program args` and begins a session as `lifecycle` says, then ends it.
async fn start(program: &str, args: &[String], lifecycle: ClientLifecycleMode) {
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let transport = TokioChildProcess::new(command).expect("the server starts");
    let running = ().serve_with_lifecycle(transport, lifecycle).await.expect("the session begins");
    running.cancel().await.expect("the session ends");
}

fn starts(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let everything = vec![everything_js(), "stdio".to_string()];
    let (python, script) = era_server();
    let era = vec![script, "stdio".to_string()];
    let mut group = c.benchmark_group("start");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(20));
    let cases = [
        ("everything/initialize", "node", &everything, false),
        ("everything/probe", "node", &everything, true),
        ("era/initialize", python.as_str(), &era, false),
        ("era/probe", python.as_str(), &era, true),
    ];
    for (name, program, args, probe) in cases {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| {
                let lifecycle = if probe {
                    tollgate_mcp::probing_lifecycle()
                } else {
                    ClientLifecycleMode::Initialize
                };
                start(program, args, lifecycle)
            })
        });
    }
    group.finish();
}

fn calls(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (python, script) = era_server();
    let config = McpServerConfig::stdio("era", &python, &[&script, "stdio"]);
    let connection = runtime
        .block_on(McpConnection::connect(&config, &[], Default::default()))
        .expect("the era server starts");
    let mut group = c.benchmark_group("call");
    group.sample_size(30);
    for (name, tool, arguments) in [
        ("one_round", "echo", json!({"message": "hi"})),
        ("two_rounds", "state_only", json!({"note": "kept"})),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| {
                let connection = &connection;
                let arguments = arguments.as_object().cloned().unwrap();
                async move {
                    let options =
                        CallOptions::unobserved(Duration::from_secs(30), CancellationToken::new());
                    connection
                        .call(tool, arguments, &options)
                        .await
                        .expect("the call ends")
                }
            })
        });
    }
    group.finish();
    runtime.block_on(connection.shutdown());
}

criterion_group!(benches, starts, calls);
criterion_main!(benches);
