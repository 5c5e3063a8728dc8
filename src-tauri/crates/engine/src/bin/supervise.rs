//! The shell-command supervisor as a binary of its own, for the engine's integration tests (the
//! app runs its own executable in this role). See `tollgate_engine::tools::supervisor`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match tollgate_engine::tools::supervisor::run_if_requested(&args) {
        Some(code) => std::process::exit(code),
        None => {
            eprintln!(
                "usage: tollgate-supervise {} <command>",
                tollgate_engine::tools::supervisor::SUPERVISOR_ARG
            );
            std::process::exit(2);
        }
    }
}
