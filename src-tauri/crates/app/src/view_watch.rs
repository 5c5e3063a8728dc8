//! The watch on the window's web process while MCP views are shown (F-96). A view's frame
//! runs in the window's own web process (WebKitGTK keeps a page's frames in one process), so a
//! view that never stops working (`for (;;) {}`) stops the whole window, and one that fills its
//! memory takes the machine's with it. Two watches end the process while views are shown in
//! the page:
//! - WebKit notices a web process that stops answering; when it stays so for [`GRACE`], the
//!   process is ended;
//! - the process's resident memory is read every [`MEMORY_EVERY`]; past [`memory_ceiling`]
//!   (2 GiB, or half the machine's memory when that is less) the process is ended. WebKit's own
//!   memory handler never ends a process unless told to, and the kernel's only when the whole
//!   machine has run out.
//!
//! When the process ends (ended here, or crashed) the page loads again: without views when
//! views were shown, which stay paused until the user shows them again, each view saying why.
//! A window with no view in it is left to WebKit as before, apart from loading its page again
//! after a crash.

use std::sync::Arc;
use tollgate_engine::service::Tollgate;

/// How long the web process may stay unresponsive (after WebKit's own few seconds) before a
/// view shown in it is taken to have stopped it. The app's own page never blocks for this
/// long: its longest measured frame is under 50 ms.
pub const GRACE: std::time::Duration = std::time::Duration::from_secs(4);

/// How often the web process's memory is read while views are shown: a view filling memory at
/// a gigabyte a second is over the ceiling by at most half a gigabyte when it is seen.
pub const MEMORY_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Sets a lower ceiling, in MiB ([`memory_ceiling`]): for a machine where 2 GiB is too much to
/// give the window, and for the test that fills memory on a machine it shares.
pub const MEMORY_CEILING_ENV: &str = "TOLLGATE_VIEW_MEMORY_CEILING_MIB";

/// The most resident memory the window's web process may hold while views are shown, in KiB:
/// 2 GiB, or half of `mem_total_kib` (the machine's, from `/proc/meminfo`) when that is less, or
/// `set_mib` ([`MEMORY_CEILING_ENV`]) when that is less still (never under 256 MiB). The app's
/// page with the 5,000-message chat open holds well under it (docs/PERFORMANCE.md).
#[cfg(target_os = "linux")]
pub fn memory_ceiling(mem_total_kib: Option<u64>, set_mib: Option<u64>) -> u64 {
    const TWO_GIB: u64 = 2 * 1024 * 1024;
    let machine = mem_total_kib.map_or(TWO_GIB, |total| TWO_GIB.min(total / 2));
    set_mib.map_or(machine, |mib| machine.min(mib.max(256) * 1024))
}

/// A `/proc/*/status` or `/proc/meminfo` field in KiB (`VmRSS:   123 kB`).
#[cfg(target_os = "linux")]
fn kib_field(text: &str, field: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// The processes this app started whose name says they are WebKit web processes (at any depth:
/// WebKit's sandbox puts `bwrap` between), with their resident memory in KiB.
#[cfg(target_os = "linux")]
fn web_processes() -> Vec<(u32, u64)> {
    let mut found = Vec::new();
    let mut parents = vec![std::process::id()];
    let mut depth = 0;
    while !parents.is_empty() && depth < 4 {
        let mut children = Vec::new();
        for parent in parents {
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{parent}/task")) else {
                continue;
            };
            for task in tasks.flatten() {
                let list =
                    std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
                children.extend(
                    list.split_whitespace()
                        .filter_map(|p| p.parse::<u32>().ok()),
                );
            }
        }
        for &pid in &children {
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if name.trim_end().starts_with("WebKitWebProces") {
                let status =
                    std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
                found.push((pid, kib_field(&status, "VmRSS").unwrap_or(0)));
            }
        }
        parents = children;
        depth += 1;
    }
    found
}

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
    use super::{kib_field, memory_ceiling, web_processes, GRACE, MEMORY_EVERY};
    use gtk::glib;
    use gtk::glib::clone::Downgrade;
    use std::cell::Cell;
    use std::rc::Rc;
    use std::sync::Arc;
    use tollgate_engine::service::Tollgate;
    use webkit2gtk::{LoadEvent, WebProcessTerminationReason, WebView, WebViewExt};

    /// Why the app itself ended the web process, for the log line its end writes.
    #[derive(Clone, Copy)]
    enum Ended {
        Unresponsive,
        OverMemory,
    }

    pub(super) fn watch(view: WebView, app: Arc<Tollgate>) {
        let ended: Rc<Cell<Option<Ended>>> = Rc::default();
        // Every load of the page starts with no view in it.
        let loads = Arc::clone(&app);
        view.connect_load_changed(move |_, event| {
            if event == LoadEvent::Committed {
                loads.view_documents().page_loaded();
            }
        });

        let (stuck, ending) = (Arc::clone(&app), Rc::clone(&ended));
        view.connect_is_web_process_responsive_notify(move |view| {
            if view.is_web_process_responsive() || stuck.view_documents().shown().is_empty() {
                return;
            }
            let app = Arc::clone(&stuck);
            let view = view.clone();
            let ending = Rc::clone(&ending);
            glib::timeout_add_local_once(GRACE, move || {
                let shown = app.view_documents().shown();
                if view.is_web_process_responsive() || shown.is_empty() || ending.get().is_some() {
                    return;
                }
                // Ending it emits `web-process-terminated`, whose handler pauses the views.
                tracing::warn!(
                    "the window stopped responding with views of {shown:?} shown: its web process is ended, and the page loads again without views"
                );
                ending.set(Some(Ended::Unresponsive));
                view.terminate_web_process();
            });
        });

        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let set = std::env::var(super::MEMORY_CEILING_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok());
        let ceiling = memory_ceiling(kib_field(&meminfo, "MemTotal"), set);
        // Said once if views are shown and no web process is found (a kernel without
        // `/proc/*/task/*/children`): the ceiling is then not kept, and the log says so.
        let unseen_said = Cell::new(false);
        let (filling, ending) = (Arc::clone(&app), Rc::clone(&ended));
        let watched = view.downgrade();
        glib::timeout_add_local(MEMORY_EVERY, move || {
            let Some(view) = watched.upgrade() else {
                return glib::ControlFlow::Break;
            };
            let shown = filling.view_documents().shown();
            if shown.is_empty() || ending.get().is_some() {
                return glib::ControlFlow::Continue;
            }
            let processes = web_processes();
            if processes.is_empty() && !unseen_said.replace(true) {
                tracing::warn!(
                    "views of {shown:?} are shown but the window's web process is not found among the app's processes: its memory is not watched"
                );
            }
            if let Some((pid, rss)) = processes.into_iter().find(|&(_, rss)| rss > ceiling) {
                tracing::warn!(
                    "the window's web process {pid} holds {} MiB with views of {shown:?} shown, over its ceiling of {} MiB: it is ended, and the page loads again without views",
                    rss / 1024,
                    ceiling / 1024
                );
                ending.set(Some(Ended::OverMemory));
                view.terminate_web_process();
            }
            glib::ControlFlow::Continue
        });

        view.connect_web_process_terminated(move |view, reason| {
            let shown = app.view_documents().shown();
            let why = match (reason, ended.take()) {
                (WebProcessTerminationReason::TerminatedByApi, Some(Ended::Unresponsive)) => {
                    "was ended (it stopped responding)"
                }
                (WebProcessTerminationReason::TerminatedByApi, Some(Ended::OverMemory)) => {
                    "was ended (over its memory ceiling)"
                }
                (WebProcessTerminationReason::Crashed, _) => "crashed",
                (WebProcessTerminationReason::ExceededMemoryLimit, _) => "went over its memory limit",
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_is_two_gib_or_half_the_machine_or_less_when_set() {
        assert_eq!(
            memory_ceiling(Some(24 * 1024 * 1024), None),
            2 * 1024 * 1024
        );
        assert_eq!(memory_ceiling(Some(2 * 1024 * 1024), None), 1024 * 1024);
        assert_eq!(memory_ceiling(None, None), 2 * 1024 * 1024);
        assert_eq!(
            memory_ceiling(Some(24 * 1024 * 1024), Some(1024)),
            1024 * 1024
        );
        // Set higher than the machine allows, or absurdly low: the bounds hold.
        assert_eq!(
            memory_ceiling(Some(2 * 1024 * 1024), Some(4096)),
            1024 * 1024
        );
        assert_eq!(memory_ceiling(None, Some(1)), 256 * 1024);
    }

    #[test]
    fn fields_are_read_in_kib() {
        let status = "Name:\tWebKitWebProces\nVmPeak:\t  900 kB\nVmRSS:\t  123456 kB\n";
        assert_eq!(kib_field(status, "VmRSS"), Some(123_456));
        assert_eq!(kib_field(status, "VmSwap"), None);
        assert_eq!(
            kib_field("MemTotal:       24684032 kB\n", "MemTotal"),
            Some(24_684_032)
        );
    }

    #[test]
    fn a_web_process_this_test_starts_is_found_with_its_memory() {
        // A child named as WebKit names its web processes, holding memory of its own.
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("WebKitWebProcess");
        std::fs::copy("/bin/sleep", &exe).unwrap();
        let mut child = std::process::Command::new(&exe).arg("30").spawn().unwrap();
        // `spawn` may return before the child has taken its program's name: wait for it.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let found = loop {
            let found = web_processes();
            if found.iter().any(|(pid, _)| *pid == child.id()) || std::time::Instant::now() > until
            {
                break found;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let _ = child.kill();
        let _ = child.wait();
        let (_, rss) = found
            .iter()
            .find(|(pid, _)| *pid == child.id())
            .unwrap_or_else(|| panic!("the child is found: {found:?}"));
        assert!(*rss > 0, "{found:?}");
    }
}
