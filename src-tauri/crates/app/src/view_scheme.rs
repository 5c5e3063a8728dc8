//! The `tollgate-view` scheme (F-96): where the window's frames load MCP Apps views. Each
//! document is served once, to the main window only, with the Content-Security-Policy built
//! from what it declared — which also sandboxes it (`sandbox allow-scripts`), so even loaded
//! outside its frame it has an opaque origin: no storage, no forms, no popups, no navigating
//! the window, and no Tauri (whose scripts and invoke key reach only the app's own page).

use crate::state::AppState;
use tauri::http::{header, Request, Response, StatusCode};
use tauri::{Manager, Runtime, UriSchemeContext};
use tollgate_engine::service::VIEW_SCHEME;

/// The scheme's name, for the builder.
pub const SCHEME: &str = VIEW_SCHEME;

/// Serves a waiting view document, or 404.
pub fn serve<R: Runtime>(
    ctx: UriSchemeContext<'_, R>,
    request: Request<Vec<u8>>,
) -> Response<Vec<u8>> {
    let url = request.uri().to_string();
    let view = (ctx.webview_label() == crate::first_page::MAIN_WINDOW)
        .then(|| ctx.app_handle().try_state::<AppState>())
        .flatten()
        .and_then(|state| state.app.view_documents().take(&url));
    let built = match view {
        Some(view) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
            .header("Content-Security-Policy", view.csp)
            .header("X-Content-Type-Options", "nosniff")
            .header("Referrer-Policy", "no-referrer")
            .header(header::CACHE_CONTROL, "no-store")
            .body(view.html.into_bytes()),
        None => Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header(header::CONTENT_TYPE, "text/plain")
            .header("Content-Security-Policy", "default-src 'none'; sandbox")
            .body(b"This view is not available.".to_vec()),
    };
    built.unwrap_or_else(|_| Response::new(Vec::new()))
}
