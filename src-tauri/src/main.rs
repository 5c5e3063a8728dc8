// Keep a release build on Windows from opening a console window beside the app.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    if let Err(e) = tollgate_app::run() {
        eprintln!("Tollgate could not start: {e}");
        std::process::exit(1);
    }
}
