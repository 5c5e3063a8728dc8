//! A call that needs the user's input before it can end (MCP 2026-07-28, multi round-trip,
//! SEP-2322): the server answers `input_required` with its questions and an opaque request
//! state; the questions are put to the user on the call's card, and the call is made again with
//! the same arguments, the answers and the state exactly as it came (F-99). The gate approved the
//! call once: the rounds are that call, continued, never a new call, and nothing of them — the
//! state least of all — reaches the model.

use super::handler::{put_to_user, roots_for};
use super::sampling::{lend_model, NotLent, NOT_LET};
use super::{Asks, CallOptions, McpError};
use rmcp::model::{InputRequest, InputRequests, InputRequiredResult, InputResponses};
use std::time::Duration;

/// The most rounds one call may take before Tollgate gives up on it (as the SDKs do).
pub(super) const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;
/// The largest request state Tollgate carries back to a server: a state is the server's
/// bookkeeping, not a payload, and a client holds and resends it every round.
pub(super) const MAX_STATE_BYTES: usize = 1 << 20;

/// Who answers a server's input requests: the user, through `asks`, for questions; the
/// settings for roots (`share_workspace`) and for the chat's model (`share_model`, each request
/// then put to the user as well).
#[derive(Clone, Copy)]
pub(super) struct Askers<'a> {
    pub asks: Option<&'a Asks>,
    pub share_workspace: bool,
    pub share_model: bool,
}

/// What the retry of a call carries after an `input_required` answer.
pub(super) struct Retry {
    pub responses: Option<InputResponses>,
    pub state: Option<String>,
}

/// Rounds that carried a state and no question: the server is still working; each waits a
/// little longer before the retry (50, 100, 200, then 250 ms), as the SDKs do.
#[derive(Default)]
pub(super) struct Rounds {
    state_only: u32,
}

impl Rounds {
    /// Answers the questions of `result` through the user, or ends the call with why not.
    pub(super) async fn retry(
        &mut self,
        result: InputRequiredResult,
        askers: Askers<'_>,
        options: &CallOptions,
    ) -> Result<Retry, McpError> {
        if result
            .request_state
            .as_ref()
            .is_some_and(|state| state.len() > MAX_STATE_BYTES)
        {
            return Err(McpError::Call(format!(
                "the server's request state is larger than {} KiB; Tollgate does not carry it back, so the call ends here",
                MAX_STATE_BYTES / 1024
            )));
        }
        let requests = result.input_requests.unwrap_or_default();
        if requests.is_empty() {
            if result.request_state.is_none() {
                return Err(McpError::Call(
                    "the server asked for input but sent no question and no state".into(),
                ));
            }
            let wait = (50u64 << self.state_only.min(3)).min(250);
            self.state_only += 1;
            tokio::time::sleep(Duration::from_millis(wait)).await;
        } else {
            self.state_only = 0;
        }
        let responses = answers(requests, askers, options).await?;
        Ok(Retry {
            responses: (!responses.is_empty()).then_some(responses),
            state: result.request_state,
        })
    }
}

/// The answers to `requests`, in the alphabetical order of their keys: the user's to
/// questions, one card at a time; the calling chat's folder to a request for roots where the
/// user lets the server see it; the chat's model's answer to a request for it where the user
/// lets the server ask it and agrees on the card; a call stopped meanwhile sends nothing more.
pub(super) async fn answers(
    requests: InputRequests,
    askers: Askers<'_>,
    options: &CallOptions,
) -> Result<InputResponses, McpError> {
    let written =
        |e: serde_json::Error| McpError::Call(format!("the answer could not be written: {e}"));
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let answer = match request {
            InputRequest::Elicitation(question) => {
                let answer = put_to_user(
                    askers.asks,
                    options.asked_in.clone(),
                    question.params,
                    options.cancel.child_token(),
                )
                .await
                .map_err(|why| McpError::Call(format!("the server's question was not put to the user: {why}")))?;
                serde_json::to_value(answer).map_err(written)?
            }
            InputRequest::CreateMessage(request) if askers.share_model => {
                let answer = lend_model(
                    askers.asks,
                    options.asked_in.clone(),
                    request.params,
                    options.cancel.child_token(),
                )
                .await
                .map_err(|not| match not {
                    NotLent::Stopped => McpError::Cancelled,
                    NotLent::Declined(why) | NotLent::Refused(why) => McpError::Call(why),
                })?;
                serde_json::to_value(answer).map_err(written)?
            }
            InputRequest::CreateMessage(_) => return Err(McpError::Call(NOT_LET.into())),
            InputRequest::ListRoots(_) if askers.share_workspace => {
                serde_json::to_value(roots_for(true, options.asked_in.as_ref())).map_err(written)?
            }
            InputRequest::ListRoots(_) => {
                return Err(McpError::Call(
                    "the server asked to see the user's folders (roots); the user has not let it (Settings → MCP servers → Let it see the chat's workspace folder)".into(),
                ))
            }
            #[allow(unreachable_patterns)]
            _ => {
                return Err(McpError::Call(
                    "the server asked for a kind of input Tollgate does not know".into(),
                ))
            }
        };
        if options.cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        responses.insert(key, answer);
    }
    Ok(responses)
}
