//! A chat's exposure read from the branch the model sees (F-82): every message that carries a
//! source — a tool result, an attached file, an MCP prompt, an imported message — adds its
//! sources and its text. Messages on other branches are not read, so taking a branch back
//! takes its exposure with it.

use super::attachments::UserPayload;
use super::history::{payload, AssistantPayload, ToolPayload};
use crate::protocol::AttachmentKind;
use crate::provenance::{ExposureBuilder, RequestLedger};
use crate::providers::ToolResultMessage;
use crate::store::{MessageRow, Role};

/// The exposure of the branch `rows` (oldest first) in a chat whose requests carry `offer`
/// (its system prompt and tools, each piece with who wrote it: the request ledger), ready for
/// more content.
pub fn from_rows(rows: &[MessageRow], offer: &RequestLedger) -> ExposureBuilder {
    let mut exposure = ExposureBuilder::new();
    exposure.add_request(offer);
    for row in rows {
        match row.role {
            Role::User => {
                let p: UserPayload = payload(&row.payload);
                if p.sources.is_empty() {
                    exposure.add_typed(&row.content);
                }
                exposure.add(&p.sources, &row.content);
                for a in &p.attachments {
                    let text = match a.kind {
                        AttachmentKind::Text => a.data.as_str(),
                        // An image's words reach the model too, but not as text to match.
                        AttachmentKind::Image => "",
                        AttachmentKind::ResourceLink => a.data.as_str(),
                    };
                    exposure.add(&[a.origin()], text);
                }
            }
            Role::Assistant => {
                let p: AssistantPayload = payload(&row.payload);
                exposure.add(&p.sources, &row.content);
            }
            Role::Tool => {
                let p: ToolPayload = payload(&row.payload);
                add_results(&mut exposure, &p.results);
            }
        }
    }
    exposure
}

/// A round's results reached the context.
pub fn add_results(exposure: &mut ExposureBuilder, results: &[ToolResultMessage]) {
    for r in results {
        exposure.add(&r.sources, &r.content);
    }
}
