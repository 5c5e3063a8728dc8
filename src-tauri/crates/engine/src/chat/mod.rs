//! The chat loop (SPEC §4): one turn is request → streamed answer → tool calls through the gate →
//! results back → next round, until the model answers without tools, the round limit is reached,
//! the user stops, or the provider fails.
//!
//! This module holds what a turn is made of and what it says: [`Turn`], [`TurnInput`],
//! [`ChatEvent`], [`TurnOutcome`], the history and export formats. The loop itself lives in the
//! crate above this one, `tollgate-turn`, and reaches the service as a [`StartTurn`] (handed to
//! [`crate::service::Tollgate::open`] by the app's binary and the tests), so a change to the loop
//! rebuilds the loop and the binary, not the service and the app's commands.
//!
//! The app drives a turn through the service: it receives [`ChatEvent`]s on a channel, sends
//! decisions through the executor, answers to `ask_user` through the [`crate::tools::questions::QuestionHub`],
//! and stops the turn with [`TurnHandle::stop`]. Everything is persisted as it happens (F-61).

pub mod attachments;
pub mod coalesce;
pub mod export;
pub mod exposure;
pub mod fence;
pub mod history;
pub mod import;
pub mod retry;

pub use retry::{NextStep, RetryPolicy};

use crate::executor::ToolExecutor;
use crate::ids::ChatId;
use crate::protocol::Usage;
use crate::protocol::{Router, ToolEvent};
use crate::providers::{FinishReason, Provider};
use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Limits and knobs of a turn (F-22, F-23 and the provider request).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TurnSettings {
    /// Rounds with tools per turn; then one final answer without tools.
    pub max_rounds: u32,
    /// The same call this many times in a row asks the user (0 turns the check off).
    pub doom_loop_threshold: u32,
    /// Read-only calls run at most this many at once.
    pub max_parallel: usize,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    pub retry: RetryPolicy,
    /// A stream silent this long (before it starts or between two pieces) is broken and tried
    /// again (F-26). Not a limit on the whole answer.
    pub idle_timeout_ms: u64,
    /// How often streamed text is saved (F-61: a crash loses at most this much).
    pub save_interval_ms: u64,
}

impl Default for TurnSettings {
    fn default() -> Self {
        Self {
            max_rounds: 25,
            doom_loop_threshold: 3,
            max_parallel: 8,
            max_tokens: 8_192,
            temperature: None,
            retry: RetryPolicy::default(),
            idle_timeout_ms: 90_000,
            save_interval_ms: 250,
        }
    }
}

/// How a turn ended.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TurnOutcome {
    /// The model gave its answer.
    Completed { usage: Usage },
    /// The user pressed Stop, or chose "deny and stop"; what was produced is kept.
    Stopped { usage: Usage },
    /// The provider failed; `retryable` says whether Retry is likely to help, `kind` what the
    /// window offers (the provider's settings for a refused key, a new chat for a conversation
    /// too long for the model).
    #[serde(rename_all = "camelCase")]
    Failed {
        error: String,
        kind: crate::protocol::FailureKind,
        retryable: bool,
        usage: Usage,
    },
}

/// What the UI hears during a turn.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ChatEvent {
    /// The user's message is saved (`None` for a Retry, which adds no message).
    #[serde(rename_all = "camelCase")]
    TurnStarted {
        chat: ChatId,
        user_message_id: Option<i64>,
    },
    /// A request goes out; its answer streams into `message_id`.
    #[serde(rename_all = "camelCase")]
    RoundStarted {
        round: u32,
        message_id: i64,
    },
    #[serde(rename_all = "camelCase")]
    TextDelta {
        message_id: i64,
        text: String,
    },
    /// A piece of the model's reasoning, shown in the answer's "Thinking" section (F-29).
    #[serde(rename_all = "camelCase")]
    ReasoningDelta {
        message_id: i64,
        text: String,
    },
    /// The model started writing a tool call.
    #[serde(rename_all = "camelCase")]
    ToolCallStarted {
        message_id: i64,
        index: u32,
        id: String,
        name: String,
    },
    /// A gate event of one of the round's calls.
    Tool {
        event: Box<ToolEvent>,
    },
    /// A request failed and will be tried again after `delay_ms` (retry `attempt` of
    /// `max_retries`). With `message_id`, the stream broke after it had shown something: that
    /// answer's text, reasoning and tool calls are discarded (none of its calls runs) and the
    /// answer streams again from the start.
    #[serde(rename_all = "camelCase")]
    Retrying {
        attempt: u32,
        max_retries: u32,
        delay_ms: u64,
        error: String,
        kind: crate::protocol::FailureKind,
        message_id: Option<i64>,
    },
    #[serde(rename_all = "camelCase")]
    RoundFinished {
        round: u32,
        message_id: i64,
        finish: FinishReason,
        usage: Usage,
    },
    TurnFinished {
        outcome: TurnOutcome,
    },
}

/// What a turn starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnInput {
    /// A new user message.
    Message(UserInput),
    /// Answer again from the stored history (after an error).
    Retry,
    /// A new version of a user message (F-56): written under `parent` (the edited message's
    /// parent), beside the earlier version, and answered.
    Edit {
        parent: Option<i64>,
        message: UserInput,
    },
    /// A new answer to the user message `question` (F-56), beside the earlier answers.
    Regenerate { question: i64 },
    /// The user's "run again without the sandbox" on call `c<of_seq>` (F-46): their message
    /// saying so, then the same call run with the sandbox off, then the model answers.
    Rerun {
        message: UserInput,
        call: crate::providers::AssistantToolCall,
        /// The call repeated and where it ran (F-46).
        of: crate::executor::Rerun,
    },
}

/// What the user sends: text, and files attached to it (F-57).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserInput {
    pub text: String,
    pub attachments: Vec<attachments::Attachment>,
    /// Where the text came from besides the user's typing (an MCP prompt filled in, F-80).
    pub sources: Vec<crate::protocol::Source>,
}

impl From<&str> for UserInput {
    fn from(text: &str) -> Self {
        text.to_string().into()
    }
}

impl From<String> for UserInput {
    fn from(text: String) -> Self {
        Self {
            text,
            attachments: Vec::new(),
            sources: Vec::new(),
        }
    }
}

impl UserInput {
    /// The payload stored with the message (none without attachments).
    pub fn payload(&self) -> Option<serde_json::Value> {
        if self.attachments.is_empty() && self.sources.is_empty() {
            return None;
        }
        serde_json::to_value(attachments::UserPayload {
            attachments: self.attachments.clone(),
            sources: self.sources.clone(),
        })
        .ok()
    }
}

/// Everything a turn needs.
#[derive(Clone)]
pub struct Turn {
    pub exec: Arc<ToolExecutor>,
    pub provider: Arc<dyn Provider>,
    pub store: Store,
    /// The executor's event sink, so this turn can receive its chat's gate events.
    pub router: Arc<Router>,
    pub model: String,
    /// The chat's own system prompt; the enabled groups' rules are added after it.
    pub system_prompt: String,
    pub settings: TurnSettings,
}

/// Starts a turn on the Tokio runtime: `tollgate_turn::start_turn`, the chat loop.
pub type StartTurn = fn(Turn, TurnInput) -> TurnHandle;

/// A running turn.
pub struct TurnHandle {
    pub events: mpsc::UnboundedReceiver<ChatEvent>,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<TurnOutcome>,
}

impl TurnHandle {
    /// A handle on the turn `task` runs, which sends its events on `events`'s sender and stops
    /// when `cancel` is cancelled.
    pub fn new(
        events: mpsc::UnboundedReceiver<ChatEvent>,
        cancel: CancellationToken,
        task: tokio::task::JoinHandle<TurnOutcome>,
    ) -> Self {
        Self {
            events,
            cancel,
            task,
        }
    }

    /// Stop (F-25): aborts the stream, cancels running tools and pending approvals.
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// A token that stops this turn, for holders other than the handle's owner.
    pub fn stopper(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Waits for the turn to end.
    pub async fn join(self) -> TurnOutcome {
        self.task.await.unwrap_or_else(|e| TurnOutcome::Failed {
            error: format!("the turn ended unexpectedly: {e}"),
            kind: crate::protocol::FailureKind::Internal,
            retryable: true,
            usage: Usage::default(),
        })
    }

    /// Passes every event to `on_event` until the turn ends, and returns how it ended. The last
    /// event is always `TurnFinished`: if the task ended without sending one (it was aborted, or
    /// died where the supervisor could not catch it), one is made from how the task ended, so
    /// the window never waits on "Working…" for a turn that is gone.
    pub async fn relay(mut self, on_event: &(dyn Fn(ChatEvent) + Send + Sync)) -> TurnOutcome {
        let mut finished = false;
        while let Some(event) = self.events.recv().await {
            finished |= matches!(event, ChatEvent::TurnFinished { .. });
            on_event(event);
        }
        let outcome = self.join().await;
        if !finished {
            tracing::error!("a turn ended without saying how: {outcome:?}");
            on_event(ChatEvent::TurnFinished {
                outcome: outcome.clone(),
            });
        }
        outcome
    }

    /// Waits for the turn to end, collecting every event (tests and headless use).
    pub async fn collect(mut self) -> (Vec<ChatEvent>, TurnOutcome) {
        let mut events = Vec::new();
        while let Some(e) = self.events.recv().await {
            events.push(e);
        }
        (events, self.join().await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;

    fn handle(
        task: tokio::task::JoinHandle<TurnOutcome>,
    ) -> (TurnHandle, mpsc::UnboundedSender<ChatEvent>) {
        let (tx, events) = mpsc::unbounded_channel();
        (
            TurnHandle {
                events,
                cancel: CancellationToken::new(),
                task,
            },
            tx,
        )
    }

    #[tokio::test]
    async fn a_turn_that_ends_without_its_final_event_still_ends_in_the_window() {
        let seen = Mutex::new(Vec::new());
        let on_event = |e: ChatEvent| seen.lock().push(e);
        // The task is aborted before it can say anything.
        let task = tokio::spawn(std::future::pending::<TurnOutcome>());
        task.abort();
        let (h, tx) = handle(task);
        drop(tx);
        let outcome = h.relay(&on_event).await;
        assert!(matches!(
            outcome,
            TurnOutcome::Failed {
                retryable: true,
                ..
            }
        ));
        let seen = std::mem::take(&mut *seen.lock());
        assert!(
            matches!(seen.as_slice(), [ChatEvent::TurnFinished { outcome: TurnOutcome::Failed { error, .. } }] if error.contains("ended unexpectedly")),
            "{seen:?}"
        );
    }

    #[tokio::test]
    async fn a_turn_that_says_how_it_ended_is_not_announced_twice() {
        let seen = Mutex::new(Vec::new());
        let on_event = |e: ChatEvent| seen.lock().push(e);
        let done = TurnOutcome::Completed {
            usage: Usage::default(),
        };
        let (h, tx) = handle(tokio::spawn(std::future::ready(done.clone())));
        let _ = tx.send(ChatEvent::TurnFinished {
            outcome: done.clone(),
        });
        drop(tx);
        assert_eq!(h.relay(&on_event).await, done);
        assert_eq!(seen.lock().len(), 1);
    }
}
