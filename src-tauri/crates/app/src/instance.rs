//! One window per data folder (F-59): a second launch brings the running window forward instead
//! of opening the same database twice; the window's size and position are remembered.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tauri::plugin::TauriPlugin;
use tauri::{Manager, Runtime, Window, WindowEvent};
use tauri_plugin_window_state::{AppHandleExt, StateFlags};
use tollgate_store::chosen_data_dir;

/// What is remembered of the window: not whether it is visible or decorated.
fn remembered() -> StateFlags {
    StateFlags::SIZE | StateFlags::POSITION | StateFlags::MAXIMIZED
}

/// The single-instance plugin. With `TOLLGATE_DATA_DIR` set, "the same instance" means the
/// same data folder (its own D-Bus name on Linux), so apps on different folders run side by side.
pub fn single_instance<R: Runtime>() -> TauriPlugin<R> {
    let mut builder = tauri_plugin_single_instance::Builder::new()
        .callback(|app, _argv, _cwd| crate::attention::show_window(app));
    if let Some(dir) = chosen_data_dir() {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        dir.hash(&mut hasher);
        builder = builder.dbus_id(format!("app.tollgate.data{:016x}", hasher.finish()));
    }
    builder.build()
}

/// How many times a launch starts again after the instance it handed over to went away.
pub const START_AGAIN_LIMIT: u32 = 3;
/// Counts a launch's starts again across the `exec`s (see [`vanished_while_handing_over`]).
pub const START_AGAIN_ENV: &str = "TOLLGATE_START_AGAIN";

/// Whether a launch failed because the instance it handed over to quit at that very moment
/// (the user reopened the app while it was closing): the single-instance plugin found the name
/// on the session bus taken, forwarded the launch, and its owner left without answering. By
/// then the name is free, so starting again makes this launch the instance. The plugin gives no
/// typed error for it, only these words.
pub fn vanished_while_handing_over(error: &str) -> bool {
    error.contains("single-instance")
        && error.contains("failed to forward arguments to the running instance")
        && (error.contains("NoReply") || error.contains("disconnected"))
}

/// The window-state plugin, its file beside the database when the data folder is chosen.
pub fn window_state<R: Runtime>() -> TauriPlugin<R> {
    let mut builder = tauri_plugin_window_state::Builder::new().with_state_flags(remembered());
    if let Some(dir) = chosen_data_dir() {
        // An absolute file name replaces the plugin's folder.
        builder = builder.with_filename(dir.join("window-state.json").to_string_lossy());
    }
    builder.build()
}

/// Saves the window's size and position half a second after it last moved or was resized, so
/// they survive a crash or a kill as well as a normal exit.
///
/// The save runs on the main thread. The plugin's save holds its cache's lock while it asks the
/// window for its size and place, which a thread other than the main one does by sending the
/// main thread a message and waiting; the main thread meanwhile takes the same lock for every
/// window event. Saved from a worker, a move during the save froze the window for good (the
/// e2e window test hung there in a fresh-clone run of 2026-11-28, found with gdb).
pub fn save_when_settled<R: Runtime>() -> impl Fn(&Window<R>, &WindowEvent) + Send + Sync {
    let generation = Arc::new(AtomicU64::new(0));
    move |window, event| {
        if !matches!(event, WindowEvent::Moved(_) | WindowEvent::Resized(_)) {
            return;
        }
        let mine = generation.fetch_add(1, Ordering::SeqCst) + 1;
        let generation = Arc::clone(&generation);
        let handle = window.app_handle().clone();
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if generation.load(Ordering::SeqCst) == mine {
                let app = handle.clone();
                let queued = handle.run_on_main_thread(move || {
                    if let Err(e) = app.save_window_state(remembered()) {
                        tracing::warn!("the window's size and position were not saved: {e}");
                    }
                });
                if let Err(e) = queued {
                    tracing::warn!("the window's size and position were not saved: {e}");
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hand_over_to_an_instance_that_quit_starts_again() {
        let seen = "failed to initialize plugin `single-instance`: failed to forward arguments to the running instance: org.freedesktop.DBus.Error.NoReply: Message recipient disconnected from message bus without replying";
        assert!(super::vanished_while_handing_over(seen));
        assert!(!super::vanished_while_handing_over(
            "failed to initialize plugin `single-instance`: the session bus is not running"
        ));
        assert!(!super::vanished_while_handing_over(
            "the database is locked"
        ));
    }
}
