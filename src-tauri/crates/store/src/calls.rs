//! Tool-call records (F-17): one row per call, written when the call starts and completed when
//! it ends, so a crash mid-call leaves a row that the next start marks as interrupted.

use super::variables::{sources_from_db, sources_to_db};
use super::{now_ms, StoreResult};
use crate::facets::Calls;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::policy::{CallDecision, CallStatus, DecidedBy, ExecutionPolicy};
use tollgate_protocol::{
    AskedQuestion, Attachment, Autonomy, GuardMark, LentModel, McpViewLink, SandboxReport, Source,
    ToolEffects,
};

/// The status of a row whose call has not ended.
pub const RUNNING: &str = "running";
const INTERRUPTED_TEXT: &str = "Interrupted: Tollgate stopped while this call was running.";

/// What is known when a call starts.
#[derive(Debug, Clone)]
pub struct CallStart {
    pub chat: ChatId,
    pub message_id: Option<i64>,
    pub round: u32,
    pub seq: u64,
    pub call_id: String,
    pub requested_name: String,
    pub raw_args: String,
    pub started_at: i64,
    /// Made by the view of call `c<view_of>` (F-96), not by the model.
    pub view_of: Option<u64>,
}

/// What is known when a call ends.
#[derive(Debug, Clone)]
pub struct CallFinish {
    pub chat: ChatId,
    pub seq: u64,
    pub tool: Option<String>,
    pub group: Option<String>,
    pub resolved_args: Option<String>,
    pub policy: Option<ExecutionPolicy>,
    pub decision: CallDecision,
    pub decided_by: DecidedBy,
    pub status: CallStatus,
    pub result_text: String,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    /// Images shown with the result (F-45); checked by the tool.
    pub result_images: Vec<Attachment>,
    /// How a sandboxed tool ran and what it blocked (F-46).
    pub sandbox: Option<SandboxReport>,
    /// Where the result came from (F-80).
    pub sources: Vec<Source>,
    /// What the call could do (F-81), once its tool was known.
    pub effects: Option<ToolEffects>,
    /// How it went through the provenance gate (F-85).
    pub guard: GuardMark,
    pub ended_at: i64,
    pub duration_ms: i64,
    /// The call's view (F-96) and the result as the server returned it, for the view:
    /// kept so the view shows again after a restart without calling the tool again.
    pub view: Option<(McpViewLink, Option<String>)>,
}

/// Where a recorded call stands: still running, or ended with a [`CallStatus`].
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordStatus {
    Running,
    Success,
    Error,
    InvalidArgs,
    NotFound,
    ExecutionRejected,
    ResultRejected,
    Cancelled,
    TimedOut,
    InBackground,
}

impl RecordStatus {
    /// The status of an ended call.
    pub fn ended(status: CallStatus) -> Self {
        match status {
            CallStatus::Success => Self::Success,
            CallStatus::Error => Self::Error,
            CallStatus::InvalidArgs => Self::InvalidArgs,
            CallStatus::NotFound => Self::NotFound,
            CallStatus::ExecutionRejected => Self::ExecutionRejected,
            CallStatus::ResultRejected => Self::ResultRejected,
            CallStatus::Cancelled => Self::Cancelled,
            CallStatus::TimedOut => Self::TimedOut,
            CallStatus::InBackground => Self::InBackground,
        }
    }

    /// Reads the `status` column; a value this version does not know reads as an error.
    pub(crate) fn from_db(text: &str) -> Self {
        if text == RUNNING {
            Self::Running
        } else {
            CallStatus::parse(text).map_or(Self::Error, Self::ended)
        }
    }
}

impl std::fmt::Display for RecordStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Running => f.write_str(RUNNING),
            Self::Success => CallStatus::Success.fmt(f),
            Self::Error => CallStatus::Error.fmt(f),
            Self::InvalidArgs => CallStatus::InvalidArgs.fmt(f),
            Self::NotFound => CallStatus::NotFound.fmt(f),
            Self::ExecutionRejected => CallStatus::ExecutionRejected.fmt(f),
            Self::ResultRejected => CallStatus::ResultRejected.fmt(f),
            Self::Cancelled => CallStatus::Cancelled.fmt(f),
            Self::TimedOut => CallStatus::TimedOut.fmt(f),
            Self::InBackground => CallStatus::InBackground.fmt(f),
        }
    }
}

/// A call as recorded.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedCall {
    pub chat: ChatId,
    pub message_id: Option<i64>,
    pub round: u32,
    pub seq: u64,
    pub call_id: String,
    pub requested_name: String,
    pub tool: Option<String>,
    pub group: Option<String>,
    pub raw_args: String,
    pub resolved_args: Option<String>,
    pub policy: Option<ExecutionPolicy>,
    pub decision: CallDecision,
    pub decided_by: DecidedBy,
    pub status: RecordStatus,
    pub result_text: Option<String>,
    pub is_error: bool,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub duration_ms: Option<i64>,
    /// Images the tool returned, shown with the result (F-45).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<Attachment>>")]
    pub result_images: Vec<Attachment>,
    /// How a sandboxed tool ran and what the sandbox blocked (F-46).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sandbox: Option<SandboxReport>,
    /// Where the result came from (F-80): shown on the tool card.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<Source>>")]
    pub sources: Vec<Source>,
    /// What the call could do (F-81).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub effects: Option<ToolEffects>,
    /// How it went through the provenance gate (F-85).
    #[serde(default)]
    pub guard: GuardMark,
    /// The view its server ships with the result (F-96).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub view: Option<McpViewLink>,
    /// Made by the view of call `c<view_of>`, not by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub view_of: Option<u64>,
    /// What the chat's model answered the call's server, request by request (F-99).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<LentModel>>")]
    pub lent: Vec<LentModel>,
    /// What the call's server asked the user during it, and how each question ended (F-99).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<AskedQuestion>>")]
    pub asked: Vec<AskedQuestion>,
}

/// The columns of a whole `tool_calls` row, in the order [`from_row`] reads and
/// [`insert_recorded_call`] writes them.
const CALL_COLUMNS: &str =
    "chat_id, message_id, round, seq, call_id, requested_name, tool, group_name, raw_args,
    resolved_args, policy, decision, decided_by, status, result_text, is_error, truncated,
    result_var, args_var, started_at, ended_at, duration_ms, result_images, sandbox, sources, effects,
    guard, view_server, view_uri, view_of, lent, asked";

/// The `effects` column: NULL before the tool was known.
fn effects_to_db(effects: Option<ToolEffects>) -> Option<String> {
    effects.and_then(|e| serde_json::to_string(&e).ok())
}

/// Reads the `effects` column.
fn effects_from_db(text: Option<String>) -> Option<ToolEffects> {
    text.and_then(|t| serde_json::from_str(&t).ok())
}

/// The `result_images` column: NULL for none.
fn images_to_db(images: &[Attachment]) -> Option<String> {
    if images.is_empty() {
        None
    } else {
        serde_json::to_string(images).ok()
    }
}

/// Reads the `result_images` column; what does not read as a list of attachments is none.
fn images_from_db(text: Option<String>) -> Vec<Attachment> {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// The `sandbox` column: NULL for a tool without a sandbox.
fn sandbox_to_db(report: Option<&SandboxReport>) -> Option<String> {
    report.and_then(|r| serde_json::to_string(r).ok())
}

/// Reads the `sandbox` column; what does not read as a report is none.
fn sandbox_from_db(text: Option<String>) -> Option<SandboxReport> {
    text.and_then(|t| serde_json::from_str(&t).ok())
}

/// Writes a whole recorded call as a new row (an imported call).
pub(super) fn insert_recorded_call(conn: &Connection, call: &RecordedCall) -> StoreResult<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO tool_calls({CALL_COLUMNS})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32)"
    ))?
    .execute(params![
        call.chat.0,
        call.message_id,
        call.round,
        call.seq,
        call.call_id,
        call.requested_name,
        call.tool,
        call.group,
        call.raw_args,
        call.resolved_args,
        call.policy.map(ExecutionPolicy::as_str),
        call.decision.to_db(),
        call.decided_by.as_str(),
        call.status.to_string(),
        call.result_text,
        call.is_error,
        call.truncated,
        call.result_var,
        call.args_var,
        call.started_at,
        call.ended_at,
        call.duration_ms,
        images_to_db(&call.result_images),
        sandbox_to_db(call.sandbox.as_ref()),
        sources_to_db(&call.sources),
        effects_to_db(call.effects),
        call.guard.as_str(),
        call.view.as_ref().map(|v| v.server.as_str()),
        call.view.as_ref().map(|v| v.uri.as_str()),
        call.view_of,
        list_to_db(&call.lent),
        list_to_db(&call.asked)
    ])?;
    Ok(())
}

fn from_row(r: &Row<'_>) -> rusqlite::Result<RecordedCall> {
    Ok(RecordedCall {
        chat: ChatId(r.get(0)?),
        message_id: r.get(1)?,
        round: r.get(2)?,
        seq: r.get(3)?,
        call_id: r.get(4)?,
        requested_name: r.get(5)?,
        tool: r.get(6)?,
        group: r.get(7)?,
        raw_args: r.get(8)?,
        resolved_args: r.get(9)?,
        policy: r
            .get::<_, Option<String>>(10)?
            .as_deref()
            .and_then(ExecutionPolicy::parse),
        decision: CallDecision::from_db(r.get::<_, Option<String>>(11)?.as_deref()),
        decided_by: DecidedBy::parse(&r.get::<_, String>(12)?).unwrap_or(DecidedBy::None),
        status: RecordStatus::from_db(&r.get::<_, String>(13)?),
        result_text: r.get(14)?,
        is_error: r.get(15)?,
        truncated: r.get(16)?,
        result_var: r.get(17)?,
        args_var: r.get(18)?,
        started_at: r.get(19)?,
        ended_at: r.get(20)?,
        duration_ms: r.get(21)?,
        result_images: images_from_db(r.get(22)?),
        sandbox: sandbox_from_db(r.get(23)?),
        sources: sources_from_db(r.get(24)?),
        effects: effects_from_db(r.get(25)?),
        guard: GuardMark::parse(&r.get::<_, String>(26)?),
        view: match (
            r.get::<_, Option<String>>(27)?,
            r.get::<_, Option<String>>(28)?,
        ) {
            (Some(server), Some(uri)) => Some(McpViewLink { server, uri }),
            _ => None,
        },
        view_of: r.get(29)?,
        lent: list_from_db(r.get(30)?),
        asked: list_from_db(r.get(31)?),
    })
}

/// The most entries one call keeps in each of its lists ([`CallList`]).
pub const MAX_PER_CALL_LIST: usize = 100;

/// A column holding a JSON list of what happened during a call, one entry added at a time.
#[derive(Debug, Clone, Copy)]
enum CallList {
    /// `lent`: the chat's model's answers to the call's server.
    Lent,
    /// `asked`: the call's server's questions to the user.
    Asked,
}

impl CallList {
    fn column(self) -> &'static str {
        match self {
            CallList::Lent => "lent",
            CallList::Asked => "asked",
        }
    }
}

/// A list column: NULL for none.
fn list_to_db<T: Serialize>(items: &[T]) -> Option<String> {
    (!items.is_empty())
        .then(|| serde_json::to_string(items).ok())
        .flatten()
}

fn list_from_db<T: DeserializeOwned>(text: Option<String>) -> Vec<T> {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Marks calls left `running` by a previous process as cancelled.
/// Ends the calls a crash left running. The status ([`RUNNING`]) is written into the query: only
/// then can SQLite use the partial index of running calls (V9) instead of reading every call.
pub(super) const RECOVER_RUNNING: &str = "UPDATE tool_calls SET status = ?1, is_error = 1,
    result_text = COALESCE(result_text, ?2), ended_at = ?3 WHERE status = 'running'";

pub(super) fn recover_interrupted(conn: &Connection) -> StoreResult<()> {
    conn.execute(
        RECOVER_RUNNING,
        params![CallStatus::Cancelled.as_str(), INTERRUPTED_TEXT, now_ms()],
    )?;
    Ok(())
}

/// A past call as a rule preview reads it (F-85).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastCall {
    pub chat: ChatId,
    pub seq: u64,
    pub resolved_args: String,
    /// The workspace of the call's chat (as it is now).
    pub workspace: Option<String>,
    pub started_at: i64,
    pub decided_by: DecidedBy,
}

/// Whether a row's `effects` may change or send something (F-81).
const CONSEQUENTIAL: &str = "(effects IS NOT NULL AND (json_extract(effects, '$.writes') OR json_extract(effects, '$.executes') OR json_extract(effects, '$.sendsOut') OR json_extract(effects, '$.irreversible')))";

/// The autonomy figures' query: `?1` a chat, or NULL for every chat.
static AUTONOMY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT COUNT(*),
            SUM(decided_by = 'auto'),
            SUM(decided_by = 'rule' AND decision LIKE 'allow%'),
            SUM(decided_by = 'record' AND decision LIKE 'allow%'),
            SUM(guard = 'escalated'),
            SUM(guard = 'endorsed'),
            SUM(decided_by = 'user'),
            SUM(decided_by = 'plan')
         FROM tool_calls
         WHERE (?1 IS NULL OR chat_id = ?1) AND decided_by <> 'none' AND {CONSEQUENTIAL}"
    )
});

impl Calls<'_> {
    /// Queues the row for a call that is starting.
    pub fn record_call_start(&self, s: CallStart) {
        self.store.write(move |c| {
            c.prepare_cached(
                "INSERT INTO tool_calls(chat_id, message_id, round, seq, call_id, requested_name, raw_args, status, started_at, view_of)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                s.chat.0, s.message_id, s.round, s.seq, s.call_id, s.requested_name, s.raw_args, RUNNING, s.started_at, s.view_of
            ])
            .map(|_| ())
        });
    }

    /// Queues the completion of a call's row.
    pub fn record_call_finish(&self, f: CallFinish) {
        self.store.write(move |c| {
            c.prepare_cached(
                "UPDATE tool_calls SET tool = ?3, group_name = ?4, resolved_args = ?5, policy = ?6, decision = ?7,
                    decided_by = ?8, status = ?9, result_text = ?10, is_error = ?11, truncated = ?12,
                    result_var = ?13, args_var = ?14, ended_at = ?15, duration_ms = ?16,
                    result_images = ?17, sandbox = ?18, sources = ?19, effects = ?20, guard = ?21,
                    view_server = COALESCE(?22, view_server), view_uri = COALESCE(?23, view_uri),
                    view_result = ?24
                 WHERE chat_id = ?1 AND seq = ?2",
            )?
            .execute(params![
                f.chat.0,
                f.seq,
                f.tool,
                f.group,
                f.resolved_args,
                f.policy.map(ExecutionPolicy::as_str),
                f.decision.to_db(),
                f.decided_by.as_str(),
                f.status.as_str(),
                f.result_text,
                f.status.is_error(),
                f.truncated,
                f.result_var,
                f.args_var,
                f.ended_at,
                f.duration_ms,
                images_to_db(&f.result_images),
                sandbox_to_db(f.sandbox.as_ref()),
                sources_to_db(&f.sources),
                effects_to_db(f.effects),
                f.guard.as_str(),
                f.view.as_ref().map(|(v, _)| v.server.as_str()),
                f.view.as_ref().map(|(v, _)| v.uri.as_str()),
                f.view.as_ref().and_then(|(_, r)| r.as_deref())
            ])
            .map(|_| ())
        });
    }

    /// Queues, on call `seq` of `chat`, what the chat's model answered its server (F-99): after
    /// the call's start, which was queued first.
    pub fn record_lent(&self, chat: ChatId, seq: u64, lent: LentModel) {
        self.append(CallList::Lent, chat, seq, lent);
    }

    /// Queues, on call `seq` of `chat`, a question its server asked the user and how it ended
    /// (F-99): after the call's start, which was queued first.
    pub fn record_asked(&self, chat: ChatId, seq: u64, asked: AskedQuestion) {
        self.append(CallList::Asked, chat, seq, asked);
    }

    /// Queues `item` at the end of `list` on call `seq` of `chat`.
    fn append<T>(&self, list: CallList, chat: ChatId, seq: u64, item: T)
    where
        T: Serialize + DeserializeOwned + Send + 'static,
    {
        let column = list.column();
        self.store.write(move |c| {
            let kept: Option<Option<String>> = c
                .prepare_cached(&format!(
                    "SELECT {column} FROM tool_calls WHERE chat_id = ?1 AND seq = ?2"
                ))?
                .query_row(params![chat.0, seq], |r| r.get(0))
                .optional()?;
            let mut all: Vec<T> = list_from_db(kept.flatten());
            // A backstop: the senders bound what one call may add (a few questions a minute,
            // so many answers of the model per call).
            if all.len() >= MAX_PER_CALL_LIST {
                return Ok(());
            }
            all.push(item);
            c.prepare_cached(&format!(
                "UPDATE tool_calls SET {column} = ?3 WHERE chat_id = ?1 AND seq = ?2"
            ))?
            .execute(params![chat.0, seq, list_to_db(&all)])
            .map(|_| ())
        });
    }

    /// Every recorded call of a chat, in order.
    pub async fn chat_calls(&self, chat: ChatId) -> StoreResult<Vec<RecordedCall>> {
        self.store
            .call(move |c| {
                let mut stmt = c.prepare_cached(&format!(
                    "SELECT {CALL_COLUMNS} FROM tool_calls WHERE chat_id = ?1 ORDER BY seq"
                ))?;
                let rows = stmt
                    .query_map([chat.0], from_row)?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .await
    }

    /// Call `seq` of `chat` as recorded, if there is one.
    pub async fn recorded_call(&self, chat: ChatId, seq: u64) -> StoreResult<Option<RecordedCall>> {
        self.store
            .call(move |c| {
                Ok(c.prepare_cached(&format!(
                    "SELECT {CALL_COLUMNS} FROM tool_calls WHERE chat_id = ?1 AND seq = ?2"
                ))?
                .query_row(params![chat.0, seq], from_row)
                .optional()?)
            })
            .await
    }

    /// The recorded calls of a chat's messages `first..=last`, in order, and with `unattached`
    /// also those recorded under no message: one page of a chat's history (F-71).
    pub async fn chat_calls_between(
        &self,
        chat: ChatId,
        first: i64,
        last: i64,
        unattached: bool,
    ) -> StoreResult<Vec<RecordedCall>> {
        self.store.call(move |c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {CALL_COLUMNS} FROM tool_calls WHERE chat_id = ?1 AND (message_id BETWEEN ?2 AND ?3 OR (?4 AND message_id IS NULL)) ORDER BY seq"
            ))?;
            let rows = stmt
                .query_map(params![chat.0, first, last, unattached], from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }

    /// The highest call number used in a chat (0 if none).
    pub async fn last_call_seq(&self, chat: ChatId) -> StoreResult<u64> {
        self.store
            .call(move |c| {
                Ok(c.query_row(
                    "SELECT COALESCE(MAX(seq), 0) FROM tool_calls WHERE chat_id = ?1",
                    [chat.0],
                    |r| r.get(0),
                )?)
            })
            .await
    }

    /// The autonomy figures (F-85) of one chat, or of every chat: how the consequential calls
    /// that reached a decision were decided.
    pub async fn autonomy(&self, chat: Option<ChatId>) -> StoreResult<Autonomy> {
        self.store
            .call(move |c| {
                let row =
                    c.prepare_cached(AUTONOMY.as_str())?
                        .query_row([chat.map(|c| c.0)], |r| {
                            let n = |i: usize| -> rusqlite::Result<u64> {
                                Ok(u64::try_from(r.get::<_, Option<i64>>(i)?.unwrap_or(0))
                                    .unwrap_or(0))
                            };
                            Ok(Autonomy {
                                consequential: n(0)?,
                                by_policy: n(1)?,
                                by_rule: n(2)?,
                                by_record: n(3)?,
                                escalated: n(4)?,
                                endorsed: n(5)?,
                                asked: n(6)?,
                                by_plan: n(7)?,
                            })
                        })?;
                Ok(row)
            })
            .await
    }

    /// The latest calls of `tool` (in `chat`, or in every chat) with the arguments they ran
    /// with and the workspace of their chat: what a rule preview checks (F-85).
    pub async fn past_calls(
        &self,
        tool: String,
        chat: Option<ChatId>,
        limit: usize,
    ) -> StoreResult<Vec<PastCall>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.store.call(move |c| {
            let mut stmt = c.prepare_cached(
                "SELECT t.chat_id, t.seq, t.resolved_args, c.workspace, t.started_at, t.decided_by
                 FROM tool_calls t JOIN chats c ON c.id = t.chat_id
                 WHERE t.tool = ?1 AND (?2 IS NULL OR t.chat_id = ?2) AND t.resolved_args IS NOT NULL
                 ORDER BY t.started_at DESC, t.id DESC LIMIT ?3",
            )?;
            let rows = stmt
                .query_map(params![tool, chat.map(|c| c.0), limit], |r| {
                    Ok(PastCall {
                        chat: ChatId(r.get(0)?),
                        seq: r.get(1)?,
                        resolved_args: r.get(2)?,
                        workspace: r.get(3)?,
                        started_at: r.get(4)?,
                        decided_by: DecidedBy::parse(&r.get::<_, String>(5)?)
                            .unwrap_or(DecidedBy::None),
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use crate::{CallStart, NewChat, Store};
    use tollgate_protocol::{
        AskedQuestion, ElicitationKind, ElicitationOutcome, LentModel, SampledRole, SampledText,
    };

    fn lent(answer: &str) -> LentModel {
        LentModel {
            model: "m".into(),
            system: None,
            messages: vec![SampledText {
                role: SampledRole::User,
                text: "Summarise".into(),
            }],
            answer: answer.into(),
            at: 1,
            input_tokens: 10,
            output_tokens: 2,
        }
    }

    /// A call may lend the model more than once (F-99): each exchange is kept with it, in order,
    /// and with no other call.
    #[tokio::test]
    async fn every_exchange_with_the_lent_model_is_kept_with_its_call_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(NewChat::default()).await.unwrap().id;
        for (seq, tool) in [(1, "era__summarise"), (2, "era__echo")] {
            store.calls().record_call_start(CallStart {
                chat,
                message_id: None,
                round: 0,
                seq,
                call_id: format!("c{seq}"),
                requested_name: tool.into(),
                raw_args: "{}".into(),
                started_at: 0,
                view_of: None,
            });
        }
        store.calls().record_lent(chat, 1, lent("first"));
        store.calls().record_lent(chat, 1, lent("second"));
        store.flush().await.unwrap();
        let call = store.calls().recorded_call(chat, 1).await.unwrap().unwrap();
        let answers: Vec<&str> = call.lent.iter().map(|l| l.answer.as_str()).collect();
        assert_eq!(answers, ["first", "second"]);
        assert_eq!(call.lent[0], lent("first"));
        // The chat's other call, there all along, keeps none.
        let other = store.calls().recorded_call(chat, 2).await.unwrap().unwrap();
        assert!(other.lent.is_empty());
        // A server's questions are kept beside, in order, and neither list disturbs the other.
        let asked = |message: &str, outcome| AskedQuestion {
            id: tollgate_protocol::ids::ApprovalId::from_string(message),
            message: message.into(),
            kind: ElicitationKind::Url {
                url: "https://pay.example/".into(),
                host: "pay.example".into(),
            },
            outcome,
            note: None,
            answer: None,
            at: 2,
        };
        store
            .calls()
            .record_asked(chat, 1, asked("Pay?", ElicitationOutcome::Declined));
        store
            .calls()
            .record_asked(chat, 1, asked("Pay now?", ElicitationOutcome::Accepted));
        store.flush().await.unwrap();
        let call = store.calls().recorded_call(chat, 1).await.unwrap().unwrap();
        assert_eq!(
            call.asked,
            [
                asked("Pay?", ElicitationOutcome::Declined),
                asked("Pay now?", ElicitationOutcome::Accepted)
            ]
        );
        assert_eq!(call.lent.len(), 2);
        let other = store.calls().recorded_call(chat, 2).await.unwrap().unwrap();
        assert!(other.asked.is_empty());
    }
}
