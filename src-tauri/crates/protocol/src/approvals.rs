//! What the user is asked and what they answer: approval requests, previews and decisions (F-05, F-06).

use super::{
    Attachment, FlaggedParameter, GuardNote, OffPlan, PlanShown, Rule, RuleScope, RuleSubjectKind,
    SandboxReport, ToolChange, TrustKey,
};
use crate::ids::{ApprovalId, ChatId};
use crate::policy::{
    CallDecision, CallStatus, DecidedBy, ExecutionChoice, ExecutionPolicy, ResultChoice,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which stage asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKind {
    Execution,
    Result,
}

/// What the user is asked about.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ApprovalRequest {
    /// May this call run? (F-05)
    #[serde(rename_all = "camelCase")]
    Execution {
        /// The full resolved arguments, exactly what would run.
        arguments: Value,
        /// A diff or command preview, when the tool offers one.
        preview: Option<ApprovalPreview>,
        /// The policy that asked.
        policy: ExecutionPolicy,
        /// Why the user is asked (the UI words it in the user's language).
        reason: AskReason,
        /// What a rule pattern for this tool matches, so the card can say what it allows.
        rule_subject: RuleSubjectKind,
        /// A rule pattern to offer for "always allow" (e.g. `git status *`), `None` when no
        /// pattern narrower than "every call" can cover this call.
        suggested_pattern: Option<String>,
        /// The sandbox the call will run under, for tools that run under one (F-46).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional, as = "Option<SandboxReport>")]
        sandbox: Option<Box<SandboxReport>>,
        /// The provenance gate's note (F-83): what the model had read, the spans of the
        /// arguments that came from it, what to endorse.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional, as = "Option<GuardNote>")]
        guard: Option<Box<GuardNote>>,
        /// The MCP tool changed (or its server was replaced) since the user's grants were made
        /// (SPEC §11): what changed, to read before answering and to accept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional, as = "Option<ToolChange>")]
        tool_change: Option<Box<ToolChange>>,
        /// The tool may destroy or overwrite what it touches (an MCP `destructiveHint`, or the
        /// user's own setting): "always allow" for it is a warned choice.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[ts(optional, as = "Option<bool>")]
        destructive: bool,
        /// The arguments of this call given for parameters the server's review flagged
        /// (F-97), to mark on the card.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(optional, as = "Option<Vec<FlaggedParameter>>")]
        flagged: Vec<FlaggedParameter>,
    },
    /// May the model see this result? (F-06)
    #[serde(rename_all = "camelCase")]
    Result {
        /// Exactly the text the model would receive.
        text_for_model: String,
        /// The full formatted output.
        full_output: String,
        status: CallStatus,
        /// Images the tool returned (F-45): shown to the reviewer, never sent to the model.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(optional, as = "Option<Vec<Attachment>>")]
        images: Vec<Attachment>,
    },
}

impl ApprovalRequest {
    pub fn kind(&self) -> ApprovalKind {
        match self {
            Self::Execution { .. } => ApprovalKind::Execution,
            Self::Result { .. } => ApprovalKind::Result,
        }
    }
}

/// An approval waiting for the user.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingApproval {
    pub id: ApprovalId,
    pub chat: ChatId,
    /// The chat's call number.
    pub seq: u64,
    pub call_id: String,
    pub tool: String,
    pub group: String,
    pub request: ApprovalRequest,
    pub created_at: i64,
}

/// The user's answer to an execution approval (F-05).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ExecutionDecision {
    AllowOnce,
    /// Allow, and remember it for identical calls in this chat (an ask-once record).
    AllowForChat,
    /// Allow, and create a rule.
    AlwaysAllow {
        scope: RuleScopeChoice,
        grant: RuleGrant,
    },
    /// Run these arguments instead (re-validated; what runs is what is recorded).
    EditAndAllow {
        arguments: Value,
    },
    Deny {
        reason: Option<String>,
    },
    /// Deny and end the turn.
    DenyAndStop {
        reason: Option<String>,
    },
    /// Trust these sources for the rest of this chat, and allow this call (F-83). Only what
    /// the card offered can be endorsed.
    EndorseAndAllow {
        sources: Vec<TrustKey>,
    },
}

/// What an "always allow" rule covers. There is no default: a pattern must be typed (and not
/// be empty), or "every call of this tool" chosen as such, so that nothing broader than the
/// user read is ever granted by an empty field.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum RuleGrant {
    /// Calls whose subject matches the pattern.
    Matching { pattern: String },
    /// Every call of the tool, chosen explicitly after a warning.
    EveryCall,
}

/// The scope the user picks for an "always allow" rule.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleScopeChoice {
    ThisChat,
    AllChats,
}

impl RuleScopeChoice {
    pub fn to_scope(self, chat: ChatId) -> RuleScope {
        match self {
            Self::ThisChat => RuleScope::Chat { chat },
            Self::AllChats => RuleScope::Global,
        }
    }
}

/// The user's answer to a result approval (F-06).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ResultDecision {
    Approve,
    EditAndApprove { text: String },
    Reject { reason: Option<String> },
}

/// Any decision.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "decision", rename_all = "camelCase")]
pub enum Decision {
    Execution(ExecutionDecision),
    Result(ResultDecision),
}

impl Decision {
    pub fn kind(&self) -> ApprovalKind {
        match self {
            Self::Execution(_) => ApprovalKind::Execution,
            Self::Result(_) => ApprovalKind::Result,
        }
    }

    /// What the decision records as, without its payload.
    pub fn choice(&self) -> CallDecision {
        match self {
            Self::Execution(d) => CallDecision {
                execution: Some(d.choice()),
                result: None,
            },
            Self::Result(d) => CallDecision {
                execution: None,
                result: Some(d.choice()),
            },
        }
    }
}

impl ExecutionDecision {
    /// The recorded choice: one per button, so a card can say exactly which one was pressed.
    pub fn choice(&self) -> ExecutionChoice {
        match self {
            Self::AllowOnce => ExecutionChoice::AllowOnce,
            Self::AllowForChat => ExecutionChoice::AllowForChat,
            Self::AlwaysAllow { .. } => ExecutionChoice::AlwaysAllow,
            Self::EditAndAllow { .. } => ExecutionChoice::EditAndAllow,
            Self::Deny { .. } => ExecutionChoice::Deny,
            Self::DenyAndStop { .. } => ExecutionChoice::DenyAndStop,
            Self::EndorseAndAllow { .. } => ExecutionChoice::EndorseAndAllow,
        }
    }
}

impl ResultDecision {
    /// The recorded choice.
    pub fn choice(&self) -> ResultChoice {
        match self {
            Self::Approve => ResultChoice::Approve,
            Self::EditAndApprove { .. } => ResultChoice::EditAndApprove,
            Self::Reject { .. } => ResultChoice::Reject,
        }
    }
}

/// A preview shown on the approval card beside the arguments (F-05).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ApprovalPreview {
    /// A unified diff of a file edit.
    Diff { path: String, diff: String },
    /// The shell command that would run, and where.
    Command { command: String, cwd: String },
    /// A write too large to diff on the card: the sizes before and after, in bytes. The full
    /// new content is still in the arguments.
    #[serde(rename_all = "camelCase")]
    LargeWrite {
        path: String,
        bytes_before: u64,
        bytes_after: u64,
    },
}

/// Why the user is asked about a call (F-05, F-23).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AskReason {
    /// The tool asks once for each distinct set of arguments in a chat.
    AskOnce,
    /// The tool asks before every call.
    AskAlways,
    /// A rule asks for approval.
    Rule { rule: Box<Rule> },
    /// The model made this exact call `times` times in a row; what would otherwise have
    /// allowed it (the tool's policy, a rule or an earlier approval) is set aside.
    #[serde(rename_all = "camelCase")]
    Repeated { times: u32, would_allow: DecidedBy },
    /// The model had read untrusted content when it made this call, which may change or send
    /// something (F-83): what would otherwise have allowed it is set aside.
    #[serde(rename_all = "camelCase")]
    Exposed { would_allow: DecidedBy },
    /// The MCP tool changed since the user's grants were made (SPEC §11): they are set aside
    /// until the change is accepted. `would_allow`: the grant that would have allowed the call.
    #[serde(rename_all = "camelCase")]
    ToolChanged { would_allow: Option<DecidedBy> },
    /// A plan the user approved is in force and the call leaves it (F-98); `would_allow`:
    /// what would otherwise have allowed the call, if anything (the gate's hold set it aside).
    #[serde(rename_all = "camelCase")]
    OffPlan {
        off: Box<OffPlan>,
        would_allow: Option<DecidedBy>,
    },
    /// The model proposes a plan for its task (F-98): a plan is always shown to the user, who
    /// approves it as shown, keeps part of it, or declines it.
    Plan { shown: Box<PlanShown> },
}
