//! `glob` and `grep` over the workspace with ripgrep's crates: `.gitignore` and hidden files are
//! honoured the way `rg` does, the walk runs in parallel, and results come back sorted.

use super::workspace::Workspace;
use super::{path_arg, path_subject, str_arg};
use crate::{Tool, ToolContext, ToolError, ToolSpec};
use async_trait::async_trait;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::{WalkBuilder, WalkState};
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_rules::RuleSubject;

/// Most results either tool returns.
pub const MAX_RESULTS: usize = 1_000;
/// Matched lines are cut to this many chars.
const MAX_LINE_CHARS: usize = 300;

pub struct Glob(ToolSpec);

impl Glob {
    pub fn new() -> Self {
        Self(
            ToolSpec::new(
                "glob",
                "Find files in the workspace whose path matches a glob such as **/*.rs or src/*.{ts,tsx}. Ignores what .gitignore ignores.",
                json!({"type": "object", "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string", "description": "Folder to search; default \".\"."}
                }, "required": ["pattern"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::AskOnce)
            .read_only()
            .effects(crate::ToolEffects {
                reads_private: true,
                ..crate::ToolEffects::NONE
            })
            .content(crate::ContentKind::Workspace),
        )
    }
}

/// A walk under `root` that never enters the workspace's hidden paths.
fn walker(ws: &Workspace, root: &Path) -> WalkBuilder {
    let mut b = WalkBuilder::new(root);
    b.require_git(false).follow_links(false);
    let ws = ws.clone();
    b.filter_entry(move |e| ws.hidden_by(e.path()).is_none());
    b
}

/// Files under `start` whose workspace-relative path matches `pattern` (blocking).
pub fn glob_files(
    ws: &Workspace,
    start: &Path,
    pattern: &str,
) -> Result<(Vec<String>, bool), ToolError> {
    let matcher = globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .build()
        .map_err(|e| ToolError::invalid(format!("invalid glob \"{pattern}\": {e}")))?
        .compile_matcher();
    let mut out = Vec::new();
    let mut more = false;
    for entry in walker(ws, start).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = ws.relative(entry.path());
        let from_start = entry
            .path()
            .strip_prefix(start)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        if matcher.is_match(&rel) || matcher.is_match(&from_start) {
            if out.len() >= MAX_RESULTS {
                more = true;
                break;
            }
            out.push(rel);
        }
    }
    out.sort();
    Ok((out, more))
}

#[async_trait]
impl Tool for Glob {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let ws = Workspace::for_call(&ctx)?;
        let start = ws.existing(path_arg(&args))?;
        let pattern = str_arg(&args, "pattern")?.to_string();
        let (files, more) = tokio::task::spawn_blocking(move || glob_files(&ws, &start, &pattern))
            .await
            .map_err(|e| ToolError::other(format!("the search failed: {e}")))??;
        if files.is_empty() {
            return Ok(json!("No files match."));
        }
        let mut out = files.join("\n");
        if more {
            out.push_str(&format!(
                "\n[stopped after {MAX_RESULTS} files; narrow the pattern]"
            ));
        }
        Ok(Value::String(out))
    }

    fn rule_subject(&self, args: &Value, workspace: Option<&Path>) -> RuleSubject {
        path_subject(args, workspace)
    }

    fn compress_args(&self, args: &Value) -> Option<String> {
        args.get("pattern")
            .and_then(Value::as_str)
            .map(str::to_string)
    }
}

pub struct Grep(ToolSpec);

impl Grep {
    pub fn new() -> Self {
        Self(
            ToolSpec::new(
                "grep",
                "Search file contents in the workspace for a regular expression (Rust regex syntax), like ripgrep. Returns path:line: text. Ignores what .gitignore ignores and binary files.",
                json!({"type": "object", "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string", "description": "Folder or file to search; default \".\"."},
                    "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.rs"},
                    "ignore_case": {"type": "boolean"},
                    "literal": {"type": "boolean", "description": "Treat the pattern as plain text."},
                    "max_results": {"type": "integer", "minimum": 1}
                }, "required": ["pattern"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::AskOnce)
            .read_only()
            .effects(crate::ToolEffects {
                reads_private: true,
                ..crate::ToolEffects::NONE
            })
            .content(crate::ContentKind::Workspace),
        )
    }
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepHit {
    /// Workspace-relative path.
    pub path: String,
    pub line: u64,
    pub text: String,
}

/// Options of one search.
#[derive(Debug, Clone)]
pub struct GrepOptions {
    pub pattern: String,
    pub glob: Option<String>,
    pub ignore_case: bool,
    pub literal: bool,
    pub max_results: usize,
}

/// Matching lines under `start`, as (workspace-relative path, line number, text), sorted (blocking).
pub fn grep_files(
    ws: &Workspace,
    start: &Path,
    opts: &GrepOptions,
) -> Result<(Vec<GrepHit>, bool), ToolError> {
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(opts.ignore_case)
        .fixed_strings(opts.literal)
        .build(&opts.pattern)
        .map_err(|e| {
            ToolError::invalid(format!("invalid pattern: {e}"))
                .with_suggestion("Use literal=true to search for plain text.")
        })?;
    let mut builder = walker(ws, start);
    if let Some(g) = &opts.glob {
        let mut ov = ignore::overrides::OverrideBuilder::new(start);
        ov.add(g)
            .map_err(|e| ToolError::invalid(format!("invalid glob \"{g}\": {e}")))?;
        builder.overrides(
            ov.build()
                .map_err(|e| ToolError::invalid(format!("invalid glob \"{g}\": {e}")))?,
        );
    }
    let hits: Arc<Mutex<Vec<(PathBuf, u64, String)>>> = Arc::new(Mutex::new(Vec::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let limit = opts.max_results;
    builder.build_parallel().run(|| {
        let matcher = matcher.clone();
        let hits = Arc::clone(&hits);
        let count = Arc::clone(&count);
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let path = entry.path().to_path_buf();
            let mut local = Vec::new();
            let _ = searcher.search_path(
                &matcher,
                &path,
                UTF8(|line, text| {
                    let mut t: String = text
                        .trim_end_matches(['\n', '\r'])
                        .chars()
                        .take(MAX_LINE_CHARS)
                        .collect();
                    if text.chars().count() > MAX_LINE_CHARS {
                        t.push('…');
                    }
                    local.push((path.clone(), line, t));
                    Ok(count.fetch_add(1, Ordering::Relaxed) < limit * 2)
                }),
            );
            if !local.is_empty() {
                hits.lock().extend(local);
            }
            if count.load(Ordering::Relaxed) >= limit * 2 {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });
    let mut all: Vec<GrepHit> = std::mem::take(&mut *hits.lock())
        .into_iter()
        .map(|(p, line, text)| GrepHit {
            path: ws.relative(&p),
            line,
            text,
        })
        .collect();
    all.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    let more = all.len() > limit;
    all.truncate(limit);
    Ok((all, more))
}

#[async_trait]
impl Tool for Grep {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let ws = Workspace::for_call(&ctx)?;
        let start = ws.existing(path_arg(&args))?;
        let opts = GrepOptions {
            pattern: str_arg(&args, "pattern")?.to_string(),
            glob: args.get("glob").and_then(Value::as_str).map(str::to_string),
            ignore_case: args
                .get("ignore_case")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            literal: args
                .get("literal")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            max_results: args
                .get("max_results")
                .and_then(Value::as_u64)
                .map_or(200, |n| n as usize)
                .min(MAX_RESULTS),
        };
        let (hits, more) = tokio::task::spawn_blocking(move || grep_files(&ws, &start, &opts))
            .await
            .map_err(|e| ToolError::other(format!("the search failed: {e}")))??;
        if hits.is_empty() {
            return Ok(json!("No matches."));
        }
        let mut out: String = hits
            .iter()
            .map(|h| format!("{}:{}: {}\n", h.path, h.line, h.text))
            .collect();
        if more {
            out.push_str("[more matches not shown; narrow the search or raise max_results]");
        }
        Ok(Value::String(out))
    }

    fn rule_subject(&self, args: &Value, workspace: Option<&Path>) -> RuleSubject {
        path_subject(args, workspace)
    }

    fn compress_args(&self, args: &Value) -> Option<String> {
        args.get("pattern")
            .and_then(Value::as_str)
            .map(|p| format!("/{p}/ in {}", path_arg(args)))
    }
}
