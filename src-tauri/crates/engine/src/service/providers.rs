//! The model providers as the settings' Providers page uses them: the list, adding, editing and
//! removing one, its key (kept in the keychain, never in the database), the local servers found
//! on this machine and a provider's models (F-30, F-54).

use super::services::ModelProviders;
use super::ServiceError;
use crate::protocol::Missing;
use crate::providers::local::{self, LocalServer};
use crate::store::{ProviderConfig, ProviderInput};

impl ModelProviders<'_> {
    pub async fn list_providers(&self) -> Result<Vec<ProviderConfig>, ServiceError> {
        Ok(self.app.store.providers().await?)
    }

    /// Adds a provider; an empty base URL takes the kind's default.
    pub async fn add_provider(&self, input: ProviderInput) -> Result<ProviderConfig, ServiceError> {
        Ok(self.app.providers.add(input).await?)
    }

    /// Changes a provider's name, address, model, tool calling and options; its key stays.
    pub async fn update_provider(
        &self,
        provider: i64,
        input: ProviderInput,
    ) -> Result<ProviderConfig, ServiceError> {
        Ok(self.app.providers.update(provider, input).await?)
    }

    /// Model servers running on this computer (Ollama, LM Studio, llama.cpp) with their
    /// models, found on their usual ports (F-34).
    pub async fn detect_local_servers(&self) -> Vec<LocalServer> {
        local::detect(&local::default_candidates()).await
    }

    /// Saves a provider's key in the keychain (never in the database); the key never comes
    /// back to the window. An empty key removes it.
    pub async fn save_provider_key(&self, provider: i64, key: &str) -> Result<(), ServiceError> {
        Ok(self.app.providers.save_key(provider, key).await?)
    }

    /// Removes a provider and its key; `false` if there was none with this id.
    pub async fn remove_provider(&self, provider: i64) -> Result<bool, ServiceError> {
        Ok(self.app.providers.remove(provider).await?)
    }

    /// The provider's models; also serves as "test connection".
    pub async fn list_models(&self, provider: i64) -> Result<Vec<String>, ServiceError> {
        let cfg = self
            .app
            .store
            .provider(provider)
            .await?
            .ok_or_else(|| ServiceError::NotFound(Missing::Provider { provider }))?;
        let built = self.app.providers.build(&cfg).await?;
        Ok(built.models().await?)
    }
}
