//! The sidebar's first page of chats comes with the page (F-71). The window is built
//! once the database is open, with a script that hands the page the newest chats before any of
//! its own scripts run, so they are drawn in the page's first frame. Asked for over IPC instead,
//! the page waited 12–21 ms for them on a year of chats: the answer queued behind the window's
//! first paint and the other start-up calls on the main thread.

use tauri::{Manager, Runtime, WebviewWindowBuilder};
use tollgate_store::ChatRow;

/// The label of the app's one window (`tauri.conf.json`).
pub const MAIN_WINDOW: &str = "main";

/// Chats on the first page: the UI's `CHAT_PAGE` (`ui/src/components/chatPages.ts`).
pub const FIRST_PAGE: u32 = 100;

/// The global the page reads the first page from, once (`takeFirstPage` in `chatPages.ts`).
pub const GLOBAL: &str = "__TOLLGATE_FIRST_CHATS__";

/// A script that sets [`GLOBAL`] to `rows`, serialised as the `list_chats` command answers.
pub fn script(rows: &[ChatRow]) -> Result<String, serde_json::Error> {
    crate::page_globals::script(GLOBAL, &rows)
}

/// Builds the main window (`"create": false` in `tauri.conf.json`) with the first page of
/// chats and, on Linux, the desktop's font family (`desktop_font`). Without the page (the
/// database could not be read) the window opens all the same and the page asks for its chats.
pub fn open_main_window<R: Runtime>(
    app: &tauri::App<R>,
    rows: Option<&[ChatRow]>,
) -> tauri::Result<()> {
    let Some(config) = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == MAIN_WINDOW)
    else {
        return Err(tauri::Error::WindowNotFound);
    };
    let mut builder = WebviewWindowBuilder::from_config(app.handle(), config)?;
    match rows.map(script) {
        Some(Ok(script)) => builder = builder.initialization_script(script),
        Some(Err(e)) => tracing::warn!("the first page of chats is asked for by the page: {e}"),
        None => {}
    }
    // The desktop's font family, so the page's first layout looks each font up once (F-71).
    #[cfg(target_os = "linux")]
    match crate::desktop_font::script(crate::desktop_font::desktop_family().as_deref()) {
        Ok(script) => builder = builder.initialization_script(script),
        Err(e) => tracing::warn!("the page falls back to its own font stack: {e}"),
    }
    let window = builder.build()?;
    if let Some(state) = app.try_state::<crate::state::AppState>() {
        crate::view_watch::watch(&window, std::sync::Arc::clone(&state.app));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use tollgate_store::Store;

    #[tokio::test]
    async fn the_script_holds_the_rows_as_the_command_answers_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let hostile = "a \"quote\" </script><script>alert(1)</script> \u{2028} ${x} `tick` \\";
        for title in ["first", hostile] {
            store
                .create_chat(tollgate_store::NewChat {
                    title: title.to_string(),
                    ..Default::default()
                })
                .await
                .unwrap();
        }
        let rows = store
            .list_chats_page(None, FIRST_PAGE as usize)
            .await
            .unwrap();
        // One JSON value, the same as the command's answer: nothing in a title ends it early.
        let parsed = crate::page_globals::read(&script(&rows).unwrap(), GLOBAL);
        assert_eq!(parsed, serde_json::to_value(&rows).unwrap());
        assert_eq!(parsed[0]["title"], hostile);
    }
}
