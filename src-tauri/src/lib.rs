//! Tollgate's desktop app: thin glue between the engine and the window.
//!
//! Everything with behaviour lives in `tollgate-engine`; this crate opens the database in the
//! app-data folder, builds the shared engine state and exposes it to the UI as Tauri commands.

pub mod commands;
pub mod state;

use state::AppState;
use tauri::Manager;

/// Errors that stop the app from starting.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Tauri(#[from] tauri::Error),
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TOLLGATE_LOG").unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("warn,tollgate=info,tollgate_engine=info")
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .try_init();
}

/// Builds and runs the app until its window closes.
pub fn run() -> Result<(), StartError> {
    init_logging();
    tauri::Builder::default()
        .setup(|app| {
            let default_dir = app.path().app_data_dir()?;
            let data_dir = tollgate_engine::store::data_dir(default_dir);
            let state = tauri::async_runtime::block_on(AppState::open(&data_dir))?;
            tracing::info!("data folder: {}", data_dir.display());
            app.manage(state);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![commands::tools::list_tool_groups])
        .run(tauri::generate_context!())?;
    Ok(())
}
