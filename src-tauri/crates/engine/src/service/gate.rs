//! The gate's settings as the window uses them: tool groups app-wide and per chat, rules and
//! ask-once records, providers, and the settings view (F-03, F-04, F-30, F-53, F-54).

use super::services::Gate;
use super::{AppSettings, ServiceError};
use crate::executor::group_views;
use crate::ids::ChatId;
use crate::protocol::Rule;
use crate::protocol::{ChatToolOverrides, GroupView, ToolSettings};

use crate::store::ApprovalRecordRow;
use serde::Serialize;

/// Both kinds of user settings, as the settings screen reads them at once: [`AppSettings`]
/// (which holds `chat::TurnSettings`, what a turn runs with) and [`ToolSettings`].
#[derive(ts_rs::TS, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub app: AppSettings,
    pub tools: ToolSettings,
}

impl Gate<'_> {
    pub fn settings_view(&self) -> SettingsView {
        SettingsView {
            app: self.app.preferences().app_settings(),
            tools: self.app.preferences().tool_settings(),
        }
    }

    /// Every tool group with its tools, policies and app-wide toggles. The app-wide view shows
    /// every group's default, as in a chat with a workspace.
    pub fn tool_groups(&self) -> Vec<GroupView> {
        group_views(
            &self.app.registry(),
            &self.app.settings.read(),
            &ChatToolOverrides::default(),
            true,
        )
    }

    /// The groups as one chat sees them (its own toggles applied).
    pub async fn chat_tool_groups(&self, chat: ChatId) -> Result<Vec<GroupView>, ServiceError> {
        Ok(self.app.executor(chat).await?.toolbox().group_views())
    }

    /// Turns a group on or off in one chat (`None`: follow the app-wide setting).
    pub async fn set_chat_group_enabled(
        &self,
        chat: ChatId,
        group: &str,
        enabled: Option<bool>,
    ) -> Result<(), ServiceError> {
        Ok(self
            .app
            .executor(chat)
            .await?
            .toolbox()
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
            .app
            .executor(chat)
            .await?
            .toolbox()
            .set_tool_enabled(tool, enabled)
            .await?)
    }

    pub fn list_rules(&self) -> Vec<Rule> {
        self.app.rules.list()
    }

    /// Removes a rule; `false` if there was none with this id.
    pub async fn revoke_rule(&self, id: i64) -> Result<bool, ServiceError> {
        Ok(self.app.rules.remove(id).await?)
    }

    pub async fn list_records(&self, chat: ChatId) -> Result<Vec<ApprovalRecordRow>, ServiceError> {
        Ok(self.app.store.gate_records().approval_records(chat).await?)
    }

    /// Forgets an ask-once answer, so the identical call asks again.
    pub async fn revoke_record(
        &self,
        chat: ChatId,
        tool: &str,
        args_hash: &str,
    ) -> Result<bool, ServiceError> {
        Ok(self
            .app
            .executor(chat)
            .await?
            .asks()
            .revoke_record(tool, args_hash)
            .await?)
    }
}
