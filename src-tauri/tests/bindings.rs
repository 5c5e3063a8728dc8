//! The UI's TypeScript types are generated from the Rust types that cross the IPC boundary
//! (ts-rs), into `ui/src/bindings.ts`. This test fails when that file is out of date; run it with
//! `TOLLGATE_WRITE_BINDINGS=1` to regenerate the file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::path::PathBuf;
use tollgate_app::commands::{chats::ChatHistory, settings::Settings};
use tollgate_engine::chat::history::{AssistantPayload, ToolPayload, TurnFailure};
use tollgate_engine::chat::retry::RetryPolicy;
use tollgate_engine::chat::{ChatEvent, TurnOutcome, TurnSettings};
use tollgate_engine::ids::{ApprovalId, ChatId};
use tollgate_engine::mcp::{
    McpServerConfig, McpServerState, McpStatus, McpToolSummary, McpTransport,
};
use tollgate_engine::policy::{
    CallDecision, CallStatus, DecidedBy, ExecutionChoice, ExecutionPolicy, ResultChoice,
    ResultPolicy,
};
use tollgate_engine::protocol::ApprovalPreview;
use tollgate_engine::protocol::{ApprovalOutcome, CallSummary, OutputStream, ToolEvent};
use tollgate_engine::protocol::{
    ApprovalRequest, Decision, ExecutionDecision, PendingApproval, ResultDecision, RuleGrant,
    RuleScopeChoice,
};
use tollgate_engine::protocol::{ChatToolOverrides, ToolOverride, ToolSettings};
use tollgate_engine::protocol::{GroupView, ToolView};
use tollgate_engine::protocol::{ProviderKind, ToolCalling, Usage};
use tollgate_engine::protocol::{RuleAction, RuleScope, RuleSubjectKind};
use tollgate_engine::providers::{AssistantToolCall, FinishReason, ToolResultMessage};
use tollgate_engine::rules::Rule;
use tollgate_engine::service::{AppSettings, Language, McpServerView, Theme};
use tollgate_engine::store::{
    ApprovalRecordRow, ChatRow, MessageRow, MessageStatus, NewChat, ProviderConfig, ProviderInput,
    RecordStatus, RecordedCall, Role, RuleRow, SearchHit,
};
use ts_rs::{Config, TS};

const HEADER: &str = "// Generated from Tollgate's Rust types by src-tauri/tests/bindings.rs (ts-rs). Do not edit:\n// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test -p tollgate --test bindings`.\n/* eslint-disable */\n";

fn decl<T: TS + ?Sized>(cfg: &Config, out: &mut String) {
    out.push_str("\nexport ");
    out.push_str(&T::decl(cfg));
    out.push('\n');
}

fn render() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(HEADER);
    macro_rules! all {
        ($($t:ty),* $(,)?) => { $( decl::<$t>(&cfg, &mut out); )* };
    }
    all!(
        serde_json::Value,
        ChatId,
        ApprovalId,
        ExecutionPolicy,
        ResultPolicy,
        CallStatus,
        DecidedBy,
        ExecutionChoice,
        ResultChoice,
        CallDecision,
        RecordStatus,
        RuleGrant,
        RuleSubjectKind,
        ToolCalling,
        ToolView,
        GroupView,
        ChatToolOverrides,
        ChatRow,
        NewChat,
        SearchHit,
        Role,
        MessageStatus,
        Usage,
        FinishReason,
        AssistantToolCall,
        ToolResultMessage,
        TurnFailure,
        AssistantPayload,
        ToolPayload,
        MessageRow,
        RecordedCall,
        ChatHistory,
        ApprovalPreview,
        ApprovalRequest,
        PendingApproval,
        RuleScopeChoice,
        ExecutionDecision,
        ResultDecision,
        Decision,
        OutputStream,
        ApprovalOutcome,
        CallSummary,
        ToolEvent,
        TurnOutcome,
        ChatEvent,
        Theme,
        Language,
        RetryPolicy,
        TurnSettings,
        AppSettings,
        ToolOverride,
        ToolSettings,
        Settings,
        ProviderKind,
        ProviderConfig,
        ProviderInput,
        RuleAction,
        RuleScope,
        Rule,
        RuleRow,
        ApprovalRecordRow,
        McpTransport,
        McpServerConfig,
        McpStatus,
        McpToolSummary,
        McpServerState,
        McpServerView,
    );
    out
}

#[test]
fn typescript_bindings_are_up_to_date() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
    let fresh = render();
    if std::env::var_os("TOLLGATE_WRITE_BINDINGS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == fresh,
        "ui/src/bindings.ts is out of date with the Rust types; regenerate it with \
         `TOLLGATE_WRITE_BINDINGS=1 cargo test -p tollgate --test bindings`"
    );
}
