//! Argument validation with the `jsonschema` crate (F-12), with messages written for the model:
//! every error with its instance path, "did you mean" for unknown properties, and the arguments
//! that were received.

use serde_json::Value;

/// A compiled validator plus the top-level property names (for suggestions).
pub struct ArgsValidator {
    validator: jsonschema::Validator,
    properties: Vec<String>,
}

/// Compiles `schema`; the error is the compiler's message.
pub(crate) fn compile(schema: &Value) -> Result<ArgsValidator, String> {
    let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    Ok(ArgsValidator {
        validator,
        properties,
    })
}

impl ArgsValidator {
    /// Checks `args`; on failure returns the whole message for the model.
    pub fn validate(&self, tool: &str, args: &Value) -> Result<(), String> {
        if self.validator.is_valid(args) {
            return Ok(());
        }
        let mut lines = Vec::new();
        for error in self.validator.iter_errors(args) {
            let path = error.instance_path().as_str().to_string();
            let shown = if path.is_empty() {
                "/".to_string()
            } else {
                path.clone()
            };
            match error.kind() {
                jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                    for prop in unexpected {
                        let hint = if path.is_empty() {
                            crate::names::closest_names(
                                prop,
                                self.properties.iter().map(String::as_str),
                                1,
                            )
                            .first()
                            .map(|n| format!("; did you mean \"{n}\"?"))
                            .unwrap_or_default()
                        } else {
                            String::new()
                        };
                        lines.push(format!(
                            "- {path}/{prop}: unknown property \"{prop}\"{hint}"
                        ));
                    }
                }
                _ => lines.push(format!("- {shown}: {error}")),
            }
        }
        let received = serde_json::to_string(args).unwrap_or_default();
        Err(format!(
            "Validation failed for tool \"{tool}\":\n{}\nReceived arguments: {}",
            lines.join("\n"),
            tollgate_protocol::parse::preview(&received, 2000)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v() -> ArgsValidator {
        compile(&json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}, "additionalProperties": false}
            },
            "required": ["path"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    #[test]
    fn errors_name_paths_types_and_received_args() {
        let err = v()
            .validate("read_file", &json!({"path": 123}))
            .unwrap_err();
        assert!(
            err.starts_with(
                "Validation failed for tool \"read_file\":\n- /path: 123 is not of type \"string\""
            ),
            "{err}"
        );
        assert!(err.contains("Received arguments: {\"path\":123}"), "{err}");
    }

    #[test]
    fn all_errors_are_listed() {
        let err = v()
            .validate("t", &json!({"offset": -1, "opts": {"deep": "yes"}}))
            .unwrap_err();
        assert!(err.contains("\"path\" is a required property"), "{err}");
        assert!(err.contains("- /offset: "), "{err}");
        assert!(err.contains("- /opts/deep: "), "{err}");
    }

    #[test]
    fn unknown_properties_get_suggestions() {
        let err = v()
            .validate("t", &json!({"pth": "a", "path": "b"}))
            .unwrap_err();
        assert!(
            err.contains("- /pth: unknown property \"pth\"; did you mean \"path\"?"),
            "{err}"
        );
        let err = v()
            .validate("t", &json!({"path": "b", "opts": {"dep": true}}))
            .unwrap_err();
        assert!(
            err.contains("- /opts/dep: unknown property \"dep\""),
            "{err}"
        );
    }
}
