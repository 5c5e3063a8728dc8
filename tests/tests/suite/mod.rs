//! The end-to-end suites of `tests/all.rs`, one module per area. Every test that starts the
//! app holds a seat (`tollgate_e2e::seat`): an X display of its own, so tests run side by side
//! (one per core) and never share a keyboard focus.

mod attachments;
mod attention;
mod branches;
mod chat_links;
mod chat_prompt;
mod demo_flow;
mod desktop_font;
mod export;
mod gate_flows;
mod gate_routes;
mod glyphs;
mod installed;
mod logs;
mod long_chat;
mod mcp_composer;
mod mcp_elicitation;
mod mcp_eras;
mod mcp_oauth;
mod mcp_settings;
mod mcp_views;
mod plan;
mod provenance;
mod provider_faults;
mod sandbox;
mod server_review;
mod speed;
mod startup;
mod webdriver;
mod window;
