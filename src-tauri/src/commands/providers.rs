//! Providers (F-30 … F-33): configurations here, keys only in the keychain.

use crate::state::{message, AppState};
use tauri::State;
use tollgate_engine::store::{ProviderConfig, ProviderInput};

#[tauri::command]
pub async fn list_providers(state: State<'_, AppState>) -> Result<Vec<ProviderConfig>, String> {
    state.app.store.providers().await.map_err(message)
}

#[tauri::command]
pub async fn add_provider(
    state: State<'_, AppState>,
    provider: ProviderInput,
) -> Result<ProviderConfig, String> {
    state.app.providers.add(provider).await.map_err(message)
}

/// Saves the key to the keychain; the key never comes back to the UI.
#[tauri::command]
pub async fn save_provider_key(
    state: State<'_, AppState>,
    id: i64,
    key: String,
) -> Result<(), String> {
    state
        .app
        .providers
        .save_key(id, &key)
        .await
        .map_err(message)
}

#[tauri::command]
pub async fn remove_provider(state: State<'_, AppState>, id: i64) -> Result<bool, String> {
    state.app.providers.remove(id).await.map_err(message)
}

/// The provider's models; also serves as "test connection".
#[tauri::command]
pub async fn list_models(state: State<'_, AppState>, id: i64) -> Result<Vec<String>, String> {
    let cfg = state
        .app
        .store
        .provider(id)
        .await
        .map_err(message)?
        .ok_or_else(|| format!("provider {id} does not exist"))?;
    let provider = state.app.providers.build(&cfg).await.map_err(message)?;
    provider.models().await.map_err(message)
}
