//! The user's settings: the general ones (theme, language, what a turn runs with) and the tool
//! settings (groups, policies), each saved at once (F-53, F-54).

use super::services::Preferences;
use super::{AppSettings, ServiceError, APP_SETTINGS_KEY};
use crate::protocol::Invalid;
use crate::protocol::{ToolSettings, TOOL_SETTINGS_KEY};

impl Preferences<'_> {
    /// The general settings.
    pub fn app_settings(&self) -> AppSettings {
        self.app.app_settings.read().clone()
    }

    /// Saves the general settings.
    pub async fn set_app_settings(&self, settings: AppSettings) -> Result<(), ServiceError> {
        self.app
            .store
            .set_setting(APP_SETTINGS_KEY, &settings)
            .await?;
        *self.app.app_settings.write() = settings;
        Ok(())
    }

    /// The tool settings.
    pub fn tool_settings(&self) -> ToolSettings {
        self.app.settings.read().clone()
    }

    /// Saves the tool settings; every open chat sees them at its next call.
    /// Saves the tool settings the caller read (at their `revision`) and changed; answers them
    /// as saved, at the next revision. Refused when they were saved meanwhile from another
    /// copy (`Invalid::SettingsChanged`): a stale copy never overwrites a newer confirmation.
    pub async fn set_tool_settings(
        &self,
        mut settings: ToolSettings,
    ) -> Result<ToolSettings, ServiceError> {
        {
            let mut current = self.app.settings.write();
            if settings.revision != current.revision {
                return Err(ServiceError::Invalid(Invalid::SettingsChanged));
            }
            settings.revision = current.revision.wrapping_add(1);
            *current = settings.clone();
        }
        self.app
            .store
            .set_setting(TOOL_SETTINGS_KEY, &settings)
            .await?;
        Ok(settings)
    }
}
