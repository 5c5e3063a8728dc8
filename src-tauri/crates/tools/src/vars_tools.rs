//! The `vars` group (F-40): the model's access to the chat's variables.

use super::{Tool, ToolContext, ToolError, ToolGroup, ToolSpec};
use crate::vars::{VarError, VarKind};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::Arc;
use tollgate_protocol::policy::ExecutionPolicy;

/// Default slice length of `ReadVar`.
pub const READ_DEFAULT_LENGTH: usize = 8_000;

/// The group; the executor enables it whenever any other group is enabled.
pub fn group() -> ToolGroup {
    ToolGroup::new(
        VARS_GROUP,
        "Variables",
        "Full tool results and other stored text, read on demand.",
    )
    .tool(ListVars::new())
    .tool(ReadVar::new())
    .tool(WriteVar::new())
    .tool(RemoveVars::new())
}

fn spec(name: &str, description: &str, parameters: Value) -> ToolSpec {
    ToolSpec::new(name, description, parameters)
        .policy(ExecutionPolicy::Auto)
        .without_result_variable()
        // They change only the chat's own variables: nothing outside it.
        .effects(crate::ToolEffects::NONE)
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::invalid(format!("\"{key}\" is required")))
}

fn usize_arg(args: &Value, key: &str) -> Option<usize> {
    args.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

pub struct ListVars(ToolSpec);

impl ListVars {
    fn new() -> Self {
        Self(
            spec(
                "ListVars",
                "List the stored variables (name, kind and length in characters).",
                json!({"type": "object", "properties": {
                    "prefix": {"type": "string", "description": "Only names starting with this."}
                }, "additionalProperties": false}),
            )
            .read_only(),
        )
    }
}

#[async_trait]
impl Tool for ListVars {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let prefix = args
            .get("prefix")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let rows: Vec<String> = ctx
            .vars
            .list()
            .into_iter()
            .filter(|v| v.name.starts_with(prefix))
            .map(|v| format!("{}\t{}\t{} chars", v.name, v.kind.as_str(), v.chars))
            .collect();
        if rows.is_empty() {
            return Ok(json!("No variables."));
        }
        Ok(Value::String(format!(
            "name\tkind\tlength\n{}",
            rows.join("\n")
        )))
    }
}

pub struct ReadVar(ToolSpec);

impl ReadVar {
    fn new() -> Self {
        Self(
            spec(
                "ReadVar",
                "Read a variable, or a slice of it by character offset.",
                json!({"type": "object", "properties": {
                    "name": {"type": "string"},
                    "start": {"type": "integer", "minimum": 0, "description": "First character (default 0)."},
                    "length": {"type": "integer", "minimum": 1, "description": "How many characters (default 8000)."}
                }, "required": ["name"], "additionalProperties": false}),
            )
            .read_only()
            .content(crate::ContentKind::Variables),
        )
    }
}

#[async_trait]
impl Tool for ReadVar {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let name = str_arg(&args, "name")?;
        let Some(value) = ctx.vars.get(name) else {
            let names: Vec<String> = ctx.vars.list().into_iter().map(|v| v.name).collect();
            let close = crate::names::closest_names(name, names.iter().map(String::as_str), 3);
            let hint = if close.is_empty() {
                String::new()
            } else {
                format!(" Closest: {}.", close.join(", "))
            };
            return Err(
                ToolError::not_found(format!("no variable \"{name}\".{hint}"))
                    .with_suggestion("Use ListVars to see the variables that exist."),
            );
        };
        let start = usize_arg(&args, "start").unwrap_or(0);
        let length = usize_arg(&args, "length").unwrap_or(READ_DEFAULT_LENGTH);
        let total = value.chars().count();
        if start > total {
            return Err(ToolError::invalid(format!(
                "start {start} is past the end; \"{name}\" has {total} chars"
            )));
        }
        let slice: String = value.chars().skip(start).take(length).collect();
        let end = start + slice.chars().count();
        if start == 0 && end == total {
            return Ok(Value::String(slice));
        }
        let more = if end < total {
            format!(" Continue with ReadVar(name=\"{name}\", start={end}).")
        } else {
            String::new()
        };
        Ok(Value::String(format!(
            "[chars {start}–{end} of {total}]{more}\n{slice}"
        )))
    }
}

pub struct WriteVar(ToolSpec);

impl WriteVar {
    fn new() -> Self {
        Self(spec(
            "WriteVar",
            "Store text in a variable (to reuse it later with $VAR_REF{{name}}).",
            json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "No spaces, braces or colons."},
                "value": {"type": "string"}
            }, "required": ["name", "value"], "additionalProperties": false}),
        ))
    }
}

#[async_trait]
impl Tool for WriteVar {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let name = str_arg(&args, "name")?;
        let value = str_arg(&args, "value")?;
        let chars = value.chars().count();
        ctx.vars
            .set_from(name, Arc::from(value), VarKind::User, Arc::clone(&ctx.read))
            .map_err(|e| match e {
                VarError::Protected(_) => {
                    ToolError::new(super::ToolErrorKind::PermissionDenied, e.to_string())
                        .with_suggestion(
                            "Choose another name; names starting with Guide/ are reserved.",
                        )
                }
                other => ToolError::invalid(other.to_string()),
            })?;
        Ok(Value::String(format!(
            "Stored {chars} chars in \"{name}\"."
        )))
    }
}

pub struct RemoveVars(ToolSpec);

impl RemoveVars {
    fn new() -> Self {
        Self(spec(
            "RemoveVars",
            "Remove variables that are no longer needed. Rule variables cannot be removed.",
            json!({"type": "object", "properties": {
                "names": {"type": "array", "items": {"type": "string"}, "minItems": 1}
            }, "required": ["names"], "additionalProperties": false}),
        ))
    }
}

#[async_trait]
impl Tool for RemoveVars {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let names = super::string_list(&args, "names");
        let lines: Vec<String> = ctx
            .vars
            .remove(&names)
            .into_iter()
            .map(|(name, outcome)| match outcome {
                Ok(true) => format!("removed {name}"),
                Ok(false) => format!("{name}: no such variable"),
                Err(e) => format!("{name}: not removed ({e})"),
            })
            .collect();
        Ok(Value::String(lines.join("\n")))
    }
}

/// The name of the variable tools' group, present whenever any other group is enabled (F-40).
pub const VARS_GROUP: &str = "vars";
