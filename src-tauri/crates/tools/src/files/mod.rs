//! The `files` group (F-42): read, list, glob, grep, write and edit files, confined to the chat's
//! workspace folder. Reads default to `ask-once`, writes to `ask-always`; a write or edit shows a
//! unified diff on its approval card.

mod search;
pub use search::{glob_files, grep_files, GrepHit, GrepOptions};
pub mod workspace;

use super::{Tool, ToolContext, ToolError, ToolErrorKind, ToolGroup, ToolSpec};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::path::Path;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::ApprovalPreview;
use tollgate_rules::RuleSubject;
use workspace::Workspace;

/// Files larger than this are not read whole.
pub const MAX_READ_BYTES: u64 = 20 * 1024 * 1024;
/// Lines returned by `read_file` unless asked otherwise.
pub const DEFAULT_READ_LINES: usize = 2_000;

/// The group. It is offered only in chats that have a workspace folder.
pub fn group() -> ToolGroup {
    ToolGroup::new("files", "Files", "Read, search and change files in this chat's workspace folder.")
        .enabled_by_default(true)
        .needs_workspace()
        .guidance(super::Guidance::Text(
            "Paths are relative to the workspace folder. Read a file before editing it; `edit_file` replaces one exact, unique piece of text, so copy it exactly (whitespace included) and include enough surrounding lines to make it unique.".into(),
        ))
        .tool(ReadFile::new())
        .tool(ListDir::new())
        .tool(search::Glob::new())
        .tool(search::Grep::new())
        .tool(WriteFile::new())
        .tool(EditFile::new())
}

pub(crate) fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::invalid(format!("\"{key}\" is required")))
}

pub(crate) fn path_arg(args: &Value) -> &str {
    args.get("path").and_then(Value::as_str).unwrap_or(".")
}

/// Rules for file tools match the workspace-relative path the call would really touch (F-04):
/// symlinks inside the workspace are followed as execution follows them, so a committed
/// `docs/a -> ../.git` makes `docs/a/config` the subject `.git/config`, which a `docs/**` rule
/// does not cover. A path that leads out of the workspace is [`RuleSubject::Outside`], which no
/// allow rule matches.
pub(crate) fn path_subject(args: &Value, workspace: Option<&Path>) -> RuleSubject {
    let typed = path_arg(args);
    let Ok(clean) = Workspace::normalize(typed) else {
        return RuleSubject::Outside(typed.to_string());
    };
    match Workspace::of(workspace) {
        Ok(ws) => match ws.resolve(&clean) {
            Ok(rel) => RuleSubject::Path(rel),
            Err(real) => RuleSubject::Outside(real.display().to_string()),
        },
        // Without a workspace the tool will refuse to run; rules see the typed path.
        Err(_) => RuleSubject::Path(Workspace::display(&clean)),
    }
}

/// The largest file (before or after) an approval card diffs; past it the card shows sizes.
const MAX_DIFF_BYTES: u64 = 1024 * 1024;
/// How long computing a preview diff may take before it settles for a coarser one.
const DIFF_TIME_LIMIT: std::time::Duration = std::time::Duration::from_millis(200);

/// The current text of a file for a preview, or its size when it is too large to diff.
fn preview_text(real: &Path) -> Result<String, u64> {
    match std::fs::metadata(real) {
        Ok(m) if m.len() > MAX_DIFF_BYTES => Err(m.len()),
        Ok(_) => Ok(std::fs::read_to_string(real).unwrap_or_default()),
        Err(_) => Ok(String::new()),
    }
}

/// The preview of writing `new` over `old` (what `preview_text` read).
fn write_preview(shown: String, old: Result<String, u64>, new: &str) -> ApprovalPreview {
    let new_len = u64::try_from(new.len()).unwrap_or(u64::MAX);
    match old {
        Ok(old) if new_len <= MAX_DIFF_BYTES => ApprovalPreview::Diff {
            diff: unified_diff(&shown, &old, new),
            path: shown,
        },
        Ok(old) => ApprovalPreview::LargeWrite {
            path: shown,
            bytes_before: u64::try_from(old.len()).unwrap_or(u64::MAX),
            bytes_after: new_len,
        },
        Err(bytes_before) => ApprovalPreview::LargeWrite {
            path: shown,
            bytes_before,
            bytes_after: new_len,
        },
    }
}

/// The `rule_subject` and log summary of a tool whose subject is its `path` argument: rules
/// match the workspace-relative path (F-04), the log shows the path.
macro_rules! path_tool_subject {
    () => {
        fn rule_subject(&self, args: &Value, workspace: Option<&Path>) -> RuleSubject {
            path_subject(args, workspace)
        }

        fn compress_args(&self, args: &Value) -> Option<String> {
            Some(path_arg(args).to_string())
        }
    };
}

fn io_error(what: &str, path: &str, e: std::io::Error) -> ToolError {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            ToolError::not_found(format!("{what} \"{path}\": it does not exist"))
        }
        std::io::ErrorKind::PermissionDenied => ToolError::new(
            ToolErrorKind::PermissionDenied,
            format!("{what} \"{path}\": permission denied"),
        ),
        _ => ToolError::new(ToolErrorKind::Io, format!("{what} \"{path}\": {e}")),
    }
}

/// Whether bytes look like a binary file (NUL bytes or mostly non-text in the first 8 KiB).
pub fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return true;
    }
    std::str::from_utf8(head).is_err()
        && String::from_utf8_lossy(head)
            .chars()
            .filter(|c| *c == '\u{FFFD}')
            .count()
            > head.len() / 20
}

/// Reads a text file inside the workspace; refuses folders, huge and binary files.
async fn read_text(real: &Path, shown: &str) -> Result<String, ToolError> {
    let meta = tokio::fs::metadata(real)
        .await
        .map_err(|e| io_error("cannot read", shown, e))?;
    if meta.is_dir() {
        return Err(ToolError::invalid(format!("\"{shown}\" is a folder"))
            .with_suggestion("Use list_dir to see what it holds."));
    }
    if meta.len() > MAX_READ_BYTES {
        return Err(ToolError::invalid(format!(
            "\"{shown}\" is {} bytes, too large to read whole",
            meta.len()
        ))
        .with_suggestion("Use grep to find the part you need."));
    }
    let bytes = tokio::fs::read(real)
        .await
        .map_err(|e| io_error("cannot read", shown, e))?;
    if is_binary(&bytes) {
        return Err(ToolError::invalid(format!(
            "\"{shown}\" is a binary file ({} bytes); it is not shown as text",
            bytes.len()
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Writes `content` to a checked workspace path (creating its folders), without following a
/// symlink at the last step, and syncs it to disk.
async fn write_text(
    real: std::path::PathBuf,
    content: String,
    shown: &str,
) -> Result<(), ToolError> {
    tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        if let Some(parent) = real.parent() {
            std::fs::create_dir_all(parent)?;
        }
        use std::io::Write;
        let mut f = workspace::open_for_write(&real)?;
        f.write_all(content.as_bytes())?;
        f.sync_data()
    })
    .await
    .map_err(|e| ToolError::other(format!("writing failed: {e}")))?
    .map_err(|e| io_error("cannot write", shown, e))
}

fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::configure()
        .timeout(DIFF_TIME_LIMIT)
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

pub struct ReadFile(ToolSpec);

impl ReadFile {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "read_file",
                "Read a text file in the workspace. Long files are read in parts: give offset (first line, from 1) and lines (how many lines).",
                json!({"type": "object", "properties": {
                    "path": {"type": "string", "description": "Relative to the workspace."},
                    "offset": {"type": "integer", "minimum": 1},
                    "lines": {"type": "integer", "minimum": 1}
                }, "required": ["path"], "additionalProperties": false}),
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

#[async_trait]
impl Tool for ReadFile {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let ws = Workspace::for_call(&ctx)?;
        let rel = str_arg(&args, "path")?;
        let real = ws.existing(rel)?;
        let shown = ws.relative(&real);
        let text = read_text(&real, &shown).await?;
        let total = text.lines().count();
        let offset = args
            .get("offset")
            .and_then(Value::as_u64)
            .map_or(1, |n| n.max(1) as usize);
        // Not `limit`: every tool's `limit` is the output limit in chars (F-16).
        let limit = args
            .get("lines")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_READ_LINES, |n| n as usize);
        if offset == 1 && total <= limit {
            return Ok(Value::String(if text.is_empty() {
                format!("\"{shown}\" is empty.")
            } else {
                text
            }));
        }
        if offset > total.max(1) {
            return Err(ToolError::invalid(format!(
                "offset {offset} is past the end; \"{shown}\" has {total} lines"
            )));
        }
        let end = (offset - 1 + limit).min(total);
        let body: Vec<&str> = text.lines().skip(offset - 1).take(limit).collect();
        let more = if end < total {
            format!(" Continue with offset={}.", end + 1)
        } else {
            String::new()
        };
        Ok(Value::String(format!(
            "[{shown}: lines {offset}–{end} of {total}]{more}\n{}\n",
            body.join("\n")
        )))
    }

    path_tool_subject!();
}

pub struct ListDir(ToolSpec);

impl ListDir {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "list_dir",
                "List a folder in the workspace: sub-folders (ending in /) first, then files with their sizes.",
                json!({"type": "object", "properties": {
                    "path": {"type": "string", "description": "Relative to the workspace; default \".\"."}
                }, "additionalProperties": false}),
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

/// A folder's content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub dirs: Vec<String>,
    /// Names with sizes in bytes.
    pub files: Vec<(String, u64)>,
}

impl Listing {
    /// The text the model sees: folders with a trailing `/`, files with sizes, then counts.
    pub fn render(&self, shown: &str) -> String {
        use std::fmt::Write;
        if self.dirs.is_empty() && self.files.is_empty() {
            return format!("\"{shown}\" is empty.");
        }
        let mut out = String::with_capacity(32 * (self.dirs.len() + self.files.len()));
        for d in &self.dirs {
            out.push_str(d);
            out.push_str("/\n");
        }
        for (f, size) in &self.files {
            let _ = writeln!(out, "{f}\t{size} bytes");
        }
        let _ = write!(
            out,
            "[{} folders, {} files]",
            self.dirs.len(),
            self.files.len()
        );
        out
    }
}

/// Lists `real` (blocking): folders first, then files with sizes, each group sorted by name.
pub fn list_folder(real: &Path) -> std::io::Result<Listing> {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(real)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ft = entry.file_type()?;
        if ft.is_dir() {
            dirs.push(name);
        } else {
            let size = if ft.is_file() {
                entry.metadata().map(|m| m.len()).unwrap_or(0)
            } else {
                0
            };
            files.push((name, size));
        }
    }
    dirs.sort();
    files.sort();
    Ok(Listing { dirs, files })
}

#[async_trait]
impl Tool for ListDir {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let ws = Workspace::for_call(&ctx)?;
        let real = ws.existing(path_arg(&args))?;
        let shown = ws.relative(&real);
        if !real.is_dir() {
            return Err(
                ToolError::invalid(format!("\"{shown}\" is a file, not a folder"))
                    .with_suggestion("Use read_file to read it."),
            );
        }
        let listing = tokio::task::spawn_blocking(move || list_folder(&real))
            .await
            .map_err(|e| ToolError::other(format!("listing failed: {e}")))?
            .map_err(|e| io_error("cannot list", &shown, e))?;
        Ok(Value::String(listing.render(&shown)))
    }

    path_tool_subject!();
}

pub struct WriteFile(ToolSpec);

impl WriteFile {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "write_file",
                "Create a file in the workspace, or replace its whole content. Folders are created as needed.",
                json!({"type": "object", "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"}
                }, "required": ["path", "content"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::AskAlways)
            .writes_file("path"),
        )
    }
}

#[async_trait]
impl Tool for WriteFile {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let ws = Workspace::for_call(&ctx)?;
        let rel = str_arg(&args, "path")?;
        let content = str_arg(&args, "content")?.to_string();
        let real = ws.writable(rel)?;
        let shown = ws.relative(&real);
        let existed = real.exists();
        if real.is_dir() {
            return Err(ToolError::invalid(format!("\"{shown}\" is a folder")));
        }
        let bytes = content.len();
        write_text(real, content, &shown).await?;
        let verb = if existed { "Replaced" } else { "Created" };
        Ok(Value::String(format!(
            "{verb} \"{shown}\" ({bytes} bytes)."
        )))
    }

    path_tool_subject!();

    fn approval_preview(&self, args: &Value, workspace: Option<&Path>) -> Option<ApprovalPreview> {
        let ws = Workspace::of(workspace).ok()?;
        let rel = args.get("path").and_then(Value::as_str)?;
        let new = args.get("content").and_then(Value::as_str)?;
        let real = ws.writable(rel).ok()?;
        Some(write_preview(ws.relative(&real), preview_text(&real), new))
    }
}

pub struct EditFile(ToolSpec);

impl EditFile {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "edit_file",
                "Replace one exact piece of text in a file with new text. The old text must appear exactly once.",
                json!({"type": "object", "properties": {
                    "path": {"type": "string"},
                    "old_text": {"type": "string", "minLength": 1, "description": "Copied exactly from the file, with enough context to be unique."},
                    "new_text": {"type": "string"}
                }, "required": ["path", "old_text", "new_text"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::AskAlways)
            .writes_file("path"),
        )
    }
}

/// The file's content after replacing the unique `old` with `new`.
fn apply_edit(content: &str, old: &str, new: &str, shown: &str) -> Result<String, ToolError> {
    match content.matches(old).count() {
        0 => Err(
            ToolError::not_found(format!("the text to replace was not found in \"{shown}\""))
                .with_suggestion(
                    "Read the file again and copy the text exactly, whitespace included.",
                ),
        ),
        1 => Ok(content.replacen(old, new, 1)),
        n => Err(ToolError::invalid(format!(
            "the text to replace appears {n} times in \"{shown}\""
        ))
        .with_suggestion("Include more surrounding lines so that it appears only once.")),
    }
}

#[async_trait]
impl Tool for EditFile {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let ws = Workspace::for_call(&ctx)?;
        let rel = str_arg(&args, "path")?;
        let real = ws.existing_to_write(rel)?;
        let shown = ws.relative(&real);
        let content = read_text(&real, &shown).await?;
        let updated = apply_edit(
            &content,
            str_arg(&args, "old_text")?,
            str_arg(&args, "new_text")?,
            &shown,
        )?;
        let diff = unified_diff(&shown, &content, &updated);
        write_text(real, updated, &shown).await?;
        Ok(Value::String(format!("Edited \"{shown}\":\n{diff}")))
    }

    path_tool_subject!();

    fn approval_preview(&self, args: &Value, workspace: Option<&Path>) -> Option<ApprovalPreview> {
        let ws = Workspace::of(workspace).ok()?;
        let real = ws
            .existing(args.get("path").and_then(Value::as_str)?)
            .ok()?;
        let shown = ws.relative(&real);
        let content = match preview_text(&real) {
            Ok(content) => content,
            Err(bytes_before) => {
                return Some(ApprovalPreview::LargeWrite {
                    path: shown,
                    bytes_before,
                    bytes_after: bytes_before,
                })
            }
        };
        let old = args.get("old_text").and_then(Value::as_str)?;
        let new = args.get("new_text").and_then(Value::as_str)?;
        let updated = apply_edit(&content, old, new, &shown).ok()?;
        Some(write_preview(shown, Ok(content), &updated))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_must_be_unique() {
        assert_eq!(apply_edit("a b c", "b", "X", "f").unwrap(), "a X c");
        assert_eq!(
            apply_edit("a b b", "b", "X", "f").unwrap_err().kind,
            ToolErrorKind::InvalidInput
        );
        assert_eq!(
            apply_edit("a", "z", "X", "f").unwrap_err().kind,
            ToolErrorKind::NotFound
        );
    }

    #[test]
    fn binary_detection() {
        assert!(is_binary(b"\x00\x01\x02PNG"));
        assert!(!is_binary("plain text äöü\n".as_bytes()));
        assert!(is_binary(&[0xff; 200]));
    }

    #[test]
    fn large_writes_are_previewed_by_size_without_reading_or_diffing() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.txt");
        std::fs::write(&big, "x\n".repeat(700_000)).unwrap();
        let old = preview_text(&big);
        assert_eq!(
            old,
            Err(1_400_000),
            "a 1.4 MB file is not read for a preview"
        );
        assert_eq!(
            write_preview("big.txt".into(), old, "y"),
            ApprovalPreview::LargeWrite {
                path: "big.txt".into(),
                bytes_before: 1_400_000,
                bytes_after: 1
            }
        );
        let huge_new = "z".repeat(2 * 1024 * 1024);
        assert!(matches!(
            write_preview("a.txt".into(), Ok(String::new()), &huge_new),
            ApprovalPreview::LargeWrite { bytes_after, .. } if bytes_after == 2 * 1024 * 1024
        ));
        assert!(matches!(
            write_preview("a.txt".into(), Ok("a\n".into()), "b\n"),
            ApprovalPreview::Diff { .. }
        ));
    }

    #[test]
    fn diffs_are_unified() {
        let d = unified_diff("a.txt", "one\ntwo\n", "one\n2\n");
        assert!(d.starts_with("--- a/a.txt\n+++ b/a.txt\n"), "{d}");
        assert!(d.contains("-two\n+2\n"), "{d}");
    }
}
