//! Providers (F-30 … F-33): configurations here, keys only in the keychain.

use crate::state::AppState;
use tauri::State;
use tollgate_protocol::CommandError;
use tollgate_providers::local::LocalServer;
use tollgate_store::{ProviderConfig, ProviderInput};

#[tauri::command]
pub async fn list_providers(
    state: State<'_, AppState>,
) -> Result<Vec<ProviderConfig>, CommandError> {
    Ok(state.app.model_providers().list_providers().await?)
}

#[tauri::command]
pub async fn add_provider(
    state: State<'_, AppState>,
    provider: ProviderInput,
) -> Result<ProviderConfig, CommandError> {
    Ok(state.app.model_providers().add_provider(provider).await?)
}

/// Changes a provider's settings; its key stays in the keychain.
#[tauri::command]
pub async fn update_provider(
    state: State<'_, AppState>,
    id: i64,
    provider: ProviderInput,
) -> Result<ProviderConfig, CommandError> {
    Ok(state
        .app
        .model_providers()
        .update_provider(id, provider)
        .await?)
}

/// Model servers running on this computer, with their models (F-34).
#[tauri::command]
pub async fn detect_local_servers(
    state: State<'_, AppState>,
) -> Result<Vec<LocalServer>, CommandError> {
    Ok(state.app.model_providers().detect_local_servers().await)
}

/// Saves the key to the keychain; the key never comes back to the UI.
#[tauri::command]
pub async fn save_provider_key(
    state: State<'_, AppState>,
    id: i64,
    key: String,
) -> Result<(), CommandError> {
    Ok(state
        .app
        .model_providers()
        .save_provider_key(id, &key)
        .await?)
}

#[tauri::command]
pub async fn remove_provider(state: State<'_, AppState>, id: i64) -> Result<bool, CommandError> {
    Ok(state.app.model_providers().remove_provider(id).await?)
}

/// The provider's models; also serves as "test connection".
#[tauri::command]
pub async fn list_models(state: State<'_, AppState>, id: i64) -> Result<Vec<String>, CommandError> {
    Ok(state.app.model_providers().list_models(id).await?)
}
