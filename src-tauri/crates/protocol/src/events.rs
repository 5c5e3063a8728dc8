//! Events for every stage of a call (F-17, F-52), through one subscriber interface.
//!
//! The UI turns these into the live tool-chain log and the inline approval cards; what the UI
//! shows is what the store records, so reopening a chat shows the same timeline.

use super::{Attachment, Decision, PendingApproval, SandboxReport};
use crate::ids::{ApprovalId, ChatId};
use crate::policy::{CallDecision, CallStatus, DecidedBy};
use serde::{Deserialize, Serialize};

/// Which stream a tool's live output came from.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    Stdout,
    Stderr,
    Log,
}

/// How an approval ended.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ApprovalOutcome {
    Decided { decision: Decision },
    Cancelled,
}

/// The end of a call, as the log shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallSummary {
    pub tool: Option<String>,
    pub status: CallStatus,
    pub decision: CallDecision,
    pub decided_by: DecidedBy,
    pub duration_ms: u64,
    /// A one-line preview of the result.
    pub preview: String,
    /// The text the model received.
    pub content: String,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    /// Images the tool returned, shown to the user beside the result (F-45).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<Attachment>>")]
    pub images: Vec<Attachment>,
    /// How a sandboxed tool ran and what the sandbox blocked (F-46).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sandbox: Option<SandboxReport>,
    /// Where the result came from (F-80), shown on the tool card.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<super::Source>>")]
    pub sources: Vec<super::Source>,
    /// How the call went through the provenance gate (F-85).
    #[serde(default)]
    pub guard: super::GuardMark,
    /// The view the server ships with the tool (F-96), shown under the card (from the
    /// call's start: [`ToolEvent::Started`] carries it too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub view: Option<super::McpViewLink>,
}

/// One event of a call's life.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ToolEvent {
    /// The call arrived, before anything was checked.
    #[serde(rename_all = "camelCase")]
    BeforeCall {
        chat: ChatId,
        seq: u64,
        call_id: String,
        requested_name: String,
        raw_args: String,
        /// Made by the view of call `c<view_of>` (F-96), not by the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        view_of: Option<u64>,
    },
    /// The user is asked (an inline card appears).
    #[serde(rename_all = "camelCase")]
    ApprovalRequested { approval: PendingApproval },
    /// The question was answered or withdrawn.
    #[serde(rename_all = "camelCase")]
    ApprovalResolved {
        chat: ChatId,
        seq: u64,
        id: ApprovalId,
        outcome: ApprovalOutcome,
    },
    /// The tool starts running.
    #[serde(rename_all = "camelCase")]
    Started {
        chat: ChatId,
        seq: u64,
        tool: String,
        args: String,
        /// The view its server ships with the tool (F-96): shown under the card from now,
        /// once the gate let the call run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        view: Option<super::McpViewLink>,
    },
    /// Live output from a running tool: `text`, after `skipped` characters of the stream that
    /// are not shown live (a flood of output keeps only a tail; the result keeps it all).
    #[serde(rename_all = "camelCase")]
    OutputDelta {
        chat: ChatId,
        seq: u64,
        stream: OutputStream,
        text: String,
        #[serde(default)]
        skipped: u64,
    },
    /// How far a running call has got, as its MCP server reports it (SPEC §11): `progress`
    /// of `total` when the total is known, with the server's one-line message.
    #[serde(rename_all = "camelCase")]
    Progress {
        chat: ChatId,
        seq: u64,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// The call ended.
    #[serde(rename_all = "camelCase")]
    Finished {
        chat: ChatId,
        seq: u64,
        summary: CallSummary,
    },
    /// An MCP server asks the user something while its tool runs (SPEC §11).
    #[serde(rename_all = "camelCase")]
    ElicitationRequested {
        elicitation: super::PendingElicitation,
    },
    /// A server's question is no longer waiting.
    #[serde(rename_all = "camelCase")]
    ElicitationResolved {
        chat: ChatId,
        seq: u64,
        id: ApprovalId,
        outcome: super::ElicitationOutcome,
    },
    /// The chat's model answered a request of the call's server (sampling, F-99): what it was
    /// sent and what went back, kept with the call.
    #[serde(rename_all = "camelCase")]
    ModelLent {
        chat: ChatId,
        seq: u64,
        lent: super::LentModel,
    },
    /// A server's question during call `seq` ended (answered, declined, withdrawn): what it
    /// asked and what it got, kept with the call.
    #[serde(rename_all = "camelCase")]
    ServerAsked {
        chat: ChatId,
        seq: u64,
        asked: super::AskedQuestion,
    },
    /// The model asks the user a question (`ask_user`, F-24); the turn waits for the answer.
    #[serde(rename_all = "camelCase")]
    QuestionAsked {
        chat: ChatId,
        seq: u64,
        id: ApprovalId,
        question: String,
        choices: Vec<String>,
    },
    /// A question is no longer waiting: answered (here or in another window) or withdrawn
    /// because the call was stopped.
    #[serde(rename_all = "camelCase")]
    QuestionResolved {
        chat: ChatId,
        seq: u64,
        id: ApprovalId,
        answered: bool,
    },
    /// The chat's task grant (F-98) was made, took a call, or ended (`None`): with the turn,
    /// by the user's Stop, or when its time box passed.
    #[serde(rename_all = "camelCase")]
    TaskChanged {
        chat: ChatId,
        task: Option<super::TaskState>,
    },
}

/// Receives events. Called on the executing task: implementations must not block.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: ToolEvent);
}

/// Discards events (benchmarks, headless use).
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: ToolEvent) {}
}

/// Something that waits on the user (F-59): the app tells a user who is looking elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttentionRequest {
    pub chat: ChatId,
    pub reason: AttentionReason,
}

/// What waits on the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttentionReason {
    /// A tool call waits for approval.
    Approval { tool: String },
    /// The model asks a question (`ask_user`).
    Question { question: String },
    /// An MCP server asks the user something (SPEC §11).
    Elicitation { server: String, message: String },
    /// An MCP server asks to use the chat's model (sampling, F-99).
    Sampling { server: String },
}

impl AttentionRequest {
    /// The request an event makes, if it waits on the user.
    pub fn of(event: &ToolEvent) -> Option<Self> {
        match event {
            ToolEvent::ApprovalRequested { approval } => Some(Self {
                chat: approval.chat,
                reason: AttentionReason::Approval {
                    tool: approval.tool.clone(),
                },
            }),
            ToolEvent::QuestionAsked { chat, question, .. } => Some(Self {
                chat: *chat,
                reason: AttentionReason::Question {
                    question: question.clone(),
                },
            }),
            ToolEvent::ElicitationRequested { elicitation } => Some(Self {
                chat: elicitation.chat,
                reason: match elicitation.kind {
                    super::ElicitationKind::Sampling { .. } => AttentionReason::Sampling {
                        server: elicitation.server.clone(),
                    },
                    super::ElicitationKind::Form { .. } | super::ElicitationKind::Url { .. } => {
                        AttentionReason::Elicitation {
                            server: elicitation.server.clone(),
                            message: elicitation.message.clone(),
                        }
                    }
                },
            }),
            ToolEvent::BeforeCall { .. }
            | ToolEvent::ApprovalResolved { .. }
            | ToolEvent::Started { .. }
            | ToolEvent::OutputDelta { .. }
            | ToolEvent::Progress { .. }
            | ToolEvent::Finished { .. }
            | ToolEvent::QuestionResolved { .. }
            | ToolEvent::ElicitationResolved { .. }
            | ToolEvent::ModelLent { .. }
            | ToolEvent::ServerAsked { .. }
            | ToolEvent::TaskChanged { .. } => None,
        }
    }
}

impl ToolEvent {
    /// The chat the event belongs to.
    pub fn chat(&self) -> ChatId {
        match self {
            ToolEvent::BeforeCall { chat, .. }
            | ToolEvent::ApprovalResolved { chat, .. }
            | ToolEvent::Started { chat, .. }
            | ToolEvent::OutputDelta { chat, .. }
            | ToolEvent::Progress { chat, .. }
            | ToolEvent::Finished { chat, .. }
            | ToolEvent::QuestionAsked { chat, .. }
            | ToolEvent::QuestionResolved { chat, .. }
            | ToolEvent::ElicitationResolved { chat, .. }
            | ToolEvent::ModelLent { chat, .. }
            | ToolEvent::ServerAsked { chat, .. }
            | ToolEvent::TaskChanged { chat, .. } => *chat,
            ToolEvent::ApprovalRequested { approval } => approval.chat,
            ToolEvent::ElicitationRequested { elicitation } => elicitation.chat,
        }
    }
}
