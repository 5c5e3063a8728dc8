//! Chats as the window uses them: list, create, rename, search, workspace, history and export
//! (F-50, F-55). Every command of the app reaches the engine through these methods.

use super::services::Chats;
use super::{ServiceError, Tollgate};
use crate::ids::ChatId;
use crate::protocol::{Invalid, Missing, TaskState};
use crate::store::{
    BranchEnd, ChatCursor, ChatParams, ChatRow, MessageRow, NewChat, RecordedCall, SearchHit,
};
use serde::{Deserialize, Serialize};

/// A chat's messages and recorded tool calls, to rebuild the timeline on open.
#[derive(ts_rs::TS, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatHistory {
    pub messages: Vec<MessageRow>,
    pub calls: Vec<RecordedCall>,
    /// A turn is running in this chat now (its events arrive on the turn's channel).
    pub running: bool,
    /// The chat's revision when it was read: the history is at least this new. A window that
    /// holds it asks for the revision (`chat_revision`) before reading the chat again.
    pub revision: i64,
    /// When the branch has messages before these: the first of these, the `before` that reads
    /// the page before them. `null`: the history reaches the chat's first message.
    pub earlier: Option<i64>,
    /// The task grant in force in the chat (F-98), which its header shows while it lasts.
    pub task: Option<TaskState>,
}

/// How many messages a window reads first when it opens a chat: more than its first screen
/// shows (with the list's overscan), and a few tens of kilobytes where the whole of a
/// 5,000-message chat is megabytes (F-71).
pub const HISTORY_FIRST_PAGE: usize = 60;

/// How many messages each later page reads: large enough that a 10,000-message chat comes in
/// about 40 reads, small enough that taking one in stays well within a frame.
pub const HISTORY_PAGE: usize = 250;

/// Whether a chat changed since a window read it: its revision now, and whether a turn runs.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatRevision {
    pub revision: i64,
    pub running: bool,
    /// Calls waiting for the user's answer: a chat with no turn has them when a server's view
    /// made a call (F-96), and they change nothing in its revision.
    pub waiting: u32,
}

/// What an export writes.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// For reading.
    Markdown,
    /// With every tool call, for tools.
    Json,
}

impl ExportFormat {
    /// The file extension an export of this format is saved with.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::Json => "json",
        }
    }
}

/// Refuses request parameters no provider takes: a temperature outside 0–2, an answer of 0
/// tokens.
pub(super) fn check_params(params: ChatParams) -> Result<(), ServiceError> {
    if let Some(t) = params.temperature {
        if !(0.0..=2.0).contains(&t) {
            return Err(ServiceError::Invalid(Invalid::Temperature { value: t }));
        }
    }
    if params.max_tokens == Some(0) {
        return Err(ServiceError::Invalid(Invalid::MaxTokens));
    }
    Ok(())
}

/// What the save dialog of an export offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportTarget {
    pub file_name: String,
    pub folder: Option<std::path::PathBuf>,
}

/// A chat title as a file name every system accepts: no path separators, reserved characters or
/// control characters, no leading dots, at most 80 characters; "chat" when nothing is left.
pub fn export_file_name(title: &str, format: ExportFormat) -> String {
    let mut name = String::new();
    let mut last_was_gap = false;
    for c in title.trim().chars() {
        let bad =
            c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|');
        if bad {
            if !last_was_gap {
                name.push('_');
            }
            last_was_gap = true;
        } else {
            name.push(c);
            last_was_gap = false;
        }
    }
    let name: String = name
        .trim_start_matches('.')
        .trim()
        .chars()
        .take(80)
        .collect();
    let name = if name.trim_matches('_').is_empty() {
        "chat".to_string()
    } else {
        name
    };
    format!("{name}.{}", format.extension())
}

impl Tollgate {
    pub async fn list_chats(&self) -> Result<Vec<ChatRow>, ServiceError> {
        Ok(self.store.list_chats().await?)
    }

    /// A page of the sidebar: at most `limit` (1 to 500) chats after `after`, newest first.
    pub async fn list_chats_page(
        &self,
        after: Option<ChatCursor>,
        limit: u32,
    ) -> Result<Vec<ChatRow>, ServiceError> {
        let limit = limit.clamp(1, 500) as usize;
        Ok(self.store.list_chats_page(after, limit).await?)
    }

    /// One chat (`None` once deleted): the one on screen when it is not on a loaded page.
    pub async fn chat(&self, chat: ChatId) -> Result<Option<ChatRow>, ServiceError> {
        Ok(self.store.chat(chat).await?)
    }

    pub async fn create_chat(&self, chat: NewChat) -> Result<ChatRow, ServiceError> {
        Ok(self.store.create_chat(chat).await?)
    }

    /// Renames a chat; the title is trimmed and may not be empty.
    pub async fn rename_chat(&self, chat: ChatId, title: &str) -> Result<(), ServiceError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(ServiceError::Invalid(Invalid::EmptyTitle));
        }
        Ok(self.store.rename_chat(chat, title.to_string()).await?)
    }

    pub async fn search_chats(&self, query: &str) -> Result<Vec<SearchHit>, ServiceError> {
        Ok(self.store.search_index().search_chats(query).await?)
    }

    /// Sets (or with `None` or a blank path, clears) the folder the chat's file and shell tools
    /// are confined to.
    pub async fn set_chat_workspace(
        &self,
        chat: ChatId,
        workspace: Option<String>,
    ) -> Result<(), ServiceError> {
        let workspace = workspace.filter(|w| !w.trim().is_empty()).map(Into::into);
        Ok(self.executor(chat).await?.set_workspace(workspace).await?)
    }

    /// The chat's revision and whether a turn runs in it: what a window holding the chat checks
    /// on opening it again, instead of reading its history (a 5,000-message chat is megabytes).
    pub async fn chat_revision(&self, chat: ChatId) -> Result<ChatRevision, ServiceError> {
        let revision = self
            .store
            .chat_revision(chat)
            .await?
            .ok_or(ServiceError::NotFound(Missing::Chat { chat }))?;
        Ok(ChatRevision {
            revision,
            running: self.is_running(chat),
            waiting: u32::try_from(self.asks().pending(chat).len()).unwrap_or(u32::MAX),
        })
    }

    /// The chat as text in `format`.
    /// Sets the chat's system prompt, temperature and answer length (F-58); the next turn uses
    /// them. A temperature outside 0–2 or a length of 0 is refused.
    pub async fn set_chat_prompt(
        &self,
        chat: ChatId,
        system_prompt: &str,
        params: ChatParams,
    ) -> Result<(), ServiceError> {
        check_params(params)?;
        if self.store.chat(chat).await?.is_none() {
            return Err(ServiceError::NotFound(Missing::Chat { chat }));
        }
        Ok(self
            .store
            .set_chat_prompt(chat, system_prompt.trim().to_string(), params)
            .await?)
    }
}

impl Chats<'_> {
    /// The branch on screen (`before: None`) or the ancestors of message `before`: the last
    /// `limit` messages (all when `None`) back to the start of their turn, and the calls recorded
    /// for them. A window reads a long chat's last page first and the pages before it after its
    /// first screen is painted (F-71).
    pub async fn chat_history(
        &self,
        chat: ChatId,
        before: Option<i64>,
        limit: Option<usize>,
    ) -> Result<ChatHistory, ServiceError> {
        // Read before the rows: a write between the two makes the rows newer than the revision
        // (the next check reads them again), never older.
        let revision = self
            .app
            .store
            .chat_revision(chat)
            .await?
            .ok_or(ServiceError::NotFound(Missing::Chat { chat }))?;
        let end = before.map_or(BranchEnd::Leaf, BranchEnd::Before);
        let page = self
            .app
            .store
            .branches()
            .branch_page(chat, end, limit)
            .await?;
        let calls = match (page.messages.first(), page.messages.last()) {
            (Some(first), Some(last)) => {
                let on_branch: std::collections::HashSet<i64> =
                    page.messages.iter().map(|m| m.id).collect();
                let mut calls = self
                    .app
                    .store
                    .calls()
                    .chat_calls_between(chat, first.id, last.id, before.is_none())
                    .await?;
                // Other branches' calls stay with their branch (F-56).
                calls.retain(|c| c.message_id.is_none_or(|id| on_branch.contains(&id)));
                calls
            }
            // A chat without messages may still hold calls recorded under none.
            _ if before.is_none() => {
                let mut calls = self.app.store.calls().chat_calls(chat).await?;
                calls.retain(|c| c.message_id.is_none());
                calls
            }
            _ => Vec::new(),
        };
        Ok(ChatHistory {
            messages: page.messages,
            calls,
            running: self.app.is_running(chat),
            revision,
            earlier: page.earlier,
            task: self.app.task(chat).await,
        })
    }

    /// Imports the chats in an export file (F-62): Tollgate's own JSON or ChatGPT's
    /// `conversations.json`. Each becomes a new chat; they are returned newest first.
    pub async fn import_chats(&self, bytes: &[u8]) -> Result<Vec<ChatRow>, ServiceError> {
        let chats = crate::chat::import::parse(bytes).map_err(|e| {
            ServiceError::Invalid(Invalid::Import {
                reason: e.to_string(),
            })
        })?;
        let mut rows = Vec::with_capacity(chats.len());
        for chat in chats {
            rows.push(self.app.store.import_chat(chat).await?);
        }
        rows.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
        Ok(rows)
    }

    /// Where the save dialog starts for an export of `chat`: its title as the file name, in its
    /// workspace folder if it has one.
    pub async fn export_target(
        &self,
        chat: ChatId,
        format: ExportFormat,
    ) -> Result<ExportTarget, ServiceError> {
        let row = self
            .app
            .store
            .chat(chat)
            .await?
            .ok_or(ServiceError::NotFound(Missing::Chat { chat }))?;
        Ok(ExportTarget {
            file_name: export_file_name(&row.title, format),
            folder: row
                .workspace
                .map(std::path::PathBuf::from)
                .filter(|p| p.is_dir()),
        })
    }

    /// Writes the export of `chat` to `path`, the file the user chose (F-55). It is written to a
    /// temporary file beside it and then renamed over it, so a failed write never leaves half an
    /// export, nor damages a file that was there.
    pub async fn export_chat_to(
        &self,
        chat: ChatId,
        format: ExportFormat,
        path: &std::path::Path,
    ) -> Result<(), ServiceError> {
        let text = self.export_chat(chat, format).await?;
        let target = path.to_path_buf();
        let failed = |source: std::io::Error| ServiceError::Write {
            path: path.display().to_string(),
            source,
        };
        tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            let dir = target
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let mut file = tempfile::NamedTempFile::new_in(dir)?;
            std::io::Write::write_all(&mut file, text.as_bytes())?;
            file.as_file().sync_all()?;
            file.persist(&target).map_err(|e| e.error)?;
            Ok(())
        })
        .await
        .map_err(|e| failed(std::io::Error::other(e.to_string())))?
        .map_err(failed)
    }

    pub async fn export_chat(
        &self,
        chat: ChatId,
        format: ExportFormat,
    ) -> Result<String, ServiceError> {
        match format {
            ExportFormat::Markdown => {
                Ok(crate::chat::export::markdown(&self.app.store, chat).await?)
            }
            ExportFormat::Json => {
                let v = crate::chat::export::json(&self.app.store, chat).await?;
                serde_json::to_string_pretty(&v).map_err(|e| ServiceError::Store(e.into()))
            }
        }
    }

    /// Stops call `seq` of `chat` if its tool runs now (the user's Stop on its card); the turn
    /// goes on. Whether such a call was running.
    pub async fn stop_call(&self, chat: ChatId, seq: u64) -> bool {
        match self.app.open_executor(chat).await {
            Some(exec) => exec.under_way().stop(seq),
            None => false,
        }
    }

    /// Deletes a chat: stops its turn and closes its executor first.
    pub async fn delete_chat(&self, chat: ChatId) -> Result<(), ServiceError> {
        self.app.stop(chat);
        if let Some(exec) = self.app.executors.lock().await.remove(&chat) {
            // Its calls going on as tasks end with it, on their servers too (F-99).
            exec.under_way().stop_all();
        }
        self.app.store.delete_chat(chat).await?;
        self.app.rules.forget_chat(chat);
        self.app.purger.notify_one();
        Ok(())
    }

    /// Switches the chat to another provider and/or model; the next turn uses them.
    pub async fn set_chat_model(
        &self,
        chat: ChatId,
        provider_id: Option<i64>,
        model: &str,
    ) -> Result<(), ServiceError> {
        if let Some(id) = provider_id {
            if !self.app.store.providers().await?.iter().any(|p| p.id == id) {
                return Err(ServiceError::Invalid(Invalid::NoSuchProvider {
                    provider: id,
                }));
            }
        }
        Ok(self
            .app
            .store
            .set_chat_model(chat, provider_id, model.trim().to_string())
            .await?)
    }
}
