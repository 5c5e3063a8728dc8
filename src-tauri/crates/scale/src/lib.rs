//! A heavy user's year, generated (F-71): chats of realistic shape — questions,
//! markdown answers with code, tool calls with their results and records, rules, ask-once
//! records and variables — written through the store's own writers (`import_chat`, the record,
//! rule and variable writers), so the database is exactly what the app would have written.
//!
//! Deterministic: the same [`ScaleSpec`] (seed included) gives the same database, so figures
//! measured on it can be compared from run to run and machine to machine. The benches, the
//! app's speed script and `tollgate-scale-db` use it.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tollgate_engine::chat::history::{AssistantPayload, ToolPayload};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::policy::{CallDecision, DecidedBy, ExecutionChoice, ExecutionPolicy};
use tollgate_providers::{AssistantToolCall, ToolResultMessage};
use tollgate_store::{
    ApprovalRecordRow, ImportedChat, ImportedMessage, MessageStatus, RecordStatus, RecordedCall,
    Role, Store, StoreError, StoreResult,
};

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleSpec {
    pub chats: usize,
    /// Messages in all chats together.
    pub messages: usize,
    /// Tool calls in all chats together (about: each is a whole round of four messages).
    pub calls: usize,
    /// The sizes (in messages) of the first chats, for the figures that need one long chat.
    pub long_chats: Vec<usize>,
    pub seed: u64,
}

impl ScaleSpec {
    /// The year of the issue: 10,000 chats, 1,000,000 messages, 200,000 tool calls, one chat of
    /// 10,000 messages (to delete) and one of 5,000 (to open, scroll and export).
    pub fn year() -> Self {
        Self {
            chats: 10_000,
            messages: 1_000_000,
            calls: 200_000,
            long_chats: vec![10_000, 5_000],
            seed: 2026,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScaleStats {
    pub chats: usize,
    pub messages: usize,
    pub calls: usize,
    pub records: usize,
    pub rules: usize,
    pub variables: usize,
    /// The ids of the long chats, in the order of [`ScaleSpec::long_chats`].
    pub long_chats: Vec<ChatId>,
}

/// The newest timestamp of the generated year (2026-11-01, ms): fixed, so runs are equal.
const YEAR_END_MS: i64 = 1_793_491_200_000;
const YEAR_MS: i64 = 365 * 24 * 3600 * 1000;

/// Writes the chats of `spec` into `store`; `progress` hears the number of chats written.
pub async fn generate(
    store: &Store,
    spec: &ScaleSpec,
    progress: &dyn Fn(usize),
) -> StoreResult<ScaleStats> {
    let mut rng = StdRng::seed_from_u64(spec.seed);
    let sizes = chat_sizes(spec, &mut rng);
    let turns_with_calls =
        spec.calls as f64 / (spec.messages.saturating_sub(2 * spec.calls) as f64 / 2.0).max(1.0);
    let mut stats = ScaleStats::default();
    for (i, size) in sizes.iter().enumerate() {
        // Older chats first, so the newest is the last one written (as in a real year).
        let start = YEAR_END_MS - YEAR_MS + (i as i64) * (YEAR_MS / sizes.len().max(1) as i64);
        let chat = write_chat(&mut rng, *size, start, turns_with_calls.min(1.0));
        stats.messages += chat.messages.len();
        stats.calls += chat.calls.len();
        let last_call = chat
            .calls
            .last()
            .map(|c| (c.tool.clone(), c.resolved_args.clone()));
        let row = store.import_chat(chat).await?;
        stats.chats += 1;
        if i < spec.long_chats.len() {
            stats.long_chats.push(row.id);
        }
        if i % 5 == 0 {
            if let Some((Some(tool), Some(args))) = last_call {
                store
                    .gate_records()
                    .put_approval_record(ApprovalRecordRow {
                        chat: row.id,
                        tool,
                        args_hash: format!("{:016x}", rng.random::<u64>()),
                        args,
                        workspace: Some(format!("/home/user/src/{}", word(&mut rng))),
                        allowed: true,
                        created_at: start,
                    })
                    .await?;
                stats.records += 1;
            }
        }
        if i % 20 == 0 {
            let pattern = format!("cargo test -p {} *", word(&mut rng));
            store
                .gate_records()
                .insert_rule(
                    "run_command".into(),
                    Some(pattern),
                    "allow".into(),
                    Some(row.id),
                )
                .await?;
            stats.rules += 1;
        }
        for v in 0..(i % 4) {
            let value: Arc<str> = Arc::from(paragraph(&mut rng, 200, 1_500));
            store.variables().put_variable(
                row.id,
                format!("c{}_result", v + 1),
                "tool_result",
                value,
                start,
                &[],
            );
            stats.variables += 1;
        }
        if (i + 1) % 100 == 0 {
            store.flush().await?;
            progress(i + 1);
        }
    }
    for tool in ["read_file", "list_dir", "grep", "fetch_url", "run_command"] {
        for _ in 0..40 {
            let pattern = match tool {
                "fetch_url" => format!("https://{}.example.org/*", word(&mut rng)),
                "run_command" => format!("git {} *", word(&mut rng)),
                _ => format!("src/{}/*", word(&mut rng)),
            };
            store
                .gate_records()
                .insert_rule(tool.into(), Some(pattern), "allow".into(), None)
                .await?;
            stats.rules += 1;
        }
    }
    store.flush().await?;
    progress(stats.chats);
    Ok(stats)
}

/// The folder, under `root`, that holds the year of `spec` (one per size and seed).
pub fn folder(root: &Path, spec: &ScaleSpec) -> PathBuf {
    root.join(format!(
        "scale-{}-{}-{}",
        spec.chats, spec.messages, spec.seed
    ))
}

/// The year of `spec` in [`folder`]`(root, spec)`, generated the first time and reused after
/// (a `complete` file, holding the long chats' ids, marks a finished one; an unfinished one is
/// written again). Returns the folder and the long chats' ids. The benches and the app's speed
/// script share it, so a year is generated once per machine.
pub async fn ensure(
    root: &Path,
    spec: &ScaleSpec,
    progress: &dyn Fn(usize),
) -> StoreResult<(PathBuf, Vec<ChatId>)> {
    let dir = folder(root, spec);
    let done = dir.join(COMPLETE);
    if let Ok(text) = std::fs::read_to_string(&done) {
        let ids: Vec<ChatId> = text
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .map(ChatId)
            .collect();
        if ids.len() == spec.long_chats.len().min(spec.chats) {
            settle(&dir).await?;
            return Ok((dir, ids));
        }
    }
    let io = |source| StoreError::DataDir {
        path: dir.clone(),
        source,
    };
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io)?;
    }
    std::fs::create_dir_all(&dir).map_err(io)?;
    // `generate` waits for its last write before it returns.
    let stats = generate(&Store::open_in(&dir)?, spec, progress).await?;
    settle(&dir).await?;
    let ids: Vec<String> = stats.long_chats.iter().map(|c| c.0.to_string()).collect();
    std::fs::write(&done, ids.join(" ")).map_err(io)?;
    Ok((dir, stats.long_chats))
}

/// Brings the year to the state a year of use with the app's upkeep leaves: the search index
/// merged (the generator's large writes leave it in pieces), nothing deleted left to purge (a
/// bench cut short leaves some), all of it in the database file (copying the file alone while
/// its write-ahead log held pages gave a malformed copy). Quick when there is nothing to do.
async fn settle(dir: &Path) -> StoreResult<()> {
    let store = Store::open_in(dir)?;
    store.purge_deleted().await?;
    store.search_index().tend_search_index().await?;
    // Everything into the database file itself: users of the year copy that file alone.
    store
        .call(|c| Ok(c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?))
        .await
}

/// The file that marks a finished year in its folder.
const COMPLETE: &str = "complete";

/// One chat of `size` messages shaped like the generated ones (for a bench that writes and
/// deletes a long chat again and again).
pub fn one_chat(size: usize, seed: u64) -> ImportedChat {
    let mut rng = StdRng::seed_from_u64(seed);
    write_chat(&mut rng, size & !1, YEAR_END_MS - 3_600_000, 2.0 / 3.0)
}

/// Each chat's number of messages: the long chats first, the rest spread around the mean, all
/// even (whole turns) and adding up to `spec.messages`.
fn chat_sizes(spec: &ScaleSpec, rng: &mut StdRng) -> Vec<usize> {
    let mut sizes: Vec<usize> = spec
        .long_chats
        .iter()
        .take(spec.chats)
        .map(|s| s & !1)
        .collect();
    let others = spec.chats.saturating_sub(sizes.len());
    let mut left = spec.messages.saturating_sub(sizes.iter().sum());
    for i in 0..others {
        let remaining = others - i;
        let size = if remaining == 1 {
            left
        } else {
            let mean = left / remaining;
            let spread = mean.max(2);
            let size = rng.random_range(mean.saturating_sub(spread / 2)..=mean + spread / 2);
            size.min(left.saturating_sub(2 * (remaining - 1))).max(2)
        };
        let size = size & !1;
        sizes.push(size);
        left = left.saturating_sub(size);
    }
    sizes
}

/// One chat of `size` messages: turns of a question and an answer, some with a tool call (the
/// answer calls, the tool message returns, the model answers again).
fn write_chat(rng: &mut StdRng, size: usize, start: i64, call_share: f64) -> ImportedChat {
    let mut messages = Vec::with_capacity(size);
    let mut calls = Vec::new();
    let mut at = start;
    let mut key = 0i64;
    let mut push = |messages: &mut Vec<ImportedMessage>, role, content: String, payload, at| {
        key += 1;
        messages.push(ImportedMessage {
            key,
            parent: (key > 1).then_some(key - 1),
            role,
            content,
            status: MessageStatus::Complete,
            payload,
            usage: None,
            created_at: at,
        });
        key
    };
    while messages.len() < size {
        at += rng.random_range(20_000..600_000);
        push(&mut messages, Role::User, question(rng), None, at);
        let room = size - messages.len();
        if room >= 3 && rng.random_bool(call_share) {
            let seq = calls.len() as u64 + 1;
            let (tool, args, result) = tool_call(rng);
            let call_id = format!("call_{seq}");
            let payload = AssistantPayload {
                tool_calls: vec![AssistantToolCall {
                    id: call_id.clone(),
                    name: tool.into(),
                    arguments: args.clone(),
                }],
                model: Some("gpt-4.1".into()),
                ..Default::default()
            };
            let asked = push(
                &mut messages,
                Role::Assistant,
                String::new(),
                serde_json::to_value(payload).ok(),
                at + 1_000,
            );
            let results = ToolPayload {
                results: vec![ToolResultMessage {
                    call_id: call_id.clone(),
                    name: tool.into(),
                    content: result.clone(),
                    is_error: false,
                    sources: Vec::new(),
                }],
            };
            push(
                &mut messages,
                Role::Tool,
                String::new(),
                serde_json::to_value(results).ok(),
                at + 2_000,
            );
            calls.push(RecordedCall {
                chat: ChatId(0),
                message_id: Some(asked),
                round: 1,
                seq,
                call_id,
                requested_name: tool.into(),
                tool: Some(tool.into()),
                group: Some(group_of(tool).into()),
                raw_args: args.clone(),
                resolved_args: Some(args),
                policy: Some(ExecutionPolicy::AskOnce),
                decision: CallDecision {
                    execution: Some(ExecutionChoice::Allow),
                    result: None,
                },
                decided_by: DecidedBy::User,
                status: RecordStatus::Success,
                result_text: Some(result),
                is_error: false,
                truncated: false,
                result_var: Some(format!("c{seq}_result")),
                args_var: Some(format!("c{seq}_args")),
                started_at: at + 1_000,
                ended_at: Some(at + 1_900),
                duration_ms: Some(900),
                result_images: Vec::new(),
                sandbox: None,
                sources: Vec::new(),
                effects: None,
                guard: Default::default(),
                view: None,
                view_of: None,
                lent: Vec::new(),
                asked: Vec::new(),
            });
        }
        let payload = AssistantPayload {
            model: Some("gpt-4.1".into()),
            ..Default::default()
        };
        push(
            &mut messages,
            Role::Assistant,
            answer(rng),
            serde_json::to_value(payload).ok(),
            at + 3_000,
        );
    }
    messages.truncate(size);
    let leaf = messages.last().map(|m| m.key);
    ImportedChat {
        title: title(rng),
        model: "gpt-4.1".into(),
        system_prompt: String::new(),
        params: Default::default(),
        created_at: start,
        updated_at: at + 3_000,
        messages,
        leaf,
        calls,
    }
}

fn group_of(tool: &str) -> &'static str {
    match tool {
        "run_command" => "shell",
        "fetch_url" => "web",
        _ => "files",
    }
}

const WORDS: &[&str] = &[
    "the",
    "a",
    "parser",
    "returns",
    "error",
    "when",
    "input",
    "is",
    "empty",
    "we",
    "should",
    "check",
    "length",
    "before",
    "calling",
    "function",
    "value",
    "result",
    "option",
    "string",
    "vector",
    "index",
    "out",
    "of",
    "bounds",
    "test",
    "fails",
    "on",
    "ci",
    "but",
    "passes",
    "locally",
    "because",
    "timezone",
    "differs",
    "config",
    "file",
    "path",
    "missing",
    "user",
    "request",
    "response",
    "header",
    "token",
    "expired",
    "retry",
    "backoff",
    "database",
    "query",
    "slow",
    "index",
    "migration",
    "schema",
    "column",
    "table",
    "join",
    "cache",
    "hit",
    "miss",
    "memory",
    "leak",
    "thread",
    "async",
    "await",
    "future",
    "pinned",
    "borrow",
    "lifetime",
    "trait",
    "generic",
    "closure",
    "iterator",
    "map",
    "filter",
    "collect",
    "sum",
    "rust",
    "python",
    "typescript",
    "component",
    "render",
    "state",
    "hook",
    "effect",
    "layout",
    "flexbox",
    "grid",
    "button",
    "dialog",
    "keyboard",
    "focus",
    "escape",
    "enter",
    "tab",
    "release",
    "build",
    "deploy",
    "docker",
    "image",
    "container",
    "kubernetes",
    "pod",
    "log",
    "metric",
    "trace",
    "latency",
    "throughput",
    "benchmark",
    "criterion",
    "flamegraph",
    "allocation",
    "clone",
    "copy",
    "reference",
    "pointer",
    "unsafe",
    "sound",
    "invariant",
];

/// Rare words: each appears in few messages, as names and terms do in real chats.
const RARE: &[&str] = &[
    "zebracorn",
    "quillfeather",
    "marzipan",
    "obsidian",
    "kestrel",
    "tamarind",
    "halcyon",
    "verdigris",
    "sassafras",
    "juniper",
    "fennel",
    "lodestone",
    "nimbus",
    "peregrine",
    "quartzite",
    "saffron",
    "thistle",
    "umbra",
    "vellum",
    "wisteria",
];

fn word(rng: &mut StdRng) -> &'static str {
    if rng.random_ratio(1, 400) {
        RARE[rng.random_range(0..RARE.len())]
    } else {
        WORDS[rng.random_range(0..WORDS.len())]
    }
}

fn sentence(rng: &mut StdRng) -> String {
    let n = rng.random_range(6..18);
    let mut s = String::with_capacity(n * 7);
    for i in 0..n {
        let w = word(rng);
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                s.extend(f.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push(' ');
            if rng.random_ratio(1, 25) {
                s.push('`');
                s.push_str(w);
                s.push('`');
            } else {
                s.push_str(w);
            }
        }
    }
    s.push('.');
    s
}

fn paragraph(rng: &mut StdRng, min: usize, max: usize) -> String {
    let target = rng.random_range(min..=max);
    let mut p = String::with_capacity(target + 80);
    while p.len() < target {
        if !p.is_empty() {
            p.push(' ');
        }
        p.push_str(&sentence(rng));
    }
    p
}

fn title(rng: &mut StdRng) -> String {
    let n = rng.random_range(3..7);
    let mut t: Vec<&str> = (0..n).map(|_| word(rng)).collect();
    if let Some(first) = t.first_mut() {
        *first = match *first {
            "the" | "a" => "fix",
            w => w,
        };
    }
    t.join(" ")
}

fn question(rng: &mut StdRng) -> String {
    let mut q = paragraph(rng, 40, 500);
    if rng.random_ratio(1, 4) {
        q.push_str("\n\n```\n");
        q.push_str(&code(rng, 3, 12));
        q.push_str("```");
    }
    q
}

/// A markdown answer: paragraphs, sometimes a heading, a list and a fenced code block.
fn answer(rng: &mut StdRng) -> String {
    let mut a = String::new();
    for part in 0..rng.random_range(1..5) {
        if part > 0 {
            a.push_str("\n\n");
        }
        match rng.random_range(0..6) {
            0 => {
                a.push_str("## ");
                a.push_str(&title(rng));
                a.push_str("\n\n");
                a.push_str(&paragraph(rng, 80, 400));
            }
            1 => {
                for _ in 0..rng.random_range(2..6) {
                    a.push_str("- ");
                    a.push_str(&sentence(rng));
                    a.push('\n');
                }
            }
            2 => {
                let lang = ["rust", "python", "ts", "sh"][rng.random_range(0..4)];
                a.push_str("```");
                a.push_str(lang);
                a.push('\n');
                a.push_str(&code(rng, 4, 40));
                a.push_str("```");
            }
            _ => a.push_str(&paragraph(rng, 150, 900)),
        }
    }
    a
}

fn code(rng: &mut StdRng, min_lines: usize, max_lines: usize) -> String {
    let mut c = String::new();
    let mut depth = 0usize;
    for _ in 0..rng.random_range(min_lines..=max_lines) {
        c.push_str(&"    ".repeat(depth));
        match rng.random_range(0..5) {
            0 if depth < 3 => {
                c.push_str(&format!("fn {}_{}(x: u32) -> u32 {{", word(rng), word(rng)));
                depth += 1;
            }
            1 if depth > 0 => {
                c.push('}');
                depth -= 1;
            }
            2 => c.push_str(&format!(
                "let {} = {}.{}();",
                word(rng),
                word(rng),
                word(rng)
            )),
            3 => c.push_str(&format!("// {}", sentence(rng))),
            _ => c.push_str(&format!(
                "{}({}, {});",
                word(rng),
                rng.random_range(0..999),
                word(rng)
            )),
        }
        c.push('\n');
    }
    c
}

/// A tool, its arguments (JSON) and its result text.
fn tool_call(rng: &mut StdRng) -> (&'static str, String, String) {
    match rng.random_range(0..5) {
        0 => (
            "read_file",
            format!(r#"{{"path":"src/{}/{}.rs"}}"#, word(rng), word(rng)),
            code(rng, 10, 80),
        ),
        1 => (
            "grep",
            format!(r#"{{"pattern":"{}","path":"src"}}"#, word(rng)),
            (0..rng.random_range(1..30))
                .map(|i| format!("src/{}.rs:{}: {}\n", word(rng), i * 7 + 1, sentence(rng)))
                .collect(),
        ),
        2 => (
            "fetch_url",
            format!(
                r#"{{"url":"https://docs.example.org/{}/{}"}}"#,
                word(rng),
                word(rng)
            ),
            paragraph(rng, 300, 3_000),
        ),
        3 => (
            "list_dir",
            format!(r#"{{"path":"src/{}"}}"#, word(rng)),
            (0..rng.random_range(3..40))
                .map(|_| format!("{}.rs\n", word(rng)))
                .collect(),
        ),
        _ => (
            "run_command",
            format!(r#"{{"command":"cargo test -p {}"}}"#, word(rng)),
            format!(
                "Exit code 0.\n--- stdout ---\n{}",
                (0..rng.random_range(2..25))
                    .map(|_| format!("test {}::{} ... ok\n", word(rng), word(rng)))
                    .collect::<String>()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn sizes_add_up_keep_the_long_chats_and_are_whole_turns() {
        let spec = ScaleSpec {
            chats: 50,
            messages: 5_000,
            calls: 1_000,
            long_chats: vec![1_000, 500],
            seed: 7,
        };
        let sizes = chat_sizes(&spec, &mut StdRng::seed_from_u64(spec.seed));
        assert_eq!(sizes.len(), 50);
        assert_eq!(sizes.iter().sum::<usize>(), 5_000);
        assert_eq!(&sizes[..2], &[1_000, 500]);
        assert!(sizes.iter().all(|s| s % 2 == 0 && *s >= 2), "{sizes:?}");
    }

    #[tokio::test]
    async fn the_same_seed_writes_the_same_year() {
        let spec = ScaleSpec {
            chats: 30,
            messages: 1_200,
            calls: 240,
            long_chats: vec![200],
            seed: 11,
        };
        let mut dumps = Vec::new();
        for _ in 0..2 {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open_in(dir.path()).unwrap();
            let stats = generate(&store, &spec, &|_| {}).await.unwrap();
            assert_eq!(stats.chats, 30);
            assert_eq!(stats.messages, 1_200);
            // About the share asked for: every call is a round of four messages.
            assert!((150..=330).contains(&stats.calls), "{stats:?}");
            let long = store
                .branches()
                .chat_messages(stats.long_chats[0])
                .await
                .unwrap();
            assert_eq!(long.len(), 200, "the long chat is one branch of 200");
            let calls = store.calls().chat_calls(stats.long_chats[0]).await.unwrap();
            assert!(calls.iter().all(|c| c.message_id.is_some()));
            let hits = store
                .search_index()
                .search_chats("zebracorn")
                .await
                .unwrap();
            dumps.push((
                stats,
                long.iter().map(|m| m.content.clone()).collect::<Vec<_>>(),
                hits.len(),
            ));
        }
        assert_eq!(dumps[0], dumps[1]);
    }
}
