//! A call the server runs as a task (the Tasks extension, SEP-2663, F-99): `tools/call` is
//! answered with a task handle instead of a result, and the client follows the task with
//! `tasks/get` at the pace the server asks, showing its status on the call's card, putting its
//! questions (`input_required`) to the user there and sending the answers with `tasks/update`,
//! until it completes, fails or is cancelled. The call's timeout does not count the task's
//! time (each reading must come within 30 s instead); a call stopped or dropped meanwhile tells
//! the server with `tasks/cancel`. A task that outlasts the call's `hand_over` wait is left to
//! go on after its turn (not cancelled) and followed again by its id, after a restart too. The
//! task is the one call the gate approved: its result passes result review like any other.

use super::rounds::answers;
use super::{CallOptions, McpConnection, McpError};
use rmcp::model::{
    CallToolResult, CancelTaskParams, GetTaskParams, Task, TaskPayload, UpdateTaskParams,
};
use rmcp::{Peer, RoleClient};
use std::collections::BTreeSet;
use std::time::Duration;

/// The pace of `tasks/get` when the server names none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// The pace the server may ask for, at most and at least.
const FASTEST_POLL: Duration = Duration::from_millis(50);
const SLOWEST_POLL: Duration = Duration::from_secs(10);
/// How long the server may take to say how its task stands.
const READING_WAIT: Duration = Duration::from_secs(30);
/// How long the server may take to acknowledge a task's stop.
const CANCEL_WAIT: Duration = Duration::from_secs(30);

/// Follows the task `created` on `conn` to its end: its result, or why there is none (a
/// failure to reach the task said as a call's failure is: [`McpConnection::call_error`]). Past
/// the call's [`CallOptions::hand_over`], the task is left to go on ([`McpError::RunsOn`]).
pub(super) async fn follow(
    conn: &McpConnection,
    created: Task,
    options: &CallOptions,
) -> Result<CallToolResult, McpError> {
    let first = Reading {
        pace: poll_interval(&created),
        said: created.status_message.clone(),
    };
    tell(options, first.said.as_deref());
    follow_from(conn, created.task_id, first, options, options.hand_over).await
}

/// Follows, to its end, the task `task_id` a call went on as after its turn (F-99): read at
/// once, then as [`follow`] does.
pub(super) async fn follow_again(
    conn: &McpConnection,
    task_id: String,
    options: &CallOptions,
) -> Result<CallToolResult, McpError> {
    let first = Reading {
        pace: Duration::ZERO,
        said: None,
    };
    follow_from(conn, task_id, first, options, None).await
}

/// Where following a task starts: how long until its next reading, and the status last shown.
struct Reading {
    pace: Duration,
    said: Option<String>,
}

/// Follows `task_id` from `first` until it ends, or until `hand_over` has passed.
async fn follow_from(
    conn: &McpConnection,
    task_id: String,
    first: Reading,
    options: &CallOptions,
    hand_over: Option<Duration>,
) -> Result<CallToolResult, McpError> {
    let mut stop = StopOnDrop::new(&conn.peer, task_id.clone());
    let Reading { mut pace, mut said } = first;
    let mut hand_over_at = hand_over.map(|wait| tokio::time::Instant::now() + wait);
    // The questions answered already: `tasks/update` is taken in eventually, so the next
    // reading may still show them; they are not put to the user twice.
    let mut answered = BTreeSet::new();
    // A task is long work by design: its time is not the call's (the call's timeout is for a
    // server that does not answer). The server must answer each reading in time instead, and
    // Stop ends the task as it ends any call.
    let _task_time = options.clock.pause();
    loop {
        tokio::time::sleep(pace).await;
        let reading = tokio::time::timeout(
            READING_WAIT,
            conn.peer.get_task(GetTaskParams::new(task_id.clone())),
        )
        .await
        .map_err(|_| {
            McpError::Call(format!(
                "the server did not say how its task stands within {} s; the task was stopped",
                READING_WAIT.as_secs()
            ))
        })?;
        let now = reading.map_err(|e| conn.call_error(e))?.task;
        pace = poll_interval(&now.task);
        if now.task.status_message != said {
            said = now.task.status_message.clone();
            tell(options, said.as_deref());
        }
        match now.payload {
            TaskPayload::Working => {}
            TaskPayload::InputRequired { mut input_requests } => {
                input_requests.retain(|key, _| !answered.contains(key));
                if !input_requests.is_empty() {
                    answered.extend(input_requests.keys().cloned());
                    let asked = tokio::time::Instant::now();
                    let responses = answers(input_requests, conn.askers(), options).await?;
                    // The user's time answering is not the turn's wait.
                    hand_over_at = hand_over_at.map(|at| at + asked.elapsed());
                    conn.peer
                        .update_task(UpdateTaskParams::new(task_id.clone(), responses))
                        .await
                        .map_err(|e| conn.call_error(e))?;
                }
            }
            TaskPayload::Completed { result } => {
                stop.disarm();
                return serde_json::from_value(serde_json::Value::Object(result)).map_err(|e| {
                    McpError::Call(format!(
                        "the server's task ended with a result that could not be read: {e}"
                    ))
                });
            }
            TaskPayload::Failed { error } => {
                stop.disarm();
                let message = error
                    .get("message")
                    .and_then(|m| m.as_str())
                    .unwrap_or("no reason given");
                return Err(McpError::Call(format!(
                    "the server's task failed: {message}"
                )));
            }
            TaskPayload::Cancelled => {
                stop.disarm();
                return Err(McpError::Call("the server cancelled the task".into()));
            }
            #[allow(unreachable_patterns)]
            _ => {}
        }
        // The turn has waited long enough: the task goes on without it, not stopped.
        if hand_over_at.is_some_and(|at| tokio::time::Instant::now() >= at) {
            stop.disarm();
            return Err(McpError::RunsOn(task_id));
        }
    }
}

/// The pace the task asks to be followed at, kept within bounds.
fn poll_interval(task: &Task) -> Duration {
    task.poll_interval_ms
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(FASTEST_POLL, SLOWEST_POLL)
}

/// Shows the task's status message on the call's card.
fn tell(options: &CallOptions, message: Option<&str>) {
    if let Some(progress) = message.and_then(crate::progress::CallProgress::task_status) {
        (options.on_progress)(progress);
    }
}

/// A task whose call is no longer awaited (stopped, timed out, its turn gone): the server is
/// told to stop it.
struct StopOnDrop<'a> {
    peer: &'a Peer<RoleClient>,
    task_id: Option<String>,
}

impl<'a> StopOnDrop<'a> {
    fn new(peer: &'a Peer<RoleClient>, task_id: String) -> Self {
        Self {
            peer,
            task_id: Some(task_id),
        }
    }

    /// The task ended on its own: nothing to stop.
    fn disarm(&mut self) {
        self.task_id = None;
    }
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let (Some(task_id), Ok(runtime)) =
            (self.task_id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let told = tokio::time::timeout(
                CANCEL_WAIT,
                peer.cancel_task(CancelTaskParams::new(task_id)),
            )
            .await;
            match told {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::info!("the server was not told to stop its task: {e}"),
                Err(_) => tracing::info!("the server did not take the stop of its task in time"),
            }
        });
    }
}
