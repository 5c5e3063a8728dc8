//! What the user accepted of each server (SPEC §11, SPEC §12): the book of the definitions its
//! grants were made for, tools under review after a change, and the server's texts confirmed at
//! first sight. Part of [`McpManager`], kept apart to keep each file readable.

use super::{Entry, McpManager, McpReviewError, McpStatus};
use crate::review::{AcceptError, ReviewBook};

impl McpManager {
    /// The saved definitions the user's grants were made for; set before [`Self::configure`].
    pub fn set_review_book(&self, book: ReviewBook) {
        *self.book.lock() = (book, false);
    }

    /// The book of definitions, if it changed since it was last taken (to be saved).
    pub fn take_changed_book(&self) -> Option<ReviewBook> {
        let mut book = self.book.lock();
        std::mem::take(&mut book.1).then(|| book.0.clone())
    }

    /// The server's settings were replaced (an import, a new command or address): its tools'
    /// grants are set aside until each tool is accepted again. Call before restarting it.
    pub fn replace_server(&self, name: &str) {
        {
            let mut book = self.book.lock();
            book.0.replace(name);
            book.1 = true;
        }
        // A running server whose settings did not change is not restarted: its tools go under
        // review now.
        let mut entries = self.entries.lock();
        if let Some(entry) = entries.get_mut(name).filter(|e| !e.tools.is_empty()) {
            self.review(entry);
            drop(entries);
            self.notify();
        }
    }

    /// A server renamed keeps what was accepted for it.
    pub fn rename_server(&self, from: &str, to: &str) {
        let mut book = self.book.lock();
        book.0.rename(from, to);
        book.1 = true;
    }

    /// Records which of a server's tools are under review, from a fresh listing.
    pub(super) fn review(&self, entry: &mut Entry) {
        let changes = {
            let mut book = self.book.lock();
            let (changes, dirty) = book.0.review(&entry.config.name, &entry.tools);
            book.1 |= dirty;
            changes
        };
        entry.reviews = entry
            .tools
            .iter()
            .zip(changes)
            .filter_map(|(t, c)| Some((t.name.to_string(), c?)))
            .collect();
    }

    /// Accepts a tool as it is now (its change read, `fingerprint` naming what was read): its
    /// grants apply again.
    pub fn accept_change(
        &self,
        server: &str,
        tool: &str,
        fingerprint: &str,
    ) -> Result<(), McpReviewError> {
        {
            let mut entries = self.entries.lock();
            let entry = entries
                .get_mut(server)
                .filter(|e| e.status == McpStatus::Ready)
                .ok_or_else(|| McpReviewError::NotRunning(server.to_string()))?;
            let info = entry.tools.iter().find(|t| t.name == tool).ok_or_else(|| {
                AcceptError::NotUnderReview {
                    server: server.to_string(),
                    tool: tool.to_string(),
                }
            })?;
            let mut book = self.book.lock();
            book.0.accept(server, info, fingerprint)?;
            book.1 = true;
            entry.reviews.remove(tool);
        }
        self.notify();
        Ok(())
    }

    /// The first-sight review of a ready server (SPEC §12): its instructions and tools, what
    /// the scan flags in them (`others`: the names of every tool outside this server), and
    /// whether the user confirmed them as they are. `confirmed`: the user's effects per tool.
    pub fn server_review(
        &self,
        name: &str,
        others: &[&str],
        confirmed: &dyn Fn(&str) -> Option<tollgate_protocol::ToolEffects>,
    ) -> Option<tollgate_protocol::ServerReview> {
        use tollgate_protocol::{ReviewedTool, ServerReview};
        let entries = self.entries.lock();
        let entry = entries.get(name).filter(|e| e.status == McpStatus::Ready)?;
        let instructions = entry.identity.instructions.clone();
        let fingerprint = crate::review::texts_fingerprint(instructions.as_deref(), &entry.tools);
        let state = entry.review_state(&self.book.lock().0);
        let tools: Vec<ReviewedTool> = entry
            .tools
            .iter()
            .map(|info| {
                let tool = crate::tool_name(name, &info.name);
                ReviewedTool {
                    confirmed: confirmed(&tool),
                    name: tool,
                    remote: info.name.to_string(),
                    title: info.title.clone(),
                    description: info.description.as_deref().unwrap_or_default().to_string(),
                    input_schema: serde_json::Value::Object((*info.input_schema).clone()),
                    declared: crate::tool::effects_from_hints(info),
                }
            })
            .collect();
        let scanned: Vec<(&str, &str, &serde_json::Value)> = tools
            .iter()
            .map(|t| (t.remote.as_str(), t.description.as_str(), &t.input_schema))
            .collect();
        let findings = crate::scan::scan(instructions.as_deref(), &scanned, others);
        Some(ServerReview {
            server: name.to_string(),
            state,
            instructions,
            findings,
            fingerprint,
            tools,
        })
    }

    /// The user read the server's texts named by `fingerprint` and confirmed them (SPEC §12):
    /// they no longer expose the chats that offer them, until they change.
    pub fn confirm_server(&self, name: &str, fingerprint: &str) -> Result<(), McpReviewError> {
        {
            let entries = self.entries.lock();
            let entry = entries
                .get(name)
                .filter(|e| e.status == McpStatus::Ready)
                .ok_or_else(|| McpReviewError::NotRunning(name.to_string()))?;
            let now = crate::review::texts_fingerprint(
                entry.identity.instructions.as_deref(),
                &entry.tools,
            );
            if now != fingerprint {
                return Err(McpReviewError::TextsChanged(name.to_string()));
            }
            let mut book = self.book.lock();
            book.0.confirm(name, fingerprint);
            book.1 = true;
        }
        self.notify();
        Ok(())
    }
}
