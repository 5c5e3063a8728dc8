//! A server's request for the chat's model (sampling, F-99), in either era: a request of the
//! server mid-call (2025-11-25) or an input request of a round (2026-07-28). Put to the user on
//! the card of the call it belongs to; accepted, the chat's model answers it
//! ([`crate::sampling`]).

use super::Asks;
use crate::elicitation::{AskRefused, RunningCall};
use crate::sampling::{kept, request_of, result_of, MAX_LENT_PER_CALL};
use std::sync::atomic::Ordering;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::{ElicitationAnswer, ElicitationKind};

/// Why a server of a user who did not let it use the model is refused, where it can read it.
pub(super) const NOT_LET: &str = "the server asked to use the chat's model (sampling); the user has not let it (Settings → MCP servers → Let it ask the chat's model)";

/// Why a server did not get the chat's model.
#[derive(Debug)]
pub(super) enum NotLent {
    /// The user said no on the card (MCP's "user rejected the request").
    Declined(String),
    /// The request could not be lent (why, for the server).
    Refused(String),
    /// The call it belongs to was stopped meanwhile.
    Stopped,
}

impl NotLent {
    /// The error a 2025-11-25 server's request is answered with.
    pub(super) fn to_error_data(&self) -> rmcp::ErrorData {
        match self {
            // The code MCP gives a request the user rejected.
            Self::Declined(why) => {
                rmcp::ErrorData::new(rmcp::model::ErrorCode(-1), why.clone(), None)
            }
            Self::Refused(why) => rmcp::ErrorData::invalid_request(why.clone(), None),
            Self::Stopped => rmcp::ErrorData::invalid_request("the call was stopped", None),
        }
    }
}

/// Why a request the user let through got no answer: its call stopped first.
const STOPPED_BEFORE_ANSWER: &str = "the call was stopped before the model answered";

/// The chat's model's answer to the server's `params`, once the user agreed on the card of
/// `call` (or, without one, of the latest call of the server's tools that runs, where they all
/// run in one chat); why not, otherwise. `gave_up` withdraws the request (the server no longer
/// waits for it).
#[allow(deprecated)]
pub(super) async fn lend_model(
    asks: Option<&Asks>,
    call: Option<RunningCall>,
    params: rmcp::model::CreateMessageRequestParams,
    gave_up: CancellationToken,
) -> Result<rmcp::model::CreateMessageResult, NotLent> {
    let refused = |why: &str| NotLent::Refused(why.to_string());
    let (Some(asks), Some(sampler)) = (asks, asks.and_then(|a| a.sampler.as_ref())) else {
        return Err(refused("this client does not lend its model to servers"));
    };
    let call = match call {
        Some(call) => call,
        None => asks
            .slot
            .latest_call_of_one_chat()
            .map_err(|()| refused("the server's tools run in more than one chat, so Tollgate cannot tell whose model it asks for"))?
            .ok_or_else(|| NotLent::Refused(AskRefused::NoCall.to_string()))?,
    };
    if call.lent.load(Ordering::Relaxed) >= MAX_LENT_PER_CALL {
        return Err(NotLent::Refused(format!(
            "this call already borrowed the chat's model {MAX_LENT_PER_CALL} times; Tollgate lends it no more during the call"
        )));
    }
    let request = request_of(params).map_err(NotLent::Refused)?;
    let model = sampler.model(call.chat).await.map_err(NotLent::Refused)?;
    let kind = ElicitationKind::Sampling {
        system: request.system.clone(),
        messages: request.messages.clone(),
        max_tokens: request.max_tokens,
        model,
    };
    let message = "The server asks the chat's model to answer this. Nothing of the chat goes with it; the answer goes to the server.".to_string();
    let asked = (message.clone(), kind.clone());
    // Let through but never answered: kept with the call, saying why.
    let unanswered = |why: &str| {
        let (message, kind) = asked.clone();
        asks.hub
            .keep_unanswered(&call, asks.slot.name(), message, kind, why.to_string());
    };
    let answer = tokio::select! {
        answer = asks.hub.ask(asks.slot.name(), &call, message, kind) => answer.map_err(|e| NotLent::Refused(e.to_string()))?,
        () = gave_up.cancelled() => return Err(refused("the server gave up on its request for the chat's model")),
    };
    match answer {
        ElicitationAnswer::Accept { .. } if call.cancel.is_cancelled() => {
            unanswered(STOPPED_BEFORE_ANSWER);
            return Err(NotLent::Stopped);
        }
        _ if call.cancel.is_cancelled() => return Err(NotLent::Stopped),
        ElicitationAnswer::Accept { .. } => {}
        ElicitationAnswer::Decline => {
            return Err(NotLent::Declined(
                "the user declined to let the chat's model answer the server".into(),
            ))
        }
        ElicitationAnswer::Cancel => {
            return Err(NotLent::Declined(
                "the user cancelled the server's request for the chat's model".into(),
            ))
        }
    }
    // The model stops when the call stops or the server gives up.
    let stop = call.cancel.child_token();
    let _clock = call.clock.pause();
    let sampled = tokio::select! {
        sampled = sampler.sample(call.chat, request.clone(), stop.clone()) => sampled,
        () = gave_up.cancelled() => {
            stop.cancel();
            Err("the server gave up on its request for the chat's model".to_string())
        }
    };
    match sampled {
        Err(_) if call.cancel.is_cancelled() => {
            unanswered(STOPPED_BEFORE_ANSWER);
            Err(NotLent::Stopped)
        }
        Err(why) => {
            unanswered(&why);
            Err(NotLent::Refused(why))
        }
        Ok(sampled) => {
            // Kept only once the answer is on its way back to the server.
            call.lent.fetch_add(1, Ordering::Relaxed);
            sampler.keep(call.chat, call.seq, kept(&request, &sampled));
            Ok(result_of(sampled))
        }
    }
}
