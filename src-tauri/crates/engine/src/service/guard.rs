//! The provenance gate as the window uses it (F-82…F-85): a chat's exposure for its header,
//! turning the ways out off, endorsing a source for a chat, the autonomy figures, and which
//! past calls an "always allow" rule would have covered.

use super::services::Gate;
use super::ServiceError;
use crate::ids::ChatId;
use crate::policy::DecidedBy;
use crate::protocol::{
    Autonomy, ExposureView, Missing, Rule, RuleAction, RuleScope, TrustKey, WrittenFile,
};
use crate::rules::RuleMatch;
use serde::Serialize;
use std::path::Path;

/// At most this many past calls are examined for a rule preview.
pub const COVERAGE_EXAMINED: usize = 500;
/// At most this many covered calls are listed.
pub const COVERAGE_LISTED: usize = 20;

/// A past call a rule would have covered.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CoveredCall {
    pub chat: ChatId,
    pub seq: u64,
    /// The call's arguments in one line, as the tool-chain log shows them.
    pub args: String,
    pub started_at: i64,
    /// Who let it run (or refused it) then.
    pub decided_by: DecidedBy,
}

/// Which past calls of the tool-chain log an "always allow" rule would have covered (F-85).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleCoverage {
    /// How many past calls of the tool were examined (the latest ones).
    pub examined: u32,
    /// How many of them the rule covers.
    pub covered_count: u32,
    /// The latest covered calls (at most [`COVERAGE_LISTED`]).
    pub covered: Vec<CoveredCall>,
}

impl Gate<'_> {
    /// The chat's exposure as its header shows it (F-82): the untrusted and private content in
    /// the branch on screen, and the ways out.
    pub async fn chat_exposure(&self, chat: ChatId) -> Result<ExposureView, ServiceError> {
        let exec = self.app.executor(chat).await?;
        let rows = self.app.store.branches().chat_messages(chat).await?;
        let exposure = crate::chat::exposure::from_rows(&rows, &exec.toolbox().offer()).snapshot();
        Ok(exec.guard().exposure_view(&exposure))
    }

    /// Turns the chat's ways out off (or on again, F-82).
    pub async fn set_ways_out_off(&self, chat: ChatId, off: bool) -> Result<(), ServiceError> {
        Ok(self
            .app
            .executor(chat)
            .await?
            .guard()
            .set_ways_out_off(off)
            .await?)
    }

    /// Trusts a source for the rest of a chat (F-83), from the chat header.
    pub async fn endorse(&self, chat: ChatId, source: TrustKey) -> Result<(), ServiceError> {
        Ok(self
            .app
            .executor(chat)
            .await?
            .guard()
            .endorse(&[source])
            .await?)
    }

    /// Takes back an endorsement (F-83).
    pub async fn unendorse(&self, chat: ChatId, source: TrustKey) -> Result<(), ServiceError> {
        Ok(self
            .app
            .executor(chat)
            .await?
            .guard()
            .unendorse(&source)
            .await?)
    }

    /// The files tools wrote from untrusted content (SPEC §12), newest first.
    pub async fn written_files(&self) -> Result<Vec<WrittenFile>, ServiceError> {
        Ok(self.app.store.taint().written_files().await?)
    }

    /// Trusts a file written from untrusted content: reading it — or its lines, wherever they
    /// are — no longer brings its sources into a chat. What chats already read of it stays as
    /// it was.
    pub async fn trust_written_file(
        &self,
        workspace: &str,
        path: &str,
    ) -> Result<(), ServiceError> {
        let file = std::path::Path::new(workspace).join(path);
        if let Ok(bytes) = tokio::fs::read(&file).await {
            let text = String::from_utf8_lossy(&bytes);
            self.app
                .store
                .taint()
                .forget_lines(crate::executor::line_hashes(&text))
                .await?;
        }
        Ok(self
            .app
            .store
            .taint()
            .forget_file_taint(workspace, path)
            .await?)
    }

    /// The autonomy figures of one chat, or of every chat (F-85).
    pub async fn autonomy(&self, chat: Option<ChatId>) -> Result<Autonomy, ServiceError> {
        Ok(self.app.store.calls().autonomy(chat).await?)
    }

    /// Which past calls of `tool` an "always allow" rule with `pattern` (none: every call) in
    /// `scope` would have covered (F-85), judged as the rule would judge them now: by the
    /// tool's own subject (a command, a path through today's links) in the call's chat.
    pub async fn rule_coverage(
        &self,
        tool: &str,
        pattern: Option<String>,
        scope: RuleScope,
    ) -> Result<RuleCoverage, ServiceError> {
        let registry = self.app.registry();
        let entry = registry.tool(tool).ok_or_else(|| {
            ServiceError::NotFound(Missing::Tool {
                tool: tool.to_string(),
            })
        })?;
        let rule = Rule {
            id: 0,
            tool: tool.to_string(),
            pattern: pattern.filter(|p| !p.trim().is_empty()),
            action: RuleAction::Allow,
            scope,
            created_at: 0,
        };
        // A pattern that cannot be read matches nothing here; saving it says why.
        let chat = match scope {
            RuleScope::Chat { chat } => Some(chat),
            RuleScope::Global => None,
        };
        let calls = self
            .app
            .store
            .calls()
            .past_calls(tool.to_string(), chat, COVERAGE_EXAMINED)
            .await?;
        let mut coverage = RuleCoverage {
            examined: u32::try_from(calls.len()).unwrap_or(u32::MAX),
            covered_count: 0,
            covered: Vec::new(),
        };
        for call in calls {
            let Ok(args) = serde_json::from_str::<serde_json::Value>(&call.resolved_args) else {
                continue;
            };
            let workspace = call.workspace.as_deref().map(Path::new);
            if !rule.matches(&entry.tool.rule_subject(&args, workspace)) {
                continue;
            }
            coverage.covered_count += 1;
            if coverage.covered.len() < COVERAGE_LISTED {
                coverage.covered.push(CoveredCall {
                    chat: call.chat,
                    seq: call.seq,
                    args: entry
                        .tool
                        .compress_args(&args)
                        .unwrap_or_else(|| crate::parse::preview(&args.to_string(), 200)),
                    started_at: call.started_at,
                    decided_by: call.decided_by,
                });
            }
        }
        Ok(coverage)
    }
}
