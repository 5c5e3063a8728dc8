//! A server's current connection, as its tools and the manager share it.

use super::connection::McpConnection;
use parking_lot::RwLock;
use std::sync::Arc;

/// A server's current connection, shared with its tools (which outlive restarts of the server
/// until the registry is swapped).
pub struct ServerSlot {
    name: String,
    conn: RwLock<Option<Arc<McpConnection>>>,
}

impl ServerSlot {
    pub(super) fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            conn: RwLock::new(None),
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
