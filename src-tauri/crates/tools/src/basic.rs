//! The `basic` group (F-41): the current date and time, and arithmetic.

use super::expr::{evaluate, format_number};
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolSpec};
use async_trait::async_trait;
use chrono::{Local, Utc};
use serde_json::{json, Value};
use tollgate_protocol::policy::ExecutionPolicy;

/// The group, enabled by default: both tools are harmless.
pub fn group() -> ToolGroup {
    ToolGroup::new("basic", "Basics", "Current date and time; arithmetic.")
        .tool(CurrentTime::new())
        .tool(Calculate::new())
        .enabled_by_default(true)
}

pub struct CurrentTime(ToolSpec);

impl CurrentTime {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "current_time",
                "The current date and time with its time zone. Optionally in another IANA time zone.",
                json!({"type": "object", "properties": {
                    "timezone": {"type": "string", "description": "IANA name such as Europe/Berlin; default: the user's local time zone."}
                }, "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::Auto)
            .read_only()
            .returns("text", Some("ISO 8601 date-time, weekday and time zone")),
        )
    }
}

#[async_trait]
impl Tool for CurrentTime {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        let now = Utc::now();
        let text = match args.get("timezone").and_then(Value::as_str) {
            Some(tz) => {
                let zone: chrono_tz::Tz = tz.parse().map_err(|_| {
                    ToolError::invalid(format!("unknown time zone \"{tz}\"")).with_suggestion(
                        "Use an IANA name such as \"America/New_York\" or \"Asia/Shanghai\".",
                    )
                })?;
                let t = now.with_timezone(&zone);
                format!(
                    "{} ({}, {}, UTC{})",
                    t.to_rfc3339(),
                    t.format("%A"),
                    zone.name(),
                    t.format("%:z")
                )
            }
            None => {
                let t = now.with_timezone(&Local);
                let zone = iana_time_zone_name().unwrap_or_else(|| "local time".to_string());
                format!(
                    "{} ({}, {}, UTC{})",
                    t.to_rfc3339(),
                    t.format("%A"),
                    zone,
                    t.format("%:z")
                )
            }
        };
        Ok(Value::String(text))
    }
}

/// The local zone's IANA name where the system says it (`TZ`, or `/etc/timezone`).
fn iana_time_zone_name() -> Option<String> {
    if let Ok(tz) = std::env::var("TZ") {
        let tz = tz.trim_start_matches(':').to_string();
        if !tz.is_empty() {
            return Some(tz);
        }
    }
    std::fs::read_to_string("/etc/timezone")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

pub struct Calculate(ToolSpec);

impl Calculate {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "calculate",
                "Evaluate an arithmetic expression exactly as written: + - * / % ^ (or **), parentheses, n!, pi, e, and functions such as sqrt, ln, log, sin, round(x, digits), min, max.",
                json!({"type": "object", "properties": {
                    "expression": {"type": "string", "description": "For example: (3.5 + 2) * sqrt(16)"}
                }, "required": ["expression"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::Auto)
            .read_only()
            .returns("number", None),
        )
    }
}

#[async_trait]
impl Tool for Calculate {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        let expr = args
            .get("expression")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::invalid("\"expression\" is required"))?;
        let v = evaluate(expr)
            .map_err(|e| ToolError::invalid(format!("cannot evaluate \"{expr}\": {e}")))?;
        Ok(Value::String(format_number(v)))
    }

    fn compress_args(&self, args: &Value) -> Option<String> {
        args.get("expression")
            .and_then(Value::as_str)
            .map(str::to_string)
    }
}
