//! What waits for the user, one way for all of it (F-05, F-24, F-45): an approval card, a
//! question from `ask_user`, a question from an MCP server. Each waits under a random id bound
//! to its chat; an answer for an unknown id, for another chat's, or for one that was withdrawn
//! is refused and changes nothing; the first answer that fits is delivered and the item is
//! gone. The approval hub, the question hub and the elicitation hub are this, with what each
//! checks of an answer.

use parking_lot::Mutex;
use std::collections::{HashMap, HashSet, VecDeque};
use tokio::sync::oneshot;
use tollgate_protocol::ids::{ApprovalId, ChatId};

/// How many withdrawn ids are remembered (to say "cancelled" rather than "unknown").
const WITHDRAWN_MEMORY: usize = 4096;

/// Why an answer found nothing to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotWaiting {
    /// Nothing waits under this id.
    Unknown(ApprovalId),
    /// It waits in another chat.
    Foreign(ApprovalId),
    /// It waited, and was withdrawn (its call ended).
    Withdrawn(ApprovalId),
}

/// Why an answer was not delivered: nothing to answer, or what the item's own check refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused<E> {
    NotWaiting(NotWaiting),
    Check(E),
}

/// An item answered, and whether its waiter was still there to hear the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered<T> {
    pub item: T,
    pub delivered: bool,
}

struct Slot<T, A> {
    chat: ChatId,
    item: T,
    reply: oneshot::Sender<A>,
}

struct Inner<T, A> {
    pending: HashMap<ApprovalId, Slot<T, A>>,
    withdrawn: HashSet<ApprovalId>,
    withdrawn_order: VecDeque<ApprovalId>,
}

/// Items of type `T` waiting for an answer of type `A`.
pub struct Waiting<T, A> {
    inner: Mutex<Inner<T, A>>,
}

impl<T, A> Default for Waiting<T, A> {
    fn default() -> Self {
        Self {
            inner: Mutex::new(Inner {
                pending: HashMap::new(),
                withdrawn: HashSet::new(),
                withdrawn_order: VecDeque::new(),
            }),
        }
    }
}

impl<T: Clone, A> Waiting<T, A> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `item` up under `id` in `chat`; the receiver yields the answer.
    pub fn open(&self, id: ApprovalId, chat: ChatId, item: T) -> oneshot::Receiver<A> {
        let (reply, rx) = oneshot::channel();
        self.inner
            .lock()
            .pending
            .insert(id, Slot { chat, item, reply });
        rx
    }

    /// [`Self::open`] if `admit`, which sees every item waiting now under the same lock, lets
    /// it: two items admitted at once cannot both pass a check that counts them.
    pub fn open_if<E>(
        &self,
        id: ApprovalId,
        chat: ChatId,
        item: T,
        admit: impl FnOnce(&mut dyn Iterator<Item = &T>) -> Result<(), E>,
    ) -> Result<oneshot::Receiver<A>, E> {
        let mut inner = self.inner.lock();
        admit(&mut inner.pending.values().map(|s| &s.item))?;
        let (reply, rx) = oneshot::channel();
        inner.pending.insert(id, Slot { chat, item, reply });
        Ok(rx)
    }

    /// The item waiting under `id` in `chat`.
    pub fn get(&self, chat: ChatId, id: &ApprovalId) -> Result<T, NotWaiting> {
        let inner = self.inner.lock();
        Self::find(&inner, chat, id).map(|slot| slot.item.clone())
    }

    fn find<'i>(
        inner: &'i Inner<T, A>,
        chat: ChatId,
        id: &ApprovalId,
    ) -> Result<&'i Slot<T, A>, NotWaiting> {
        match inner.pending.get(id) {
            Some(slot) if slot.chat == chat => Ok(slot),
            Some(_) => Err(NotWaiting::Foreign(id.clone())),
            None if inner.withdrawn.contains(id) => Err(NotWaiting::Withdrawn(id.clone())),
            None => Err(NotWaiting::Unknown(id.clone())),
        }
    }

    /// Answers `id` of `chat`: `check` sees the item and makes the answer, or refuses (the
    /// item keeps waiting). The item is gone once answered, whether or not its waiter was still
    /// there to hear it (`delivered` says which).
    pub fn answer<E>(
        &self,
        chat: ChatId,
        id: &ApprovalId,
        check: impl FnOnce(&T) -> Result<A, E>,
    ) -> Result<Answered<T>, Refused<E>> {
        let mut inner = self.inner.lock();
        let slot = Self::find(&inner, chat, id).map_err(Refused::NotWaiting)?;
        let answer = check(&slot.item).map_err(Refused::Check)?;
        let Some(slot) = inner.pending.remove(id) else {
            return Err(Refused::NotWaiting(NotWaiting::Unknown(id.clone())));
        };
        drop(inner);
        let delivered = slot.reply.send(answer).is_ok();
        Ok(Answered {
            item: slot.item,
            delivered,
        })
    }

    /// Withdraws `id` (its call ended); later answers for it are refused as withdrawn. Returns
    /// the item if it was still waiting.
    pub fn withdraw(&self, id: &ApprovalId) -> Option<T> {
        let mut inner = self.inner.lock();
        let slot = inner.pending.remove(id)?;
        inner.withdrawn.insert(id.clone());
        inner.withdrawn_order.push_back(id.clone());
        if inner.withdrawn_order.len() > WITHDRAWN_MEMORY {
            if let Some(old) = inner.withdrawn_order.pop_front() {
                inner.withdrawn.remove(&old);
            }
        }
        Some(slot.item)
    }

    /// The items waiting in `chat`, in no order (callers sort by what their items say).
    pub fn items_in(&self, chat: ChatId) -> Vec<T> {
        self.inner
            .lock()
            .pending
            .values()
            .filter(|s| s.chat == chat)
            .map(|s| s.item.clone())
            .collect()
    }

    /// How many items wait in each chat.
    pub fn counts(&self) -> HashMap<ChatId, usize> {
        let mut counts = HashMap::new();
        for slot in self.inner.lock().pending.values() {
            *counts.entry(slot.chat).or_insert(0) += 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> ApprovalId {
        ApprovalId::from_string(s)
    }

    #[tokio::test]
    async fn an_answer_reaches_its_own_chat_once_and_nothing_else() {
        let hub: Waiting<&str, u32> = Waiting::new();
        let rx = hub.open(id("a"), ChatId(1), "first");
        // Another chat, an unknown id: refused, and the item still waits.
        assert_eq!(
            hub.answer(ChatId(2), &id("a"), |_| Ok::<_, ()>(1)),
            Err(Refused::NotWaiting(NotWaiting::Foreign(id("a"))))
        );
        assert_eq!(
            hub.answer(ChatId(1), &id("b"), |_| Ok::<_, ()>(1)),
            Err(Refused::NotWaiting(NotWaiting::Unknown(id("b"))))
        );
        // The item's own check refuses: it keeps waiting.
        assert_eq!(
            hub.answer(ChatId(1), &id("a"), |_| Err::<u32, _>("no")),
            Err(Refused::Check("no"))
        );
        assert_eq!(hub.items_in(ChatId(1)), vec!["first"]);
        assert_eq!(
            hub.answer(ChatId(1), &id("a"), |item| Ok::<_, ()>(item.len() as u32)),
            Ok(Answered {
                item: "first",
                delivered: true
            })
        );
        assert_eq!(rx.await, Ok(5));
        // Answered: gone.
        assert_eq!(
            hub.answer(ChatId(1), &id("a"), |_| Ok::<_, ()>(1)),
            Err(Refused::NotWaiting(NotWaiting::Unknown(id("a"))))
        );
    }

    #[test]
    fn a_withdrawn_item_says_so_and_admission_sees_what_waits() {
        let hub: Waiting<&str, u32> = Waiting::new();
        let _rx = hub.open(id("a"), ChatId(1), "server-x");
        assert_eq!(hub.withdraw(&id("a")), Some("server-x"));
        assert_eq!(
            hub.get(ChatId(1), &id("a")),
            Err(NotWaiting::Withdrawn(id("a")))
        );
        let _one = hub.open(id("b"), ChatId(1), "server-x");
        let again = hub.open_if(id("c"), ChatId(2), "server-x", |waiting| {
            for w in waiting {
                if *w == "server-x" {
                    return Err("one at a time");
                }
            }
            Ok(())
        });
        assert_eq!(again.err(), Some("one at a time"));
        assert_eq!(hub.counts(), HashMap::from([(ChatId(1), 1)]));
    }
}
