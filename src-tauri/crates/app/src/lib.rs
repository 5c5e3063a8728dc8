//! Tollgate's desktop app: thin glue between the engine and the window.
//!
//! Everything with behaviour lives in `tollgate-engine`; this crate opens the engine on the
//! app-data folder and exposes it to the UI as Tauri commands (one module per area), streaming a
//! turn's events over a per-turn channel and app-wide notices as events. The binary
//! (`src-tauri/src/main.rs`, package `tollgate`) calls [`run`] with the window's context and the
//! chat loop; neither is named here, so a change to the loop or the UI's build rebuilds the
//! binary, not this crate.

pub mod attention;
pub mod commands;
pub mod desktop_font;
pub mod dialogs;
pub mod first_page;
pub mod instance;
pub mod logs;
pub mod navigation;
pub mod page_globals;
pub mod rendering;
pub mod state;
pub mod view_scheme;
pub mod view_watch;

#[cfg(test)]
mod capabilities;

use state::AppState;
use std::sync::Arc;
use tauri::{Emitter, Manager, Runtime};
use tollgate_engine::chat::StartTurn;
use tollgate_engine::service::Tollgate;
use tollgate_protocol::{EventSink, ToolEvent};
use tollgate_secrets::Keychain;

/// The event name of gate events from chats without a running turn in this window.
pub const BACKGROUND_EVENT: &str = "gate-event";
/// The event name sent whenever an MCP server's state or tools change.
pub const MCP_EVENT: &str = "mcp-changed";

static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// When the app started (first use of this function, which [`run`] makes at its very start).
pub fn started() -> std::time::Instant {
    *STARTED.get_or_init(std::time::Instant::now)
}

/// Errors that stop the app from starting.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Tauri(#[from] tauri::Error),
}

/// Sends background gate events to the window (badges for chats waiting on approval).
struct EmitSink<R: Runtime>(tauri::AppHandle<R>);

impl<R: Runtime> EventSink for EmitSink<R> {
    fn emit(&self, event: ToolEvent) {
        if let Err(e) = self.0.emit(BACKGROUND_EVENT, &event) {
            tracing::warn!("a background event could not be sent: {e}");
        }
    }
}

/// Opens the engine for `handle` in `data_dir`, its turns run by `start_turn`, and makes it the
/// app's state.
pub fn manage_state<R: Runtime>(
    handle: &tauri::AppHandle<R>,
    data_dir: &std::path::Path,
    start_turn: StartTurn,
) -> Result<(), Box<dyn std::error::Error>> {
    let sink = Arc::new(EmitSink(handle.clone()));
    let keychain = match tollgate_store::chosen_data_dir() {
        Some(dir) => Keychain::for_data_dir(&dir),
        None => Keychain::default(),
    };
    let app = tauri::async_runtime::block_on(Tollgate::open(data_dir, keychain, sink, start_turn))?;
    let mut changes = app.mcp_servers().manager().subscribe();
    let emitter = handle.clone();
    tauri::async_runtime::spawn(async move {
        while changes.changed().await.is_ok() {
            let _ = emitter.emit(MCP_EVENT, ());
        }
    });
    attention::watch(handle, &app);
    handle.manage(AppState { app });
    Ok(())
}

/// The app's identifier (`tauri.conf.json`): the name of its folders.
pub const APP_ID: &str = "app.tollgate.desktop";

/// Builds and runs the app until its window closes: the window from `context`
/// (`tauri::generate_context!()` in the binary, which holds `tauri.conf.json` and the built UI),
/// turns run by `start_turn` (`tollgate_turn::start_turn`).
pub fn run(context: tauri::Context<tauri::Wry>, start_turn: StartTurn) -> Result<(), StartError> {
    started();
    match std::env::current_exe() {
        Ok(exe) => tollgate_tools::supervisor::configure(exe),
        Err(e) => eprintln!("shell commands will run without a supervisor: {e}"),
    }
    // Before GTK, WebKit or any other thread starts: both may set environment variables.
    let rendering = rendering::configure();
    match logs::init(logs::folder(APP_ID).as_deref()) {
        Some(folder) => tracing::info!("log folder: {}", folder.display()),
        None => tracing::warn!("no log file: the log goes to standard error only"),
    }
    match &rendering {
        rendering::Rendering::Defaults => tracing::info!("rendering: GTK and WebKit defaults"),
        rendering::Rendering::Software { set } => tracing::info!(
            "rendering: no GPU render node, drawing without GL (set {})",
            if set.is_empty() {
                "nothing".to_string()
            } else {
                set.join(", ")
            }
        ),
    }
    tauri::Builder::default()
        // First: a second launch must stop before it opens anything.
        .plugin(instance::single_instance())
        .plugin(instance::window_state())
        .on_window_event(instance::save_when_settled())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .plugin(navigation::guard())
        .register_uri_scheme_protocol(view_scheme::SCHEME, view_scheme::serve)
        .setup(move |app| {
            let default_dir = app.path().app_data_dir()?;
            let data_dir = tollgate_store::data_dir(default_dir);
            let opening = started().elapsed().as_millis();
            manage_state(app.handle(), &data_dir, start_turn)?;
            tracing::info!(
                "data folder: {} (opened from {opening} to {} ms after start)",
                data_dir.display(),
                started().elapsed().as_millis()
            );
            let state = app.state::<AppState>();
            let first = tauri::async_runtime::block_on(
                state.app.list_chats_page(None, first_page::FIRST_PAGE),
            );
            if let Err(e) = &first {
                tracing::warn!("the first page of chats is asked for by the page: {e}");
            }
            first_page::open_main_window(app, first.as_deref().ok())?;
            Ok(())
        })
        .invoke_handler(commands::handler())
        .build(context)?
        .run(|handle, event| {
            if let tauri::RunEvent::Exit = event {
                // Stop MCP servers (and their process groups) before the app goes.
                if let Some(state) = handle.try_state::<AppState>() {
                    tauri::async_runtime::block_on(state.app.mcp_servers().manager().shutdown());
                }
            }
        });
    Ok(())
}

/// Work that start-up needs soon but the first paint does not, begun once the window has
/// painted, on a thread of its own at the lowest priority: both start child processes (a login
/// shell alone takes a quarter of a second of CPU) that would otherwise take the two cores from
/// the window's first screens. The children inherit the priority, so they run only when the
/// window leaves the CPU idle. The engine's own background work begins too.
pub fn after_first_paint(app: &tollgate_engine::service::Tollgate) {
    app.start_background_work();
    let started = std::thread::Builder::new()
        .name("after-first-paint".into())
        .spawn(|| {
            background_priority();
            ask_login_path();
            // Find out now, not on the first command, what this system's sandbox can do (F-46).
            tauri::async_runtime::block_on(tollgate_tools::supervisor::sandbox_support());
        });
    if let Err(e) = started {
        tracing::warn!(
            "PATH and the sandbox are looked at when a program first starts (no thread now: {e})"
        );
    }
}

/// Puts the calling thread, and the processes it starts from now on, at the lowest priority.
fn background_priority() {
    use thread_priority::{ThreadPriority, ThreadSchedulePolicy};
    #[cfg(target_os = "linux")]
    let lowered = thread_priority::unix::set_thread_priority_and_policy(
        thread_priority::thread_native_id(),
        ThreadPriority::Min,
        ThreadSchedulePolicy::Normal(thread_priority::unix::NormalThreadSchedulePolicy::Idle),
    );
    #[cfg(not(target_os = "linux"))]
    let lowered = thread_priority::set_current_thread_priority(ThreadPriority::Min);
    if let Err(e) = lowered {
        tracing::debug!("start-up work runs at normal priority: {e:?}");
    }
}

/// Asks the login shell for its `PATH` and logs what it found. A program started before the
/// answer asks itself and waits.
fn ask_login_path() {
    use tollgate_tools::login_path::{self, LoginPath};
    match login_path::ask() {
        LoginPath::Added(folders) => {
            tracing::info!("PATH: added from the login shell: {}", folders.join(", "))
        }
        LoginPath::Unchanged => tracing::info!("PATH: the login shell adds nothing"),
        LoginPath::Skipped(why) => tracing::info!("PATH: the login shell was not asked: {why}"),
    }
}
