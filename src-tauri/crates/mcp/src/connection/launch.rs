//! How a local (stdio) server is started: in the sandbox it asked for, with its own files
//! visible, or as its command alone.

use super::*;

/// A server's sandbox for one launch: the spec, and the private temp folder it owns for as long
/// as the server runs.
pub(super) struct ServerSandbox {
    pub(super) spec: tollgate_sandbox::SandboxSpec,
    pub(super) program: PathBuf,
    pub(super) temp: tempfile::TempDir,
    /// "Only these hosts": the proxy the server reaches them through.
    pub(super) proxy: Option<tollgate_sandbox::proxy::HostProxy>,
}

/// The sandbox `wanted` for server `name`, or `None` where this system has none (the server
/// then runs without it, and the settings say so).
pub(super) async fn sandbox_for(
    name: &str,
    wanted: &crate::config::McpSandbox,
    hidden: &[PathBuf],
    keep_env: &[String],
    readable: Vec<PathBuf>,
) -> Result<Option<ServerSandbox>, McpError> {
    use tollgate_protocol::{ChatSandbox, SandboxLevel, SandboxReport};
    use tollgate_tools::supervisor;
    let support = supervisor::sandbox_support().await;
    let plan = SandboxReport::planned(
        &ChatSandbox {
            level: SandboxLevel::WorkspaceOnly,
            network: wanted.network,
            hosts: wanted.hosts.clone(),
            ..ChatSandbox::default()
        },
        &support,
    );
    let program = supervisor::program().cloned();
    let (true, Some(program)) = (plan.confined(), program) else {
        tracing::warn!("MCP server {name} runs without a sandbox: {support:?}");
        return Ok(None);
    };
    let temp = tempfile::Builder::new()
        .prefix(&format!("tollgate-mcp-{name}-"))
        .tempdir()
        .map_err(|e| McpError::Spawn {
            command: name.to_string(),
            message: format!("the sandbox's temp folder could not be made: {e}"),
        })?;
    let private = temp
        .path()
        .canonicalize()
        .unwrap_or_else(|_| temp.path().to_path_buf());
    // A folder stored before the rule existed, or that became unfit since (a new symlink in
    // the home), is not written: left out, with a warning.
    let writable: Vec<PathBuf> = wanted
        .folders
        .iter()
        .map(|f| PathBuf::from(f.trim()))
        .filter(|f| match tollgate_sandbox::fit::unfit_workspace(f) {
            None => true,
            Some(why) => {
                tracing::warn!("MCP server {name} may not write {}: {why}", f.display());
                false
            }
        })
        .collect();
    let spec = tollgate_sandbox::SandboxSpec {
        level: SandboxLevel::WorkspaceOnly,
        network: wanted.network,
        workspace: private.clone(),
        temp: private.clone(),
        hidden: hidden.to_vec(),
        // The one write policy (`tollgate_sandbox::protected`): in the folders it may write,
        // git's folders and whatever runs later outside the sandbox stay read-only.
        protected: writable.iter().flat_map(|f| protected_in(f)).collect(),
        writable,
        git: Vec::new(),
        keep_env: keep_env.to_vec(),
        namespaces: support.namespaces,
        hosts: if wanted.network {
            Vec::new()
        } else {
            wanted.hosts.clone()
        },
        set_env: Vec::new(),
        readable,
    };
    let proxy = if spec.proxied() {
        let socket = private.join(tollgate_sandbox::proxy::SOCKET_NAME);
        Some(
            tollgate_sandbox::proxy::HostProxy::start(&socket, spec.hosts.clone()).map_err(
                |e| McpError::Spawn {
                    command: name.to_string(),
                    message: format!("the proxy to its allowed hosts could not start: {e}"),
                },
            )?,
        )
    } else {
        None
    };
    Ok(Some(ServerSandbox {
        spec,
        program,
        temp,
        proxy,
    }))
}

/// What a server may not write in `folder`, one of the folders it may: its git folders and
/// every protected path ([`tollgate_sandbox::protected`]) as the walk finds them.
fn protected_in(folder: &std::path::Path) -> Vec<PathBuf> {
    let walked = tollgate_sandbox::walk_workspace(folder);
    walked.git.into_iter().chain(walked.read_only).collect()
}

/// The folders of a server's own files named in its command line (the program, a script): they
/// must show inside the sandbox even where the sandbox replaces their folder (a server kept
/// under `/tmp`). A file's folder is taken whole, for the modules beside it.
pub(super) fn own_files(command: &str, args: &[String]) -> Vec<PathBuf> {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .map(std::path::Path::new)
        .filter(|p| p.is_absolute())
        .filter_map(|p| match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => Some(p.to_path_buf()),
            Ok(_) => p.parent().map(std::path::Path::to_path_buf),
            Err(_) => None,
        })
        .collect()
}

/// How a stdio server is started: the command itself, or — in the sandbox — Tollgate's own
/// binary applying the sandbox and then becoming the command (so nothing runs unconfined).
pub(super) fn stdio_command(
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&str>,
    sandbox: Option<&ServerSandbox>,
    path: Option<&std::ffi::OsStr>,
) -> process_wrap::tokio::CommandWrap {
    let mut cmd = match sandbox {
        Some(sb) => {
            let mut cmd = tokio::process::Command::new(&sb.program);
            cmd.arg(tollgate_sandbox::supervisor::SANDBOXED_EXEC_ARG)
                .arg(command)
                .args(args);
            if let Ok(json) = serde_json::to_string(&sb.spec) {
                cmd.env(tollgate_sandbox::SANDBOX_ENV, json);
            }
            cmd
        }
        None => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args);
            cmd
        }
    };
    // The login shell's PATH first, so a PATH in the server's own settings still wins.
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    cmd.envs(env).kill_on_drop(true);
    if let Some(dir) = cwd.filter(|d| !d.trim().is_empty()) {
        cmd.current_dir(dir);
    }
    let mut wrap = process_wrap::tokio::CommandWrap::from(cmd);
    #[cfg(unix)]
    wrap.wrap(process_wrap::tokio::ProcessGroup::leader());
    #[cfg(windows)]
    wrap.wrap(process_wrap::tokio::JobObject);
    wrap
}
