//! What a tool says about MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension) in
//! its `_meta.ui` (issue 47): who may call it (`visibility`). A tool visible only to its view (`["app"]`) is never offered to the
//! model: it is there for the view's buttons, and the model calling it would act where the user
//! never looked.

use rmcp::model::Tool as McpToolInfo;
use serde_json::Value;

/// Who may call a tool, as its `_meta.ui.visibility` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visibility {
    /// The model may call it (offered as a tool).
    pub model: bool,
    /// The server's view may call it.
    pub app: bool,
}

impl Visibility {
    /// What the spec gives a tool that says nothing: both.
    const BOTH: Self = Self {
        model: true,
        app: true,
    };
}

/// The tool's `_meta.ui` object, if it has one.
fn ui_meta(info: &McpToolInfo) -> Option<&serde_json::Map<String, Value>> {
    info.meta.as_ref()?.0.get("ui")?.as_object()
}

/// Who may call `info`. A list without `"model"` keeps the tool from the model; a missing or
/// unreadable list means both, as the spec has it.
pub fn visibility(info: &McpToolInfo) -> Visibility {
    let Some(list) = ui_meta(info)
        .and_then(|ui| ui.get("visibility"))
        .and_then(Value::as_array)
    else {
        return Visibility::BOTH;
    };
    let has = |who: &str| list.iter().any(|v| v.as_str() == Some(who));
    Visibility {
        model: has("model"),
        app: has("app"),
    }
}

/// Whether the model is offered `info` as a tool.
pub fn offered_to_the_model(info: &McpToolInfo) -> bool {
    visibility(info).model
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(meta: Value) -> McpToolInfo {
        serde_json::from_value(json!({
            "name": "t",
            "inputSchema": {"type": "object"},
            "_meta": meta
        }))
        .unwrap()
    }

    #[test]
    fn a_tool_for_the_view_alone_is_not_offered_to_the_model() {
        let app_only =
            tool(json!({"ui": {"resourceUri": "ui://x/app.html", "visibility": ["app"]}}));
        assert!(!offered_to_the_model(&app_only));
        assert_eq!(
            visibility(&app_only),
            Visibility {
                model: false,
                app: true
            }
        );
        let both = tool(json!({"ui": {"visibility": ["model", "app"]}}));
        assert!(offered_to_the_model(&both));
        // An empty list names no one: not the model either.
        assert!(!offered_to_the_model(&tool(
            json!({"ui": {"visibility": []}})
        )));
    }

    #[test]
    fn a_tool_that_says_nothing_or_something_unreadable_is_for_both() {
        assert_eq!(visibility(&tool(json!({}))), Visibility::BOTH);
        assert_eq!(visibility(&tool(json!({"ui": "x"}))), Visibility::BOTH);
        assert_eq!(
            visibility(&tool(json!({"ui": {"visibility": "app"}}))),
            Visibility::BOTH
        );
        let plain: McpToolInfo =
            serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}}))
                .unwrap();
        assert!(offered_to_the_model(&plain));
    }
}
