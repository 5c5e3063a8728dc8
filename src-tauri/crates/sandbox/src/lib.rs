//! Tollgate's sandbox, a crate of its own so it can be read and audited alone: what an approved
//! shell command — or a local MCP server — may touch once it runs (bubblewrap namespaces,
//! Landlock, a clean environment), the proxy that lets it reach only the hosts the user listed
//! (with the address checks shared with `fetch_url`, [`reach`]), and the supervisor that starts
//! it, kills its whole process group and reports what happened. Of Tollgate's crates it depends
//! only on `tollgate-secrets` (which names are a secret's) and `tollgate-names` (how a listed
//! host and a public address are read) and must never depend on another: the
//! engine calls it; it knows nothing of chats, tools, rules, the store or the UI beyond its own
//! types ([`protocol`]), which the engine re-exports.
//!
//! The sandbox an approved shell command — or a local MCP server — runs in (F-46, F-46 and
//! 33). Approval answers "may this run?"; the sandbox answers "what may it touch?".
//!
//! On Linux it has two layers, each covering the other's gaps (docs/ARCHITECTURE.md, "The
//! sandbox"): namespaces made by bubblewrap ([`namespaces`]: no local socket of an outside
//! service, no signal out, nothing left behind, no network at all while it is off) and Landlock
//! ([`landlock`]: writes only in the workspace and a private temp folder, no read of a secret
//! path, no TCP while the network is off, abstract sockets and signals scoped). The command gets
//! a clean environment ([`environment`]). What the kernel cannot enforce is said, never
//! pretended ([`crate::protocol::SandboxSupport::gaps`]). Other systems have no sandbox yet.

pub mod client_hello;
pub mod environment;
pub mod explain;
pub mod fit;
pub mod git_stage;
pub mod git_steering;
pub mod http_head;
mod landlock;
mod mounts;
pub mod namespaces;
pub mod paths;
pub mod protected;
pub mod writes;
/// The sandbox's vocabulary (levels, support, reports) lives on the ground floor, with the other
/// types that reach the UI.
pub use tollgate_protocol::sandbox as protocol;
pub mod proxy;
pub mod reach;
pub mod supervisor;
pub mod workspace_guard;

use serde::{Deserialize, Serialize};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

pub use crate::protocol::{
    ChatSandbox, SandboxGap, SandboxLevel, SandboxMode, SandboxReport, SandboxSupport,
};
pub use explain::explain_denials;
pub use git_stage::GitFolder;
pub use paths::{hidden_folders, secret_paths, walk_workspace, SECRET_PATHS};
pub use workspace_guard::WorkspaceGuard;

/// The environment variable that carries a [`SandboxSpec`] (JSON) to the supervisor.
pub const SANDBOX_ENV: &str = "TOLLGATE_SANDBOX";

/// The argument that makes Tollgate's binary, inside the namespaces, apply Landlock from
/// [`SANDBOX_ENV`] to itself and become `<program> <args…>`: `tollgate <ARG> <program> <args…>`.
pub const INNER_ARG: &str = "--tollgate-sandbox-inner";

/// Starts Tollgate's own line on stderr about the sandbox (why a command did not run).
pub const SANDBOX_MARK: &str = "tollgate-sandbox:";

/// The exit status when the sandbox a command asked for could not be set up (it did not run).
pub const SANDBOX_FAILED_STATUS: i32 = 125;

/// Everything the supervisor needs to build the sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSpec {
    pub level: SandboxLevel,
    /// Whether the network is reachable (TCP, UDP, DNS).
    pub network: bool,
    /// The chat's workspace: readable, and writable at [`SandboxLevel::WorkspaceOnly`].
    pub workspace: PathBuf,
    /// A private temp folder for this run (`/tmp` and `TMPDIR` inside), always writable.
    pub temp: PathBuf,
    /// Paths that must never be readable ([`paths::hidden_folders`]), each also as its real path.
    pub hidden: Vec<PathBuf>,
    /// More folders to write in at [`SandboxLevel::WorkspaceOnly`] (the folders an MCP server
    /// needs, from its settings).
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Paths in the workspace kept read-only ([`paths::Walked::read_only`]): `.git` files, a
    /// hooks folder in the working tree, the files editors run when the folder is opened.
    #[serde(default)]
    pub protected: Vec<PathBuf>,
    /// The workspace's git folders as the command is shown them ([`git_stage`]): a copy that
    /// only git's data comes back from, or read-only but for their data folders.
    #[serde(default)]
    pub git: Vec<GitFolder>,
    /// Names of variables passed through besides [`environment::PASSED`] (an MCP server's own
    /// settings); [`environment::refused`] names never are.
    #[serde(default)]
    pub keep_env: Vec<String>,
    /// Whether the run gets namespaces of its own (bubblewrap works on this system).
    #[serde(default)]
    pub namespaces: bool,
    /// With the network off, the hosts reachable through Tollgate's proxy ([`proxy`]), whose
    /// socket is in the private temp folder; empty: none.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Variables the chat adds to the clean environment (checked by
    /// [`environment::refused_for_chat`] when the user set them, and again here).
    #[serde(default)]
    pub set_env: Vec<(String, String)>,
    /// Folders shown read-only inside even where the sandbox replaces their parent (`/tmp`,
    /// `/run`): an MCP server's own files. Never a hidden path.
    #[serde(default)]
    pub readable: Vec<PathBuf>,
}

impl SandboxSpec {
    /// A path this run would mount onto inside the workspace (or a folder it may write) that is
    /// a symbolic link now, or passes through one: a read-only path, a git folder or one of its data folders,
    /// each checked one component at a time from the folder it is in (`mounts`).
    pub fn replaced_mount(&self) -> Option<PathBuf> {
        let mut destinations: Vec<PathBuf> = self.protected.clone();
        for git in &self.git {
            destinations.push(git.real.clone());
            let data = match &git.shown {
                git_stage::GitShown::Copy { stores, .. } => stores.as_slice(),
                git_stage::GitShown::ReadOnly { data } => data.as_slice(),
                git_stage::GitShown::Undone => &[],
            };
            destinations.extend(data.iter().map(|d| git.real.join(d)));
        }
        let destinations: Vec<&Path> = destinations.iter().map(PathBuf::as_path).collect();
        std::iter::once(&self.workspace)
            .chain(&self.writable)
            .find_map(|base| mounts::replaced_by_a_link(base, &destinations))
    }

    /// Whether the run reaches the listed hosts through the proxy: the network is off, hosts
    /// are listed, and the run has a network namespace of its own.
    pub fn proxied(&self) -> bool {
        !self.network && !self.hosts.is_empty() && self.namespaces
    }

    /// Where the private temp folder is as the command sees it: `/tmp` inside the namespaces,
    /// its own path without them.
    pub fn temp_inside(&self) -> PathBuf {
        if self.namespaces {
            PathBuf::from(namespaces::TEMP_INSIDE)
        } else {
            self.temp.clone()
        }
    }
}

/// What the executor hands a tool about the chat's sandbox (F-46).
#[derive(Debug, Clone, Default)]
pub struct SandboxPlan {
    /// The chat's level and network switch (for this call).
    pub chat: ChatSandbox,
    /// The paths no command and no file tool may read ([`hidden_folders`]).
    pub hidden: std::sync::Arc<[PathBuf]>,
}

/// Why a sandbox could not be set up; the command does not run without it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("no sandbox on this system ({0})")]
    Unsupported(String),
    #[error("the sandbox could not be set up: {0}")]
    Failed(String),
}

/// The process that runs `program args` in the sandbox of `spec`, in `cwd`: bubblewrap around
/// Tollgate's binary ([`INNER_ARG`]) where namespaces work, Tollgate's binary alone where they
/// do not; either way with the clean environment and the spec for the inner step.
pub fn command(
    spec: &SandboxSpec,
    program: &OsStr,
    args: &[OsString],
    cwd: &Path,
) -> Result<std::process::Command, SandboxError> {
    let inner = std::env::current_exe()
        .map_err(|e| SandboxError::Failed(format!("Tollgate's own binary is not found: {e}")))?;
    let json = serde_json::to_string(spec)
        .map_err(|e| SandboxError::Failed(format!("the settings could not be written: {e}")))?;
    let temp_inside = spec.temp_inside().display().to_string();
    let mut cmd = if spec.namespaces {
        let bwrap = namespaces::bwrap().ok_or_else(|| {
            SandboxError::Unsupported("bubblewrap (bwrap) is not installed".into())
        })?;
        // Never mount onto a path a command could have replaced since the walk: bubblewrap
        // before 0.12 follows a link there while it sets up (`mounts`).
        if let Some(link) = spec.replaced_mount() {
            return Err(SandboxError::Failed(format!(
                "{} changed into a link after the sandbox checked the workspace, so nothing was mounted onto it and the command did not run; run it again",
                link.display()
            )));
        }
        let app_dir = std::env::var_os("APPDIR").map(PathBuf::from);
        let mut cmd = std::process::Command::new(bwrap);
        cmd.args(namespaces::bwrap_args(
            spec,
            &inner,
            app_dir.as_deref(),
            cwd,
        ))
        .arg(&inner);
        cmd
    } else {
        std::process::Command::new(&inner)
    };
    cmd.arg(INNER_ARG)
        .arg(program)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(environment::clean(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
            &spec.keep_env,
            &temp_inside,
        ))
        .env(SANDBOX_ENV, json)
        .envs(
            spec.set_env
                .iter()
                .filter(|(name, _)| environment::refused_for_chat(name).is_none())
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
    if spec.proxied() {
        cmd.envs(environment::proxy(proxy::PORT_INSIDE));
    }
    Ok(cmd)
}

/// The inner step ([`INNER_ARG`]): applies Landlock from [`SANDBOX_ENV`] to this process and
/// becomes `program args`. Returns only when that failed: nothing runs less confined than the
/// spec says.
#[cfg(unix)]
pub(crate) fn inner_main(program: &str, args: &[String]) -> i32 {
    use std::os::unix::process::CommandExt;
    let fail = |why: String| {
        eprintln!("{SANDBOX_MARK} {why}");
        SANDBOX_FAILED_STATUS
    };
    let Some(raw) = std::env::var_os(SANDBOX_ENV) else {
        return fail("no sandbox settings were given".into());
    };
    let spec: SandboxSpec = match serde_json::from_str(&raw.to_string_lossy()) {
        Ok(spec) => spec,
        Err(e) => return fail(format!("the sandbox settings could not be read: {e}")),
    };
    let temp = spec.temp_inside();
    // "Only these hosts": the forwarder to the proxy, started before Landlock (it listens on
    // the namespace's loopback) and listening before the command starts.
    let proxy_port = if spec.proxied() {
        if let Err(why) = start_forwarder(&temp.join(proxy::SOCKET_NAME)) {
            return fail(why);
        }
        Some(proxy::PORT_INSIDE)
    } else {
        None
    };
    match landlock::restrict(&spec, temp, spec.namespaces, proxy_port) {
        Ok(applied) if applied.abi == 0 && !spec.namespaces => {
            return fail("the kernel has no Landlock and no namespaces could be made".into())
        }
        Ok(_) => {}
        Err(e) => return fail(e.to_string()),
    }
    let e = std::process::Command::new(program)
        .args(args)
        .env_remove(SANDBOX_ENV)
        .exec();
    eprintln!("tollgate: cannot start {program}: {e}");
    127
}

/// Starts the proxy's forwarder ([`proxy::FORWARD_ARG`]) and waits until it listens.
#[cfg(unix)]
fn start_forwarder(socket: &Path) -> Result<(), String> {
    use std::io::BufRead;
    let exe = std::env::current_exe().map_err(|e| format!("the proxy cannot start: {e}"))?;
    let mut child = std::process::Command::new(exe)
        .arg(proxy::FORWARD_ARG)
        .arg(socket)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("the proxy cannot start: {e}"))?;
    let mut line = String::new();
    let said = child
        .stdout
        .take()
        .map(|out| std::io::BufReader::new(out).read_line(&mut line));
    match said {
        Some(Ok(_)) if line.trim() == "ready" => Ok(()),
        _ => Err("the proxy to this chat's allowed hosts did not start".into()),
    }
}

/// No sandbox off Unix: nothing runs.
#[cfg(not(unix))]
pub(crate) fn inner_main(_program: &str, _args: &[String]) -> i32 {
    eprintln!("{SANDBOX_MARK} no sandbox on this system");
    SANDBOX_FAILED_STATUS
}

/// The argument that makes Tollgate's binary try the sandbox on itself and print what this
/// system can enforce ([`SandboxSupport`] as JSON): `tollgate <ARG>`. A sandbox is for life, so
/// the app asks a child process instead of itself.
pub const PROBE_ARG: &str = "--tollgate-sandbox-probe";

/// The probe's own work (in the child): tries bubblewrap's namespaces, then applies Landlock
/// with the network off to this process, and prints what held.
pub(crate) fn probe_here() -> i32 {
    let namespaces = try_namespaces();
    let temp = std::env::temp_dir();
    let spec = SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        workspace: temp.clone(),
        temp: temp.clone(),
        ..SandboxSpec::default()
    };
    let landlock_abi = landlock::restrict(&spec, temp, false, None).map_or(0, |a| a.abi);
    let support = SandboxSupport::new(cfg!(target_os = "linux"), landlock_abi, namespaces.err());
    match serde_json::to_string(&support) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(_) => 1,
    }
}

/// Whether bubblewrap can make the namespaces a run needs here; why not, when not.
fn try_namespaces() -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err("only Linux has namespaces".into());
    }
    let bwrap = namespaces::bwrap().ok_or("bubblewrap (bwrap) is not installed")?;
    let out = std::process::Command::new(bwrap)
        .args(namespaces::namespace_args(false))
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/run",
            "--",
            "sh",
            "-c",
            ":",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("bubblewrap could not be started: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(format!(
        "bubblewrap could not make namespaces ({}); unprivileged user namespaces may be switched off",
        said.lines().next().unwrap_or("no reason given").trim()
    ))
}
