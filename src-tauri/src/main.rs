//! Tollgate's binary: the window's context (`tauri.conf.json`, the built UI, the icons) and the
//! chat loop, handed to the app (`tollgate-app`). It is the one crate that names both the app and
//! the loop, so a change to either rebuilds the one it is in and this small file.

// Keep a release build on Windows from opening a console window beside the app.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // Tollgate's own binary is also the supervisor its shell commands run under: in that role it
    // starts no window, it runs one command and exits (tollgate_tools::supervisor).
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(code) = tollgate_tools::supervisor::run_if_requested(&args) {
        std::process::exit(code);
    }
    if let Err(e) = tollgate_app::run(tauri::generate_context!(), tollgate_turn::start_turn) {
        let error = e.to_string();
        if tollgate_app::instance::vanished_while_handing_over(&error) {
            start_again();
        }
        eprintln!("Tollgate could not start: {error}");
        std::process::exit(1);
    }
}

/// Starts this launch again, as the same program with the same arguments, when the instance it
/// handed over to quit at that moment (`instance::vanished_while_handing_over`); gives up after
/// `START_AGAIN_LIMIT` tries and returns, so the caller reports the failure.
fn start_again() {
    use tollgate_app::instance::{START_AGAIN_ENV, START_AGAIN_LIMIT};
    let tries: u32 = std::env::var(START_AGAIN_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if tries >= START_AGAIN_LIMIT {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    eprintln!(
        "Tollgate: the running window closed as this launch handed over to it; starting again"
    );
    let mut again = std::process::Command::new(exe);
    again
        .args(std::env::args_os().skip(1))
        .env(START_AGAIN_ENV, (tries + 1).to_string());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Only returns if the program could not be started.
        let e = again.exec();
        eprintln!("Tollgate could not start again: {e}");
    }
    #[cfg(not(unix))]
    match again.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(e) => eprintln!("Tollgate could not start again: {e}"),
    }
}
