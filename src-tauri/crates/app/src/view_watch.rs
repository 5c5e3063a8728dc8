//! The watch on the window's web process while MCP views are shown (issue 47). A view's frame
//! runs in the window's own web process (WebKitGTK keeps a page's frames in one process), so a
//! view that never stops working (`for (;;) {}`) stops the whole window, and one that fills its
//! memory ends the process. WebKit notices a web process that stops answering; when it stays
//! so for [`GRACE`] while views were shown in the page, the process is ended. When the process
//! ends (ended here, killed for its memory, or crashed) the page loads again: without views
//! when views were shown, which stay paused until the user shows them again, each view saying
//! why. A window with no view in it is left to WebKit as before, apart from loading its page
//! again after a crash.

use std::sync::Arc;
use tollgate_engine::service::Tollgate;

/// How long the web process may stay unresponsive (after WebKit's own few seconds) before a
/// view shown in it is taken to have stopped it. The app's own page never blocks for this
/// long: its longest measured frame is under 50 ms.
pub const GRACE: std::time::Duration = std::time::Duration::from_secs(4);

/// Starts watching the main window's web process.
#[cfg(target_os = "linux")]
pub fn watch<R: tauri::Runtime>(window: &tauri::WebviewWindow<R>, app: Arc<Tollgate>) {
    let watched = window.with_webview(move |webview| linux::watch(webview.inner(), app));
    if let Err(e) = watched {
        tracing::warn!("the window's web process is not watched for stuck views: {e}");
    }
}

/// Other systems: views run as on Linux, unwatched (WebView2 and WKWebView differ in how
/// frames share a process; not measured here).
#[cfg(not(target_os = "linux"))]
pub fn watch<R: tauri::Runtime>(_window: &tauri::WebviewWindow<R>, _app: Arc<Tollgate>) {}

#[cfg(target_os = "linux")]
mod linux {
    use super::GRACE;
    use gtk::glib;
    use std::sync::Arc;
    use tollgate_engine::service::Tollgate;
    use webkit2gtk::{LoadEvent, WebProcessTerminationReason, WebView, WebViewExt};

    pub(super) fn watch(view: WebView, app: Arc<Tollgate>) {
        // Every load of the page starts with no view in it.
        let loads = Arc::clone(&app);
        view.connect_load_changed(move |_, event| {
            if event == LoadEvent::Committed {
                loads.view_documents().page_loaded();
            }
        });

        let stuck = Arc::clone(&app);
        view.connect_is_web_process_responsive_notify(move |view| {
            if view.is_web_process_responsive() || stuck.view_documents().shown().is_empty() {
                return;
            }
            let app = Arc::clone(&stuck);
            let view = view.clone();
            glib::timeout_add_local_once(GRACE, move || {
                let shown = app.view_documents().shown();
                if view.is_web_process_responsive() || shown.is_empty() {
                    return;
                }
                // Ending it emits `web-process-terminated`, whose handler pauses the views.
                tracing::warn!(
                    "the window stopped responding with views of {shown:?} shown: its web process is ended, and the page loads again without views"
                );
                view.terminate_web_process();
            });
        });

        view.connect_web_process_terminated(move |view, reason| {
            let shown = app.view_documents().shown();
            let why = match reason {
                WebProcessTerminationReason::Crashed => "crashed",
                WebProcessTerminationReason::ExceededMemoryLimit => "went over its memory limit",
                WebProcessTerminationReason::TerminatedByApi => "was ended (it stopped responding)",
                _ => "ended",
            };
            if shown.is_empty() {
                tracing::warn!("the window's web process {why}: its page loads again");
            } else {
                let paused = app.view_documents().pause();
                tracing::warn!(
                    "the window's web process {why} with views of {paused:?} shown: its page loads again, views paused"
                );
            }
            app.view_documents().page_loaded();
            view.reload();
        });
    }
}
