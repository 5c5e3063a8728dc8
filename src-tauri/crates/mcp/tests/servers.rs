//! The MCP client against real servers run as child processes (F-45): the npm registry's
//! `@modelcontextprotocol/server-everything` over stdio and streamable HTTP, and the probe server
//! (tests/mcp/probe-server.mjs) for crashes and sandboxed writes. The test command installs them
//! with `npm ci` in tests/mcp. How the gate uses the client is the engine's suite
//! (`crates/engine/tests/suite/mcp.rs`); this one is the client itself, so `cargo test -p
//! tollgate-mcp` runs it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod suite;
