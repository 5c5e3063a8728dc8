//! Tool-call records (F-17): one row per call, written when the call starts and completed when
//! it ends, so a crash mid-call leaves a row that the next start marks as interrupted.

use super::{now_ms, Store, StoreResult};
use crate::ids::ChatId;
use crate::policy::{CallStatus, DecidedBy};
use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};

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
}

/// What is known when a call ends.
#[derive(Debug, Clone)]
pub struct CallFinish {
    pub chat: ChatId,
    pub seq: u64,
    pub tool: Option<String>,
    pub group: Option<String>,
    pub resolved_args: Option<String>,
    pub policy: Option<String>,
    pub decision: Option<String>,
    pub decided_by: DecidedBy,
    pub status: CallStatus,
    pub result_text: String,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    pub ended_at: i64,
    pub duration_ms: i64,
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
    pub policy: Option<String>,
    pub decision: Option<String>,
    pub decided_by: String,
    /// A [`CallStatus`] string, or `running`.
    pub status: String,
    pub result_text: Option<String>,
    pub is_error: bool,
    pub truncated: bool,
    pub result_var: Option<String>,
    pub args_var: Option<String>,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub duration_ms: Option<i64>,
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
        policy: r.get(10)?,
        decision: r.get(11)?,
        decided_by: r.get(12)?,
        status: r.get(13)?,
        result_text: r.get(14)?,
        is_error: r.get(15)?,
        truncated: r.get(16)?,
        result_var: r.get(17)?,
        args_var: r.get(18)?,
        started_at: r.get(19)?,
        ended_at: r.get(20)?,
        duration_ms: r.get(21)?,
    })
}

/// Marks calls left `running` by a previous process as cancelled.
pub(super) fn recover_interrupted(conn: &Connection) -> StoreResult<()> {
    conn.execute(
        "UPDATE tool_calls SET status = ?1, is_error = 1, result_text = COALESCE(result_text, ?2), ended_at = ?3
         WHERE status = ?4",
        params![CallStatus::Cancelled.as_str(), INTERRUPTED_TEXT, now_ms(), RUNNING],
    )?;
    Ok(())
}

impl Store {
    /// Queues the row for a call that is starting.
    pub fn record_call_start(&self, s: CallStart) {
        self.write(move |c| {
            c.prepare_cached(
                "INSERT INTO tool_calls(chat_id, message_id, round, seq, call_id, requested_name, raw_args, status, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                s.chat.0, s.message_id, s.round, s.seq, s.call_id, s.requested_name, s.raw_args, RUNNING, s.started_at
            ])
            .map(|_| ())
        });
    }

    /// Queues the completion of a call's row.
    pub fn record_call_finish(&self, f: CallFinish) {
        self.write(move |c| {
            c.prepare_cached(
                "UPDATE tool_calls SET tool = ?3, group_name = ?4, resolved_args = ?5, policy = ?6, decision = ?7,
                    decided_by = ?8, status = ?9, result_text = ?10, is_error = ?11, truncated = ?12,
                    result_var = ?13, args_var = ?14, ended_at = ?15, duration_ms = ?16
                 WHERE chat_id = ?1 AND seq = ?2",
            )?
            .execute(params![
                f.chat.0,
                f.seq,
                f.tool,
                f.group,
                f.resolved_args,
                f.policy,
                f.decision,
                f.decided_by.as_str(),
                f.status.as_str(),
                f.result_text,
                f.status.is_error(),
                f.truncated,
                f.result_var,
                f.args_var,
                f.ended_at,
                f.duration_ms
            ])
            .map(|_| ())
        });
    }

    /// Every recorded call of a chat, in order.
    pub async fn chat_calls(&self, chat: ChatId) -> StoreResult<Vec<RecordedCall>> {
        self.call(move |c| {
            let mut stmt = c.prepare_cached(
                "SELECT chat_id, message_id, round, seq, call_id, requested_name, tool, group_name, raw_args,
                        resolved_args, policy, decision, decided_by, status, result_text, is_error, truncated,
                        result_var, args_var, started_at, ended_at, duration_ms
                 FROM tool_calls WHERE chat_id = ?1 ORDER BY seq",
            )?;
            let rows = stmt.query_map([chat.0], from_row)?.collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }

    /// The highest call number used in a chat (0 if none).
    pub async fn last_call_seq(&self, chat: ChatId) -> StoreResult<u64> {
        self.call(move |c| {
            Ok(c.query_row(
                "SELECT COALESCE(MAX(seq), 0) FROM tool_calls WHERE chat_id = ?1",
                [chat.0],
                |r| r.get(0),
            )?)
        })
        .await
    }
}
