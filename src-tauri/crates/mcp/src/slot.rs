//! A server's current connection, as its tools and the manager share it.

use super::connection::McpConnection;
use super::elicitation::RunningCall;
use parking_lot::{Mutex, RwLock};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A server's current connection, shared with its tools (which outlive restarts of the server
/// until the registry is swapped).
pub struct ServerSlot {
    name: String,
    conn: RwLock<Option<Arc<McpConnection>>>,
    /// The calls of the server's tools running now, oldest first: a question the server asks
    /// goes to the chat of the latest (SPEC §11).
    calls: Mutex<Vec<(u64, RunningCall)>>,
    next_call: std::sync::atomic::AtomicU64,
}

/// A running call, registered with its server until dropped (which withdraws its questions).
pub struct CallGuard {
    slot: Arc<ServerSlot>,
    id: u64,
    call: RunningCall,
}

impl CallGuard {
    /// The call as the server's questions see it.
    pub fn call(&self) -> &RunningCall {
        &self.call
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.call.cancel.cancel();
        self.slot.calls.lock().retain(|(id, _)| *id != self.id);
    }
}

impl ServerSlot {
    /// The slot of server `name`, empty: the manager keeps one per server; a client that talks
    /// to one server alone (the conformance driver) makes its own.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            conn: RwLock::new(None),
            calls: Mutex::new(Vec::new()),
            next_call: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Registers a call of one of the server's tools (in `chat`, number `seq`, stopped by
    /// `stop`, timed by `clock`) until the guard is dropped.
    pub fn begin_call(
        self: &Arc<Self>,
        chat: tollgate_protocol::ids::ChatId,
        seq: u64,
        stop: &CancellationToken,
        clock: &Arc<tollgate_tools::clock::CallClock>,
    ) -> CallGuard {
        self.begin_call_in(chat, seq, stop, clock, None)
    }

    /// [`Self::begin_call`] for a chat with a workspace folder (the server's root where the user
    /// lets it see it).
    pub fn begin_call_in(
        self: &Arc<Self>,
        chat: tollgate_protocol::ids::ChatId,
        seq: u64,
        stop: &CancellationToken,
        clock: &Arc<tollgate_tools::clock::CallClock>,
        workspace: Option<std::path::PathBuf>,
    ) -> CallGuard {
        let id = self
            .next_call
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let call = RunningCall {
            chat,
            seq,
            cancel: stop.child_token(),
            clock: Arc::clone(clock),
            workspace,
            lent: Arc::default(),
        };
        self.calls.lock().push((id, call.clone()));
        CallGuard {
            slot: Arc::clone(self),
            id,
            call,
        }
    }

    /// The latest call of the server's tools still running, where all of them run in one chat:
    /// a request that names no call (a 2025-11-25 server's, mid-call) is then surely that chat's.
    /// `Err` when calls run in more than one chat.
    pub(crate) fn latest_call_of_one_chat(&self) -> Result<Option<RunningCall>, ()> {
        let calls = self.calls.lock();
        let latest = calls.last().map(|(_, c)| c.clone());
        match &latest {
            Some(call) if calls.iter().any(|(_, c)| c.chat != call.chat) => Err(()),
            _ => Ok(latest),
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The live connection, if the server is running.
    pub fn connection(&self) -> Option<Arc<McpConnection>> {
        self.conn.read().as_ref().filter(|c| c.is_alive()).cloned()
    }

    pub(super) fn replace(&self, conn: Option<Arc<McpConnection>>) -> Option<Arc<McpConnection>> {
        std::mem::replace(&mut *self.conn.write(), conn)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use tollgate_protocol::ids::ChatId;

    #[test]
    fn a_request_that_names_no_call_is_placed_only_where_every_call_runs_in_one_chat() {
        let slot = Arc::new(ServerSlot::new("notes"));
        let (stop, clock) = (
            CancellationToken::new(),
            tollgate_tools::clock::CallClock::new(),
        );
        assert!(matches!(slot.latest_call_of_one_chat(), Ok(None)));
        let first = slot.begin_call(ChatId(1), 1, &stop, &clock);
        let second = slot.begin_call(ChatId(1), 2, &stop, &clock);
        let latest = slot.latest_call_of_one_chat().unwrap().unwrap();
        assert_eq!((latest.chat, latest.seq), (ChatId(1), 2));
        let other = slot.begin_call(ChatId(2), 1, &stop, &clock);
        assert!(slot.latest_call_of_one_chat().is_err());
        drop((first, second));
        let left = slot.latest_call_of_one_chat().unwrap().unwrap();
        assert_eq!(left.chat, ChatId(2));
        drop(other);
        assert!(matches!(slot.latest_call_of_one_chat(), Ok(None)));
    }
}
