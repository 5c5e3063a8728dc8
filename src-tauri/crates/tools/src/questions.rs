//! `ask_user` (F-24): the model asks the user a question and the turn waits for the answer,
//! which becomes the tool's result. Questions are routed like approvals: random ids bound to
//! their chat; an answer for an unknown or foreign id is refused.

use super::{Tool, ToolContext, ToolError, ToolGroup, ToolSpec};
use crate::waiting::{NotWaiting, Refused, Waiting};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use tokio::sync::oneshot;
use tollgate_protocol::ids::{ApprovalId, ChatId};
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::ToolEvent;

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnswerError {
    #[error("no question with id {0} is waiting")]
    Unknown(ApprovalId),
    #[error("question {0} belongs to another chat")]
    Foreign(ApprovalId),
}

/// Questions waiting for the user: the one waiting hub ([`crate::waiting`]), holding each
/// question's chat.
#[derive(Default)]
pub struct QuestionHub {
    waiting: Waiting<(), String>,
}

impl QuestionHub {
    pub fn new() -> Self {
        Self::default()
    }

    fn ask(&self, chat: ChatId) -> (ApprovalId, oneshot::Receiver<String>) {
        let id = crate::new_approval_id();
        let rx = self.waiting.open(id.clone(), chat, ());
        (id, rx)
    }

    fn withdraw(&self, id: &ApprovalId) {
        self.waiting.withdraw(id);
    }

    /// Delivers the user's answer.
    pub fn answer(&self, chat: ChatId, id: &ApprovalId, answer: String) -> Result<(), AnswerError> {
        let answered = self
            .waiting
            .answer(chat, id, |()| Ok::<_, std::convert::Infallible>(answer))
            .map_err(|refused| match refused {
                Refused::NotWaiting(NotWaiting::Foreign(id)) => AnswerError::Foreign(id),
                Refused::NotWaiting(NotWaiting::Unknown(id) | NotWaiting::Withdrawn(id)) => {
                    AnswerError::Unknown(id)
                }
                Refused::Check(never) => match never {},
            })?;
        // The turn stopped waiting meanwhile: the answer reached no one.
        if answered.delivered {
            Ok(())
        } else {
            Err(AnswerError::Unknown(id.clone()))
        }
    }

    /// How many questions wait in `chat`.
    pub fn waiting_in(&self, chat: ChatId) -> usize {
        self.waiting.counts().get(&chat).copied().unwrap_or(0)
    }
}

/// The `chat` group: tools that talk to the user rather than the world — `ask_user`, and
/// `propose_plan` (F-98).
pub fn group(hub: Arc<QuestionHub>) -> ToolGroup {
    ToolGroup::new(
        "chat",
        "Conversation",
        "Ask the user when something is unclear.",
    )
    .enabled_by_default(true)
    .guidance(super::Guidance::Dynamic(Arc::new(|tools: &[&str]| {
        if tools.contains(&super::plan_tool::NAME) {
            super::plan_tool::GUIDANCE.to_string()
        } else {
            String::new()
        }
    })))
    .tool(AskUser::new(hub))
    .tool(super::plan_tool::ProposePlan::new())
}

/// `ask_user(question, choices?)`.
pub struct AskUser {
    spec: ToolSpec,
    hub: Arc<QuestionHub>,
}

impl AskUser {
    pub fn new(hub: Arc<QuestionHub>) -> Self {
        Self {
            spec: ToolSpec::new(
                "ask_user",
                "Ask the user a question and wait for the answer. Use it when you need a decision or information only the user has; offer choices when the options are known.",
                json!({"type": "object", "properties": {
                    "question": {"type": "string"},
                    "choices": {"type": "array", "items": {"type": "string"}, "description": "Optional answers to pick from."}
                }, "required": ["question"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::Auto)
            .effects(crate::ToolEffects::NONE)
            // The user may take their time; Stop still cancels at once.
            .timeout(Duration::from_secs(24 * 60 * 60))
            .without_result_variable(),
            hub,
        }
    }
}

#[async_trait]
impl Tool for AskUser {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let question = args
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_string();
        if question.is_empty() {
            return Err(ToolError::invalid("the question is empty"));
        }
        let choices = super::string_list(&args, "choices");
        let (id, rx) = self.hub.ask(ctx.chat);
        ctx.sink.emit(ToolEvent::QuestionAsked {
            chat: ctx.chat,
            seq: ctx.seq,
            id: id.clone(),
            question,
            choices,
        });
        let answer = tokio::select! {
            a = rx => a.ok(),
            () = ctx.cancel.cancelled() => None,
        };
        self.hub.withdraw(&id);
        ctx.sink.emit(ToolEvent::QuestionResolved {
            chat: ctx.chat,
            seq: ctx.seq,
            id,
            answered: answer.is_some(),
        });
        match answer {
            Some(a) if a.trim().is_empty() => Ok(json!("The user gave an empty answer.")),
            Some(a) => Ok(Value::String(format!("The user answered: {a}"))),
            None => Err(ToolError::other(
                "the question was withdrawn before the user answered",
            )),
        }
    }
}
