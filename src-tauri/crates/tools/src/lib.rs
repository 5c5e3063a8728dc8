//! Tools and tool groups (SPEC §1), a crate of its own, with the per-chat variable store
//! ([`vars`]), the near-miss names a model's typos are matched against ([`names`]) and the
//! checks attached images pass ([`images`]).
//!
//! A [`Tool`] declares what it is ([`ToolSpec`]) and how to run; everything around the run —
//! validation, permission, truncation, recording — is the executor's job, so a tool stays small.
//! It depends on the protocol, the store, the rules, the provenance gate, the secrets and the
//! sandbox, and must never depend on the engine (the executor, the chat loop, the service) or on
//! MCP, which builds on it.

pub mod basic;
pub mod builtin;
pub mod changed_files;
pub mod clock;
mod expr;
pub mod files;
mod group;
pub mod images;
pub mod live_output;
pub mod login_path;
pub mod names;
pub mod plan_tool;
pub mod questions;
pub mod reach;
mod registry;
pub mod runtime;
/// The sandbox is a crate of its own, audited alone (`tollgate-sandbox`).
pub use tollgate_sandbox as sandbox;
pub mod shell;
pub use tollgate_sandbox::supervisor;
mod validation;
pub mod vars;
pub mod vars_tools;
pub mod waiting;
pub mod web;

pub use group::{Guidance, GuidanceFn, Guide, ToolGroup};
pub use registry::{RegisteredTool, Registry, RegistryError, LIMIT_ARG};
pub use runtime::{new_approval_id, ChannelSink};
pub use validation::ArgsValidator;

use crate::vars::VarStore;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::policy::{ExecutionPolicy, ResultPolicy};
use tollgate_protocol::ApprovalPreview;
use tollgate_protocol::{EventSink, OutputStream, ToolEvent};
use tollgate_rules::RuleSubject;

pub use tollgate_protocol::ToolEffects;

/// A tool's default timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The return type a tool declares to the model (shown in its description).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredReturn {
    pub type_name: String,
    pub note: Option<String>,
}

/// What a tool is: its identity, schema and defaults.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub parameters: Value,
    pub execution_policy: ExecutionPolicy,
    pub result_policy: ResultPolicy,
    /// Safe to run in parallel with other read-only calls; no side effects.
    pub read_only: bool,
    pub timeout: Duration,
    /// Output limit in chars; `None` uses the global default.
    pub output_limit: Option<usize>,
    pub declared_return: Option<DeclaredReturn>,
    /// Whether the full result is stored as a variable. Off for the variable tools themselves
    /// (their output *is* variable content).
    pub stores_result: bool,
    /// Runs under the chat's sandbox (F-46): its approval card says under which level.
    pub sandboxed: bool,
    /// What a call may do (F-81); the user may override it per tool.
    pub effects: ToolEffects,
    /// What its results hold, so the gate can label them with their source (F-80).
    pub content: ContentKind,
    /// Which definition of the tool this is (an MCP tool's fingerprint), so a call granted for
    /// one definition never runs on the next (SPEC §11). `None` for built-in tools.
    pub revision: Option<Arc<str>>,
    /// Set while the tool's grants are set aside because it changed (SPEC §11).
    pub review: Option<Arc<tollgate_protocol::ToolChange>>,
    /// The JSON pointers of the arguments that name where a call goes or whom it acts on
    /// (SPEC §12): read from the schema, or declared; the user may override them.
    pub targets: Arc<[String]>,
    /// The argument naming the workspace file a successful call writes (SPEC §12): the file
    /// keeps the sources of the untrusted content the model had read when it wrote it.
    pub writes_file: Option<&'static str>,
    /// The view its server ships with its results (MCP Apps, F-96), if any.
    pub view: Option<Arc<tollgate_protocol::McpViewLink>>,
    /// The tool's server's views may call it (`_meta.ui.visibility` has `"app"`). A view calls
    /// only its own server's tools, and only these.
    pub callable_by_view: bool,
    /// Its parameters the server's review flagged (F-97), marked on a call's card.
    pub flagged: Arc<[tollgate_protocol::FlaggedParameter]>,
    /// A call of it proposes a task's plan (F-98): always shown to the user, and what the
    /// user keeps becomes the chat's grant.
    pub proposes_plan: bool,
}

/// What a tool's results hold, so the gate can say where they came from (F-80).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentKind {
    /// Computed by Tollgate itself, or the user's own answer: no source.
    Own,
    /// Files of the chat's workspace, named by the `path` (or `pattern`) argument.
    Workspace,
    /// A web page, at the `url` argument.
    Web,
    /// What a command printed.
    Command,
    /// An MCP server's tool result.
    Mcp { server: String },
    /// The variables named by the `name` argument: their own sources.
    Variables,
}

impl ToolSpec {
    /// A spec with cautious defaults: `ask-always`, no result review, not read-only, 60 s.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        let targets = tollgate_provenance::targets::from_schema(&parameters).into();
        Self {
            targets,
            writes_file: None,
            name: name.into(),
            description: description.into(),
            parameters,
            execution_policy: ExecutionPolicy::AskAlways,
            result_policy: ResultPolicy::Never,
            read_only: false,
            timeout: DEFAULT_TIMEOUT,
            output_limit: None,
            declared_return: None,
            stores_result: true,
            sandboxed: false,
            effects: ToolEffects {
                writes: true,
                ..ToolEffects::NONE
            },
            content: ContentKind::Own,
            revision: None,
            review: None,
            view: None,
            callable_by_view: false,
            flagged: Arc::new([]),
            proposes_plan: false,
        }
    }

    /// Marks the tool as the one that proposes a task's plan (F-98).
    pub fn proposes_plan(mut self) -> Self {
        self.proposes_plan = true;
        self
    }

    /// The parameters the server's review flagged, for the card to mark (F-97).
    pub fn flagged(mut self, flagged: Vec<tollgate_protocol::FlaggedParameter>) -> Self {
        self.flagged = flagged.into();
        self
    }

    /// Which definition of the tool this is (SPEC §11).
    pub fn revision(mut self, revision: impl Into<Arc<str>>) -> Self {
        self.revision = Some(revision.into());
        self
    }

    /// Sets the tool's grants aside until `change` is accepted (SPEC §11).
    pub fn under_review(mut self, change: tollgate_protocol::ToolChange) -> Self {
        self.review = Some(Arc::new(change));
        self
    }

    /// What a call may do (F-81), replacing what [`Self::new`] or [`Self::read_only`] set.
    pub fn effects(mut self, effects: ToolEffects) -> Self {
        self.effects = effects;
        self
    }

    /// Declares which arguments are targets (argument names or JSON pointers), in place of
    /// what the schema suggests (SPEC §12).
    pub fn targets(mut self, targets: &[&str]) -> Self {
        let names: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
        self.targets = tollgate_provenance::targets::declared(&names).into();
        self
    }

    /// Names the argument holding the workspace file a call writes (SPEC §12).
    pub fn writes_file(mut self, argument: &'static str) -> Self {
        self.writes_file = Some(argument);
        self
    }

    /// What its results hold (F-80).
    pub fn content(mut self, content: ContentKind) -> Self {
        self.content = content;
        self
    }

    pub fn policy(mut self, policy: ExecutionPolicy) -> Self {
        self.execution_policy = policy;
        self
    }

    pub fn result_policy(mut self, policy: ResultPolicy) -> Self {
        self.result_policy = policy;
        self
    }

    /// Safe beside other read-only calls, with no side effects: it changes, runs and sends
    /// nothing (whether it reads private data stays as it was).
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self.effects = ToolEffects {
            reads_private: self.effects.reads_private,
            ..ToolEffects::NONE
        };
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn output_limit(mut self, chars: usize) -> Self {
        self.output_limit = Some(chars);
        self
    }

    pub fn returns(mut self, type_name: impl Into<String>, note: Option<&str>) -> Self {
        self.declared_return = Some(DeclaredReturn {
            type_name: type_name.into(),
            note: note.map(str::to_string),
        });
        self
    }

    pub fn without_result_variable(mut self) -> Self {
        self.stores_result = false;
        self
    }

    /// Marks the tool as running under the chat's sandbox (F-46).
    pub fn sandboxed(mut self) -> Self {
        self.sandboxed = true;
        self
    }
}

/// What kind of failure a tool reports; decides the suggestion the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorKind {
    NotFound,
    InvalidInput,
    PermissionDenied,
    Io,
    Unavailable,
    Other,
}

/// A tool's runtime failure (F-13). The executor turns it into an error result for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub kind: ToolErrorKind,
    pub message: String,
    pub suggestion: Option<String>,
}

impl ToolError {
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            suggestion: None,
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::InvalidInput, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::NotFound, message)
    }

    pub fn other(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Other, message)
    }

    /// Replaces the default suggestion of this error's kind.
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    /// The suggestion shown to the model: the tool's own, else the default for the kind.
    pub fn suggestion_text(&self) -> Option<&str> {
        self.suggestion.as_deref().or(match self.kind {
            ToolErrorKind::NotFound => Some("Check the name or path; list what exists first."),
            ToolErrorKind::InvalidInput => Some("Fix the arguments and call the tool again."),
            ToolErrorKind::PermissionDenied => {
                Some("This is outside what the tool may touch; stay inside the workspace.")
            }
            ToolErrorKind::Io => Some("Check the path and permissions, then retry."),
            ToolErrorKind::Unavailable => {
                Some("The service is unavailable; retry later or ask the user.")
            }
            ToolErrorKind::Other => None,
        })
    }
}

/// What a running tool may use.
#[derive(Clone)]
pub struct ToolContext {
    pub chat: ChatId,
    /// The chat's call number of this call (`c<seq>`).
    pub seq: u64,
    /// The provider's id of this call.
    pub call_id: String,
    /// The chat's workspace folder, if one is set.
    pub workspace: Option<PathBuf>,
    /// Cancelled on Stop, on timeout, or when the turn ends: long tools must watch it.
    pub cancel: CancellationToken,
    /// The call's clock: stopped while the user is asked something, so that time does not
    /// count against the timeout.
    pub clock: Arc<clock::CallClock>,
    /// The chat's variables (used by the variable tools).
    pub vars: Arc<VarStore>,
    /// The chat's sandbox, for tools that run under it (F-46).
    pub sandbox: sandbox::SandboxPlan,
    pub sink: Arc<dyn EventSink>,
    /// Everything the model had read when it made the call (F-80): what it writes came from
    /// there (`WriteVar` labels its variable with it).
    pub read: Arc<[tollgate_protocol::Source]>,
}

impl ToolContext {
    /// Streams output into the tool-chain log while the tool runs (F-43): `text`, after
    /// `skipped` characters of the stream that the log is not shown (a flood keeps a tail).
    /// Tollgate's own secrets never show there (F-46).
    pub fn emit_output(&self, stream: OutputStream, text: impl Into<String>, skipped: u64) {
        let text = tollgate_secrets::redact_known_owned(text.into());
        self.sink.emit(ToolEvent::OutputDelta {
            chat: self.chat,
            seq: self.seq,
            stream,
            text,
            skipped,
        });
    }
}

impl ToolContext {
    /// Shows how far the call has got on its card (an MCP server's progress reports, SPEC §11).
    /// The server wrote the message, so Tollgate's own secrets are taken out of it.
    pub fn emit_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.sink.emit(ToolEvent::Progress {
            chat: self.chat,
            seq: self.seq,
            progress,
            total,
            message: message.map(tollgate_secrets::redact_known_owned),
        });
    }
}

#[cfg(test)]
impl ToolContext {
    /// A context for calling a tool directly in unit tests: chat 1, call 1, its events on the
    /// returned receiver.
    pub fn for_test(
        workspace: Option<&std::path::Path>,
    ) -> (Self, tokio::sync::mpsc::UnboundedReceiver<ToolEvent>) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let ctx = Self {
            chat: ChatId(1),
            seq: 1,
            call_id: "c1".into(),
            workspace: workspace.map(std::path::Path::to_path_buf),
            cancel: CancellationToken::new(),
            clock: clock::CallClock::new(),
            vars: Arc::new(VarStore::in_memory(
                ChatId(1),
                crate::vars::VarLimits {
                    max_count: 10,
                    max_bytes: 1 << 20,
                },
            )),
            sandbox: sandbox::SandboxPlan::default(),
            sink: Arc::new(ChannelSink(tx)),
            read: Arc::from([]),
        };
        (ctx, rx)
    }
}

/// What [`Tool::still_as_granted`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Granted {
    /// The definition in force is the one the grants were made for.
    Same,
    /// It changed without the source saying so: what changed, to show before anything runs.
    Changed(Box<tollgate_protocol::ToolChange>),
}

/// A tool the model can call.
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// What the tool is.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool with validated, resolved arguments (without the `limit` argument).
    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError>;

    /// Whether the definition this tool was granted for is still the one its source serves
    /// (SPEC §12): asked before a rule, a record or an `auto` policy made against it lets a
    /// call run for the first time in a chat. A tool of Tollgate's own cannot change under it.
    async fn still_as_granted(&self) -> Result<Granted, String> {
        Ok(Granted::Same)
    }

    /// Whether the source's listing of this tool has a lifetime (an MCP 2026-07-28 server's
    /// `ttlMs`, F-99): then [`Self::still_as_granted`] is asked before every decision a standing
    /// grant makes, not once per chat, and answers from the listing while it is fresh. A source
    /// without one tells of its changes (`list_changed`) and is asked once per chat.
    fn listing_expires(&self) -> bool {
        false
    }

    /// The task the call goes on as after its turn, when the tool's data says the call was
    /// handed over rather than ended (an MCP server's task that outlasts the call's wait, F-99):
    /// the gate records it and follows it with [`Self::resume`].
    fn background_task(&self, _data: &Value) -> Option<String> {
        None
    }

    /// Follows the task `task` a call of this tool went on as, to its end: the data the call
    /// would have returned (F-99). Only a tool whose [`Self::background_task`] names tasks has
    /// any to follow.
    async fn resume(&self, task: &str, _ctx: ToolContext) -> Result<Value, ToolError> {
        Err(ToolError::other(format!(
            "the tool \"{}\" cannot follow its task {task}",
            self.spec().name
        )))
    }

    /// Turns the tool's data into text for the model; `None` uses the default (strings as-is,
    /// other JSON pretty-printed).
    fn format_for_llm(&self, _data: &Value, _args: &Value) -> Option<String> {
        None
    }

    /// Images in the tool's data, shown to the user with the result (F-45: an MCP tool's image
    /// content). The model is told of them in the text; each was checked to be an image.
    fn images(&self, _data: &Value) -> Vec<tollgate_protocol::Attachment> {
        Vec::new()
    }

    /// The result as its source returned it, for a view to read (an MCP tool's
    /// `CallToolResult`, F-96); `None` for a tool no view reads.
    fn raw_result(&self, _data: &Value) -> Option<Value> {
        None
    }

    /// How the call ran under the sandbox and what it blocked (F-46), for the tool card.
    fn sandbox_report(&self, _data: &Value) -> Option<tollgate_protocol::SandboxReport> {
        None
    }

    /// Custom truncation; `None` uses head + tail truncation.
    fn truncate_for_llm(
        &self,
        _text: &str,
        _args: &Value,
        _limit: usize,
        _var: Option<&str>,
    ) -> Option<String> {
        None
    }

    /// A one-line form of the arguments for the tool-chain log.
    fn compress_args(&self, _args: &Value) -> Option<String> {
        None
    }

    /// A one-line form of the result for the tool-chain log.
    fn compress_result(&self, _text: &str) -> Option<String> {
        None
    }

    /// What rules match against (F-04), as the call would really act: the default is the
    /// canonical JSON of the arguments; file tools give the path after today's symlinks, the
    /// shell its command. `workspace` is the chat's folder, if any.
    fn rule_subject(&self, args: &Value, _workspace: Option<&std::path::Path>) -> RuleSubject {
        RuleSubject::Args(tollgate_protocol::canonical::canonical_json(args))
    }

    /// A preview for the approval card (a diff, a command).
    fn approval_preview(
        &self,
        _args: &Value,
        _workspace: Option<&std::path::Path>,
    ) -> Option<ApprovalPreview> {
        None
    }
}

/// The strings of the array argument `key` (other items skipped; missing: empty).
pub(crate) fn string_list(args: &Value, key: &str) -> Vec<String> {
    args.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The schema the registry would send and validate for `schema` (it adds `limit`).
pub fn registry_schema(schema: &Value) -> Value {
    registry::with_limit_arg(schema)
}

/// Whether the registry can compile `schema` into a validator.
pub fn schema_compiles(schema: &Value) -> bool {
    validation::compile(schema).is_ok()
}

/// The default formatting of F-15: strings as-is, other JSON pretty-printed.
pub fn default_format(data: &Value) -> String {
    match data {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn default_format_keeps_strings_and_pretty_prints_json() {
        assert_eq!(default_format(&json!("plain\ntext")), "plain\ntext");
        assert_eq!(default_format(&json!({"a": 1})), "{\n  \"a\": 1\n}");
        assert_eq!(default_format(&json!(3)), "3");
    }

    #[test]
    fn errors_carry_kind_suggestions_unless_overridden() {
        let e = ToolError::not_found("no such file: a.txt");
        assert!(e
            .suggestion_text()
            .unwrap()
            .contains("Check the name or path"));
        let e = e.with_suggestion("Try list_dir.");
        assert_eq!(e.suggestion_text(), Some("Try list_dir."));
        assert_eq!(ToolError::other("x").suggestion_text(), None);
    }
}
