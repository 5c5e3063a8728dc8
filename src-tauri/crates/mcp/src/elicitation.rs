//! An MCP server's questions to the user (elicitation, SPEC §11). A server may ask only while
//! one of its tools runs — the question goes to that call's chat, inline like an approval
//! card — and never more than one at a time, nor more than [`MAX_PER_MINUTE`] a minute: a
//! server that asks more is refused (with an error it can read), never answered. An answer is
//! the user's: a form is checked against the server's schema before it goes back.

use crate::kept_question::kept_question;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tollgate_protocol::ids::{ApprovalId, ChatId};
use tollgate_protocol::{
    AskedQuestion, ElicitationAnswer, ElicitationKind, ElicitationOutcome, EventSink,
    PendingElicitation, ToolEvent,
};
use tollgate_tools::waiting::{NotWaiting, Refused, Waiting};

/// The most questions one server may ask in a minute.
pub const MAX_PER_MINUTE: usize = 5;
const WINDOW: Duration = Duration::from_secs(60);

/// Why a server's question was not put to the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskRefused {
    #[error("Tollgate asks the user only while one of this server's tools runs")]
    NoCall,
    #[error("the user already has a question from this server open")]
    OneAtATime,
    #[error("this server asked the user {MAX_PER_MINUTE} times in the last minute; it is not asked again yet")]
    TooOften,
    #[error("the form's schema is not one Tollgate can show: {0}")]
    BadSchema(String),
}

/// Why an answer was refused (the card keeps waiting).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerRefused {
    #[error("no question with id {0} is waiting")]
    Unknown(ApprovalId),
    #[error("question {0} belongs to another chat")]
    Foreign(ApprovalId),
    #[error("the answer does not fit what the server asked: {0}")]
    Invalid(String),
}

/// A call of a server's tool that is running now: where its questions go.
#[derive(Debug, Clone)]
pub struct RunningCall {
    pub chat: ChatId,
    pub seq: u64,
    /// Cancelled when the call ends or is stopped: its question is withdrawn.
    pub cancel: CancellationToken,
    /// The call's clock, stopped while its question waits for the user.
    pub clock: Arc<tollgate_tools::clock::CallClock>,
    /// The workspace folder of the call's chat, if it has one: the server's root where the
    /// user lets it see the folder (F-99).
    pub workspace: Option<std::path::PathBuf>,
    /// How many times the call's server borrowed the chat's model during it (F-99): a call
    /// may do so [`crate::sampling::MAX_LENT_PER_CALL`] times.
    pub lent: Arc<std::sync::atomic::AtomicUsize>,
}

/// Where a server's question is kept with its call once it ends (the engine: the call's row and
/// its card), whatever the answer: the one place every question passes on its way out.
pub trait KeepsQuestions: Send + Sync {
    fn keep(&self, chat: ChatId, seq: u64, asked: AskedQuestion);
}

/// A server's question as it waits.
#[derive(Clone)]
struct Asked {
    pending: PendingElicitation,
    /// The form's schema compiled, to check an answer.
    validator: Option<Arc<jsonschema::Validator>>,
}

/// A question put to the user, withdrawn (and the window told) when it goes out of scope
/// still waiting; one already answered is no longer waiting. Either way it is kept with its
/// call as it ended ([`KeepsQuestions`], as [`kept_question`] bounds and withholds it): with
/// its answer, or withdrawn.
struct OpenQuestion<'a> {
    hub: &'a ElicitationHub,
    pending: PendingElicitation,
    /// The answer, once it came.
    answered: Option<ElicitationAnswer>,
}

impl Drop for OpenQuestion<'_> {
    fn drop(&mut self) {
        let pending = &self.pending;
        if self.hub.waiting.withdraw(&pending.id).is_some() {
            self.hub.resolved(
                pending.chat,
                pending.seq,
                pending.id.clone(),
                ElicitationOutcome::Withdrawn,
            );
        }
        let (outcome, answer) = match self.answered.take() {
            Some(ElicitationAnswer::Accept { content }) => (ElicitationOutcome::Accepted, content),
            Some(other) => (outcome_of(&other), None),
            None => (ElicitationOutcome::Withdrawn, None),
        };
        // The model's answer is kept once it went back to the server (`LentModel`); one that
        // never does is kept by its lender ([`ElicitationHub::keep_unanswered`]).
        if outcome == ElicitationOutcome::Accepted
            && matches!(pending.kind, ElicitationKind::Sampling { .. })
        {
            return;
        }
        self.hub.keep(
            pending.chat,
            pending.seq,
            kept_question(pending, outcome, answer, None),
        );
    }
}

/// The questions waiting for the user (the one waiting hub, `tollgate_tools::waiting`), and
/// how often each server asked.
pub struct ElicitationHub {
    waiting: Waiting<Asked, ElicitationAnswer>,
    asked: Mutex<HashMap<String, VecDeque<Instant>>>,
    sink: Arc<dyn EventSink>,
    keeper: Option<Arc<dyn KeepsQuestions>>,
}

impl ElicitationHub {
    /// A hub that tells `sink` (the chats' event routes) when a question starts and stops
    /// waiting.
    pub fn new(sink: Arc<dyn EventSink>) -> Arc<Self> {
        Self::build(sink, None)
    }

    /// [`ElicitationHub::new`] that also keeps each question with its call as it ends.
    pub fn keeping(sink: Arc<dyn EventSink>, keeper: Arc<dyn KeepsQuestions>) -> Arc<Self> {
        Self::build(sink, Some(keeper))
    }

    fn build(sink: Arc<dyn EventSink>, keeper: Option<Arc<dyn KeepsQuestions>>) -> Arc<Self> {
        Arc::new(Self {
            waiting: Waiting::new(),
            asked: Mutex::new(HashMap::new()),
            sink,
            keeper,
        })
    }

    /// Puts `server`'s question to the user in `call`'s chat; resolves with the answer, or
    /// `Cancel` when the call ends first.
    pub async fn ask(
        &self,
        server: &str,
        call: &RunningCall,
        message: String,
        kind: ElicitationKind,
    ) -> Result<ElicitationAnswer, AskRefused> {
        let validator = match &kind {
            ElicitationKind::Form { schema } => Some(Arc::new(
                jsonschema::validator_for(schema)
                    .map_err(|e| AskRefused::BadSchema(e.to_string()))?,
            )),
            ElicitationKind::Url { .. } | ElicitationKind::Sampling { .. } => None,
        };
        let pending = asked_of(call, server, message, kind);
        let id = pending.id.clone();
        // Counted and registered under one lock: two questions at once cannot both pass.
        let asked = Asked {
            pending: pending.clone(),
            validator,
        };
        let answer = self
            .waiting
            .open_if(id.clone(), call.chat, asked, |waiting| {
                self.admit(server, waiting)
            })?;
        self.sink.emit(ToolEvent::ElicitationRequested {
            elicitation: pending.clone(),
        });
        // Withdrawn however the wait ends without an answer: the call stopped, or this future
        // dropped (the call's own future gone, its server gone).
        let mut open = OpenQuestion {
            hub: self,
            pending,
            answered: None,
        };
        let _user_time = call.clock.pause();
        tokio::select! {
            answer = answer => {
                let Ok(answer) = answer else {
                    return Ok(ElicitationAnswer::Cancel);
                };
                open.answered = Some(answer.clone());
                Ok(answer)
            }
            () = call.cancel.cancelled() => Ok(ElicitationAnswer::Cancel),
        }
    }

    /// Keeps a question the user let through whose answer never came (the chat's model was let
    /// answer and failed, or the call stopped meanwhile), saying why.
    pub fn keep_unanswered(
        &self,
        call: &RunningCall,
        server: &str,
        message: String,
        kind: ElicitationKind,
        why: String,
    ) {
        let pending = asked_of(call, server, message, kind);
        let asked = kept_question(&pending, ElicitationOutcome::Accepted, None, Some(why));
        self.keep(call.chat, call.seq, asked);
    }

    fn keep(&self, chat: ChatId, seq: u64, asked: AskedQuestion) {
        if let Some(keeper) = &self.keeper {
            keeper.keep(chat, seq, asked);
        }
    }

    /// Counts a question of `server`, or refuses it (one open at a time, a few a minute).
    fn admit(
        &self,
        server: &str,
        waiting: &mut dyn Iterator<Item = &Asked>,
    ) -> Result<(), AskRefused> {
        for asked in waiting {
            if asked.pending.server == server {
                return Err(AskRefused::OneAtATime);
            }
        }
        let now = Instant::now();
        let mut asked = self.asked.lock();
        let times = asked.entry(server.to_string()).or_default();
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) > WINDOW)
        {
            times.pop_front();
        }
        if times.len() >= MAX_PER_MINUTE {
            return Err(AskRefused::TooOften);
        }
        times.push_back(now);
        Ok(())
    }

    fn resolved(&self, chat: ChatId, seq: u64, id: ApprovalId, outcome: ElicitationOutcome) {
        self.sink.emit(ToolEvent::ElicitationResolved {
            chat,
            seq,
            id,
            outcome,
        });
    }

    /// The user's answer to question `id` of `chat`. A form must fit the server's schema.
    pub fn answer(
        &self,
        chat: ChatId,
        id: &ApprovalId,
        answer: ElicitationAnswer,
    ) -> Result<(), AnswerRefused> {
        let mut given = ElicitationOutcome::Cancelled;
        let answered = self
            .waiting
            .answer(chat, id, |asked| {
                let checked = checked_answer(answer, asked)?;
                given = outcome_of(&checked);
                Ok(checked)
            })
            .map_err(|refused| match refused {
                Refused::NotWaiting(NotWaiting::Foreign(id)) => AnswerRefused::Foreign(id),
                Refused::NotWaiting(NotWaiting::Unknown(id) | NotWaiting::Withdrawn(id)) => {
                    AnswerRefused::Unknown(id)
                }
                Refused::Check(why) => why,
            })?;
        // A server that gave up meanwhile simply does not need the answer.
        let pending = answered.item.pending;
        self.resolved(pending.chat, pending.seq, id.clone(), given);
        Ok(())
    }

    /// The questions waiting in `chat`, oldest first.
    pub fn pending_in(&self, chat: ChatId) -> Vec<PendingElicitation> {
        let mut list: Vec<PendingElicitation> = self
            .waiting
            .items_in(chat)
            .into_iter()
            .map(|asked| asked.pending)
            .collect();
        list.sort_by_key(|p| p.created_at);
        list
    }
}

/// `server`'s question `message` asking for `kind` during `call`, as it is put to the user now.
fn asked_of(
    call: &RunningCall,
    server: &str,
    message: String,
    kind: ElicitationKind,
) -> PendingElicitation {
    PendingElicitation {
        id: tollgate_tools::new_approval_id(),
        chat: call.chat,
        seq: call.seq,
        server: server.to_string(),
        message,
        kind,
        created_at: chrono::Utc::now().timestamp_millis(),
    }
}

/// The answer as it goes to the server: a form filled with its defaults and checked against the
/// server's schema; a page's consent carrying nothing.
fn checked_answer(
    answer: ElicitationAnswer,
    asked: &Asked,
) -> Result<ElicitationAnswer, AnswerRefused> {
    Ok(match (answer, &asked.pending.kind, &asked.validator) {
        (ElicitationAnswer::Accept { content }, ElicitationKind::Form { schema }, Some(v)) => {
            let mut content = content.unwrap_or_else(|| Value::Object(Default::default()));
            with_defaults(&mut content, schema);
            let problems: Vec<String> = v
                .iter_errors(&content)
                .take(5)
                .map(|e| e.to_string())
                .collect();
            if !problems.is_empty() {
                return Err(AnswerRefused::Invalid(problems.join("; ")));
            }
            ElicitationAnswer::Accept {
                content: Some(content),
            }
        }
        // Consent to open a page, or to let the model answer, carries nothing.
        (
            ElicitationAnswer::Accept { .. },
            ElicitationKind::Url { .. } | ElicitationKind::Sampling { .. },
            _,
        ) => ElicitationAnswer::Accept { content: None },
        (other, _, _) => other,
    })
}

/// What an answer means for the card.
fn outcome_of(answer: &ElicitationAnswer) -> ElicitationOutcome {
    match answer {
        ElicitationAnswer::Accept { .. } => ElicitationOutcome::Accepted,
        ElicitationAnswer::Decline => ElicitationOutcome::Declined,
        ElicitationAnswer::Cancel => ElicitationOutcome::Cancelled,
    }
}

/// Fills in, in a form answer, the default of each field the schema gives one and the answer
/// leaves out (SEP-1034): the window's form starts with them filled in, and an answer that
/// omits one means the default, as the server offered it. A field the user gave keeps its value.
fn with_defaults(content: &mut Value, schema: &Value) {
    let (Some(content), Some(properties)) =
        (content.as_object_mut(), schema["properties"].as_object())
    else {
        return;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default") {
            content
                .entry(name.clone())
                .or_insert_with(|| default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex as PMutex;
    use serde_json::json;

    #[derive(Default)]
    struct Events(PMutex<Vec<ToolEvent>>);
    impl EventSink for Events {
        fn emit(&self, event: ToolEvent) {
            self.0.lock().push(event);
        }
    }

    fn call() -> RunningCall {
        RunningCall {
            chat: ChatId(3),
            seq: 7,
            cancel: CancellationToken::new(),
            clock: tollgate_tools::clock::CallClock::new(),
            workspace: None,
            lent: Arc::default(),
        }
    }

    fn form() -> ElicitationKind {
        ElicitationKind::Form {
            schema: json!({
                "type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
                "required": ["name"]
            }),
        }
    }

    /// The question waiting in chat 3, once the asking task put it there; a question refused
    /// (or never asked) fails the test rather than spinning it forever.
    async fn waiting(hub: &ElicitationHub) -> PendingElicitation {
        for _ in 0..100_000 {
            if let Some(p) = hub.pending_in(ChatId(3)).pop() {
                return p;
            }
            tokio::task::yield_now().await;
        }
        panic!("no question waits: it was refused or never asked")
    }

    #[tokio::test]
    async fn a_field_the_answer_leaves_out_takes_its_default_and_a_given_one_keeps_its_value() {
        let hub = ElicitationHub::new(Arc::new(Events::default()));
        let kind = ElicitationKind::Form {
            schema: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "verified": {"type": "boolean", "default": true},
                    "note": {"type": "string"}
                },
                "required": ["name", "age"]
            }),
        };
        let asking = {
            let hub = Arc::clone(&hub);
            tokio::spawn(async move { hub.ask("demo", &call(), "Who?".into(), kind).await })
        };
        let pending = waiting(&hub).await;
        // Only the age given: the rest with a default takes it; "note" has none and stays out.
        hub.answer(
            ChatId(3),
            &pending.id,
            ElicitationAnswer::Accept {
                content: Some(json!({"age": 41})),
            },
        )
        .unwrap();
        assert_eq!(
            asking.await.unwrap().unwrap(),
            ElicitationAnswer::Accept {
                content: Some(json!({"name": "John Doe", "age": 41, "verified": true}))
            }
        );
    }

    #[tokio::test]
    async fn a_form_answer_must_fit_the_schema_and_comes_back_as_given() {
        let events = Arc::new(Events::default());
        let hub = ElicitationHub::new(events.clone());
        let asking = {
            let hub = Arc::clone(&hub);
            tokio::spawn(async move {
                hub.ask("demo", &call(), "Who are you?".into(), form())
                    .await
            })
        };
        let pending = waiting(&hub).await;
        assert_eq!((pending.server.as_str(), pending.seq), ("demo", 7));
        let bad = hub.answer(
            ChatId(3),
            &pending.id,
            ElicitationAnswer::Accept {
                content: Some(json!({"age": -1})),
            },
        );
        assert!(matches!(bad, Err(AnswerRefused::Invalid(_))), "{bad:?}");
        assert!(matches!(
            hub.answer(ChatId(4), &pending.id, ElicitationAnswer::Decline),
            Err(AnswerRefused::Foreign(_))
        ));
        hub.answer(
            ChatId(3),
            &pending.id,
            ElicitationAnswer::Accept {
                content: Some(json!({"name": "Ada", "age": 36})),
            },
        )
        .unwrap();
        assert_eq!(
            asking.await.unwrap().unwrap(),
            ElicitationAnswer::Accept {
                content: Some(json!({"name": "Ada", "age": 36}))
            }
        );
        let kinds: Vec<&str> = events
            .0
            .lock()
            .iter()
            .map(|e| match e {
                ToolEvent::ElicitationRequested { .. } => "asked",
                ToolEvent::ElicitationResolved {
                    outcome: ElicitationOutcome::Accepted,
                    ..
                } => "accepted",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["asked", "accepted"]);
    }

    #[derive(Default)]
    struct Kept(PMutex<Vec<(ChatId, u64, AskedQuestion)>>);
    impl KeepsQuestions for Kept {
        fn keep(&self, chat: ChatId, seq: u64, asked: AskedQuestion) {
            self.0.lock().push((chat, seq, asked));
        }
    }

    /// Asks `kind` on `running` and answers it with `answer` (none: the call ends first).
    async fn asked_and_ended(
        hub: &Arc<ElicitationHub>,
        running: RunningCall,
        kind: ElicitationKind,
        answer: Option<ElicitationAnswer>,
    ) {
        let asking = {
            let (hub, running) = (Arc::clone(hub), running.clone());
            tokio::spawn(
                async move { hub.ask("demo", &running, "Fill this in".into(), kind).await },
            )
        };
        let p = waiting(hub).await;
        match answer {
            Some(answer) => hub.answer(ChatId(3), &p.id, answer).unwrap(),
            None => running.cancel.cancel(),
        }
        asking.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn every_question_is_kept_with_its_call_as_it_ended_without_a_known_secret() {
        let key = "sk-kept-question-9f8e7d6c5b4a3f2e1d0c";
        tollgate_secrets::remember(key);
        let kept = Arc::new(Kept::default());
        let hub = ElicitationHub::keeping(Arc::new(Events::default()), kept.clone());
        let page = ElicitationKind::Url {
            url: "https://pay.example/checkout".into(),
            host: "pay.example".into(),
        };
        let model = ElicitationKind::Sampling {
            system: None,
            messages: Vec::new(),
            max_tokens: 10,
            model: "m".into(),
        };
        let accept = |content: Option<Value>| Some(ElicitationAnswer::Accept { content });
        let with_pin = ElicitationKind::Form {
            schema: json!({
                "type": "object",
                "properties": {"name": {"type": "string"}, "code": {"type": "string", "title": "Your PIN"}},
            }),
        };
        let form_answer = json!({"name": format!("Ada {key}"), "code": "4321"});
        asked_and_ended(&hub, call(), with_pin, accept(Some(form_answer))).await;
        asked_and_ended(&hub, call(), page.clone(), Some(ElicitationAnswer::Decline)).await;
        asked_and_ended(&hub, call(), form(), None).await;
        asked_and_ended(&hub, call(), model.clone(), Some(ElicitationAnswer::Cancel)).await;
        // Lent: kept with what the model answered, once it went back (`LentModel`), not here.
        asked_and_ended(&hub, call(), model, accept(None)).await;
        // The server gives up (the wait itself is dropped): kept as withdrawn. (Another
        // server: "demo" asked its five a minute.)
        let asking = {
            let hub = Arc::clone(&hub);
            tokio::spawn(async move {
                hub.ask("other", &call(), "Fill this in".into(), form())
                    .await
            })
        };
        waiting(&hub).await;
        asking.abort();
        assert!(asking.await.unwrap_err().is_cancelled());
        let kept = kept.0.lock().clone();
        let ended: Vec<(ElicitationOutcome, Option<Value>)> = kept
            .iter()
            .map(|(chat, seq, a)| {
                assert_eq!(
                    (*chat, *seq, a.message.as_str()),
                    (ChatId(3), 7, "Fill this in")
                );
                (a.outcome, a.answer.clone())
            })
            .collect();
        assert_eq!(
            ended,
            [
                (
                    ElicitationOutcome::Accepted,
                    Some(
                        json!({"name": format!("Ada {}", tollgate_secrets::REDACTED), "code": tollgate_secrets::REDACTED})
                    )
                ),
                (ElicitationOutcome::Declined, None),
                (ElicitationOutcome::Withdrawn, None),
                (ElicitationOutcome::Cancelled, None),
                (ElicitationOutcome::Withdrawn, None),
            ]
        );
        assert!(hub.pending_in(ChatId(3)).is_empty());
        assert_eq!(kept[1].2.kind, page);
        assert!(!format!("{kept:?}").contains(key));
        assert!(!format!("{kept:?}").contains("4321"));
    }

    #[tokio::test]
    async fn one_question_at_a_time_a_few_a_minute_and_withdrawn_with_its_call() {
        let hub = ElicitationHub::new(Arc::new(Events::default()));
        let running = call();
        let first = {
            let (hub, running) = (Arc::clone(&hub), running.clone());
            tokio::spawn(async move { hub.ask("demo", &running, "One?".into(), form()).await })
        };
        waiting(&hub).await;
        assert_eq!(
            hub.ask("demo", &call(), "Two?".into(), form()).await,
            Err(AskRefused::OneAtATime)
        );
        // The call ends: the question is withdrawn, and the server hears "cancel".
        running.cancel.cancel();
        assert_eq!(first.await.unwrap().unwrap(), ElicitationAnswer::Cancel);
        assert!(hub.pending_in(ChatId(3)).is_empty());
        // Each of the next ones is asked and answered; past the limit, refused.
        for _ in 1..MAX_PER_MINUTE {
            let asking = {
                let hub = Arc::clone(&hub);
                tokio::spawn(async move { hub.ask("demo", &call(), "Again?".into(), form()).await })
            };
            let p = waiting(&hub).await;
            hub.answer(ChatId(3), &p.id, ElicitationAnswer::Decline)
                .unwrap();
            assert_eq!(asking.await.unwrap().unwrap(), ElicitationAnswer::Decline);
        }
        assert_eq!(
            hub.ask("demo", &call(), "More?".into(), form()).await,
            Err(AskRefused::TooOften)
        );
        // Another server is counted on its own.
        let other = {
            let hub = Arc::clone(&hub);
            tokio::spawn(async move { hub.ask("other", &call(), "Hi?".into(), form()).await })
        };
        let p = waiting(&hub).await;
        hub.answer(ChatId(3), &p.id, ElicitationAnswer::Cancel)
            .unwrap();
        assert_eq!(other.await.unwrap().unwrap(), ElicitationAnswer::Cancel);
    }
}
