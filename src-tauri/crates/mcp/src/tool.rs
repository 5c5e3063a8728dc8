//! An MCP server's tools as Tollgate tools: each passes through the same gate as the built-in
//! ones. Names get the server as prefix (`<server>__<tool>`), `readOnlyHint` makes a tool
//! read-only (and ask-once by default; everything else asks every time), and results are turned
//! into text the model can read.

use super::config::McpServerConfig;
use super::slot::ServerSlot;
use async_trait::async_trait;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents, Tool as McpToolInfo};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::{Attachment, AttachmentKind};
use tollgate_tools::images::{check_base64, human_size};
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
        let server = self.server.name();
        let Some(conn) = self.server.connection() else {
            return Err(ToolError::new(
                ToolErrorKind::Unavailable,
                format!("the MCP server \"{server}\" is not running"),
            )
            .with_suggestion("Tell the user; they can restart it in Settings → MCP servers."));
        };
        let arguments = match args {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        // While it runs, the server may ask the user (SPEC §11): its questions go to this chat.
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
            // The server's progress, and a page it waits for, show on the call's card.
            on_progress: Arc::new(move |p: super::progress::CallProgress| {
                shows.emit_progress(p.progress, p.total, p.message);
            }),
            asked_in: Some(running.call().clone()),
        };
        let result = conn.call(&self.remote, arguments, &options).await;
        match result {
            Ok(result) => {
                let Rendered {
                    text,
                    mut images,
                    links,
                } = render_result(&result);
                // The links are to this server's resources: the user may attach them.
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
                } else if images.is_empty()
                    && !self.spec.callable_by_view
                    && self.spec.view.is_none()
                {
                    Ok(Value::String(text))
                } else {
                    // A view reads the result as the server gave it (F-96).
                    let raw = (self.spec.callable_by_view || self.spec.view.is_some())
                        .then(|| serde_json::to_value(&result).ok())
                        .flatten();
                    Ok(serde_json::to_value(WithImages { text, images, raw })
                        .unwrap_or_else(|e| Value::String(format!("[images not shown: {e}]"))))
                }
            }
            Err(super::McpError::Closed) => Err(ToolError::new(
                ToolErrorKind::Unavailable,
                format!("the MCP server \"{server}\" stopped during the call"),
            )
            .with_suggestion("Tell the user; they can restart it in Settings → MCP servers.")),
            Err(super::McpError::Cancelled) => Err(ToolError::other("stopped by the user")),
            Err(e) => Err(ToolError::new(ToolErrorKind::Unavailable, e.to_string())),
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

/// At most this many images of one result are kept and shown; the rest are noted in the text.
pub const MAX_RESULT_IMAGES: usize = 8;
/// At most this many resource links of one result are offered to attach; all are in the text.
pub const MAX_RESULT_LINKS: usize = 16;

/// A result with images, as the tool's data: the text is what the model reads (and the
/// variable keeps), the images are shown to the user beside it.
#[derive(Serialize, Deserialize)]
struct WithImages {
    text: String,
    #[serde(default)]
    images: Vec<Attachment>,
    /// The `CallToolResult` as the server sent it, for the server's view (F-96).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    raw: Option<Value>,
}

impl WithImages {
    fn read(data: &Value) -> Option<Self> {
        if !data.is_object() {
            return None;
        }
        Self::deserialize(data).ok()
    }
}

/// A call's result for Tollgate: its text for the model, the images to show the user and the
/// links to the server's resources the user may attach (kind `ResourceLink`, no source yet).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub images: Vec<Attachment>,
    pub links: Vec<Attachment>,
}

impl Rendered {
    /// Keeps an image (checked by its bytes) to show the user, and tells the model about it;
    /// an image that is not one, or one too many, is only described.
    fn image(&mut self, what: &str, declared: &str, data: &str) -> String {
        let size = human_size(data.len() / 4 * 3);
        if self.images.len() >= MAX_RESULT_IMAGES {
            return format!("[{what} {declared} of about {size}, not shown: more than {MAX_RESULT_IMAGES} images]");
        }
        match check_base64(data) {
            Ok(image) => {
                let n = self.images.len() + 1;
                self.images.push(Attachment {
                    name: format!("{what} {n}"),
                    kind: AttachmentKind::Image,
                    media_type: image.media_type.to_string(),
                    data: data.chars().filter(|c| !c.is_ascii_whitespace()).collect(),
                    source: None,
                });
                format!(
                    "[{what} {n}: {}, {}, shown to the user; you cannot see it]",
                    image.media_type,
                    human_size(image.bytes)
                )
            }
            Err(e) => format!("[{what} {declared} of about {size}, not shown: it {e}]"),
        }
    }
}

/// A call's content for Tollgate: text blocks as they are, resources with their URI, images
/// (also image blobs) kept to show the user with a note for the model, other binary content as
/// a short note (the model cannot read base64 usefully), structured content when nothing else
/// was given.
pub fn render_result(result: &CallToolResult) -> Rendered {
    let mut out = Rendered::default();
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::Image(img) => {
                let note = out.image("image", &img.mime_type, &img.data);
                parts.push(note);
            }
            ContentBlock::Audio(a) => parts.push(format!(
                "[audio {} of about {}, not shown]",
                a.mime_type,
                human_size(a.data.len() / 4 * 3)
            )),
            ContentBlock::Resource(res) => match &res.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    parts.push(format!("[resource {uri}]\n{text}"));
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => {
                    let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
                    if mime.starts_with("image/") {
                        let note = out.image("image", mime, blob);
                        parts.push(format!("[resource {uri}] {note}"));
                    } else {
                        parts.push(format!(
                            "[binary resource {uri} ({mime}, about {}), not shown]",
                            human_size(blob.len() / 4 * 3)
                        ));
                    }
                }
                #[allow(unreachable_patterns)]
                _ => parts.push("[resource of an unknown kind]".into()),
            },
            ContentBlock::ResourceLink(link) => {
                parts.push(format!("[resource link: {} <{}>]", link.name, link.uri));
                if out.links.len() < MAX_RESULT_LINKS {
                    out.links.push(Attachment {
                        name: link.title.clone().unwrap_or_else(|| link.name.clone()),
                        kind: AttachmentKind::ResourceLink,
                        media_type: link.mime_type.clone().unwrap_or_default(),
                        data: link.uri.clone(),
                        source: None,
                    });
                }
            }
            #[allow(unreachable_patterns)]
            _ => parts.push("[content of an unknown kind]".into()),
        }
    }
    if let Some(structured) = &result.structured_content {
        if parts.is_empty() {
            parts.push(
                serde_json::to_string_pretty(structured).unwrap_or_else(|_| structured.to_string()),
            );
        }
    }
    out.text = parts.join("\n");
    out
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

    const DOT: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";

    #[test]
    fn results_become_text_and_images_to_show() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": DOT, "mimeType": "image/jpeg"},
                {"type": "image", "data": "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+", "mimeType": "image/svg+xml"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "file:///d.png", "blob": DOT, "mimeType": "image/png"}},
                {"type": "resource", "resource": {"uri": "file:///x.bin", "blob": "AAAA"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b"}
            ]
        }))
        .unwrap();
        let rendered = render_result(&result);
        assert_eq!(
            rendered.text,
            "hello\n[image 1: image/png, 70 bytes, shown to the user; you cannot see it]\n\
             [image image/svg+xml of about 21 bytes, not shown: it is not a PNG, JPEG, GIF or WebP image, the formats models take]\n\
             [resource file:///a.txt]\ninside\n\
             [resource file:///d.png] [image 2: image/png, 70 bytes, shown to the user; you cannot see it]\n\
             [binary resource file:///x.bin (application/octet-stream, about 3 bytes), not shown]\n\
             [resource link: b <file:///b>]"
        );
        assert_eq!(rendered.images.len(), 2);
        assert_eq!(
            rendered.images[0].media_type, "image/png",
            "the bytes, not the server, say what it is"
        );
        assert_eq!(rendered.images[0].data, DOT);
        assert_eq!(
            rendered.links,
            [Attachment {
                name: "b".into(),
                kind: AttachmentKind::ResourceLink,
                media_type: String::new(),
                data: "file:///b".into(),
                source: None,
            }],
            "the link is offered to the user to attach"
        );
        let structured: CallToolResult =
            serde_json::from_value(json!({"content": [], "structuredContent": {"sum": 3}}))
                .unwrap();
        assert_eq!(render_result(&structured).text, "{\n  \"sum\": 3\n}");
    }

    #[test]
    fn a_flood_of_images_is_cut_to_a_few() {
        let blocks: Vec<Value> = (0..MAX_RESULT_IMAGES + 3)
            .map(|_| json!({"type": "image", "data": DOT, "mimeType": "image/png"}))
            .collect();
        let result: CallToolResult = serde_json::from_value(json!({ "content": blocks })).unwrap();
        let rendered = render_result(&result);
        assert_eq!(rendered.images.len(), MAX_RESULT_IMAGES);
        assert_eq!(rendered.text.matches("more than 8 images").count(), 3);
    }

    #[test]
    fn a_flood_of_links_offers_a_few_and_names_them_all_to_the_model() {
        let blocks: Vec<Value> = (0..MAX_RESULT_LINKS + 4)
            .map(|i| json!({"type": "resource_link", "uri": format!("probe://r{i}"), "name": format!("r{i}"), "title": "A report", "mimeType": "text/markdown"}))
            .collect();
        let result: CallToolResult = serde_json::from_value(json!({ "content": blocks })).unwrap();
        let rendered = render_result(&result);
        assert_eq!(rendered.links.len(), MAX_RESULT_LINKS);
        assert_eq!(rendered.links[0].name, "A report");
        assert_eq!(rendered.links[0].media_type, "text/markdown");
        assert_eq!(
            rendered.text.matches("[resource link: ").count(),
            MAX_RESULT_LINKS + 4
        );
    }
}
