//! Chats as the window uses them: list, create, rename, search, workspace, history and export
//! (F-50, F-55). Every command of the app reaches the engine through these methods.

use super::{ServiceError, Tollgate};
use crate::ids::ChatId;
use crate::store::{ChatRow, MessageRow, NewChat, RecordedCall, SearchHit};
use serde::{Deserialize, Serialize};

/// A chat's messages and recorded tool calls, to rebuild the timeline on open.
#[derive(ts_rs::TS, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatHistory {
    pub messages: Vec<MessageRow>,
    pub calls: Vec<RecordedCall>,
    /// A turn is running in this chat now (its events arrive on the turn's channel).
    pub running: bool,
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

impl Tollgate {
    pub async fn list_chats(&self) -> Result<Vec<ChatRow>, ServiceError> {
        Ok(self.store.list_chats().await?)
    }

    pub async fn create_chat(&self, chat: NewChat) -> Result<ChatRow, ServiceError> {
        Ok(self.store.create_chat(chat).await?)
    }

    /// Renames a chat; the title is trimmed and may not be empty.
    pub async fn rename_chat(&self, chat: ChatId, title: &str) -> Result<(), ServiceError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(ServiceError::Invalid(
                "a chat's title cannot be empty".into(),
            ));
        }
        Ok(self.store.rename_chat(chat, title.to_string()).await?)
    }

    pub async fn search_chats(&self, query: &str) -> Result<Vec<SearchHit>, ServiceError> {
        Ok(self.store.search_chats(query).await?)
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

    pub async fn chat_history(&self, chat: ChatId) -> Result<ChatHistory, ServiceError> {
        Ok(ChatHistory {
            messages: self.store.chat_messages(chat).await?,
            calls: self.store.chat_calls(chat).await?,
            running: self.is_running(chat),
        })
    }

    /// The chat as text in `format`.
    pub async fn export_chat(
        &self,
        chat: ChatId,
        format: ExportFormat,
    ) -> Result<String, ServiceError> {
        match format {
            ExportFormat::Markdown => Ok(crate::chat::export::markdown(&self.store, chat).await?),
            ExportFormat::Json => {
                let v = crate::chat::export::json(&self.store, chat).await?;
                serde_json::to_string_pretty(&v).map_err(|e| ServiceError::Store(e.into()))
            }
        }
    }
}
