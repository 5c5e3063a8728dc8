//! The UI's TypeScript types are generated from the Rust types that cross the IPC boundary
//! (ts-rs), one file per area into `ui/src/generated/`, re-exported with the shared constants by
//! `ui/src/bindings.ts`. This test fails when a file is out of date; run it with
//! `TOLLGATE_WRITE_BINDINGS=1` to regenerate them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should stop the test

use std::path::PathBuf;
use tollgate_engine::chat::attachments::{Attachment, AttachmentKind, UserPayload};
use tollgate_engine::chat::history::{AssistantPayload, RetryNotice, ToolPayload, TurnFailure};
use tollgate_engine::chat::retry::RetryPolicy;
use tollgate_engine::chat::{ChatEvent, TurnOutcome, TurnSettings};
use tollgate_engine::service::{
    AppSettings, ChatHistory, ChatRevision, CoveredCall, ExportFormat, Language, McpServerView,
    ModelChoice, RuleCoverage, SettingsView, Theme, HISTORY_FIRST_PAGE, HISTORY_PAGE,
};
use tollgate_mcp::oauth::OAuthRecord;
use tollgate_mcp::{
    FilledPrompt, McpPromptArgument, McpPromptView, McpResourceView, McpSandbox, McpServerConfig,
    McpServerState, McpStatus, McpToolSummary, McpTransport,
};
use tollgate_names::LINK_SCHEMES;
use tollgate_protocol::ids::{ApprovalId, ChatId};
use tollgate_protocol::policy::{
    CallDecision, CallStatus, DecidedBy, ExecutionChoice, ExecutionPolicy, ResultChoice,
    ResultPolicy,
};
use tollgate_protocol::{ApprovalOutcome, CallSummary, OutputStream, ToolEvent};
use tollgate_protocol::{ApprovalPreview, AskReason, FailureKind};
use tollgate_protocol::{
    ApprovalRequest, Decision, ExecutionDecision, PendingApproval, ResultDecision, RuleGrant,
    RuleScopeChoice,
};
use tollgate_protocol::{
    ArgSpan, Autonomy, ExposureView, GuardMark, GuardNote, GuardSettings, Source, SpanKind,
    ToolEffects, TrustKey, WayOut, WrittenFile,
};
use tollgate_protocol::{
    AskedQuestion, DefinitionPart, ElicitationAnswer, ElicitationKind, ElicitationOutcome,
    LentModel, McpToolDefinition, PendingElicitation, ReviewReason, SampledRole, SampledText,
    ToolChange,
};
use tollgate_protocol::{
    ChatSandbox, SandboxGap, SandboxLevel, SandboxMode, SandboxReport, SandboxSupport,
};
use tollgate_protocol::{ChatToolOverrides, ToolOverride, ToolSettings};
use tollgate_protocol::{
    CommandError, ErrorKind, Invalid, McpViewDocument, McpViewLink, McpViewOutcome, Missing, Rule,
    RuleAction, RuleScope, RuleSubjectKind,
};
use tollgate_protocol::{
    FindingKind, FlaggedParameter, ReviewedTool, ServerFinding, ServerReview, ServerReviewState,
};
use tollgate_protocol::{GrantSpan, OffPlan, PlanProposal, PlanShown, PlanStep};
use tollgate_protocol::{GroupView, ToolView};
use tollgate_protocol::{PlanTargetMark, TaskGrant, TaskState};
use tollgate_protocol::{ProviderKind, ProviderOptions, RequestStyle, ToolCalling, Usage};
use tollgate_providers::local::LocalServer;
use tollgate_providers::{
    AssistantToolCall, FinishReason, ImagePart, ThinkingBlock, ToolResultMessage,
};
use tollgate_secrets::{SECRET_NAME_WORDS, SECRET_SUFFIX_MIN};
use tollgate_store::{
    ApprovalRecordRow, ChatCursor, ChatParams, ChatRow, MessageRow, MessageStatus, NewChat, Preset,
    PresetInput, ProviderConfig, ProviderInput, RecordStatus, RecordedCall, Role, RuleRow,
    SearchHit,
};
use tollgate_tools::live_output::LIVE_TAIL_BYTES;
use ts_rs::{Config, TS};

const HEADER: &str = "// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:\n// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.\n/* eslint-disable */\n";

fn decl<T: TS + ?Sized>(cfg: &Config, out: &mut String) {
    out.push_str("\nexport ");
    out.push_str(&T::decl(cfg));
    out.push('\n');
}

/// One generated file of types, `ui/src/generated/<name>.ts`: the types of one area, so no
/// file grows past what a reader takes in (and none past 800 lines). A part imports only from
/// the parts before it (the UI's import test holds the files to one direction).
struct Part {
    name: &'static str,
    about: &'static str,
    decls: String,
}

/// The type declarations, area by area.
fn parts() -> Vec<Part> {
    let cfg = Config::new().with_large_int("number");
    macro_rules! part {
        ($name:literal, $about:literal: $($t:ty),* $(,)?) => {{
            let mut decls = String::new();
            $( decl::<$t>(&cfg, &mut decls); )*
            Part { name: $name, about: $about, decls }
        }};
    }
    vec![
        part!("common", "Ids, JSON values and the error every command rejects with":
            serde_json::Value,
            ChatId,
            ApprovalId,
            ErrorKind,
            Missing,
            Invalid,
            CommandError,
            McpViewLink,
        ),
        part!("sandbox", "The sandbox: what the system supports, a chat's setting, what a command met":
            SandboxLevel,
            ChatSandbox,
            SandboxSupport,
            SandboxGap,
            SandboxMode,
            SandboxReport,
        ),
        part!("gate", "The gate: policies, decisions, approvals, a task's plan and grant, rules, records, the provenance guard, a changed tool's review and what a review flags":
            McpToolDefinition,
            DefinitionPart,
            ReviewReason,
            ToolChange,
            FindingKind,
            FlaggedParameter,
            ExecutionPolicy,
            ResultPolicy,
            CallStatus,
            DecidedBy,
            ExecutionChoice,
            ResultChoice,
            CallDecision,
            RecordStatus,
            RuleGrant,
            RuleSubjectKind,
            Source,
            AttachmentKind,
            Attachment,
            TrustKey,
            ToolEffects,
            GuardSettings,
            SpanKind,
            ArgSpan,
            GuardNote,
            GuardMark,
            WayOut,
            ExposureView,
            Autonomy,
            WrittenFile,
            ApprovalPreview,
            PlanStep,
            PlanProposal,
            PlanTargetMark,
            PlanShown,
            GrantSpan,
            TaskGrant,
            TaskState,
            OffPlan,
            AskReason,
            ApprovalRequest,
            PendingApproval,
            RuleScopeChoice,
            ExecutionDecision,
            ResultDecision,
            Decision,
            RuleAction,
            RuleScope,
            Rule,
            RuleRow,
            ApprovalRecordRow,
            CoveredCall,
            RuleCoverage,
        ),
        part!("tools", "Tools, their groups and settings":
            ToolView,
            GroupView,
            ChatToolOverrides,
            ToolOverride,
            ToolSettings,
        ),
        part!("chat", "Chats, messages, their history and the events of a turn":
            ChatParams,
            PresetInput,
            Preset,
            ChatRow,
            ChatCursor,
            NewChat,
            SearchHit,
            Role,
            MessageStatus,
            Usage,
            FinishReason,
            AssistantToolCall,
            ToolResultMessage,
            FailureKind,
            TurnFailure,
            ThinkingBlock,
            ImagePart,
            RetryNotice,
            AssistantPayload,
            ToolPayload,
            UserPayload,
            MessageRow,
            RecordedCall,
            ChatHistory,
            ChatRevision,
            OutputStream,
            ApprovalOutcome,
            CallSummary,
            ToolEvent,
            TurnOutcome,
            ChatEvent,
            ExportFormat,
            RetryPolicy,
            TurnSettings,
        ),
        part!("mcp", "MCP servers: their settings and state, first-sight reviews, tool changes, questions":
            ServerFinding,
            ReviewedTool,
            ServerReviewState,
            ServerReview,
            SampledRole,
            SampledText,
            LentModel,
            ElicitationKind,
            PendingElicitation,
            ElicitationAnswer,
            ElicitationOutcome,
            AskedQuestion,
            McpTransport,
            McpSandbox,
            McpServerConfig,
            McpStatus,
            McpToolSummary,
            McpServerState,
            McpResourceView,
            McpPromptArgument,
            McpPromptView,
            FilledPrompt,
            OAuthRecord,
            McpServerView,
            McpViewDocument,
            McpViewOutcome,
        ),
        part!("settings", "The app's settings and the model providers":
            ToolCalling,
            Theme,
            Language,
            AppSettings,
            SettingsView,
            ModelChoice,
            ProviderKind,
            RequestStyle,
            ProviderOptions,
            ProviderConfig,
            ProviderInput,
            LocalServer,
        ),
    ]
}

/// The names a piece of TypeScript declares (`export type X`, `export interface X`).
fn declared(ts: &str) -> Vec<String> {
    ts.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("export type ")
                .or_else(|| l.strip_prefix("export interface "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// The identifiers a piece of TypeScript uses outside its comments and string literals.
fn used_names(ts: &str) -> std::collections::BTreeSet<String> {
    let mut code = String::new();
    let mut chars = ts.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
                code.push(' ');
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                code.push('\n');
            }
            '"' => {
                let mut escaped = false;
                for d in chars.by_ref() {
                    if !escaped && d == '"' {
                        break;
                    }
                    escaped = !escaped && d == '\\';
                }
                code.push(' ');
            }
            _ => code.push(c),
        }
    }
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Every generated file, as (path under `ui/src`, text): one file per [`Part`], each importing
/// the types it uses from the others, and `bindings.ts`, which re-exports them all and holds the
/// constants the window shares with the engine.
fn render() -> Vec<(String, String)> {
    let parts = parts();
    let owner: std::collections::BTreeMap<String, &str> = parts
        .iter()
        .flat_map(|p| declared(&p.decls).into_iter().map(move |n| (n, p.name)))
        .collect();
    let mut files = Vec::new();
    let mut index = String::from(HEADER);
    for part in &parts {
        let mut text = format!("{HEADER}// {}.\n", part.about);
        let own = declared(&part.decls);
        let mut imports: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
        for name in used_names(&part.decls) {
            match owner.get(&name) {
                Some(from) if *from != part.name && !own.contains(&name) => {
                    imports.entry(from).or_default().push(name)
                }
                _ => {}
            }
        }
        for (from, names) in &imports {
            text.push_str(&format!(
                "import type {{ {} }} from \"./{from}\";\n",
                names.join(", ")
            ));
        }
        text.push_str(&part.decls);
        files.push((format!("generated/{}.ts", part.name), text));
        index.push_str(&format!("export * from \"./generated/{}\";\n", part.name));
    }
    let out = &mut index;
    // Constants the window shares with the engine.
    out.push_str(&format!(
        "\n/** The most live output one event carries (`tools::live_output`); the window keeps as many characters of a running call's output. */\nexport const LIVE_TAIL_BYTES = {LIVE_TAIL_BYTES};\n"
    ));
    out.push_str(&format!(
        "\n/** How many messages the window reads first when it opens a chat (`service::chats`), back to the start of their turn. */\nexport const HISTORY_FIRST_PAGE = {HISTORY_FIRST_PAGE};\n\n/** How many messages each later page of a chat's history reads. */\nexport const HISTORY_PAGE = {HISTORY_PAGE};\n"
    ));
    let words: Vec<String> = SECRET_NAME_WORDS
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect();
    out.push_str(&format!(
        "\n/** The words that make a name a secret's (`tollgate_secrets::names`): one list for the engine and the window (ui/src/secretNames.ts splits names the same way). */\nexport const SECRET_NAME_WORDS = [{}] as const;\n\n/** The shortest listed word a longer word may end in and still count as it. */\nexport const SECRET_SUFFIX_MIN = {SECRET_SUFFIX_MIN};\n",
        words.join(", ")
    ));
    let schemes: Vec<String> = LINK_SCHEMES.iter().map(|s| format!("\"{s}\"")).collect();
    out.push_str(&format!(
        "\n/** The schemes of links in answers that open outside the app (`tollgate_names::open`); the opener's capability file allows these and no others. */\nexport const LINK_SCHEMES = [{}] as const;\n",
        schemes.join(", ")
    ));
    files.push(("bindings.ts".to_string(), index));
    files
}

/// Writes `file` under ui/src when asked to, else checks it is current.
fn check_or_write(file: &str, fresh: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../ui/src")
        .join(file);
    if std::env::var_os("TOLLGATE_WRITE_BINDINGS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, fresh).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == fresh,
        "ui/src/{file} is out of date with the Rust code; regenerate it with \
         `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`"
    );
}

#[test]
fn typescript_bindings_are_up_to_date() {
    let files = render();
    for (file, text) in &files {
        check_or_write(file, text);
    }
    // No file is left in ui/src/generated that the types no longer make.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../ui/src/generated");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = format!("generated/{}", entry.unwrap().file_name().to_string_lossy());
        if files.iter().all(|(f, _)| *f != name) {
            if std::env::var_os("TOLLGATE_WRITE_BINDINGS").is_some() {
                std::fs::remove_file(dir.join(&name["generated/".len()..])).unwrap();
            } else {
                panic!("ui/src/{name} is no longer generated; regenerate the bindings");
            }
        }
    }
}

/// No generated file is longer than a file written by hand may be.
#[test]
fn every_generated_file_stays_under_800_lines() {
    for (file, text) in render() {
        let lines = text.lines().count();
        assert!(
            lines <= 800,
            "ui/src/{file} would have {lines} lines: split its part"
        );
    }
}

/// The opener's capability lets the window open links of [`LINK_SCHEMES`] and no others: the
/// window asks the same list (`ui/src/links.ts`), so neither can drift from the engine's.
#[test]
fn the_opener_capability_allows_the_link_schemes_and_no_others() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../capabilities/default.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let opener = file["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["identifier"] == "opener:allow-open-url")
        .expect("the capability allows opening URLs");
    let mut allowed: Vec<String> = opener["allow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["url"].as_str().unwrap().to_string())
        .collect();
    allowed.sort();
    let mut expected: Vec<String> = LINK_SCHEMES
        .iter()
        .map(|s| match *s {
            "mailto" => "mailto:*".to_string(),
            web => format!("{web}://*"),
        })
        .collect();
    expected.sort();
    assert_eq!(allowed, expected);
    let granted: Vec<&str> = file["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str().or_else(|| p["identifier"].as_str()))
        .filter(|p| p.starts_with("opener:"))
        .collect();
    assert_eq!(
        granted,
        ["opener:allow-open-url"],
        "no other opener permission (no paths, no reveal)"
    );
}

/// One command as its Rust function declares it.
struct CommandSig {
    name: String,
    /// (name as the UI sends it, TypeScript type)
    args: Vec<(String, String)>,
    result: String,
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits at commas outside `<…>` and `(…)`.
fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim().to_string());
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The TypeScript type of a Rust type as serde sends it. `known` is every type in bindings.ts.
fn ts_type(rust: &str, known: &[String], used: &mut std::collections::BTreeSet<String>) -> String {
    let rust = rust.trim().trim_start_matches('&').trim();
    let (head, inner) = match rust.find('<') {
        Some(i) => (&rust[..i], Some(&rust[i + 1..rust.len() - 1])),
        None => (rust, None),
    };
    let head = head.rsplit("::").next().unwrap_or(head).trim();
    let wrap = |t: String| if t.contains(' ') { format!("({t})") } else { t };
    match (head, inner) {
        ("String" | "str", None) => "string".into(),
        ("i64" | "u64" | "i32" | "u32" | "usize" | "f64", None) => "number".into(),
        ("bool", None) => "boolean".into(),
        // Any JSON (an MCP server's result, a view's arguments): the generated `JsonValue`.
        ("Value", None) => {
            used.insert("JsonValue".into());
            "JsonValue".into()
        }
        // A command that returns nothing resolves to `null`; the UI never reads it.
        ("()", None) => "void".into(),
        ("Option", Some(t)) => format!("{} | null", ts_type(t, known, used)),
        ("Vec", Some(t)) => format!("{}[]", wrap(ts_type(t, known, used))),
        ("HashMap" | "BTreeMap", Some(kv)) => {
            let kv = split_top(kv);
            format!("Record<string, {}>", ts_type(&kv[1], known, used))
        }
        ("Channel", Some(t)) => {
            used.insert("Channel".into());
            format!("Channel<{}>", ts_type(t, known, used))
        }
        (name, None) if known.iter().any(|k| k == name) => {
            used.insert(name.to_string());
            name.to_string()
        }
        _ => panic!("the command boundary uses `{rust}`, which has no TypeScript form here: add it to the bindings"),
    }
}

/// Reads every listed command's signature from its source file.
fn command_sigs(
    known: &[String],
    used: &mut std::collections::BTreeSet<String>,
) -> Vec<CommandSig> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    let mut sigs = Vec::new();
    for (module, name) in tollgate_app::commands::NAMES {
        let src = std::fs::read_to_string(dir.join(format!("{module}.rs"))).unwrap();
        let at = ["pub async fn ", "pub fn "]
            .iter()
            .find_map(|p| {
                [format!("{p}{name}("), format!("{p}{name}<")]
                    .iter()
                    .find_map(|head| src.find(head.as_str()))
                    .map(|i| i + p.len() + name.len())
            })
            .unwrap_or_else(|| panic!("command {name} not found in commands/{module}.rs"));
        // Generic parameters (`<R: tauri::Runtime>`) come before the arguments.
        let at = match src[at..].strip_prefix('<') {
            Some(generics) => at + 1 + generics.find('>').unwrap() + 1,
            None => at,
        };
        let rest = &src[at..];
        let mut depth = 0;
        let close = rest
            .char_indices()
            .find(|(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map(|(i, _)| i)
            .unwrap();
        let params = &rest[1..close];
        let after = rest[close + 1..]
            .split('{')
            .next()
            .unwrap_or_default()
            .trim();
        let ret = after.strip_prefix("->").map_or("()", str::trim);
        let ret = match ret.strip_prefix("Result<") {
            Some(inner) => {
                let parts = split_top(&inner[..inner.len() - 1]);
                assert_eq!(
                    parts[1], "CommandError",
                    "{name} must fail with a CommandError"
                );
                parts[0].clone()
            }
            None => ret.to_string(),
        };
        let mut args = Vec::new();
        for p in split_top(params) {
            let (arg, ty) = p.split_once(':').unwrap();
            let ty = ty.trim();
            if ty.starts_with("State<") || ty.starts_with("tauri::") {
                continue;
            }
            args.push((camel(arg.trim()), ts_type(ty, known, used)));
        }
        sigs.push(CommandSig {
            name: name.to_string(),
            args,
            result: ts_type(&ret, known, used),
        });
    }
    sigs
}

fn render_commands() -> String {
    let known: Vec<String> = parts().iter().flat_map(|p| declared(&p.decls)).collect();
    let mut used = std::collections::BTreeSet::new();
    let sigs = command_sigs(&known, &mut used);
    let mut out = String::from(HEADER);
    if used.remove("Channel") {
        out.push_str("import type { Channel } from \"@tauri-apps/api/core\";\n");
    }
    out.push_str(&format!(
        "import type {{ {} }} from \"./bindings\";\n\n",
        used.into_iter().collect::<Vec<_>>().join(", ")
    ));
    out.push_str("/** Every command the app defines (src-tauri/crates/app/src/commands): its arguments as the UI sends them, and what it resolves to. A failure rejects with a `CommandError`. */\nexport interface Commands {\n");
    for sig in &sigs {
        let args = if sig.args.is_empty() {
            "Record<string, never>".to_string()
        } else {
            format!(
                "{{ {} }}",
                sig.args
                    .iter()
                    .map(|(n, t)| format!("{n}: {t}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        out.push_str(&format!(
            "  {}: {{ args: {args}; result: {} }};\n",
            sig.name, sig.result
        ));
    }
    out.push_str("}\n\nexport type CommandName = keyof Commands;\n");
    out
}

#[test]
fn the_command_list_is_up_to_date() {
    check_or_write("commands.ts", &render_commands());
}

#[test]
fn every_command_function_is_listed() {
    // A `#[tauri::command]` left out of `commands![…]` would be unreachable from the UI.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let src = std::fs::read_to_string(&path).unwrap();
        for (i, _) in src.match_indices("#[tauri::command]") {
            let after = &src[i..];
            let name = after
                .split("fn ")
                .nth(1)
                .and_then(|s| s.split(['(', '<']).next())
                .unwrap()
                .trim();
            assert!(
                tollgate_app::commands::NAMES
                    .iter()
                    .any(|(_, n)| *n == name),
                "{name} in {} is not in commands![…]",
                path.display()
            );
        }
    }
}
