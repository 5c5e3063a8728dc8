//! Streamed text reaches the window in pieces of a frame, not of a token (F-71).
//!
//! A model can stream 500 deltas a second. Each event sent to the webview is a message the web
//! process must receive and run, and at that rate the messages alone keep its main thread busy:
//! frames stall no matter how little each render costs. Deltas of the same message and kind that
//! arrive within one interval are sent as one event; every other event first sends what is
//! waiting, so the order the UI sees is the order things happened.

use super::ChatEvent;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How long deltas are gathered before they go out: one frame at 60 Hz.
pub const FRAME: Duration = Duration::from_millis(16);

/// A delta waiting to go out.
struct Pending {
    event: ChatEvent,
    since: Instant,
}

/// Appends `next` to `pending` when both are deltas of the same kind for the same message.
fn merge(pending: &mut ChatEvent, next: &ChatEvent) -> bool {
    match (pending, next) {
        (
            ChatEvent::TextDelta { message_id, text },
            ChatEvent::TextDelta {
                message_id: m,
                text: more,
            },
        )
        | (
            ChatEvent::ReasoningDelta { message_id, text },
            ChatEvent::ReasoningDelta {
                message_id: m,
                text: more,
            },
        ) if message_id == m => {
            text.push_str(more);
            true
        }
        _ => false,
    }
}

fn is_delta(event: &ChatEvent) -> bool {
    matches!(
        event,
        ChatEvent::TextDelta { .. } | ChatEvent::ReasoningDelta { .. }
    )
}

/// A sink that hands `events` to `deliver`, deltas gathered for up to `every`. Must be called
/// inside a tokio runtime (it starts the task that delivers); what is waiting when the returned
/// sink is dropped is still delivered.
pub fn coalesced(
    deliver: impl Fn(ChatEvent) + Send + Sync + 'static,
    every: Duration,
) -> impl Fn(ChatEvent) + Send + Sync + 'static {
    let (tx, mut rx) = mpsc::unbounded_channel::<ChatEvent>();
    tokio::spawn(async move {
        let mut pending: Option<Pending> = None;
        loop {
            let next = match &pending {
                Some(p) => tokio::select! {
                    event = rx.recv() => event,
                    () = tokio::time::sleep_until(p.since + every) => {
                        if let Some(p) = pending.take() {
                            deliver(p.event);
                        }
                        continue;
                    }
                },
                None => rx.recv().await,
            };
            let Some(event) = next else {
                if let Some(p) = pending.take() {
                    deliver(p.event);
                }
                return;
            };
            if let Some(p) = pending.as_mut() {
                if merge(&mut p.event, &event) {
                    continue;
                }
            }
            if let Some(p) = pending.take() {
                deliver(p.event);
            }
            if is_delta(&event) {
                pending = Some(Pending {
                    event,
                    since: Instant::now(),
                });
            } else {
                deliver(event);
            }
        }
    });
    move |event| {
        // The receiver ends only with the task, which ends only once this sender is gone.
        let _ = tx.send(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ChatId;
    use std::sync::{Arc, Mutex};

    fn text(message_id: i64, text: &str) -> ChatEvent {
        ChatEvent::TextDelta {
            message_id,
            text: text.into(),
        }
    }

    fn recorder() -> (Arc<Mutex<Vec<ChatEvent>>>, impl Fn(ChatEvent) + Send + Sync) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let out = Arc::clone(&seen);
        (seen, move |e| out.lock().unwrap().push(e))
    }

    #[tokio::test(start_paused = true)]
    async fn deltas_of_one_frame_go_out_as_one_event_in_order() {
        let (seen, deliver) = recorder();
        let sink = coalesced(deliver, FRAME);
        for piece in ["Hel", "lo", ", wor", "ld"] {
            sink(text(7, piece));
        }
        sink(ChatEvent::ReasoningDelta {
            message_id: 7,
            text: "hm".into(),
        });
        sink(text(8, "next"));
        sink(ChatEvent::ToolCallStarted {
            message_id: 8,
            index: 0,
            id: "c1".into(),
            name: "grep".into(),
        });
        sink(text(8, " after"));
        tokio::time::sleep(FRAME * 2).await;
        sink(text(8, " later"));
        drop(sink);
        tokio::time::sleep(FRAME).await;
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            vec![
                text(7, "Hello, world"),
                ChatEvent::ReasoningDelta {
                    message_id: 7,
                    text: "hm".into()
                },
                text(8, "next"),
                ChatEvent::ToolCallStarted {
                    message_id: 8,
                    index: 0,
                    id: "c1".into(),
                    name: "grep".into()
                },
                text(8, " after"),
                text(8, " later"),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_of_500_deltas_a_second_goes_out_once_a_frame() {
        let (seen, deliver) = recorder();
        let sink = coalesced(deliver, FRAME);
        for _ in 0..500 {
            sink(text(1, "abcdefghij"));
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        sink(ChatEvent::TurnStarted {
            chat: ChatId(1),
            user_message_id: None,
        });
        tokio::time::sleep(FRAME).await;
        let seen = seen.lock().unwrap().clone();
        // About one event per frame over one second, and every character, in order.
        assert!((55..=70).contains(&(seen.len() - 1)), "{}", seen.len());
        let all: String = seen
            .iter()
            .filter_map(|e| match e {
                ChatEvent::TextDelta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(all, "abcdefghij".repeat(500));
        assert!(matches!(seen.last(), Some(ChatEvent::TurnStarted { .. })));
    }
}
