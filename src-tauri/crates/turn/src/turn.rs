//! One turn of the chat loop: the user's message is saved, then rounds of request, stream,
//! record, schedule the tool calls and record their results, until the model answers without
//! calling a tool, the round limit is reached, the user stops, or something fails (see
//! [`run_rounds`] for the stages).

use crate::text_calls::parse_text_calls;
use crate::{idle_timeout, save_interval};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;
use tollgate_engine::chat::history::{
    self, AssistantPayload, RetryNotice, ToolPayload, TurnFailure,
};
use tollgate_engine::chat::retry::NextStep;
use tollgate_engine::chat::{ChatEvent, Turn, TurnInput, TurnOutcome};
use tollgate_executor::{CallOrigin, RepeatTracker, RoundLimits};
use tollgate_executor::{ToolCallRequest, ToolCallResult};
use tollgate_protocol::parse::RawArguments;
use tollgate_protocol::{EventSink, ToolEvent};
use tollgate_protocol::{FailureKind, ToolCalling, Usage};
use tollgate_provenance::{ExposureBuilder, Ledger, Offered, RequestLedger};
use tollgate_providers::{
    AssistantToolCall, ChatMessage, ChatRequest, Completion, Outgoing, ProviderError, StreamDelta,
    ToolResultMessage,
};
use tollgate_store::{MessageStatus, Role, Under};
use tollgate_tools::names::{repair_name, NameMatch};

/// What the model is told about calls past the round limit (F-22).
const ROUND_LIMIT_REACHED: &str = "Not executed: round limit reached. Answer with what you have.";
const FINAL_ANSWER_NOTE: &str =
    "You have used every tool round of this turn. Answer the user now with what you have; do not call tools.";

/// Forwards the chat's gate events into the turn's channel.
struct Forward(UnboundedSender<ChatEvent>);

impl EventSink for Forward {
    fn emit(&self, event: ToolEvent) {
        let _ = self.0.send(ChatEvent::Tool {
            event: Box::new(event),
        });
    }
}

pub(crate) async fn run(
    turn: Turn,
    input: TurnInput,
    tx: UnboundedSender<ChatEvent>,
    cancel: CancellationToken,
) -> TurnOutcome {
    let _route = turn
        .router
        .route(turn.exec.chat(), Arc::new(Forward(tx.clone())));
    // A task's grant lasts for the turn at most (F-98), however the turn ends: the hold is
    // dropped on every way out of here, a panic and an aborted task included.
    let grant = turn.exec.grant_lifetime();
    let outcome = run_rounds(&turn, input, &tx, &cancel).await;
    drop(grant);
    if let TurnOutcome::Failed { error, .. } = &outcome {
        // For the log a user sends with a bug report (keys are redacted on the way out).
        tracing::warn!("the turn in chat {} failed: {error}", turn.exec.chat());
    }
    let _ = tx.send(ChatEvent::TurnFinished {
        outcome: outcome.clone(),
    });
    outcome
}

fn failed(error: String, kind: FailureKind, retryable: bool, usage: Usage) -> TurnOutcome {
    TurnOutcome::Failed {
        error,
        kind,
        retryable,
        usage,
    }
}

/// The turn's stages, in order (each returns what the next needs, or the turn's outcome when
/// the turn ends there):
///
/// 1. Start — [`Rounds::start`]: the user's message is saved, the conversation read.
/// 2. Per round: request — [`build_request`] and [`Rounds::open_answer`]; stream —
///    [`Rounds::stream`] (with retries); record the answer — [`Rounds::record_answer`];
///    schedule the tool calls — [`Rounds::schedule`]; record their results —
///    [`Rounds::record_results`].
async fn run_rounds(
    turn: &Turn,
    input: TurnInput,
    tx: &UnboundedSender<ChatEvent>,
    cancel: &CancellationToken,
) -> TurnOutcome {
    match drive(turn, input, tx, cancel).await {
        Ok(outcome) | Err(outcome) => outcome,
    }
}

async fn drive(
    turn: &Turn,
    input: TurnInput,
    tx: &UnboundedSender<ChatEvent>,
    cancel: &CancellationToken,
) -> Result<TurnOutcome, TurnOutcome> {
    let (input, rerun) = match input {
        TurnInput::Rerun { message, call, of } => (TurnInput::Message(message), Some((call, of))),
        other => (other, None),
    };
    let mut rounds = Rounds::start(turn, input, tx, cancel).await?;
    let max_rounds = turn.settings.max_rounds.max(1);
    let mut round = 0;
    if let Some((call, of)) = rerun {
        round += 1;
        if rounds.rerun(round, call, of).await? {
            return Ok(TurnOutcome::Stopped {
                usage: rounds.usage,
            });
        }
    }
    loop {
        round += 1;
        let tools_allowed = round <= max_rounds;
        let (request, ledger) = build_request(turn, &rounds.messages, tools_allowed);
        // What this request carries counts from this round on (F-82): a tool added or changed
        // in the middle of the turn is counted by the round that sent it.
        rounds.exposure.add_request(&ledger);
        // Every text of it passes the secrets' door (F-46): the one way a request leaves.
        let request = Outgoing::seal(request, &mut turn.exec.secret_door());
        let message_id = rounds.open_answer(round).await?;
        let mut completion = rounds.stream(&request, message_id).await?;
        let raw_args = take_text_calls(turn, &mut completion, message_id, tools_allowed);
        rounds.record_answer(round, message_id, &completion).await?;
        if completion.tool_calls.is_empty() {
            return Ok(TurnOutcome::Completed {
                usage: rounds.usage,
            });
        }
        let results = rounds
            .schedule(round, message_id, &completion, raw_args, tools_allowed)
            .await;
        let stop_requested = results.iter().any(|r| r.stop_turn);
        rounds.record_results(&completion, results).await?;
        if stop_requested || cancel.is_cancelled() {
            return Ok(TurnOutcome::Stopped {
                usage: rounds.usage,
            });
        }
        if !tools_allowed {
            // The model called tools even without any on offer; do not loop again.
            return Ok(TurnOutcome::Completed {
                usage: rounds.usage,
            });
        }
    }
}

/// A turn in progress: the conversation as the provider will see it, and what the rounds used.
struct Rounds<'a> {
    turn: &'a Turn,
    tx: &'a UnboundedSender<ChatEvent>,
    cancel: &'a CancellationToken,
    messages: Vec<ChatMessage>,
    usage: Usage,
    repeats: RepeatTracker,
    /// What the model has read so far (F-82): the branch's sources, then each round's results.
    exposure: ExposureBuilder,
}

impl<'a> Rounds<'a> {
    /// Start: the user's message is on disk before anything is sent (F-61); then the
    /// conversation is read back as the provider will see it.
    async fn start(
        turn: &'a Turn,
        input: TurnInput,
        tx: &'a UnboundedSender<ChatEvent>,
        cancel: &'a CancellationToken,
    ) -> Result<Rounds<'a>, TurnOutcome> {
        let chat = turn.exec.chat();
        let usage = Usage::default();
        let saved = |e: tollgate_store::StoreError| {
            failed(
                format!("your message could not be saved: {e}"),
                FailureKind::Storage,
                false,
                usage,
            )
        };
        // A new message goes at the end of the branch on screen, an edit beside the message
        // it replaces; a regenerated answer starts from its question.
        let message = match input {
            // `drive` has already taken the call out of a rerun: its message is a new one.
            TurnInput::Message(message) | TurnInput::Rerun { message, .. } => {
                Some((Under::Leaf, message))
            }
            TurnInput::Edit { parent, message } => Some((Under::Parent(parent), message)),
            TurnInput::Regenerate { question } => {
                turn.store
                    .branches()
                    .set_leaf(chat, question)
                    .await
                    .map_err(|e| {
                        failed(
                            format!("the answer could not be started again: {e}"),
                            FailureKind::Storage,
                            false,
                            usage,
                        )
                    })?;
                None
            }
            TurnInput::Retry => None,
        };
        let user_message_id = match message {
            Some((under, message)) => {
                let payload = message.payload();
                let id = turn
                    .store
                    .messages()
                    .insert_message_under(
                        chat,
                        under,
                        Role::User,
                        message.text,
                        MessageStatus::Complete,
                        payload,
                    )
                    .await
                    .map_err(saved)?;
                Some(id)
            }
            None => None,
        };
        let _ = tx.send(ChatEvent::TurnStarted {
            chat,
            user_message_id,
        });
        let rows = turn
            .store
            .branches()
            .chat_messages(chat)
            .await
            .map_err(|e| {
                failed(
                    format!("the conversation could not be read: {e}"),
                    FailureKind::Storage,
                    true,
                    usage,
                )
            })?;
        Ok(Rounds {
            turn,
            tx,
            cancel,
            messages: history::from_rows(&rows),
            usage,
            repeats: RepeatTracker::default(),
            exposure: tollgate_engine::chat::exposure::from_rows(
                &rows,
                &turn.exec.toolbox().offer(),
            ),
        })
    }

    /// A save failed: the turn ends, and Retry may help once the disk does.
    fn failed(&self, error: String) -> TurnOutcome {
        failed(error, FailureKind::Storage, true, self.usage)
    }

    /// Request: the answer's row exists (streaming) before the first byte arrives.
    async fn open_answer(&self, round: u32) -> Result<i64, TurnOutcome> {
        let message_id = self
            .turn
            .store
            .messages()
            .insert_message(
                self.turn.exec.chat(),
                Role::Assistant,
                String::new(),
                MessageStatus::Streaming,
                None,
            )
            .await
            .map_err(|e| self.failed(format!("the answer could not be saved: {e}")))?;
        let _ = self.tx.send(ChatEvent::RoundStarted { round, message_id });
        Ok(message_id)
    }

    /// Stream: the completion, retried where the fault allows (F-26). A failure keeps what
    /// arrived, marked as failed (or stopped) with the reason, and ends the turn.
    async fn stream(
        &mut self,
        request: &Outgoing,
        message_id: i64,
    ) -> Result<Completion, TurnOutcome> {
        let (error, partial) =
            match stream_with_retries(self.turn, request, message_id, self.tx, self.cancel).await {
                Ok(completion) => {
                    self.usage.add(completion.usage);
                    return Ok(completion);
                }
                Err(failure) => failure,
            };
        let stopped = matches!(error, ProviderError::Cancelled);
        let retryable = error.worth_retrying_later();
        let (status, payload) = if stopped {
            (MessageStatus::Stopped, None)
        } else {
            let failure = AssistantPayload {
                failure: Some(TurnFailure {
                    message: error.to_string(),
                    kind: Some(error.kind()),
                    retryable,
                }),
                model: Some(self.turn.model.clone()),
                ..Default::default()
            };
            (MessageStatus::Error, serde_json::to_value(failure).ok())
        };
        if let Err(e) = self
            .turn
            .store
            .messages()
            .finish_message(message_id, partial, status, payload, None)
            .await
        {
            tracing::error!("partial answer not saved: {e}");
        }
        Err(if stopped {
            TurnOutcome::Stopped { usage: self.usage }
        } else {
            failed(error.to_string(), error.kind(), retryable, self.usage)
        })
    }

    /// Record the answer: its text, its tool calls and its token counts. An answer made for the
    /// user (a rerun) names no model and used no tokens.
    async fn record_answer(
        &mut self,
        round: u32,
        message_id: i64,
        completion: &Completion,
    ) -> Result<(), TurnOutcome> {
        self.record_answer_by(round, message_id, completion, true)
            .await
    }

    async fn record_answer_by(
        &mut self,
        round: u32,
        message_id: i64,
        completion: &Completion,
        by_model: bool,
    ) -> Result<(), TurnOutcome> {
        let payload = serde_json::to_value(AssistantPayload {
            tool_calls: completion.tool_calls.clone(),
            reasoning: completion.reasoning.clone(),
            thinking: completion.thinking.clone(),
            model: by_model.then(|| self.turn.model.clone()),
            ..Default::default()
        })
        .ok();
        let usage_json = by_model
            .then(|| serde_json::to_value(completion.usage).ok())
            .flatten();
        self.turn
            .store
            .messages()
            .finish_message(
                message_id,
                completion.text.clone(),
                MessageStatus::Complete,
                payload,
                usage_json,
            )
            .await
            .map_err(|e| self.failed(format!("the answer could not be saved: {e}")))?;
        let _ = self.tx.send(ChatEvent::RoundFinished {
            round,
            message_id,
            finish: completion.finish.clone(),
            usage: completion.usage,
        });
        if !completion.tool_calls.is_empty() {
            self.messages.push(ChatMessage::Assistant {
                content: completion.text.clone(),
                tool_calls: completion.tool_calls.clone(),
                thinking: completion.thinking.clone(),
            });
        }
        Ok(())
    }

    /// Schedule: the calls run through the gate (F-21), or past the round limit are recorded as
    /// not run (F-22). Results come back in the calls' order.
    async fn schedule(
        &mut self,
        round: u32,
        message_id: i64,
        completion: &Completion,
        raw_args: Vec<RawArguments>,
        tools_allowed: bool,
    ) -> Vec<ToolCallResult> {
        let turn = self.turn;
        let origin = CallOrigin {
            message_id: Some(message_id),
            round,
            exposure: Some(self.exposure.shared()),
            ..Default::default()
        };
        let requests: Vec<_> = completion
            .tool_calls
            .iter()
            .zip(raw_args)
            .map(|(c, args)| ToolCallRequest::new(&c.id, &c.name, args))
            .collect();
        if !tools_allowed {
            return requests
                .into_iter()
                .map(|r| turn.exec.skip(r, &origin, ROUND_LIMIT_REACHED))
                .collect();
        }
        let limits = RoundLimits {
            doom_loop_threshold: turn.settings.doom_loop_threshold,
            max_parallel: turn.settings.max_parallel,
        };
        turn.exec
            .run_round(requests, origin, &mut self.repeats, limits, self.cancel)
            .await
    }

    /// The user's unsandboxed rerun of a call (F-46), as a round of its own: an answer holding
    /// just that call (made for the user, not by the model), its result, and then the model
    /// goes on from there. Returns whether the turn ends here (Stop).
    async fn rerun(
        &mut self,
        round: u32,
        call: AssistantToolCall,
        of: tollgate_executor::Rerun,
    ) -> Result<bool, TurnOutcome> {
        let message_id = self.open_answer(round).await?;
        let completion = Completion {
            text: String::new(),
            reasoning: String::new(),
            thinking: Vec::new(),
            tool_calls: vec![call],
            finish: tollgate_providers::FinishReason::ToolCalls,
            usage: Usage::default(),
        };
        self.record_answer_by(round, message_id, &completion, false)
            .await?;
        let origin = CallOrigin {
            message_id: Some(message_id),
            round,
            unsandboxed_rerun: Some(of),
            ..Default::default()
        };
        let mut results = Vec::with_capacity(1);
        for c in &completion.tool_calls {
            let request =
                ToolCallRequest::new(&c.id, &c.name, RawArguments::Text(c.arguments.clone()));
            results.push(
                self.turn
                    .exec
                    .execute(request, origin.clone(), self.cancel)
                    .await,
            );
        }
        let stop = results.iter().any(|r| r.stop_turn);
        self.record_results(&completion, results).await?;
        Ok(stop || self.cancel.is_cancelled())
    }

    /// Record the results: one tool message with every call's result, which the next round
    /// sends to the model.
    async fn record_results(
        &mut self,
        completion: &Completion,
        results: Vec<ToolCallResult>,
    ) -> Result<(), TurnOutcome> {
        let results: Vec<ToolResultMessage> = completion
            .tool_calls
            .iter()
            .zip(results)
            .map(|(call, r)| ToolResultMessage {
                call_id: call.id.clone(),
                name: r.tool.unwrap_or_else(|| call.name.clone()),
                content: r.content,
                is_error: r.is_error,
                sources: r.sources,
            })
            .collect();
        let payload = serde_json::to_value(ToolPayload {
            results: results.clone(),
        })
        .ok();
        self.turn
            .store
            .messages()
            .insert_message(
                self.turn.exec.chat(),
                Role::Tool,
                String::new(),
                MessageStatus::Complete,
                payload,
            )
            .await
            .map_err(|e| self.failed(format!("the tool results could not be saved: {e}")))?;
        tollgate_engine::chat::exposure::add_results(&mut self.exposure, &results);
        self.messages.push(ChatMessage::Tool { results });
        Ok(())
    }
}

/// The request of one round, made from its ledger (F-82): the system prompt is the ledger's
/// text — the user's prompt, Tollgate's tool section, the tools' definitions for a model that
/// calls tools as text — and the tools are the ledger's, so nothing reaches the request
/// without a writer the exposure reads.
fn build_request(
    turn: &Turn,
    messages: &[ChatMessage],
    tools_allowed: bool,
) -> (ChatRequest, RequestLedger) {
    let offer = turn.exec.toolbox().offer();
    let text_calls = tools_allowed && turn.provider.tool_calling() == ToolCalling::Text;
    let mut parts: Vec<Ledger> = Vec::new();
    let own = |text: &str| {
        let mut l = Ledger::new();
        l.push(None, text);
        l
    };
    // The user's own system prompt: typed by the user.
    parts.push(own(turn.system_prompt.trim()));
    parts.push(offer.system.clone());
    if text_calls {
        parts.push(text_call_section(&offer.tools));
    }
    if !tools_allowed {
        parts.push(own(FINAL_ANSWER_NOTE));
    }
    let mut system = Ledger::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        if !system.is_empty() {
            system.push(None, "\n\n");
        }
        system.append(part);
    }
    let ledger = RequestLedger {
        system,
        tools: if tools_allowed && !text_calls {
            offer.tools
        } else {
            Vec::new()
        },
    };
    let request = ChatRequest {
        model: turn.model.clone(),
        system: ledger.system.text(),
        messages: messages.to_vec(),
        tools: ledger.tools.iter().map(|o| o.definition.clone()).collect(),
        max_tokens: turn.settings.max_tokens,
        temperature: turn.settings.temperature,
        idle_timeout: idle_timeout(&turn.settings),
    };
    (request, ledger)
}

/// How a model without native tool calling is told to call tools (F-10, F-35), each tool's
/// definition written by whoever wrote the tool.
fn text_call_section(offered: &[Offered]) -> Ledger {
    let mut out = Ledger::new();
    if offered.is_empty() {
        return out;
    }
    out.push(
        None,
        "## How to call a tool\nThis model calls tools by writing, on its own, outside any code block:\n<tool_call>{\"name\": \"TOOL\", \"arguments\": {…}}</tool_call>\nText inside code blocks or backticks is never run. The tools, with their JSON Schema:\n",
    );
    for o in offered {
        let d = &o.definition;
        out.push(None, "\n- `");
        out.push(o.by.as_ref(), d.name.as_str());
        out.push(None, "`: ");
        out.push(o.by.as_ref(), d.description.replace('\n', " "));
        out.push(None, "\n  ");
        out.push(o.by.as_ref(), d.parameters.to_string());
    }
    out
}

/// Takes tool calls written as text out of the answer, for providers configured for them
/// (F-10, F-35); a native provider's text is never searched. Returns every call's arguments as
/// the executor should read them.
fn take_text_calls(
    turn: &Turn,
    completion: &mut Completion,
    message_id: i64,
    tools_allowed: bool,
) -> Vec<RawArguments> {
    let mut raw: Vec<RawArguments> = completion
        .tool_calls
        .iter()
        .map(|c| RawArguments::Text(c.arguments.clone()))
        .collect();
    if !completion.tool_calls.is_empty()
        || !tools_allowed
        || turn.provider.tool_calling() != ToolCalling::Text
    {
        return raw;
    }
    let known = turn.exec.toolbox().enabled_tool_names();
    let is_known = |name: &str| {
        !matches!(
            repair_name(name, known.iter().map(String::as_str)),
            NameMatch::Unknown
        )
    };
    let parsed = parse_text_calls(&completion.text, &is_known);
    if parsed.calls.is_empty() {
        return raw;
    }
    completion.text = parsed.text;
    for (i, call) in parsed.calls.into_iter().enumerate() {
        completion.tool_calls.push(AssistantToolCall {
            id: format!("text_{message_id}_{i}"),
            name: call.name,
            arguments: call.arguments.raw_text(),
        });
        raw.push(call.arguments);
    }
    raw
}

/// Streams one completion, saving text as it arrives and retrying faults that allow it (F-26).
/// A stream that breaks after showing something is tried again too: its text is replaced, on
/// screen and on disk, by a retry notice, and its tool calls are dropped unrun (only a complete
/// completion reaches the scheduler). On failure returns the error and the last attempt's text.
async fn stream_with_retries(
    turn: &Turn,
    request: &Outgoing,
    message_id: i64,
    tx: &UnboundedSender<ChatEvent>,
    cancel: &CancellationToken,
) -> Result<Completion, (ProviderError, String)> {
    let interval = save_interval(&turn.settings);
    let policy = turn.settings.retry;
    let mut attempt = 0;
    loop {
        let mut text = String::new();
        let mut shown = false;
        let result = {
            let store = turn.store.clone();
            let mut last_save = Instant::now();
            let mut on_delta = |delta: StreamDelta| {
                shown = true;
                match delta {
                    StreamDelta::Text { text: piece } => {
                        text.push_str(&piece);
                        let _ = tx.send(ChatEvent::TextDelta {
                            message_id,
                            text: piece,
                        });
                        if last_save.elapsed() >= interval {
                            store
                                .messages()
                                .save_streamed_text(message_id, text.clone());
                            last_save = Instant::now();
                        }
                    }
                    StreamDelta::Reasoning { text: piece } => {
                        let _ = tx.send(ChatEvent::ReasoningDelta {
                            message_id,
                            text: piece,
                        });
                    }
                    StreamDelta::ToolCallStart { index, id, name } => {
                        let _ = tx.send(ChatEvent::ToolCallStarted {
                            message_id,
                            index,
                            id,
                            name,
                        });
                    }
                    StreamDelta::ToolCallArgs { .. } => {}
                }
            };
            turn.provider.complete(request, &mut on_delta, cancel).await
        };
        let error = match result {
            Ok(completion) => return Ok(completion),
            Err(_) if cancel.is_cancelled() => return Err((ProviderError::Cancelled, text)),
            Err(e) => e,
        };
        attempt += 1;
        let delay = match policy.next_step(attempt, &error) {
            NextStep::RetryAfter(delay) => delay,
            NextStep::GiveUp => return Err((error, text)),
            NextStep::WaitTooLong(wait) => {
                let cause = error.to_string();
                return Err((ProviderError::WaitTooLong { wait, cause }, text));
            }
        };
        let kind = error.kind();
        let error = error.to_string();
        if shown {
            let notice = AssistantPayload {
                retry: Some(RetryNotice {
                    attempt,
                    max_retries: policy.max_retries,
                    error: error.clone(),
                }),
                ..Default::default()
            };
            if let Err(e) = turn
                .store
                .messages()
                .restart_streaming(message_id, serde_json::to_value(notice).ok())
                .await
            {
                tracing::error!("the broken answer {message_id} was not cleared: {e}");
            }
        }
        let _ = tx.send(ChatEvent::Retrying {
            attempt,
            max_retries: policy.max_retries,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error,
            kind,
            message_id: shown.then_some(message_id),
        });
        tokio::select! {
            () = cancel.cancelled() => return Err((ProviderError::Cancelled, String::new())),
            () = tokio::time::sleep(delay) => {}
        }
    }
}
