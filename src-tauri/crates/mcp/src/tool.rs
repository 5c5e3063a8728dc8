//! An MCP server's tools as Tollgate tools: each passes through the same gate as the built-in
//! ones. Names get the server as prefix (`<server>__<tool>`), `readOnlyHint` makes a tool
//! read-only (and ask-once by default; everything else asks every time), and results are turned
//! into text the model can read.

use super::config::McpServerConfig;
use super::result::{render_result, Rendered, RunsOn, WithImages};
use super::slot::ServerSlot;
use async_trait::async_trait;
use rmcp::model::{CallToolResult, Tool as McpToolInfo};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::Attachment;
use tollgate_tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolSpec};

/// A tool of an MCP server.
pub struct McpTool {
    spec: ToolSpec,
    /// The tool's name on the server.
    remote: String,
    server: Arc<ServerSlot>,
    /// The tool's `outputSchema`, compiled: a structured result must match it (SPEC §11).
    output: Option<OutputSchema>,
    /// The definition this tool was built from: what its grants were made for.
    definition: tollgate_protocol::McpToolDefinition,
}

/// A declared output schema, or why it cannot be used.
enum OutputSchema {
    Valid(Box<jsonschema::Validator>),
    /// The server declared a schema that does not compile: its results cannot be checked, and
    /// are refused rather than passed on unchecked.
    Invalid(String),
}

impl OutputSchema {
    fn of(info: &McpToolInfo) -> Option<Self> {
        let schema = Value::Object((**info.output_schema.as_ref()?).clone());
        Some(match jsonschema::validator_for(&schema) {
            Ok(v) => Self::Valid(Box::new(v)),
            Err(e) => Self::Invalid(e.to_string()),
        })
    }

    /// Checks a successful result's structured content against the schema.
    fn check(&self, structured: Option<&Value>) -> Result<(), String> {
        let validator = match self {
            Self::Valid(v) => v,
            Self::Invalid(e) => {
                return Err(format!(
                    "the tool's declared output schema is not valid JSON Schema ({e}), so its result cannot be checked"
                ))
            }
        };
        let Some(value) = structured else {
            return Err(
                "the tool declares an output schema but returned no structured result".into(),
            );
        };
        let problems: Vec<String> = validator
            .iter_errors(value)
            .take(5)
            .map(|e| {
                let path = e.instance_path().as_str().to_string();
                format!("- {}: {e}", if path.is_empty() { "/" } else { &path })
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the tool's structured result does not match its declared output schema:\n{}",
                problems.join("\n")
            ))
        }
    }
}

/// `<server>__<tool>`, limited to the characters and length tool names may have.
pub fn tool_name(server: &str, remote: &str) -> String {
    let clean: String = remote
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = format!("{server}__{clean}");
    if name.len() <= 64 {
        return name;
    }
    let hash = hex::encode(&Sha256::digest(remote.as_bytes())[..3]);
    format!("{}_{hash}", &name[..57])
}

/// Whether the server marks the tool read-only (`readOnlyHint`); unmarked tools are not.
pub fn read_only_hint(info: &McpToolInfo) -> bool {
    info.annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false)
}

/// What a call may do, from the tool's annotations with the MCP defaults for hints a server
/// leaves out (F-81): a tool not marked read-only writes, and is destructive unless marked
/// otherwise; a tool not marked closed-world reaches outside (so its arguments leave the
/// machine). Whether it reads private data only the user can say (an override).
pub fn effects_from_hints(info: &McpToolInfo) -> tollgate_tools::ToolEffects {
    let hints = info.annotations.as_ref();
    effects_of(
        hints.and_then(|a| a.read_only_hint),
        hints.and_then(|a| a.destructive_hint),
        hints.and_then(|a| a.open_world_hint),
    )
}

/// [`effects_from_hints`] for hints as given, with the MCP defaults for those left out.
fn effects_of(
    read_only: Option<bool>,
    destructive: Option<bool>,
    open_world: Option<bool>,
) -> tollgate_tools::ToolEffects {
    let read_only = read_only.unwrap_or(false);
    tollgate_tools::ToolEffects {
        writes: !read_only,
        executes: false,
        sends_out: open_world.unwrap_or(true),
        irreversible: !read_only && destructive.unwrap_or(true),
        reads_private: false,
    }
}

/// Whether a recorded definition was marked read-only.
fn definition_read_only(definition: &tollgate_protocol::McpToolDefinition) -> bool {
    hint(definition, "readOnlyHint").unwrap_or(false)
}

fn hint(definition: &tollgate_protocol::McpToolDefinition, name: &str) -> Option<bool> {
    definition
        .annotations
        .as_ref()
        .and_then(|a| a.get(name))
        .and_then(Value::as_bool)
}

/// What a call may do by a recorded definition's hints, as [`effects_from_hints`] reads them.
fn effects_of_definition(
    definition: &tollgate_protocol::McpToolDefinition,
) -> tollgate_tools::ToolEffects {
    effects_of(
        hint(definition, "readOnlyHint"),
        hint(definition, "destructiveHint"),
        hint(definition, "openWorldHint"),
    )
}

/// The argument schema, or an open object schema if the server's does not compile.
fn usable_schema(info: &McpToolInfo) -> (Value, bool) {
    let mut schema = Value::Object((*info.input_schema).clone());
    if let Value::Object(map) = &mut schema {
        map.entry("type").or_insert_with(|| json!("object"));
    }
    let with_limit = tollgate_tools::registry_schema(&schema);
    if tollgate_tools::schema_compiles(&with_limit) {
        (schema, true)
    } else {
        (
            json!({"type": "object", "additionalProperties": true}),
            false,
        )
    }
}

impl McpTool {
    /// Wraps one tool of `config`'s server. A tool under `review` (SPEC §11) is treated as the
    /// more cautious of what it was and what it is now: it is read-only only if it was and is,
    /// and may do what either may; the gate asks for it every time (unless a setting denies it),
    /// because its spec carries the review.
    pub fn new(
        config: &McpServerConfig,
        info: &McpToolInfo,
        server: Arc<ServerSlot>,
        review: Option<tollgate_protocol::ToolChange>,
    ) -> Self {
        let before_read_only = review
            .as_ref()
            .map(|c| c.before.as_ref().is_some_and(definition_read_only));
        let read_only = read_only_hint(info) && before_read_only.unwrap_or(true);
        let (parameters, schema_ok) = usable_schema(info);
        let mut description = info
            .description
            .as_deref()
            .map(str::to_string)
            .or_else(|| info.title.clone())
            .unwrap_or_default();
        if !schema_ok {
            description.push_str(" (The server's argument schema was invalid; check arguments against the description.)");
        }
        let default_policy = if read_only {
            ExecutionPolicy::AskOnce
        } else {
            ExecutionPolicy::AskAlways
        };
        let mut spec = ToolSpec::new(
            tool_name(&config.name, &info.name),
            description.trim(),
            parameters,
        )
        // Under review the gate asks every time whatever this says (the executor's
        // `decision::effective_policy`, the one place that rule is written).
        .policy(config.execution_policy.unwrap_or(default_policy))
        .timeout(Duration::from_secs(config.timeout_secs));
        if let Some(p) = config.result_policy {
            spec = spec.result_policy(p);
        }
        if read_only {
            spec = spec.read_only();
        }
        let mut effects = effects_from_hints(info);
        if let Some(before) = review.as_ref().and_then(|c| c.before.as_ref()) {
            effects = effects.union(effects_of_definition(before));
        }
        let definition = super::review::definition(info);
        let fingerprint = super::review::fingerprint(&definition);
        spec = spec
            .effects(effects)
            .content(tollgate_tools::ContentKind::Mcp {
                server: config.name.clone(),
            })
            .revision(fingerprint);
        if let Some(change) = review {
            spec = spec.under_review(change);
        }
        // The parameters the review flags are marked on each call's card (F-97).
        let flagged = super::scan::flagged_parameters(&spec.parameters);
        spec = spec.flagged(flagged);
        // Its view (F-96): shown, and allowed to call the server's tools, only where the
        // user left the server's views on.
        if config.views {
            spec.view = super::apps::view_uri(info).map(|uri| {
                Arc::new(tollgate_protocol::McpViewLink {
                    server: config.name.clone(),
                    uri,
                })
            });
            spec.callable_by_view = super::apps::visibility(info).app;
        }
        Self {
            spec,
            remote: info.name.to_string(),
            server,
            output: OutputSchema::of(info),
            definition,
        }
    }

    /// The tool's name on its server.
    pub fn remote_name(&self) -> &str {
        &self.remote
    }

    /// The server's connection, or why there is none.
    fn connection(&self) -> Result<Arc<super::McpConnection>, ToolError> {
        self.server.connection().ok_or_else(|| {
            ToolError::new(
                ToolErrorKind::Unavailable,
                format!("the MCP server \"{}\" is not running", self.server.name()),
            )
            .with_suggestion("Tell the user; they can restart it in Settings → MCP servers.")
        })
    }

    /// The call of `ctx` registered with the server while it runs, so the server's questions
    /// reach this chat (SPEC §11), and the options it is made with: its progress and a page it
    /// waits for show on the call's card.
    fn on_card(&self, ctx: &ToolContext) -> (super::slot::CallGuard, super::CallOptions) {
        let running = self.server.begin_call_in(
            ctx.chat,
            ctx.seq,
            &ctx.cancel,
            &ctx.clock,
            ctx.workspace.clone(),
        );
        let shows = ctx.clone();
        let options = super::CallOptions {
            // The executor enforces the tool's timeout as well; this one also tells the server.
            timeout: self.spec.timeout,
            clock: Arc::clone(&ctx.clock),
            cancel: ctx.cancel.clone(),
            on_progress: Arc::new(move |p: super::progress::CallProgress| {
                shows.emit_progress(p.progress, p.total, p.message);
            }),
            asked_in: Some(running.call().clone()),
            hand_over: None,
        };
        (running, options)
    }

    /// What the server's answer to a call (or to its task) comes to for the gate: the text and
    /// images to show, the failure to report, or the task the call goes on as.
    fn delivered(
        &self,
        result: Result<CallToolResult, super::McpError>,
    ) -> Result<Value, ToolError> {
        let server = self.server.name();
        match result {
            Ok(result) => self.rendered(&result),
            Err(super::McpError::RunsOn(task)) => Ok(RunsOn::data(task)),
            Err(super::McpError::Closed) => Err(ToolError::new(
                ToolErrorKind::Unavailable,
                format!("the MCP server \"{server}\" stopped during the call"),
            )
            .with_suggestion("Tell the user; they can restart it in Settings → MCP servers.")),
            Err(super::McpError::Cancelled) => Err(ToolError::other("stopped by the user")),
            Err(e) => Err(ToolError::new(ToolErrorKind::Unavailable, e.to_string())),
        }
    }

    /// A result the server gave: its text and images (its links to the server's resources the
    /// user may attach), checked against the output schema the tool declares.
    fn rendered(&self, result: &CallToolResult) -> Result<Value, ToolError> {
        let server = self.server.name();
        let Rendered {
            text,
            mut images,
            links,
        } = render_result(result);
        images.extend(links.into_iter().map(|mut link| {
            link.source = Some(tollgate_protocol::Source::McpResource {
                server: server.to_string(),
                uri: link.data.clone(),
            });
            link
        }));
        let unchecked = match (&self.output, result.is_error) {
            (_, Some(true)) | (None, _) => None,
            (Some(schema), _) => schema.check(result.structured_content.as_ref()).err(),
        };
        if result.is_error == Some(true) {
            Err(ToolError::other(if text.trim().is_empty() {
                "the tool reported an error without a message".to_string()
            } else {
                text
            }))
        } else if let Some(problem) = unchecked {
            Err(ToolError::new(ToolErrorKind::Other, format!("the MCP server \"{server}\" returned a result that was not passed on: {problem}"))
                .with_suggestion("Tell the user; the server's tool does not keep to what it declares."))
        } else if images.is_empty() && !self.spec.callable_by_view && self.spec.view.is_none() {
            Ok(Value::String(text))
        } else {
            // A view reads the result as the server gave it (F-96).
            let raw = (self.spec.callable_by_view || self.spec.view.is_some())
                .then(|| serde_json::to_value(result).ok())
                .flatten();
            Ok(serde_json::to_value(WithImages { text, images, raw })
                .unwrap_or_else(|e| Value::String(format!("[images not shown: {e}]"))))
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Lists the server's tools again and compares this one with the definition it was built
    /// from: a server that changed it without a `list_changed` is caught here, and the manager
    /// is told to read the listing (so the tool goes under review, SPEC §11).
    async fn still_as_granted(&self) -> Result<tollgate_tools::Granted, String> {
        let server = self.server.name();
        let conn = self
            .server
            .connection()
            .ok_or_else(|| format!("the MCP server \"{server}\" is not running"))?;
        let tools = conn.tools().await.map_err(|e| e.to_string())?;
        let now = tools
            .iter()
            .find(|t| t.name == self.remote)
            .map(super::review::definition);
        match now {
            Some(now) if now == self.definition => Ok(tollgate_tools::Granted::Same),
            Some(now) => {
                conn.relist_tools();
                Ok(tollgate_tools::Granted::Changed(Box::new(
                    tollgate_protocol::ToolChange {
                        server: server.to_string(),
                        tool: self.remote.clone(),
                        reason: tollgate_protocol::ReviewReason::Changed,
                        changed: self.definition.differences(&now),
                        before: Some(self.definition.clone()),
                        fingerprint: super::review::fingerprint(&now),
                        after: now,
                    },
                )))
            }
            None => {
                conn.relist_tools();
                Err(format!(
                    "the MCP server \"{server}\" no longer offers the tool \"{}\"",
                    self.remote
                ))
            }
        }
    }

    fn listing_expires(&self) -> bool {
        self.server
            .connection()
            .is_some_and(|conn| conn.lists_expire())
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let conn = self.connection()?;
        let arguments = match args {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let (_running, mut options) = self.on_card(&ctx);
        // A task the turn has waited for as long as the call may take goes on after it (F-99).
        options.hand_over = Some(self.spec.timeout);
        let result = conn.call(&self.remote, arguments, &options).await;
        self.delivered(result)
    }

    fn background_task(&self, data: &Value) -> Option<String> {
        RunsOn::read(data)
    }

    /// Follows the task on the server's connection as it is now (the server may have been
    /// started again since), showing it on the call's card as the call did.
    /// A server that is not running (not yet, or no longer) is said to be unavailable, and only
    /// then: the gate waits for it to run again and follows the task anew (a task may well
    /// outlive a restart of its server). Any other end of the task is its result or its failure.
    async fn resume(&self, task: &str, ctx: ToolContext) -> Result<Value, ToolError> {
        let not_running = || {
            ctx.emit_progress(
                0.0,
                None,
                Some(format!(
                    "waiting for the MCP server \"{}\" to run again",
                    self.server.name()
                )),
            );
            ToolError::new(
                ToolErrorKind::Unavailable,
                format!("the MCP server \"{}\" is not running", self.server.name()),
            )
        };
        let Some(conn) = self.server.connection() else {
            return Err(not_running());
        };
        let (_running, options) = self.on_card(&ctx);
        match conn.follow_task(task, &options).await {
            Ok(result) => self.rendered(&result),
            Err(super::McpError::Closed) => Err(not_running()),
            Err(super::McpError::Cancelled) => Err(ToolError::other("stopped by the user")),
            // The server runs but the task ended otherwise (it failed, it is unknown, the
            // server wants a sign-in): the call's failure, not a wait for the server.
            Err(e) => Err(ToolError::other(e.to_string())),
        }
    }

    fn format_for_llm(&self, data: &Value, _args: &Value) -> Option<String> {
        WithImages::read(data).map(|w| w.text)
    }

    fn images(&self, data: &Value) -> Vec<Attachment> {
        WithImages::read(data).map(|w| w.images).unwrap_or_default()
    }

    fn raw_result(&self, data: &Value) -> Option<Value> {
        WithImages::read(data).and_then(|w| w.raw)
    }

    fn compress_args(&self, args: &Value) -> Option<String> {
        let s = args.to_string();
        Some(if s.chars().count() > 120 {
            format!("{}…", s.chars().take(120).collect::<String>())
        } else {
            s
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn with_output(schema: Value) -> McpToolInfo {
        let mut info = McpToolInfo::new("weather", "Weather.", Arc::new(serde_json::Map::new()));
        if let Value::Object(map) = schema {
            info.output_schema = Some(Arc::new(map));
        }
        info
    }

    #[test]
    fn structured_results_must_fit_the_declared_output_schema() {
        let info = with_output(json!({
            "type": "object",
            "properties": {"celsius": {"type": "number"}},
            "required": ["celsius"]
        }));
        let schema = OutputSchema::of(&info).expect("declared");
        assert_eq!(schema.check(Some(&json!({"celsius": 21.5}))), Ok(()));
        let wrong = schema.check(Some(&json!({"celsius": "hot"}))).unwrap_err();
        assert!(wrong.contains("/celsius"), "{wrong}");
        let none = schema.check(None).unwrap_err();
        assert!(none.contains("returned no structured result"), "{none}");
        // A schema that does not compile checks nothing, so nothing passes unchecked.
        let broken = OutputSchema::of(&with_output(json!({"type": "nonsense"}))).expect("declared");
        assert!(broken.check(Some(&json!({}))).is_err());
        // No declared schema: nothing to check.
        assert!(OutputSchema::of(&McpToolInfo::new(
            "t",
            "d",
            Arc::new(serde_json::Map::new())
        ))
        .is_none());
    }

    #[test]
    fn a_tool_under_review_is_the_cautious_reading_of_both_versions() {
        use tollgate_protocol::{McpToolDefinition, ReviewReason, ToolChange};
        let mut now = McpToolInfo::new("forecast", "Reads.", Arc::new(serde_json::Map::new()));
        now.annotations = Some(rmcp::model::ToolAnnotations::new().read_only(true));
        let before = McpToolDefinition {
            title: None,
            description: "Reads.".into(),
            input_schema: json!({}),
            output_schema: None,
            annotations: Some(json!({"readOnlyHint": false})),
        };
        let change = ToolChange {
            server: "s".into(),
            tool: "forecast".into(),
            reason: ReviewReason::Changed,
            changed: vec![],
            before: Some(before),
            after: super::super::review::definition(&now),
            fingerprint: "f".into(),
        };
        let config = McpServerConfig::http("s", "http://localhost/mcp");
        let slot = Arc::new(ServerSlot::new("s"));
        let reviewed = McpTool::new(&config, &now, Arc::clone(&slot), Some(change));
        let spec = reviewed.spec();
        assert!(!spec.read_only);
        assert!(spec.effects.writes && spec.effects.irreversible);
        assert_eq!(spec.execution_policy, ExecutionPolicy::AskAlways);
        assert!(spec.review.is_some());
        // The same tool accepted: read-only, asks once.
        let accepted = McpTool::new(&config, &now, slot, None);
        assert!(accepted.spec().read_only);
        assert_eq!(accepted.spec().execution_policy, ExecutionPolicy::AskOnce);
        assert_ne!(accepted.spec().revision, None);
    }

    #[test]
    fn names_are_prefixed_cleaned_and_bounded() {
        assert_eq!(tool_name("everything", "get-sum"), "everything__get-sum");
        assert_eq!(tool_name("fs", "read.file v2"), "fs__read_file_v2");
        let long = tool_name("server", &"x".repeat(100));
        assert_eq!(long.len(), 64);
        assert_ne!(long, tool_name("server", &"x".repeat(101)));
    }
}
