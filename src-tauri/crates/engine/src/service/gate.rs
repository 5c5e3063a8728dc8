//! The gate's settings as the window uses them: tool groups app-wide and per chat, rules and
//! ask-once records, providers, and the settings view (F-03, F-04, F-30, F-53, F-54).

use super::{AppSettings, ServiceError, Tollgate};
use crate::executor::group_views;
use crate::ids::ChatId;
use crate::protocol::Missing;
use crate::protocol::Rule;
use crate::protocol::{ChatToolOverrides, GroupView, ToolSettings};
use crate::providers::local::{self, LocalServer};
use crate::store::{ApprovalRecordRow, ProviderConfig, ProviderInput};
use serde::Serialize;

/// Both kinds of user settings, as the settings screen reads them at once: [`AppSettings`]
/// (which holds `chat::TurnSettings`, what a turn runs with) and [`ToolSettings`].
#[derive(ts_rs::TS, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub app: AppSettings,
    pub tools: ToolSettings,
}

impl Tollgate {
    pub fn settings_view(&self) -> SettingsView {
        SettingsView {
            app: self.app_settings(),
            tools: self.tool_settings(),
        }
    }

    /// Every tool group with its tools, policies and app-wide toggles. The app-wide view shows
    /// every group's default, as in a chat with a workspace.
    pub fn tool_groups(&self) -> Vec<GroupView> {
        group_views(
            &self.registry(),
            &self.settings.read(),
            &ChatToolOverrides::default(),
            true,
        )
    }

    /// The groups as one chat sees them (its own toggles applied).
    pub async fn chat_tool_groups(&self, chat: ChatId) -> Result<Vec<GroupView>, ServiceError> {
        Ok(self.executor(chat).await?.group_views())
    }

    /// Turns a group on or off in one chat (`None`: follow the app-wide setting).
    pub async fn set_chat_group_enabled(
        &self,
        chat: ChatId,
        group: &str,
        enabled: Option<bool>,
    ) -> Result<(), ServiceError> {
        Ok(self
            .executor(chat)
            .await?
            .set_group_enabled(group, enabled)
            .await?)
    }

    /// Turns a tool on or off in one chat (`None`: follow the app-wide setting).
    pub async fn set_chat_tool_enabled(
        &self,
        chat: ChatId,
        tool: &str,
        enabled: Option<bool>,
    ) -> Result<(), ServiceError> {
        Ok(self
            .executor(chat)
            .await?
            .set_tool_enabled(tool, enabled)
            .await?)
    }

    pub fn list_rules(&self) -> Vec<Rule> {
        self.rules.list()
    }

    /// Removes a rule; `false` if there was none with this id.
    pub async fn revoke_rule(&self, id: i64) -> Result<bool, ServiceError> {
        Ok(self.rules.remove(id).await?)
    }

    pub async fn list_records(&self, chat: ChatId) -> Result<Vec<ApprovalRecordRow>, ServiceError> {
        Ok(self.store.approval_records(chat).await?)
    }

    /// Forgets an ask-once answer, so the identical call asks again.
    pub async fn revoke_record(
        &self,
        chat: ChatId,
        tool: &str,
        args_hash: &str,
    ) -> Result<bool, ServiceError> {
        Ok(self
            .executor(chat)
            .await?
            .revoke_record(tool, args_hash)
            .await?)
    }

    pub async fn list_providers(&self) -> Result<Vec<ProviderConfig>, ServiceError> {
        Ok(self.store.providers().await?)
    }

    /// Adds a provider; an empty base URL takes the kind's default.
    pub async fn add_provider(&self, input: ProviderInput) -> Result<ProviderConfig, ServiceError> {
        Ok(self.providers.add(input).await?)
    }

    /// Changes a provider's name, address, model, tool calling and options; its key stays.
    pub async fn update_provider(
        &self,
        provider: i64,
        input: ProviderInput,
    ) -> Result<ProviderConfig, ServiceError> {
        Ok(self.providers.update(provider, input).await?)
    }

    /// Model servers running on this computer (Ollama, LM Studio, llama.cpp) with their
    /// models, found on their usual ports (F-34).
    pub async fn detect_local_servers(&self) -> Vec<LocalServer> {
        local::detect(&local::default_candidates()).await
    }

    /// Saves a provider's key in the keychain (never in the database); the key never comes
    /// back to the window. An empty key removes it.
    pub async fn save_provider_key(&self, provider: i64, key: &str) -> Result<(), ServiceError> {
        Ok(self.providers.save_key(provider, key).await?)
    }

    /// Removes a provider and its key; `false` if there was none with this id.
    pub async fn remove_provider(&self, provider: i64) -> Result<bool, ServiceError> {
        Ok(self.providers.remove(provider).await?)
    }

    /// The provider's models; also serves as "test connection".
    pub async fn list_models(&self, provider: i64) -> Result<Vec<String>, ServiceError> {
        let cfg = self
            .store
            .provider(provider)
            .await?
            .ok_or_else(|| ServiceError::NotFound(Missing::Provider { provider }))?;
        let built = self.providers.build(&cfg).await?;
        Ok(built.models().await?)
    }
}
