//! One call's data as it moves through the stages: what the provider delivered, where in the
//! conversation it happens, the per-call context every stage reads, what the stages learned for
//! the record, and how they ended. Both the permission stage and the pipeline use these; neither
//! owns them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::parse::{parse_arguments, ArgumentsError, RawArguments};
use tollgate_protocol::policy::{CallStatus, DecidedBy, ExecutionChoice, ResultChoice};
use tollgate_protocol::{GuardMark, Source, ToolEffects};

/// A call as the provider delivered it, its arguments read once: the round's repeat count and
/// lane and the pipeline's parse stage all read [`Self::args`], which parses the raw
/// arguments the first time it is asked and keeps the answer (F-10). The raw arguments cannot
/// change after that: they are set when the request is made.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRequest {
    /// The provider's id for the call (echoed back in the result).
    pub call_id: String,
    /// The tool name as the model wrote it.
    pub name: String,
    arguments: RawArguments,
    #[serde(skip)]
    parsed: OnceLock<Result<Value, ArgumentsError>>,
}

/// Two requests are the same call whether or not either was read yet.
impl PartialEq for ToolCallRequest {
    fn eq(&self, other: &Self) -> bool {
        self.call_id == other.call_id
            && self.name == other.name
            && self.arguments == other.arguments
    }
}

impl ToolCallRequest {
    pub fn new(
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: RawArguments,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            name: name.into(),
            arguments,
            parsed: OnceLock::new(),
        }
    }

    /// The arguments as the model wrote them.
    pub fn arguments(&self) -> &RawArguments {
        &self.arguments
    }

    /// The arguments as a JSON object, parsed the first time they are asked for and never again.
    pub fn args(&self) -> Result<&Value, &ArgumentsError> {
        self.parsed
            .get_or_init(|| parse_arguments(&self.arguments))
            .as_ref()
    }
}

/// Where in the conversation a call happens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallOrigin {
    pub message_id: Option<i64>,
    pub round: u32,
    /// The model made this exact call this many times in a row (the doom-loop check, F-23):
    /// ask the user even if a policy, rule or record would allow.
    pub repeats: Option<u32>,
    /// Run only after the calls before this one in its group are done (F-21).
    #[serde(skip)]
    pub turnstile: Option<crate::turnstile::Turnstile>,
    /// The user clicked "run again without the sandbox" on a call (F-46): this call repeats it
    /// with the sandbox off, and that click is its decision (a rule or the settings that deny
    /// the tool still deny it).
    pub unsandboxed_rerun: Option<Rerun>,
    /// What the model had read when it made the call (F-82): every call of a round shares the
    /// round's snapshot. `None` outside a turn (nothing read).
    #[serde(skip)]
    pub exposure: Option<tollgate_provenance::SharedExposure>,
    /// Made by a server's view (F-96), not by the model: it may call only that server's
    /// tools that its views may call.
    pub view: Option<ViewOrigin>,
}

/// The view a call came from (F-96).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewOrigin {
    /// The call whose view it is, `c<of_seq>`.
    pub of_seq: u64,
    /// The view's server (the tool group it may call into).
    pub server: String,
}

/// What a rerun repeats (F-46): exactly what ran, where it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rerun {
    /// The call it repeats, `c<of_seq>`.
    pub of_seq: u64,
    /// The workspace that call ran in (not the chat's current one); `None`: the chat's.
    pub workspace: Option<std::path::PathBuf>,
}

/// What the model gets back (F-18 turns it into the provider's native form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    pub call_id: String,
    pub seq: u64,
    pub tool: Option<String>,
    pub status: CallStatus,
    /// The text for the model; never empty.
    pub content: String,
    pub is_error: bool,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    /// The user chose "deny and stop": the turn must end after this round.
    pub stop_turn: bool,
    /// Where the result came from (F-80): stored with the tool message, so the chat's
    /// exposure can be read back from its branch.
    pub sources: Vec<Source>,
    /// The result as the tool's source returned it, for a view that made the call or shows it
    /// (F-96); `None` when withheld or edited, and for tools no view reads.
    pub raw: Option<Value>,
}

/// What the stages learned, for the record.
#[derive(Default)]
pub(crate) struct Trace {
    pub tool: Option<String>,
    pub group: Option<String>,
    pub resolved_args: Option<Value>,
    pub policy: Option<tollgate_protocol::policy::ExecutionPolicy>,
    pub decision: Option<ExecutionChoice>,
    pub decided_by: Option<DecidedBy>,
    pub result_decision: Option<ResultChoice>,
    /// How the tool ran under the sandbox and what it blocked (F-46).
    pub sandbox: Option<tollgate_protocol::SandboxReport>,
    /// What the call could do (F-81), once its tool was known.
    pub effects: Option<ToolEffects>,
    /// How the call went through the provenance gate (F-85).
    pub guard: GuardMark,
    /// The call took one of a task plan's step calls (F-98): its result may name targets for
    /// the steps that name its tool as a source (`from`).
    pub in_plan: bool,
}

/// How the stages ended.
pub(crate) struct Outcome {
    pub status: CallStatus,
    pub content: String,
    pub truncated: bool,
    pub result_var: Option<Box<str>>,
    pub args_var: Option<Box<str>>,
    pub stop_turn: bool,
    /// Boxed to keep every stage's `Err(Outcome)` small.
    pub preview: Option<Box<str>>,
    /// Images shown to the user with the result (never sent to the model); boxed to keep
    /// every stage's `Err(Outcome)` small.
    pub images: Box<[tollgate_protocol::Attachment]>,
    /// Where the content came from (F-80); empty for Tollgate's own messages. Boxed, as
    /// `images` is.
    pub sources: Box<[Source]>,
    /// What a view reads of the call (F-96); boxed, as `images` is.
    pub for_view: Option<Box<ForView>>,
}

/// What a view reads of a call (F-96).
pub(crate) struct ForView {
    /// The result as its source returned it.
    pub raw: Option<Value>,
    /// The view the tool's server ships with the result.
    pub link: Option<std::sync::Arc<tollgate_protocol::McpViewLink>>,
}

impl ForView {
    /// What a view reads of a call with this result and this view, if anything.
    pub(crate) fn of(
        raw: Option<Value>,
        link: Option<std::sync::Arc<tollgate_protocol::McpViewLink>>,
    ) -> Option<Box<Self>> {
        (raw.is_some() || link.is_some()).then(|| Box::new(Self { raw, link }))
    }

    /// The call's view and its result as the record keeps them (`None` without a view).
    pub(crate) fn record(&self) -> Option<(tollgate_protocol::McpViewLink, Option<String>)> {
        let link = self.link.as_deref()?;
        Some((link.clone(), self.raw.as_ref().map(Value::to_string)))
    }
}

impl Outcome {
    pub(crate) fn fail(status: CallStatus, content: impl Into<String>) -> Self {
        Self {
            status,
            content: content.into(),
            truncated: false,
            result_var: None,
            args_var: None,
            stop_turn: false,
            preview: None,
            images: Box::default(),
            sources: Box::default(),
            for_view: None,
        }
    }
}

/// The per-call values every stage reads.
pub(crate) struct CallCtx<'a> {
    pub req: &'a ToolCallRequest,
    /// The chat's call number.
    pub seq: u64,
    pub origin: &'a CallOrigin,
    pub cancel: &'a CancellationToken,
}
