//! The supervisor every shell command runs under (F-43), so that nothing it starts outlives it.
//!
//! Killing the command's process group is not enough: `setsid cmd &`, `nohup … &` or a daemon's
//! double fork leave the group, keep running after the call ended, and — holding the output
//! pipes — keep the call waiting until its timeout. So the command is started by a small
//! supervisor process (Tollgate's own binary, re-executed with [`SUPERVISOR_ARG`]) which makes
//! itself a *child subreaper* (Linux `PR_SET_CHILD_SUBREAPER`): every process the command leaves
//! behind, however it detached, is re-parented to the supervisor instead of to init. When the
//! shell ends — or when the app closes the supervisor's stdin, on timeout or Stop, or because
//! the app died — the supervisor kills the shell's process group and every remaining
//! descendant, then exits with the shell's status.
//!
//! The supervisor is a plain single-threaded process (no async runtime), so what it does
//! between start and exit is easy to follow: spawn, wait for either end, sweep, exit.
//! Where it is not available (tests of the library alone, other systems), commands run
//! directly in their own process group as before; [`configure`] says which.

use crate::SandboxSupport;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The argument that turns Tollgate's binary into the supervisor: `tollgate <ARG> <command>`.
pub const SUPERVISOR_ARG: &str = "--tollgate-run-supervised";

/// The exit status the supervisor reports when it was told to stop (timeout or Stop).
pub const STOPPED_STATUS: i32 = 137;

/// The argument that makes Tollgate's binary apply the sandbox in `TOLLGATE_SANDBOX` to itself
/// and then become `<program> <args…>` (exec, same process, same stdin and stdout): how a local
/// MCP server runs under the sandbox (F-46). `tollgate <ARG> <program> <args…>`.
pub const SANDBOXED_EXEC_ARG: &str = "--tollgate-exec-sandboxed";

pub use crate::{SANDBOX_FAILED_STATUS, SANDBOX_MARK};

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Tells the shell tool which binary to run as the supervisor (the app's own executable, or a
/// test's helper binary). Set once at start-up; later calls are ignored.
/// Only Linux has a supervisor (`PR_SET_CHILD_SUBREAPER`); elsewhere commands keep running
/// directly in their own process group, killed on timeout and Stop.
pub fn configure(program: PathBuf) {
    if cfg!(target_os = "linux") {
        let _ = PROGRAM.set(program);
    }
}

/// The supervisor binary, if one was configured (Linux only): the shell tool starts commands
/// through it.
pub fn program() -> Option<&'static PathBuf> {
    PROGRAM.get()
}

static SUPPORT: tokio::sync::OnceCell<SandboxSupport> = tokio::sync::OnceCell::const_new();

/// What this system's sandbox can enforce (F-46), found once by running the probe
/// ([`crate::PROBE_ARG`]) in the supervisor binary; without a supervisor there is no
/// sandbox either.
pub async fn sandbox_support() -> SandboxSupport {
    if !cfg!(target_os = "linux") {
        return SandboxSupport::none("only Linux has a sandbox so far");
    }
    // Not remembered: the supervisor may be configured a moment later (at start-up).
    let Some(program) = program() else {
        return SandboxSupport::none("commands run without Tollgate's supervisor");
    };
    match SUPPORT.get_or_try_init(|| probe(program)).await {
        Ok(support) => support.clone(),
        // Not remembered: a probe that could not finish (a loaded machine) is tried again at
        // the next call, so one slow moment never leaves the app without its sandbox.
        Err(unsure) => unsure,
    }
}

/// What the probe found, if it has run to the end; `None` before that (or where it could not).
pub fn known_support() -> Option<SandboxSupport> {
    SUPPORT.get().cloned()
}

/// How long the probe may take before this call says it could not be tried.
const PROBE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

/// The probe's verdict; `Err` when it could not run to the end (not a verdict to keep).
async fn probe(program: &Path) -> Result<SandboxSupport, SandboxSupport> {
    let out = tokio::process::Command::new(program)
        .arg(crate::PROBE_ARG)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(PROBE_PATIENCE, out).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            return Err(SandboxSupport::none(format!(
                "the sandbox could not be tried: {e}"
            )))
        }
        Err(_) => return Err(SandboxSupport::none("trying the sandbox took too long")),
    };
    let support = serde_json::from_slice::<SandboxSupport>(&out.stdout).unwrap_or_else(|_| {
        SandboxSupport::none(format!(
            "the sandbox could not be tried (exit {})",
            out.status.code().unwrap_or(-1)
        ))
    });
    match (&support.unavailable, &support.namespaces_missing) {
        (Some(reason), _) => tracing::warn!("no sandbox: {reason}"),
        (None, None) => tracing::info!(
            "sandbox: namespaces (bubblewrap) and Landlock ABI {}",
            support.landlock_abi
        ),
        (None, Some(why)) => tracing::warn!(
            "sandbox: Landlock ABI {} without namespaces ({why}); gaps: {:?}",
            support.landlock_abi,
            support.gaps(false)
        ),
    }
    Ok(support)
}

/// The whole `main` of a binary that is only the supervisor (the test binaries of this crate and
/// of the engine): runs what its arguments ask, or says how to call it.
pub fn main_for_tests() -> ! {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run_if_requested(&args) {
        Some(code) => std::process::exit(code),
        None => {
            eprintln!("usage: <this program> {SUPERVISOR_ARG} <command>");
            std::process::exit(2);
        }
    }
}

/// If `args` (the process's own, without the program name) ask for the supervisor, runs it and
/// returns its exit status; likewise the sandbox probe ([`crate::PROBE_ARG`]);
/// otherwise `None`. The app's `main` calls this first.
pub fn run_if_requested(args: &[String]) -> Option<i32> {
    match args {
        [flag, command] if flag == SUPERVISOR_ARG => Some(supervise(command)),
        [flag] if flag == crate::PROBE_ARG => Some(crate::probe_here()),
        [flag, program, args @ ..] if flag == SANDBOXED_EXEC_ARG => {
            Some(exec_sandboxed(program, args))
        }
        [flag, program, args @ ..] if flag == crate::INNER_ARG => {
            Some(crate::inner_main(program, args))
        }
        [flag, socket] if flag == crate::proxy::FORWARD_ARG => {
            Some(crate::proxy::forward_main(socket))
        }
        _ => None,
    }
}

#[cfg(target_os = "linux")]
fn supervise(command: &str) -> i32 {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;
    use std::io::Read;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::sync::mpsc;

    if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
        eprintln!("tollgate: the command could not be supervised: {e}");
        return 126;
    }
    // The sandbox (F-46): the shell starts inside it — namespaces and Landlock — so
    // that the command and everything it starts stay there; this supervisor stays outside, out
    // of the command's reach. Without the sandbox it asked for, nothing runs.
    let mut shell = match sandbox_from_env() {
        Ok(Some(spec)) => {
            let cwd = std::env::current_dir().unwrap_or_else(|_| spec.workspace.clone());
            match crate::command(&spec, "sh".as_ref(), &["-c".into(), command.into()], &cwd) {
                Ok(cmd) => cmd,
                Err(e) => {
                    eprintln!("{SANDBOX_MARK} {e}");
                    return SANDBOX_FAILED_STATUS;
                }
            }
        }
        Ok(None) => {
            let mut shell = std::process::Command::new("sh");
            shell.arg("-c").arg(command);
            shell
        }
        Err(status) => return status,
    };
    shell.stdin(std::process::Stdio::null()).process_group(0);
    let child = shell.spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tollgate: cannot start the shell: {e}");
            return 127;
        }
    };
    let group = i32::try_from(child.id()).ok().map(Pid::from_raw);

    enum End {
        Exited(std::process::ExitStatus),
        WaitFailed,
        Stop,
    }
    let (tx, rx) = mpsc::channel::<End>();
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            // The app holds the other end of stdin: EOF means "stop now" (or that it died).
            let mut sink = [0u8; 64];
            let mut stdin = std::io::stdin();
            while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
            let _ = tx.send(End::Stop);
        });
    }
    std::thread::spawn(move || {
        let end = match child.wait() {
            Ok(status) => End::Exited(status),
            Err(_) => End::WaitFailed,
        };
        let _ = tx.send(end);
    });
    let end = rx.recv().unwrap_or(End::Stop);
    if let Some(group) = group {
        let _ = killpg(group, Signal::SIGKILL);
    }
    sweep_descendants();
    match end {
        End::Exited(status) => status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(9)),
        End::WaitFailed => 125,
        End::Stop => STOPPED_STATUS,
    }
}

/// Becomes `program args` inside the sandbox from the environment (bubblewrap, or Tollgate's
/// inner step alone): how a local MCP server runs sandboxed. Returns only when that failed;
/// nothing runs unconfined.
#[cfg(target_os = "linux")]
fn exec_sandboxed(program: &str, args: &[String]) -> i32 {
    use std::os::unix::process::CommandExt;
    let spec = match sandbox_from_env() {
        Ok(Some(spec)) => spec,
        Ok(None) => {
            eprintln!("{SANDBOX_MARK} no sandbox settings were given");
            return SANDBOX_FAILED_STATUS;
        }
        Err(status) => return status,
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| spec.workspace.clone());
    let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    match crate::command(&spec, program.as_ref(), &args, &cwd) {
        Ok(mut cmd) => {
            let e = cmd.exec();
            eprintln!("tollgate: cannot start {program}: {e}");
            127
        }
        Err(e) => {
            eprintln!("{SANDBOX_MARK} {e}");
            SANDBOX_FAILED_STATUS
        }
    }
}

/// The sandbox asked for in [`crate::SANDBOX_ENV`], if any; or — after saying why on
/// stderr — the exit status to leave with when it cannot be read.
#[cfg(target_os = "linux")]
fn sandbox_from_env() -> Result<Option<crate::SandboxSpec>, i32> {
    let Some(raw) = std::env::var_os(crate::SANDBOX_ENV) else {
        return Ok(None);
    };
    serde_json::from_str(&raw.to_string_lossy())
        .map(Some)
        .map_err(|e| {
            eprintln!("{SANDBOX_MARK} the sandbox settings could not be read: {e}");
            SANDBOX_FAILED_STATUS
        })
}

#[cfg(not(target_os = "linux"))]
fn exec_sandboxed(_program: &str, _args: &[String]) -> i32 {
    eprintln!("{SANDBOX_MARK} no sandbox on this system");
    SANDBOX_FAILED_STATUS
}

/// Never configured off Linux (see [`configure`]); a stray request runs nothing.
#[cfg(not(target_os = "linux"))]
fn supervise(_command: &str) -> i32 {
    eprintln!("tollgate: the command supervisor exists on Linux only");
    126
}

/// Kills every process whose parent is this one (the subreaper inherits every orphan of the
/// command) until none is left, reaping each. Killing a process can hand its children to us,
/// so this repeats; a bound keeps a fork bomb from holding it forever.
///
/// The order is list, kill, then reap: a listed child that dies meanwhile stays a zombie until
/// it is reaped here, so its PID cannot be reused by an unrelated process before the kill.
#[cfg(target_os = "linux")]
fn sweep_descendants() {
    use nix::sys::signal::{kill, Signal};
    use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
    use nix::unistd::Pid;
    let me = std::process::id();
    let reap = || {
        while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            if status == WaitStatus::StillAlive {
                break;
            }
        }
    };
    for _ in 0..10_000 {
        let children = children_of(me);
        if children.is_empty() {
            reap();
            return;
        }
        for pid in children {
            if let Ok(pid) = i32::try_from(pid) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
        reap();
    }
}

/// The live (not zombie) children of `parent`, read from `/proc`.
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // "pid (comm) state ppid …": comm may hold spaces and parentheses.
            let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next().unwrap_or("Z");
            let ppid = fields.next().and_then(|p| p.parse::<u32>().ok());
            ppid == Some(parent) && state != "Z" && state != "X"
        })
        .collect()
}
