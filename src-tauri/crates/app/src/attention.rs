//! Attention (F-59): when an approval or a question starts waiting and the window is not
//! focused, a system notification says so (clicking it opens that chat) and the window asks for
//! attention (the taskbar's urgency hint). Both can be turned off in Settings → General.

use std::sync::{Arc, Weak};
use tauri::{AppHandle, Emitter, Manager, Runtime, UserAttentionType};
use tollgate_engine::service::{Language, Tollgate};
use tollgate_engine::ChatId;
use tollgate_protocol::{AttentionReason, AttentionRequest};

/// The event that asks the window to open a chat (a clicked notification).
pub const OPEN_CHAT_EVENT: &str = "open-chat";
/// The main window's label.
const MAIN: &str = "main";
/// The longest question quoted in a notification, in characters.
const QUOTE_LIMIT: usize = 160;

/// Starts telling the user about approvals and questions that wait while they look elsewhere.
pub fn watch<R: Runtime>(handle: &AppHandle<R>, engine: &Arc<Tollgate>) {
    let handle = handle.clone();
    // Weak: the engine owns the router that owns this watcher.
    let weak: Weak<Tollgate> = Arc::downgrade(engine);
    engine.asks().watch_attention(Arc::new(move |request| {
        let handle = handle.clone();
        let weak = weak.clone();
        tauri::async_runtime::spawn(async move {
            if let Some(engine) = weak.upgrade() {
                attend(&handle, &engine, request).await;
            }
        });
    }));
}

/// Whether the user is looking at the window: focused, shown and not minimised.
fn looking<R: Runtime>(window: &tauri::WebviewWindow<R>) -> bool {
    window.is_focused().unwrap_or(false)
        && window.is_visible().unwrap_or(true)
        && !window.is_minimized().unwrap_or(false)
}

async fn attend<R: Runtime>(handle: &AppHandle<R>, engine: &Tollgate, request: AttentionRequest) {
    let settings = engine.preferences().app_settings();
    // Each decision is logged: a user's log (and the end-to-end test) shows why a notification
    // came or did not.
    let chat = request.chat;
    if !settings.notify && !settings.attention_hint {
        tracing::info!("chat {chat} waits for the user: no notification (turned off)");
        return;
    }
    let Some(window) = handle.get_webview_window(MAIN) else {
        return;
    };
    if looking(&window) {
        tracing::info!("chat {chat} waits for the user, who is looking at the window");
        return;
    }
    if settings.attention_hint {
        if let Err(e) = window.request_user_attention(Some(UserAttentionType::Informational)) {
            tracing::warn!("the window could not ask for attention: {e}");
        }
    }
    if !settings.notify {
        tracing::info!("chat {chat} waits for the user: no notification (turned off)");
    } else {
        tracing::info!("chat {chat} waits for the user: notifying");
        let title = match engine.store().chat(request.chat).await {
            Ok(Some(chat)) if !chat.title.trim().is_empty() => chat.title,
            _ => String::new(),
        };
        let words = Words::new(settings.language, &title, &request.reason);
        let handle = handle.clone();
        // Showing blocks on D-Bus, and waiting for the click blocks until the notification
        // goes: a thread of its own, never the async runtime's.
        let spawned = std::thread::Builder::new()
            .name("notification".into())
            .spawn(move || {
                if let Err(e) = notification::show(&words, move || open_chat(&handle, chat)) {
                    tracing::warn!("the notification could not be shown: {e}");
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("the notification thread could not start: {e}");
        }
    }
}

/// Brings the main window forward (shown, not minimised, focused).
pub fn show_window<R: Runtime>(handle: &AppHandle<R>) {
    if let Some(window) = handle.get_webview_window(MAIN) {
        let _ = window.unminimize();
        let _ = window.show();
        if let Err(e) = window.set_focus() {
            tracing::warn!("the window could not take the focus: {e}");
        }
    }
}

/// Brings the window forward and asks it to open `chat`.
pub fn open_chat<R: Runtime>(handle: &AppHandle<R>, chat: ChatId) {
    tracing::info!("opening chat {chat} (its notification was clicked)");
    show_window(handle);
    if let Err(e) = handle.emit(OPEN_CHAT_EVENT, chat) {
        tracing::warn!("the window could not be asked to open chat {chat}: {e}");
    }
}

/// A notification's text, in the user's language. Model text in it (a tool name, a question)
/// is escaped: notification servers read the body as markup, and a link in it would be one
/// click from the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    pub summary: String,
    pub body: String,
    pub open: String,
}

impl Words {
    pub fn new(language: Language, chat_title: &str, reason: &AttentionReason) -> Self {
        let chinese = matches!(language, Language::SimplifiedChinese);
        let title = if chat_title.trim().is_empty() {
            if chinese {
                "未命名对话"
            } else {
                "Untitled chat"
            }
            .to_string()
        } else {
            chat_title.trim().to_string()
        };
        let (summary, body) = match (reason, chinese) {
            (AttentionReason::Approval { tool }, false) => (
                "Approval needed".to_string(),
                format!("{title}: {tool} is waiting for your decision"),
            ),
            (AttentionReason::Approval { tool }, true) => (
                "需要批准".to_string(),
                format!("{title}：{tool} 等待你的决定"),
            ),
            (AttentionReason::Question { question }, false) => (
                "The model asks you".to_string(),
                format!("{title}: {}", quote(question)),
            ),
            (AttentionReason::Question { question }, true) => (
                "模型向你提问".to_string(),
                format!("{title}：{}", quote(question)),
            ),
            (AttentionReason::Elicitation { server, message }, false) => (
                format!("{server} asks you"),
                format!("{title}: {}", quote(message)),
            ),
            (AttentionReason::Elicitation { server, message }, true) => (
                format!("{server} 向你提问"),
                format!("{title}：{}", quote(message)),
            ),
            (AttentionReason::Sampling { server }, false) => (
                format!("{server} asks to use the chat's model"),
                format!("{title}: its request waits for your decision"),
            ),
            (AttentionReason::Sampling { server }, true) => (
                format!("{server} 请求使用对话的模型"),
                format!("{title}：它的请求等待你的决定"),
            ),
        };
        Self {
            summary: escape(&summary),
            body: escape(&body),
            open: if chinese { "打开对话" } else { "Open chat" }.to_string(),
        }
    }
}

/// The first line of `text`, shortened to [`QUOTE_LIMIT`] characters.
fn quote(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    if line.chars().count() > QUOTE_LIMIT {
        let cut: String = line.chars().take(QUOTE_LIMIT - 1).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// Escapes the characters notification markup reads.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Showing the notification: on Linux and the BSDs through the desktop's notification server
/// (D-Bus), with an "Open chat" action that a click on the notification invokes.
#[cfg(all(unix, not(target_os = "macos")))]
mod notification {
    use super::Words;

    pub fn show(words: &Words, on_click: impl FnOnce()) -> Result<(), notify_rust::error::Error> {
        let shown = notify_rust::Notification::new()
            .appname("Tollgate")
            .summary(&words.summary)
            .body(&words.body)
            .action("default", &words.open)
            .hint(notify_rust::Hint::Category("im.received".into()))
            .show()?;
        tracing::info!("notification {} shown", shown.id());
        shown.wait_for_action(|action| {
            tracing::info!("notification action \"{action}\"");
            if action == "default" {
                on_click();
            }
        });
        Ok(())
    }
}

/// Elsewhere the notification is shown without a click action (the window's attention request
/// still leads the user back). Not tested here: see the README's platform notes.
#[cfg(not(all(unix, not(target_os = "macos"))))]
mod notification {
    use super::Words;

    pub fn show(words: &Words, _on_click: impl FnOnce()) -> Result<(), notify_rust::error::Error> {
        notify_rust::Notification::new()
            .appname("Tollgate")
            .summary(&words.summary)
            .body(&words.body)
            .show()
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_name_the_chat_and_escape_what_the_model_wrote() {
        let w = Words::new(
            Language::English,
            "Deploy",
            &AttentionReason::Approval {
                tool: "run_command".into(),
            },
        );
        assert_eq!(w.summary, "Approval needed");
        assert_eq!(w.body, "Deploy: run_command is waiting for your decision");
        let q = Words::new(
            Language::English,
            "  ",
            &AttentionReason::Question {
                question: "Open <a href=\"https://evil.example\">this</a> & go\nsecond line".into(),
            },
        );
        assert_eq!(
            q.body,
            "Untitled chat: Open &lt;a href=\"https://evil.example\"&gt;this&lt;/a&gt; &amp; go"
        );
        let zh = Words::new(
            Language::SimplifiedChinese,
            "部署",
            &AttentionReason::Approval {
                tool: "run_command".into(),
            },
        );
        assert_eq!(zh.summary, "需要批准");
        assert_eq!(zh.open, "打开对话");
        let long = quote(&"x".repeat(500));
        assert_eq!(long.chars().count(), QUOTE_LIMIT);
    }

    #[test]
    fn a_servers_request_for_the_model_is_named_as_such_in_the_users_language() {
        let reason = AttentionReason::Sampling {
            server: "notes".into(),
        };
        let en = Words::new(Language::English, "Plans", &reason);
        assert_eq!(en.summary, "notes asks to use the chat's model");
        assert_eq!(en.body, "Plans: its request waits for your decision");
        let zh = Words::new(Language::SimplifiedChinese, "计划", &reason);
        assert_eq!(zh.summary, "notes 请求使用对话的模型");
    }
}
