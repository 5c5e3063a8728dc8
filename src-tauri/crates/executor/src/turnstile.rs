//! Ordered execution for calls that wait for approval (F-21): their approval cards are shown
//! together, but they run strictly in the model's order, each after the one before has finished
//! (or was denied).

use parking_lot::Mutex;
use std::collections::BTreeSet;
use std::sync::Arc;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Default)]
struct Shared {
    /// (the position whose turn it is, positions that finished out of order)
    state: Mutex<(usize, BTreeSet<usize>)>,
    /// Positions whose call has come to wait for its turn (granted, and waiting).
    arrived: Mutex<BTreeSet<usize>>,
    notify: Notify,
}

/// One call's place in an ordered group.
#[derive(Debug, Clone)]
pub struct Turnstile {
    shared: Arc<Shared>,
    position: usize,
}

impl PartialEq for Turnstile {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared) && self.position == other.position
    }
}

impl Eq for Turnstile {}

impl Turnstile {
    /// Places for `n` calls, in order.
    pub fn sequence(n: usize) -> Vec<Turnstile> {
        let shared = Arc::new(Shared::default());
        (0..n)
            .map(|position| Turnstile {
                shared: Arc::clone(&shared),
                position,
            })
            .collect()
    }

    /// Waits until every earlier call is done; `false` if cancelled first.
    pub async fn wait_turn(&self, cancel: &CancellationToken) -> bool {
        if self.shared.arrived.lock().insert(self.position) {
            self.shared.notify.notify_waiters();
        }
        loop {
            let notified = self.shared.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.shared.state.lock().0 >= self.position {
                return true;
            }
            tokio::select! {
                () = notified => {}
                () = cancel.cancelled() => return false,
            }
        }
    }

    /// Resolves once this place's call has come to wait for its turn: it was granted, and what
    /// happens to the world from now on is what the re-check before it runs must see (tests
    /// change the world at exactly that point instead of sleeping and hoping).
    pub async fn reached(&self) {
        loop {
            let notified = self.shared.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.shared.arrived.lock().contains(&self.position) {
                return;
            }
            notified.await;
        }
    }

    /// Marks this call done, letting the next one run.
    pub fn done(&self) {
        {
            let mut state = self.shared.state.lock();
            state.1.insert(self.position);
            loop {
                let next = state.0;
                if !state.1.remove(&next) {
                    break;
                }
                state.0 = next + 1;
            }
        }
        self.shared.notify.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn later_places_wait_for_every_earlier_one() {
        let places = Turnstile::sequence(3);
        let cancel = CancellationToken::new();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for place in places.iter().rev().cloned() {
            let order = Arc::clone(&order);
            let cancel = cancel.clone();
            tasks.push(tokio::spawn(async move {
                assert!(place.wait_turn(&cancel).await);
                order.lock().push(place.position);
                tokio::time::sleep(Duration::from_millis(5)).await;
                place.done();
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(*order.lock(), vec![0, 1, 2]);
    }

    #[tokio::test]
    async fn a_place_is_reached_when_its_call_comes_to_wait() {
        let places = Turnstile::sequence(2);
        let cancel = CancellationToken::new();
        let second = places[1].clone();
        let waiting = tokio::spawn(async move { second.wait_turn(&cancel).await });
        places[1].reached().await;
        assert!(
            !waiting.is_finished(),
            "reached, still waiting for the first"
        );
        places[0].done();
        assert!(waiting.await.unwrap());
        // A place reached earlier stays reached.
        places[1].reached().await;
    }

    #[tokio::test]
    async fn done_out_of_order_and_cancel() {
        let places = Turnstile::sequence(3);
        places[2].done(); // denied before its turn
        places[0].done();
        let cancel = CancellationToken::new();
        assert!(places[1].wait_turn(&cancel).await);
        let fresh = Turnstile::sequence(2);
        cancel.cancel();
        assert!(!fresh[1].wait_turn(&cancel).await);
    }
}
