//! The app window shows Tollgate's own page and nothing else (F-59). Links in answers open in
//! the system browser (the opener plugin, from the UI); this guard is the backstop for anything
//! that still tries to navigate the window — a link the UI missed, a form, a script — so model
//! output can never replace the app with a page of its choosing, which would then hold the IPC
//! bridge. An MCP Apps view's frame may load its document once (F-96).

use tauri::plugin::TauriPlugin;
use tauri::{Manager, Runtime, Url};

/// Whether `url` is the app's own page: the embedded UI (`tauri://localhost` on Linux and macOS,
/// `http(s)://tauri.localhost` on Windows), or, in a debug build, the dev server the config names.
pub fn is_app_page(url: &Url, dev_url: Option<&Url>) -> bool {
    let own = match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => url.host_str() == Some("tauri.localhost"),
        _ => false,
    };
    own || (cfg!(debug_assertions) && dev_url.is_some_and(|dev| dev.origin() == url.origin()))
}

/// The guard, as a plugin that refuses every navigation away from the app's page.
pub fn guard<R: Runtime>() -> TauriPlugin<R> {
    tauri::plugin::Builder::new("navigation-guard")
        .on_navigation(|webview, url| {
            let dev = webview.app_handle().config().build.dev_url.clone();
            // The one other address: an MCP Apps view's document waiting for its frame (F-96),
            // by its unguessable one-time token; loaded, it is no longer allowed.
            let view = || {
                webview
                    .app_handle()
                    .try_state::<crate::state::AppState>()
                    .is_some_and(|s| s.app.view_documents().waiting(url.as_str()))
            };
            let allowed = is_app_page(url, dev.as_ref()) || view();
            if !allowed {
                tracing::warn!("the window was kept from navigating to {url}");
            }
            allowed
        })
        .build()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_the_apps_own_page_is_allowed() {
        for own in [
            "tauri://localhost/",
            "tauri://localhost/index.html#chat",
            "http://tauri.localhost/",
            "https://tauri.localhost/assets/x.js",
        ] {
            assert!(is_app_page(&url(own), None), "{own}");
        }
        for other in [
            "https://example.com/",
            "http://127.0.0.1:8080/",
            "tauri://evil/",
            "http://tauri.localhost.evil.example/",
            "file:///etc/passwd",
            "data:text/html,<script>alert(1)</script>",
            "javascript:alert(1)",
            "about:blank",
        ] {
            assert!(!is_app_page(&url(other), None), "{other}");
        }
    }

    #[test]
    fn a_debug_build_also_allows_its_dev_server_and_nothing_near_it() {
        let dev = url("http://localhost:5173");
        assert_eq!(
            is_app_page(&url("http://localhost:5173/src/main.tsx"), Some(&dev)),
            cfg!(debug_assertions)
        );
        assert!(!is_app_page(&url("http://localhost:5174/"), Some(&dev)));
    }
}
