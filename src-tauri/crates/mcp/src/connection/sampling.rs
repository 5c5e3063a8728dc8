//! A server's request for the chat's model (sampling, F-99), in either era: a request of the
//! server mid-call (2025-11-25) or an input request of a round (2026-07-28). Put to the user on
//! the card of the call it belongs to; accepted, the chat's model answers it
//! ([`crate::sampling`]).

use super::Asks;
use crate::elicitation::{AskRefused, RunningCall};
use crate::sampling::{request_of, result_of};
use tokio_util::sync::CancellationToken;
use tollgate_protocol::{ElicitationAnswer, ElicitationKind};

/// Why a server of a user who did not let it use the model is refused, where it can read it.
pub(super) const NOT_LET: &str = "the server asked to use the chat's model (sampling); the user has not let it (Settings → MCP servers → Let it ask the chat's model)";

/// The chat's model's answer to the server's `params`, once the user agreed on the card of
/// `call` (or, without one, of the latest call of the server's tools that runs); why not,
/// otherwise. `gave_up` withdraws the request (the server no longer waits for it).
#[allow(deprecated)]
pub(super) async fn lend_model(
    asks: Option<&Asks>,
    call: Option<RunningCall>,
    params: rmcp::model::CreateMessageRequestParams,
    gave_up: CancellationToken,
) -> Result<rmcp::model::CreateMessageResult, String> {
    let (Some(asks), Some(sampler)) = (asks, asks.and_then(|a| a.sampler.as_ref())) else {
        return Err("this client does not lend its model to servers".into());
    };
    let Some(call) = call.or_else(|| asks.slot.latest_call()) else {
        return Err(AskRefused::NoCall.to_string());
    };
    let request = request_of(params)?;
    let kind = ElicitationKind::Sampling {
        system: request.system.clone(),
        messages: request.messages.clone(),
        max_tokens: request.max_tokens,
    };
    let message = "The server asks the chat's model to answer this. Nothing of the chat goes with it; the answer goes to the server.".to_string();
    let answer = tokio::select! {
        answer = asks.hub.ask(asks.slot.name(), &call, message, kind) => answer.map_err(|e| e.to_string())?,
        () = gave_up.cancelled() => ElicitationAnswer::Cancel,
    };
    match answer {
        ElicitationAnswer::Accept { .. } => {}
        ElicitationAnswer::Decline => {
            return Err("the user declined to let the chat's model answer the server".into())
        }
        ElicitationAnswer::Cancel => {
            return Err("the user cancelled the server's request for the chat's model".into())
        }
    }
    // The model stops when the call stops or the server gives up.
    let stop = call.cancel.child_token();
    let _clock = call.clock.pause();
    let sampled = tokio::select! {
        sampled = sampler.sample(call.chat, request, stop.clone()) => sampled?,
        () = gave_up.cancelled() => {
            stop.cancel();
            return Err("the server gave up on its request for the chat's model".into());
        }
    };
    Ok(result_of(sampled))
}
