//! From a stored configuration to a working provider: the key comes from the keychain (F-32),
//! and with no real provider configured the offline Demo is used (F-33).

use super::anthropic::AnthropicProvider;
use super::demo::DemoProvider;
use super::openai::OpenAiProvider;
use super::{Provider, ProviderError};
use std::sync::Arc;
use thiserror::Error;
use tollgate_protocol::Missing;
use tollgate_protocol::ProviderKind;
use tollgate_secrets::{provider_account, Keychain, SecretError};
use tollgate_store::{ProviderConfig, ProviderInput, Store, StoreError};

/// Where each kind of provider lives unless the user says otherwise.
pub fn default_base_url(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::OpenAi => "https://api.openai.com/v1",
        ProviderKind::Anthropic => "https://api.anthropic.com",
        ProviderKind::Demo => "",
    }
}

/// A provider's settings as they are stored: an empty base URL is the kind's default, the URL
/// must be http(s), and the name is never blank.
fn checked(mut input: ProviderInput) -> Result<ProviderInput, ConfigError> {
    input.base_url = input.base_url.trim().to_string();
    if input.base_url.is_empty() {
        input.base_url = default_base_url(input.kind).to_string();
    }
    if input.kind != ProviderKind::Demo {
        super::http::Endpoint::new(&input.base_url, "")?;
    }
    input.name = input.name.trim().to_string();
    if input.name.is_empty() {
        input.name = input.base_url.clone();
    }
    Ok(input)
}

/// Why a provider could not be set up.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Provider(#[from] ProviderError),
}

/// Provider configurations with their keys in the keychain.
#[derive(Clone)]
pub struct Providers {
    store: Store,
    keychain: Keychain,
}

impl Providers {
    pub fn new(store: Store, keychain: Keychain) -> Self {
        Self { store, keychain }
    }

    /// Adds a provider; an empty base URL takes the kind's default.
    pub async fn add(&self, input: ProviderInput) -> Result<ProviderConfig, ConfigError> {
        Ok(self.store.insert_provider(checked(input)?).await?)
    }

    /// Changes a provider's settings (its key stays where it is), checked as when added.
    pub async fn update(
        &self,
        id: i64,
        input: ProviderInput,
    ) -> Result<ProviderConfig, ConfigError> {
        self.store.update_provider(id, checked(input)?).await?;
        self.store
            .provider(id)
            .await?
            .ok_or_else(|| StoreError::NotFound(Missing::Provider { provider: id }).into())
    }

    /// Saves a provider's key in the keychain (never in the database). An empty key removes it.
    pub async fn save_key(&self, id: i64, key: &str) -> Result<(), ConfigError> {
        let key = key.trim();
        let account = provider_account(id);
        if key.is_empty() {
            self.keychain.delete(&account).await?;
            self.store.set_provider_has_key(id, false).await?;
            return Ok(());
        }
        self.keychain.set(&account, key).await?;
        self.store.set_provider_has_key(id, true).await?;
        Ok(())
    }

    /// Removes a provider and its key.
    pub async fn remove(&self, id: i64) -> Result<bool, ConfigError> {
        self.keychain.delete(&provider_account(id)).await?;
        Ok(self.store.delete_provider(id).await?)
    }

    /// The configuration of the provider a chat should use: its own if set, else the first
    /// configured; `None`: the Demo. The one rule [`Self::resolve`] and whoever names the
    /// chat's model follow.
    pub async fn chosen(
        &self,
        chat_provider: Option<i64>,
    ) -> Result<Option<ProviderConfig>, ConfigError> {
        let mut all = self.store.providers().await?;
        let at = chat_provider
            .and_then(|id| all.iter().position(|p| p.id == id))
            .unwrap_or(0);
        Ok((at < all.len()).then(|| all.swap_remove(at)))
    }

    /// The provider a chat should use ([`Self::chosen`]) and its default model.
    pub async fn resolve(
        &self,
        chat_provider: Option<i64>,
    ) -> Result<(Arc<dyn Provider>, String), ConfigError> {
        match self.chosen(chat_provider).await?.as_ref() {
            None => Ok((
                Arc::new(DemoProvider::default()),
                super::demo::DEMO_MODEL.to_string(),
            )),
            Some(cfg) => Ok((self.build(cfg).await?, cfg.default_model.clone())),
        }
    }

    /// Reads every stored provider key once, so that each is a known secret from the start
    /// ([`tollgate_secrets::redact_known`]): no tool result carries one, even a key of a provider
    /// not used since Tollgate started (F-46). A keychain that fails is logged, not fatal.
    pub async fn remember_keys(&self) {
        let configs = match self.store.providers().await {
            Ok(configs) => configs,
            Err(e) => {
                tracing::warn!("provider keys not read for redaction: {e}");
                return;
            }
        };
        for cfg in configs.iter().filter(|c| c.has_key) {
            if let Err(e) = self.keychain.get(&provider_account(cfg.id)).await {
                tracing::warn!("the key of provider {} not read for redaction: {e}", cfg.id);
            }
        }
    }

    /// A working provider for `cfg`, with its key from the keychain.
    pub async fn build(&self, cfg: &ProviderConfig) -> Result<Arc<dyn Provider>, ConfigError> {
        let key = if cfg.has_key {
            self.keychain
                .get(&provider_account(cfg.id))
                .await?
                .unwrap_or_default()
        } else {
            String::new()
        };
        Ok(match cfg.kind {
            ProviderKind::Demo => Arc::new(DemoProvider::default()),
            ProviderKind::OpenAi => Arc::new(OpenAiProvider {
                base_url: cfg.base_url.clone(),
                api_key: key.into(),
                tool_calling: cfg.tool_calling,
                request_style: cfg.options.request_style,
            }),
            ProviderKind::Anthropic => {
                if key.is_empty() {
                    return Err(ProviderError::Config(format!(
                        "\"{}\" has no API key yet: add it in Settings → Providers.",
                        cfg.name
                    ))
                    .into());
                }
                Arc::new(AnthropicProvider {
                    base_url: cfg.base_url.clone(),
                    api_key: key.into(),
                    thinking_budget: cfg.options.thinking_budget,
                })
            }
        })
    }
}
