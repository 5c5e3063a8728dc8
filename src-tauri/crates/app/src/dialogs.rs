//! Native dialogs opened from Rust: the save dialog of an export (F-55) and the open dialog of an
//! import (F-62). The window asks for an export or an import; which file is the user's answer to
//! the dialog, never the window's.

use std::path::PathBuf;
use tauri::{AppHandle, Manager, Runtime};
use tollgate_engine::service::{ExportFormat, ExportTarget};
use tollgate_protocol::{CommandError, ErrorKind};

/// Asks where to save an export; `None` if the user cancelled. Starts in the chat's workspace,
/// else the Downloads folder, with the chat's title as the file name.
pub async fn save_file<R: Runtime>(
    app: &AppHandle<R>,
    target: &ExportTarget,
    format: ExportFormat,
) -> Result<Option<PathBuf>, CommandError> {
    let (title, filter) = match format {
        ExportFormat::Markdown => ("Export chat as Markdown", "Markdown"),
        ExportFormat::Json => ("Export chat as JSON", "JSON"),
    };
    let mut dialog = file_dialog(app)?
        .set_title(title)
        .set_file_name(&target.file_name)
        .add_filter(filter, &[format.extension()]);
    if let Some(folder) = target
        .folder
        .clone()
        .or_else(|| app.path().download_dir().ok())
    {
        dialog = dialog.set_directory(folder);
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    dialog.save_file(move |chosen| {
        let _ = tx.send(chosen);
    });
    chosen_path(rx, "written to").await
}

/// The path the user chose in a dialog; `None` if they cancelled.
async fn chosen_path(
    rx: tokio::sync::oneshot::Receiver<Option<tauri_plugin_dialog::FilePath>>,
    use_: &str,
) -> Result<Option<PathBuf>, CommandError> {
    let Some(chosen) = rx.await.ok().flatten() else {
        return Ok(None);
    };
    chosen.into_path().map(Some).map_err(|e| {
        CommandError::new(
            ErrorKind::Invalid,
            format!("the chosen file cannot be {use_}: {e}"),
        )
    })
}

/// A file dialog over the main window. The dialog plugin's state is missing only where the app
/// was built without it (tests on the mock runtime): then the command fails instead of panicking.
fn file_dialog<R: Runtime>(
    app: &AppHandle<R>,
) -> Result<tauri_plugin_dialog::FileDialogBuilder<R>, CommandError> {
    let dialogs = app
        .try_state::<tauri_plugin_dialog::Dialog<R>>()
        .ok_or_else(|| CommandError::new(ErrorKind::Internal, "file dialogs are not available"))?;
    let mut dialog = dialogs.file();
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.set_parent(&window);
    }
    Ok(dialog)
}

/// Asks which export file to import; `None` if the user cancelled. Starts in Downloads, where
/// exports usually land.
pub async fn open_import_file<R: Runtime>(
    app: &AppHandle<R>,
) -> Result<Option<PathBuf>, CommandError> {
    let mut dialog = file_dialog(app)?
        .set_title("Import chats")
        .add_filter("Chat exports (JSON)", &["json"]);
    if let Ok(folder) = app.path().download_dir() {
        dialog = dialog.set_directory(folder);
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    dialog.pick_file(move |chosen| {
        let _ = tx.send(chosen);
    });
    chosen_path(rx, "read").await
}
