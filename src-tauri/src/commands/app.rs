//! The window itself: the UI reports its first paint, which is logged as the start-up time (the
//! speed script in tests/ reads it).

/// Called once by the UI after its first frame is on screen.
#[tauri::command]
pub fn ui_ready() {
    tracing::info!(
        "first paint {} ms after start",
        crate::started().elapsed().as_millis()
    );
}
