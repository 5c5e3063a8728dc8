//! Where each chat's events go (F-17, F-59): to the turn running in it, else to a fallback
//! (the window), and every request that waits on the user to the attention watchers. A runtime
//! piece, so it lives with the engine that runs it rather than with the protocol's types.

use crate::ids::ChatId;
use crate::protocol::{AttentionRequest, EventSink, ToolEvent};
use std::collections::HashMap;
use std::sync::Arc;

/// Called for every [`AttentionRequest`], wherever its chat's events are routed. Must not block.
pub type AttentionWatcher = Arc<dyn Fn(AttentionRequest) + Send + Sync>;

/// Routes each chat's events to the channel of the turn running in it, and everything else
/// (events of chats without a running turn) to a fallback sink.
///
/// The executor's sink is fixed when it opens; a turn registers its channel for its duration.
pub struct Router {
    routes: parking_lot::RwLock<HashMap<ChatId, Arc<dyn EventSink>>>,
    fallback: Arc<dyn EventSink>,
    watchers: parking_lot::RwLock<Vec<AttentionWatcher>>,
}

impl Router {
    pub fn new(fallback: Arc<dyn EventSink>) -> Self {
        Self {
            routes: parking_lot::RwLock::new(HashMap::new()),
            fallback,
            watchers: parking_lot::RwLock::new(Vec::new()),
        }
    }

    /// Calls `watcher` whenever an approval or a question starts waiting in any chat (F-59).
    pub fn watch_attention(&self, watcher: AttentionWatcher) {
        self.watchers.write().push(watcher);
    }

    /// Sends `chat`'s events to `sink` until the guard is dropped.
    pub fn route(self: &Arc<Self>, chat: ChatId, sink: Arc<dyn EventSink>) -> RouteGuard {
        self.routes.write().insert(chat, sink);
        RouteGuard {
            router: Arc::clone(self),
            chat,
        }
    }
}

impl EventSink for Router {
    fn emit(&self, event: ToolEvent) {
        if let Some(request) = AttentionRequest::of(&event) {
            for watcher in self.watchers.read().iter() {
                watcher(request.clone());
            }
        }
        let target = self.routes.read().get(&event.chat()).cloned();
        match target {
            Some(sink) => sink.emit(event),
            None => self.fallback.emit(event),
        }
    }
}

/// Ends a route when dropped.
pub struct RouteGuard {
    router: Arc<Router>,
    chat: ChatId,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.router.routes.write().remove(&self.chat);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ApprovalId;
    use crate::protocol::{AttentionReason, NullSink, OutputStream};
    use std::sync::Mutex;

    #[test]
    fn attention_is_seen_wherever_the_chat_is_routed_and_only_for_what_waits() {
        let router = Arc::new(Router::new(Arc::new(NullSink)));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        router.watch_attention(Arc::new(move |r| into.lock().unwrap().push(r)));
        let asked = |chat: i64| ToolEvent::QuestionAsked {
            chat: ChatId(chat),
            seq: 1,
            id: ApprovalId::from_string(format!("q{chat}")),
            question: "Which file?".into(),
            choices: Vec::new(),
        };
        // A chat with a running turn (routed) and one without (the fallback) are both seen.
        let _route = router.route(ChatId(1), Arc::new(NullSink));
        router.emit(asked(1));
        router.emit(asked(2));
        router.emit(ToolEvent::OutputDelta {
            chat: ChatId(1),
            seq: 1,
            stream: OutputStream::Stdout,
            text: "hi".into(),
            skipped: 0,
        });
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].chat, ChatId(1));
        assert_eq!(seen[1].chat, ChatId(2));
        assert_eq!(
            seen[0].reason,
            AttentionReason::Question {
                question: "Which file?".into()
            }
        );
    }
}
