//! The calls of a chat handed over to go on after their turn as their server's tasks (F-99), on
//! their way to the one who follows them (`background.rs`).

use parking_lot::Mutex;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// The calls of a chat handed over to go on after their turn, for the one who follows them, and
/// the registry's changes a resumed call waits on (its server not ready yet).
pub(crate) struct HandOvers {
    pub(crate) tx: UnboundedSender<u64>,
    pub(crate) rx: Mutex<Option<UnboundedReceiver<u64>>>,
    pub(crate) registry_changed: tokio::sync::Notify,
    /// Cancelled when the chat goes: no call of it is followed from then on.
    pub(crate) ended: tokio_util::sync::CancellationToken,
}

impl Default for HandOvers {
    fn default() -> Self {
        let (tx, rx) = unbounded_channel();
        Self {
            tx,
            rx: Mutex::new(Some(rx)),
            registry_changed: tokio::sync::Notify::new(),
            ended: tokio_util::sync::CancellationToken::new(),
        }
    }
}

impl HandOvers {
    /// Call `seq` goes on in the background, to be followed.
    pub(crate) fn hand_over(&self, seq: u64) {
        // The receiver is gone only with the executor that holds this.
        let _ = self.tx.send(seq);
    }
}
