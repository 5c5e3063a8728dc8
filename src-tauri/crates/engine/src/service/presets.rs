//! Presets ("assistants", F-58): listed and edited in Settings, chosen when a chat starts.

use super::chats::check_params;
use super::services::Presets;
use super::ServiceError;
use crate::protocol::{Invalid, Missing};
use crate::store::{ChatRow, NewChat, Preset, PresetInput};

impl Presets<'_> {
    pub async fn list_presets(&self) -> Result<Vec<Preset>, ServiceError> {
        Ok(self.app.store.preset_rows().presets().await?)
    }

    /// Adds (`id: None`) or changes a preset. It needs a name; its parameters are checked as a
    /// chat's are, and its provider must exist.
    pub async fn save_preset(
        &self,
        id: Option<i64>,
        mut input: PresetInput,
    ) -> Result<Preset, ServiceError> {
        input.name = input.name.trim().to_string();
        if input.name.is_empty() {
            return Err(ServiceError::Invalid(Invalid::PresetWithoutName));
        }
        input.system_prompt = input.system_prompt.trim().to_string();
        input.model = input.model.trim().to_string();
        check_params(input.params)?;
        if let Some(provider) = input.provider_id {
            if self.app.store.provider(provider).await?.is_none() {
                return Err(ServiceError::Invalid(Invalid::NoSuchProvider { provider }));
            }
        }
        Ok(self.app.store.preset_rows().save_preset(id, input).await?)
    }

    /// Removes a preset; `false` if there was none. Chats started from it keep their settings.
    pub async fn delete_preset(&self, id: i64) -> Result<bool, ServiceError> {
        Ok(self.app.store.preset_rows().delete_preset(id).await?)
    }

    /// Starts a chat from a preset: its prompt, provider, model and parameters, and its tool
    /// groups turned on or off for the chat. Groups that no longer exist are skipped.
    pub async fn create_chat_from_preset(&self, preset: i64) -> Result<ChatRow, ServiceError> {
        let p = self
            .app
            .store
            .preset_rows()
            .preset(preset)
            .await?
            .ok_or(ServiceError::NotFound(Missing::Preset { preset }))?
            .input;
        let provider_id = match p.provider_id {
            Some(id) if self.app.store.provider(id).await?.is_some() => Some(id),
            _ => None,
        };
        let row = self
            .app
            .store
            .create_chat(NewChat {
                title: String::new(),
                provider_id,
                model: p.model,
                system_prompt: p.system_prompt,
                workspace: None,
                params: p.params,
            })
            .await?;
        for (group, enabled) in p.groups {
            match self
                .app
                .gate()
                .set_chat_group_enabled(row.id, &group, Some(enabled))
                .await
            {
                Ok(()) => {}
                Err(e) => tracing::info!("preset {preset}: group {group} skipped: {e}"),
            }
        }
        self.app
            .store
            .chat(row.id)
            .await?
            .ok_or(ServiceError::NotFound(Missing::Chat { chat: row.id }))
    }
}
