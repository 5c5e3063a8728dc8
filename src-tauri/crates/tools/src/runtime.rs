//! The runtime pieces every tool and the layers above it share, kept out of the protocol's
//! types: where a call's events go, and fresh approval ids.

use tollgate_protocol::ids::ApprovalId;
use tollgate_protocol::{EventSink, ToolEvent};

/// Forwards events into a Tokio channel.
pub struct ChannelSink(pub tokio::sync::mpsc::UnboundedSender<ToolEvent>);

impl EventSink for ChannelSink {
    fn emit(&self, event: ToolEvent) {
        let _ = self.0.send(event);
    }
}

/// A fresh approval id: 128 bits from the operating system's random source, hex encoded, so a
/// decision can never be aimed at an approval by guessing (the id is bound to its chat in the
/// engine's `ApprovalHub`).
pub fn new_approval_id() -> ApprovalId {
    use rand::RngCore;
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    ApprovalId::from_string(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_ids_are_128_bit_hex_and_distinct() {
        let a = new_approval_id();
        let b = new_approval_id();
        assert_eq!(a.as_str().len(), 32);
        assert!(a.as_str().chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
