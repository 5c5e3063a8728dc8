//! The registry: every known tool, its group, and its compiled argument validator.
//!
//! Validators are compiled once here (F-12), so validating a call costs only the check itself.

use super::validation::{self, ArgsValidator};
use super::{Tool, ToolGroup};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use thiserror::Error;

/// The argument every tool accepts: the call's own output limit (F-16).
pub const LIMIT_ARG: &str = "limit";

/// Why a group could not be registered.
#[derive(Debug, Error)]
pub enum RegistryError {
    #[error("tool \"{tool}\" is registered twice (groups \"{first}\" and \"{second}\")")]
    Duplicate {
        tool: String,
        first: String,
        second: String,
    },
    #[error("group \"{0}\" is registered twice")]
    DuplicateGroup(String),
    #[error("tool \"{tool}\" has an invalid parameter schema: {message}")]
    Schema { tool: String, message: String },
    #[error("tool name \"{0}\" is not allowed: use letters, digits, '_' and '-' (at most 64)")]
    BadName(String),
}

/// A tool with what the registry derived from it.
pub struct RegisteredTool {
    pub tool: Arc<dyn Tool>,
    pub group: String,
    /// The schema sent to the model: the tool's own plus the `limit` argument.
    pub parameters: Value,
    pub validator: ArgsValidator,
}

/// All tool groups and tools known to the app.
#[derive(Default)]
pub struct Registry {
    groups: Vec<ToolGroup>,
    tools: HashMap<String, RegisteredTool>,
    /// Tools only a server's view may call (F-96): never offered to the model, never found
    /// by [`Registry::tool`].
    view_only: HashMap<String, RegisteredTool>,
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Adds the `limit` property to an object schema.
pub(crate) fn with_limit_arg(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Value::Object(map) = &mut schema {
        map.entry("type").or_insert_with(|| json!("object"));
        let props = map.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(props) = props {
            props.entry(LIMIT_ARG).or_insert_with(|| {
                json!({
                    "type": "integer",
                    "description": "Optional. Max characters of the result shown to you; the full result is kept in a variable. 0 or -1 shows everything."
                })
            });
        }
    }
    schema
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a group and compiles its tools' validators.
    pub fn register_group(&mut self, group: ToolGroup) -> Result<(), RegistryError> {
        if self.groups.iter().any(|g| g.name == group.name) {
            return Err(RegistryError::DuplicateGroup(group.name));
        }
        let mut compiled = Vec::with_capacity(group.tools.len() + group.view_tools.len());
        for tool in group.tools.iter().chain(&group.view_tools) {
            let spec = tool.spec();
            if !valid_tool_name(&spec.name) {
                return Err(RegistryError::BadName(spec.name.clone()));
            }
            if let Some(existing) = self
                .tools
                .get(&spec.name)
                .or_else(|| self.view_only.get(&spec.name))
            {
                return Err(RegistryError::Duplicate {
                    tool: spec.name.clone(),
                    first: existing.group.clone(),
                    second: group.name.clone(),
                });
            }
            if compiled
                .iter()
                .any(|t: &RegisteredTool| t.tool.spec().name == spec.name)
            {
                return Err(RegistryError::Duplicate {
                    tool: spec.name.clone(),
                    first: group.name.clone(),
                    second: group.name.clone(),
                });
            }
            let parameters = with_limit_arg(&spec.parameters);
            let validator =
                validation::compile(&parameters).map_err(|message| RegistryError::Schema {
                    tool: spec.name.clone(),
                    message,
                })?;
            compiled.push(RegisteredTool {
                tool: Arc::clone(tool),
                group: group.name.clone(),
                parameters,
                validator,
            });
        }
        let for_model = group.tools.len();
        for (i, t) in compiled.into_iter().enumerate() {
            let map = if i < for_model {
                &mut self.tools
            } else {
                &mut self.view_only
            };
            map.insert(t.tool.spec().name.clone(), t);
        }
        self.groups.push(group);
        Ok(())
    }

    /// Every group, in registration order.
    pub fn groups(&self) -> &[ToolGroup] {
        &self.groups
    }

    /// A group by name.
    pub fn group(&self, name: &str) -> Option<&ToolGroup> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// A tool by exact name.
    pub fn tool(&self, name: &str) -> Option<&RegisteredTool> {
        self.tools.get(name)
    }

    /// A tool a view of group `group`'s server may call by exact name (F-96): one of the
    /// group's own tools that says so, offered to the model or not. Another server's tool, a
    /// built-in tool, or one kept from views is `None`.
    pub fn view_tool(&self, group: &str, name: &str) -> Option<&RegisteredTool> {
        self.tools
            .get(name)
            .or_else(|| self.view_only.get(name))
            .filter(|t| t.group == group && t.tool.spec().callable_by_view)
    }

    /// Every tool name.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> + Clone {
        self.tools.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolContext, ToolError, ToolSpec};
    use async_trait::async_trait;

    struct Fixed(ToolSpec);

    #[async_trait]
    impl Tool for Fixed {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        async fn execute(&self, _args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
            Ok(json!("ok"))
        }
    }

    fn tool(name: &str, schema: Value) -> Fixed {
        Fixed(ToolSpec::new(name, "test", schema))
    }

    #[test]
    fn duplicates_bad_names_and_bad_schemas_are_refused() {
        let mut r = Registry::new();
        r.register_group(ToolGroup::new("a", "A", "").tool(tool("t", json!({"type": "object"}))))
            .unwrap();
        let err = r
            .register_group(ToolGroup::new("b", "B", "").tool(tool("t", json!({"type": "object"}))))
            .unwrap_err();
        assert!(matches!(err, RegistryError::Duplicate { .. }), "{err}");
        assert!(r.tool("t").is_some(), "first registration stays");
        let err = r
            .register_group(ToolGroup::new("c", "C", "").tool(tool("bad name", json!({}))))
            .unwrap_err();
        assert!(matches!(err, RegistryError::BadName(_)));
        let err = r
            .register_group(ToolGroup::new("d", "D", "").tool(tool("s", json!({"type": 12}))))
            .unwrap_err();
        assert!(matches!(err, RegistryError::Schema { .. }), "{err}");
        assert!(r.group("d").is_none(), "a failed group registers nothing");
        assert!(matches!(
            r.register_group(ToolGroup::new("a", "A", "")).unwrap_err(),
            RegistryError::DuplicateGroup(_)
        ));
    }

    #[test]
    fn every_tool_accepts_limit() {
        let mut r = Registry::new();
        r.register_group(ToolGroup::new("a", "A", "").tool(tool(
            "t",
            json!({"type": "object", "properties": {"p": {"type": "string"}}, "additionalProperties": false}),
        )))
        .unwrap();
        let t = r.tool("t").unwrap();
        assert_eq!(t.parameters["properties"]["limit"]["type"], "integer");
        assert!(t
            .validator
            .validate("t", &json!({"p": "x", "limit": 10}))
            .is_ok());
    }
}
