//! The window itself: the UI reports its first paint, which is logged as the start-up time (the
//! speed script in tests/ reads it); the log folder for Settings → General.

use tauri::Runtime;
use tauri_plugin_opener::OpenerExt;
use tollgate_protocol::{CommandError, ErrorKind};

/// Called once by the UI after its first frame is on screen; then the work the first paint
/// need not wait for begins ([`crate::after_first_paint`]).
/// `page_ms` is how long after the page's own start (`performance.now()`) that frame was: the
/// rest of the start-up time is the process, GTK and WebKit starting before the page loads.
#[tauri::command]
pub fn ui_ready(state: tauri::State<'_, crate::state::AppState>, page_ms: f64) {
    tracing::info!(
        "first paint {} ms after start ({page_ms:.0} ms of it in the page)",
        crate::started().elapsed().as_millis()
    );
    crate::after_first_paint(&state.app);
}

/// The folder the log file is written to, or `None` when the log goes to standard error only.
#[tauri::command]
pub fn log_folder() -> Option<String> {
    crate::logs::current_folder().map(|p| p.display().to_string())
}

/// Opens the log folder in the system's file manager.
#[tauri::command]
pub fn open_log_folder<R: Runtime>(app: tauri::AppHandle<R>) -> Result<(), CommandError> {
    let folder = crate::logs::current_folder().ok_or_else(|| {
        CommandError::new(
            ErrorKind::NotFound,
            "Tollgate writes no log file in this run.",
        )
    })?;
    app.opener()
        .open_path(folder.display().to_string(), None::<&str>)
        .map_err(|e| {
            CommandError::new(
                ErrorKind::Internal,
                format!(
                    "The log folder {} could not be opened: {e}",
                    folder.display()
                ),
            )
        })
}
