//! Bounds on what a model can make the gate hold before anyone approves anything (F-11, F-16),
//! and on what it is shown of a result (F-16: the output limit and the shortening).
//!
//! Arguments are stored with the call's record, shown on an approval card and sent to the
//! window. Without a bound, `WriteVar` plus nested `$VAR_REF`s builds tens of megabytes of
//! arguments from a few bytes of model output, which would be written to the database and
//! pushed into the webview with no approval at all. Expansion itself stops at
//! [`MAX_EXPANDED_BYTES`](tollgate_tools::vars::reference::MAX_EXPANDED_BYTES); this checks the final
//! arguments (also the ones a user edits) against the same bound.

use super::facets::Stages;
use serde_json::Value;
use tollgate_tools::vars::reference::MAX_EXPANDED_BYTES;
use tollgate_tools::vars::truncate::truncate_head_tail;
use tollgate_tools::{RegisteredTool, LIMIT_ARG};

/// Checks the size of arguments about to be checked, shown and run.
pub(super) fn check_argument_size(args: &Value) -> Result<(), String> {
    let size = serialized_len(args);
    if size > MAX_EXPANDED_BYTES {
        Err(format!(
            "the arguments are {} KiB, more than the {} KiB a call may carry; pass large text through a file or a variable read in parts",
            size / 1024,
            MAX_EXPANDED_BYTES / 1024
        ))
    } else {
        Ok(())
    }
}

/// The length of `value` as JSON, without building the string.
fn serialized_len(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

impl Stages<'_> {
    /// F-16: the call's own `limit` > the user's setting > the tool's default > the global
    /// default. `0` or a negative value means no truncation.
    pub(super) fn output_limit(&self, entry: &RegisteredTool, args: &Value) -> usize {
        if let Some(n) = args.get(LIMIT_ARG).and_then(Value::as_i64) {
            return usize::try_from(n).unwrap_or(0);
        }
        let settings = self.exec.deps.settings.read();
        settings
            .output_limit(&entry.tool.spec().name)
            .or(entry.tool.spec().output_limit)
            .unwrap_or(settings.default_output_limit)
    }

    pub(super) fn shorten(
        &self,
        entry: &RegisteredTool,
        text: &str,
        args: &Value,
        limit: usize,
        var: Option<&str>,
    ) -> (String, bool) {
        if limit == 0 || text.len() <= limit {
            return (text.to_string(), false);
        }
        if let Some(custom) = entry.tool.truncate_for_llm(text, args, limit, var) {
            let truncated = custom != text;
            return (custom, truncated);
        }
        let t = truncate_head_tail(text, limit, var);
        (t.text, t.truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_past_the_bound_are_refused_with_their_size() {
        assert!(check_argument_size(&json!({"a": "x".repeat(1000)})).is_ok());
        let big = json!({"a": "x".repeat(MAX_EXPANDED_BYTES + 1)});
        let e = check_argument_size(&big).unwrap_err();
        assert!(e.contains("KiB"), "{e}");
        assert_eq!(serialized_len(&json!({"a": 1})), 7);
    }
}
