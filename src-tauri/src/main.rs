// Keep a release build on Windows from opening a console window beside the app.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // Tollgate's own binary is also the supervisor its shell commands run under: in that role it
    // starts no window, it runs one command and exits (tollgate_engine::tools::supervisor).
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(code) = tollgate_engine::tools::supervisor::run_if_requested(&args) {
        std::process::exit(code);
    }
    if let Err(e) = tollgate_app::run() {
        eprintln!("Tollgate could not start: {e}");
        std::process::exit(1);
    }
}
