//! The `shell` group (F-43): one tool, `run_command`, that runs a command line with `sh -c` in the
//! chat's workspace folder. Output streams into the tool-chain log while it runs; the result holds
//! the exit code and both streams. The command runs under a supervisor ([`super::supervisor`])
//! that inherits every process it leaves behind — also those that left its process group with
//! `setsid` or a double fork — and kills them all on timeout, on Stop, and when the command ends:
//! nothing keeps running unseen, and nothing holds the call open. Without a supervisor (the
//! library's own unit tests) the command's process group is killed instead.
//! Default policy: ask-always; "always allow" rules match the parsed command, never a prefix of
//! the text (see `rules::command`).

use super::files::{str_arg, workspace::Workspace};
use super::live_output::LiveOutput;
use super::sandbox::{self, SandboxReport, SandboxSpec, SANDBOX_ENV};
use super::{Tool, ToolContext, ToolError, ToolErrorKind, ToolGroup, ToolSpec};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tollgate_protocol::policy::ExecutionPolicy;
use tollgate_protocol::ApprovalPreview;
use tollgate_protocol::OutputStream;
use tollgate_rules::RuleSubject;
// The Windows shell child is a process-wrap child wrapper; its methods come from this trait.
#[cfg(windows)]
use process_wrap::tokio::ChildWrapper as _;

/// The timeout of a command when the model gives none.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest timeout a call may ask for (the tool's own timeout in settings still applies).
pub const MAX_COMMAND_TIMEOUT: Duration = Duration::from_secs(3_600);
/// Bytes of each stream kept for the result (and so in the call's variable); the log still
/// shows everything. A 10 MB build log is kept whole (F-71); past this, the result says how
/// many bytes were not kept.
pub const MAX_CAPTURE_BYTES: usize = 32 * 1024 * 1024;

/// The group. It is offered only in chats that have a workspace folder.
pub fn group() -> ToolGroup {
    ToolGroup::new(
        "shell",
        "Shell",
        "Run shell commands in this chat's workspace folder. Every command asks first unless a rule allows it.",
    )
    .enabled_by_default(true)
    .needs_workspace()
    .guidance(super::Guidance::Text(
        "`run_command` runs one command line with `sh -c` in the workspace folder, without a terminal or input. Prefer non-interactive flags (e.g. `--yes`, `--no-pager`). Use the file tools, not `cat`/`sed`, to read and change files.".into(),
    ))
    .tool(RunCommand::new())
}

/// Runs a shell command line.
pub struct RunCommand(ToolSpec);

impl RunCommand {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "run_command",
                "Run a shell command (sh -c) in the workspace folder. Returns the exit code, stdout and stderr. Commands that run longer than timeout_seconds are stopped with all their child processes.",
                json!({"type": "object", "properties": {
                    "command": {"type": "string", "minLength": 1, "description": "The command line."},
                    "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": MAX_COMMAND_TIMEOUT.as_secs(), "description": "Default 120."}
                }, "required": ["command"], "additionalProperties": false}),
            )
            .policy(ExecutionPolicy::AskAlways)
            .sandboxed()
            .effects(crate::ToolEffects {
                writes: true,
                executes: true,
                reads_private: true,
                ..crate::ToolEffects::NONE
            })
            .content(crate::ContentKind::Command)
            .timeout(MAX_COMMAND_TIMEOUT)
            .returns("CommandOutput", Some("exit code, stdout, stderr")),
        )
    }
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Exited(Option<i32>),
    TimedOut,
}

#[async_trait]
impl Tool for RunCommand {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, ctx: ToolContext) -> Result<Value, ToolError> {
        let ws = Workspace::of(ctx.workspace.as_deref())?;
        let command = str_arg(&args, "command")?;
        let timeout = args
            .get("timeout_seconds")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_COMMAND_TIMEOUT, Duration::from_secs)
            .min(MAX_COMMAND_TIMEOUT);
        run(command, ws.root(), timeout, &ctx).await
    }

    fn format_for_llm(&self, data: &Value, _args: &Value) -> Option<String> {
        Some(format_output(data))
    }

    fn sandbox_report(&self, data: &Value) -> Option<SandboxReport> {
        serde_json::from_value(data.get("sandbox")?.clone()).ok()
    }

    fn compress_args(&self, args: &Value) -> Option<String> {
        args.get("command").and_then(Value::as_str).map(|c| {
            let line = c.lines().next().unwrap_or_default();
            if line.len() < c.len() {
                format!("{line} …")
            } else {
                line.to_string()
            }
        })
    }

    fn compress_result(&self, text: &str) -> Option<String> {
        text.lines().next().map(str::to_string)
    }

    fn rule_subject(&self, args: &Value, _workspace: Option<&Path>) -> RuleSubject {
        RuleSubject::Command(
            args.get("command")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        )
    }

    fn approval_preview(&self, args: &Value, workspace: Option<&Path>) -> Option<ApprovalPreview> {
        Some(ApprovalPreview::Command {
            command: args.get("command")?.as_str()?.to_string(),
            cwd: workspace
                .map(|w| w.display().to_string())
                .unwrap_or_default(),
        })
    }
}

/// The text the model sees: a status line, then each non-empty stream.
fn format_output(data: &Value) -> String {
    let mut out = String::new();
    let timed_out = data.get("timed_out").and_then(Value::as_bool) == Some(true);
    match data.get("exit_code").and_then(Value::as_i64) {
        _ if timed_out => out.push_str(&format!(
            "Timed out after {} s; the command and its child processes were stopped.",
            data.get("timeout_seconds")
                .and_then(Value::as_u64)
                .unwrap_or_default()
        )),
        Some(code) => out.push_str(&format!("Exit code {code}.")),
        None => out.push_str("Ended by a signal (no exit code)."),
    }
    let blocked = data
        .get("sandbox")
        .and_then(|s| s.get("blocked"))
        .and_then(Value::as_array)
        .map(|b| b.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    if !blocked.is_empty() {
        out.push_str(&format!(
            "\nBlocked by the sandbox: {}. {SANDBOX_HINT}",
            blocked.join("; ")
        ));
    }
    for key in ["stdout", "stderr"] {
        let text = data.get(key).and_then(Value::as_str).unwrap_or_default();
        if !text.is_empty() {
            out.push_str(&format!("\n--- {key} ---\n{text}"));
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    if data
        .get("stdout")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .is_empty()
        && data
            .get("stderr")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
    {
        out.push_str(" No output.");
    }
    out
}

/// What the model is told after a blocked operation: the sandbox is the user's to lower.
const SANDBOX_HINT: &str = "The user can run it again without the sandbox or change this chat's sandbox; do not try to get around it.";

/// The sandbox one run gets: what it will be reported as, and, when it confines the command,
/// the spec for the supervisor with the private temp folder it owns (removed when dropped).
struct RunSandbox {
    report: SandboxReport,
    confined: Option<(SandboxSpec, tempfile::TempDir)>,
    /// "Only these hosts": the proxy the command reaches them through, for as long as it runs.
    proxy: Option<sandbox::proxy::HostProxy>,
    /// Git's folders shown as copies, and what the command creates that other programs run:
    /// settled when the run ends (or this is dropped).
    guard: Option<sandbox::WorkspaceGuard>,
}

impl RunSandbox {
    async fn plan(ctx: &ToolContext, workspace: &Path) -> Result<Self, ToolError> {
        let support = super::supervisor::sandbox_support().await;
        let mut report = SandboxReport::planned(&ctx.sandbox.chat, &support);
        report.workspace = Some(workspace.display().to_string());
        if !report.confined() {
            return Ok(Self {
                report,
                confined: None,
                proxy: None,
                guard: None,
            });
        }
        let temp = tempfile::Builder::new()
            .prefix("tollgate-run-")
            .tempdir()
            .map_err(|e| {
                ToolError::new(
                    ToolErrorKind::Io,
                    format!("the sandbox's temp folder could not be made: {e}"),
                )
            })?;
        let level = ctx.sandbox.chat.level;
        let guard = if report.git_writable || level != sandbox::SandboxLevel::WorkspaceOnly {
            None
        } else {
            let workspace = workspace.to_path_buf();
            let namespaces = support.namespaces;
            let prepared = tokio::task::spawn_blocking(move || {
                sandbox::WorkspaceGuard::prepare(&workspace, namespaces)
            })
            .await
            .map_err(|e| ToolError::other(format!("the sandbox could not be prepared: {e}")))?;
            Some(prepared.map_err(|e| {
                ToolError::new(
                    ToolErrorKind::Io,
                    format!("git's folders could not be prepared for the sandbox: {e}"),
                )
            })?)
        };
        let mut spec = SandboxSpec {
            level,
            network: ctx.sandbox.chat.network,
            workspace: workspace.to_path_buf(),
            temp: temp
                .path()
                .canonicalize()
                .unwrap_or_else(|_| temp.path().to_path_buf()),
            hidden: ctx.sandbox.hidden.to_vec(),
            writable: Vec::new(),
            protected: Vec::new(),
            git: Vec::new(),
            keep_env: Vec::new(),
            namespaces: support.namespaces,
            hosts: if ctx.sandbox.chat.network {
                Vec::new()
            } else {
                ctx.sandbox.chat.hosts.clone()
            },
            readable: Vec::new(),
            set_env: ctx
                .sandbox
                .chat
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        };
        if let Some(guard) = &guard {
            guard.apply(&mut spec);
        }
        let proxy = if spec.proxied() {
            let socket = spec.temp.join(sandbox::proxy::SOCKET_NAME);
            Some(
                sandbox::proxy::HostProxy::start(&socket, spec.hosts.clone()).map_err(|e| {
                    ToolError::new(
                        ToolErrorKind::Unavailable,
                        format!("the proxy to this chat's allowed hosts could not start: {e}"),
                    )
                })?,
            )
        } else {
            None
        };
        Ok(Self {
            report,
            confined: Some((spec, temp)),
            proxy,
            guard,
        })
    }

    /// The report after the run: what the command's output shows the sandbox blocked, and —
    /// when it blocked something, so that a rerun without it may follow — the files in the
    /// workspace the run changed.
    fn finish(
        mut self,
        stdout: &str,
        stderr: &str,
        started: std::time::SystemTime,
    ) -> SandboxReport {
        if let Some((spec, _)) = &self.confined {
            // Each refusal as the proxy gave it: an unlisted host, a listed name that leads to
            // a private address, a tunnel that names another host (SPEC §12).
            let refused = self
                .proxy
                .as_ref()
                .map(|p| p.refusals())
                .unwrap_or_default();
            let mut blocked: Vec<String> = refused
                .iter()
                .map(|r| format!("connecting to {}: {}", r.target, r.why))
                .collect();
            blocked.extend(sandbox::explain_denials(
                &format!("{stderr}\n{stdout}"),
                spec,
            ));
            // What the command wrote in git's folders that is not data, and what it created
            // that git or an editor would run: not kept (the run has ended: nothing of it is
            // left to write).
            if let Some(guard) = self.guard.take() {
                blocked.extend(guard.settle());
            }
            self.report.blocked = blocked;
            if !self.report.blocked.is_empty() {
                self.report.changed = super::changed_files::since(&spec.workspace, started);
            }
        }
        self.report
    }
}

/// Spawns `command`, streams its output to the log and waits for it, the timeout or Stop.
async fn run(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    ctx: &ToolContext,
) -> Result<Value, ToolError> {
    let sandbox = RunSandbox::plan(ctx, cwd).await?;
    let started = std::time::SystemTime::now() - super::changed_files::START_MARGIN;
    let cmd = command_for(command, cwd, &sandbox).await?;
    let mut child = spawn_shell(cmd).map_err(|e| {
        ToolError::new(
            ToolErrorKind::Unavailable,
            format!("cannot start the shell: {e}"),
        )
    })?;
    let (stdin, stdout, stderr) = take_pipes(&mut child);
    // Dropped on every way out of this function — including the executor dropping the future on
    // its own timeout — and then stops whatever is left: the supervisor sees its stdin close
    // and kills every descendant; without one, the process group is killed.
    let group = match stdin {
        Some(stop_line) => Leftovers::Supervised {
            _stop_line: stop_line,
        },
        None => Leftovers::Group(child.id()),
    };
    let out_task = tokio::spawn(pump(stdout, OutputStream::Stdout, ctx.clone()));
    let err_task = tokio::spawn(pump(stderr, OutputStream::Stderr, ctx.clone()));

    let ending = tokio::select! {
        status = child.wait() => {
            let status = status.map_err(|e| ToolError::new(ToolErrorKind::Io, format!("waiting for the command failed: {e}")))?;
            Ending::Exited(status.code())
        }
        () = tokio::time::sleep(timeout) => Ending::TimedOut,
        () = ctx.cancel.cancelled() => {
            drop(group);
            kill_job(&mut child);
            return Err(ToolError::other("stopped by the user; the command and its child processes were killed"));
        }
    };
    // The shell is gone (or timed out): stop what it left behind so the pipes close.
    drop(group);
    kill_job(&mut child);
    let stdout = out_task.await.unwrap_or_default();
    let stderr = err_task.await.unwrap_or_default();
    let (exit_code, timed_out) = match ending {
        Ending::Exited(code) => (code, false),
        Ending::TimedOut => (None, true),
    };
    if let Some(why) = sandbox
        .confined
        .as_ref()
        .and_then(|_| sandbox_failure(exit_code, &stderr))
    {
        return Err(ToolError::new(
            ToolErrorKind::Unavailable,
            format!("the command did not run: {why}"),
        )
        .with_suggestion("Tell the user; they can turn this chat's sandbox off to run it."));
    }
    let report = sandbox.finish(&stdout, &stderr, started);
    Ok(json!({
        "command": command,
        "exit_code": exit_code,
        "timed_out": timed_out,
        "timeout_seconds": timeout.as_secs(),
        "stdout": stdout,
        "stderr": stderr,
        "sandbox": report,
    }))
}

/// The process that runs `command` in `cwd`: through the supervisor where there is one (its
/// stdin is the stop line), else the shell itself; plain output for a reader that is not a
/// terminal, the login shell's `PATH`, the sandbox's settings, its own process group.
async fn command_for(
    command: &str,
    cwd: &Path,
    sandbox: &RunSandbox,
) -> Result<Command, ToolError> {
    let supervisor = super::supervisor::program();
    let mut cmd = match supervisor {
        Some(program) => {
            let mut cmd = Command::new(program);
            cmd.arg(super::supervisor::SUPERVISOR_ARG).arg(command);
            // Its stdin is the stop line: closing it makes the supervisor kill everything.
            cmd.stdin(Stdio::piped());
            cmd
        }
        None => {
            let mut cmd = shell_command(command);
            cmd.stdin(Stdio::null()).kill_on_drop(true);
            cmd
        }
    };
    cmd.current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("TERM", "dumb")
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        .env("NO_COLOR", "1");
    if let Some(path) = super::login_path::for_children_async().await {
        cmd.env("PATH", path);
    }
    if let Some((spec, _)) = &sandbox.confined {
        let json = serde_json::to_string(spec).map_err(|e| {
            ToolError::other(format!("the sandbox settings could not be written: {e}"))
        })?;
        cmd.env(SANDBOX_ENV, json);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    Ok(cmd)
}

/// Why the sandbox could not be set up, when that is why the command ended: Tollgate's own
/// line ([`sandbox::SANDBOX_MARK`]), or bubblewrap's before the command started.
fn sandbox_failure(exit_code: Option<i32>, stderr: &str) -> Option<String> {
    match exit_code {
        Some(sandbox::SANDBOX_FAILED_STATUS) if stderr.starts_with(sandbox::SANDBOX_MARK) => {
            Some(stderr[sandbox::SANDBOX_MARK.len()..].trim().to_string())
        }
        Some(code) if code != 0 && stderr.starts_with("bwrap: ") => Some(format!(
            "the sandbox could not be set up: {}",
            stderr.lines().next().unwrap_or_default().trim()
        )),
        _ => None,
    }
}

/// The running shell. On Windows, where there are no process groups to kill, it runs inside a
/// job object: killing the job kills every process the command started (and dropping it does
/// too, when the executor gives up on the call).
#[cfg(not(windows))]
type ShellChild = tokio::process::Child;
#[cfg(windows)]
type ShellChild = Box<dyn process_wrap::tokio::ChildWrapper>;

#[cfg(not(windows))]
fn spawn_shell(mut cmd: Command) -> std::io::Result<ShellChild> {
    cmd.spawn()
}

#[cfg(windows)]
fn spawn_shell(cmd: Command) -> std::io::Result<ShellChild> {
    let mut wrap = process_wrap::tokio::CommandWrap::from(cmd);
    wrap.wrap(process_wrap::tokio::JobObject)
        .wrap(process_wrap::tokio::KillOnDrop);
    wrap.spawn()
}

type Pipes = (
    Option<tokio::process::ChildStdin>,
    Option<tokio::process::ChildStdout>,
    Option<tokio::process::ChildStderr>,
);

#[cfg(not(windows))]
fn take_pipes(child: &mut ShellChild) -> Pipes {
    (child.stdin.take(), child.stdout.take(), child.stderr.take())
}

#[cfg(windows)]
fn take_pipes(child: &mut ShellChild) -> Pipes {
    (
        child.stdin().take(),
        child.stdout().take(),
        child.stderr().take(),
    )
}

/// Kills what the command left running, where a job holds it (Windows); elsewhere [`Leftovers`]
/// does it when dropped.
#[cfg(not(windows))]
fn kill_job(_child: &mut ShellChild) {}

#[cfg(windows)]
fn kill_job(child: &mut ShellChild) {
    // Terminates the job: the shell and everything it started. Already gone is fine.
    let _ = child.start_kill();
}

#[cfg(unix)]
fn shell_command(command: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command);
    cmd
}

#[cfg(not(unix))]
fn shell_command(command: &str) -> Command {
    let mut cmd = Command::new("cmd");
    cmd.arg("/C").arg(command);
    cmd
}

/// What stops a command's leftovers when dropped.
enum Leftovers {
    /// The supervisor's stdin: closing it tells the supervisor to kill every descendant.
    Supervised {
        _stop_line: tokio::process::ChildStdin,
    },
    /// The command's own process group, killed directly.
    Group(Option<u32>),
}

impl Drop for Leftovers {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Self::Group(Some(pid)) = self {
            if let Ok(pid) = i32::try_from(*pid) {
                use nix::sys::signal::{killpg, Signal};
                use nix::unistd::Pid;
                // ESRCH (already gone) is the normal case.
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
    }
}

/// Reads a stream to its end: its output goes to the log as it comes (a bounded tail at a
/// bounded rate: [`LiveOutput`]), the first [`MAX_CAPTURE_BYTES`] into the result. UTF-8
/// sequences split across reads are kept whole.
async fn pump(
    reader: Option<impl AsyncRead + Unpin>,
    stream: OutputStream,
    ctx: ToolContext,
) -> String {
    let Some(mut reader) = reader else {
        return String::new();
    };
    let mut captured: Vec<u8> = Vec::new();
    let mut carry: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut dropped = 0usize;
    let mut live = LiveOutput::default();
    let send = |live: &mut LiveOutput| {
        if let Some(chunk) = live.take(tokio::time::Instant::now()) {
            ctx.emit_output(stream, chunk.text, chunk.skipped);
        }
    };
    loop {
        let due = live.due();
        // `read` is cancel-safe: when the timer wins, no bytes are lost.
        let read = tokio::select! {
            read = reader.read(&mut buf) => read,
            () = tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)), if due.is_some() => {
                send(&mut live);
                continue;
            }
        };
        let n = match read {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        let room = MAX_CAPTURE_BYTES.saturating_sub(captured.len());
        captured.extend_from_slice(&chunk[..room.min(n)]);
        dropped += n.saturating_sub(room);
        carry.extend_from_slice(chunk);
        let valid = utf8_prefix_len(&carry);
        if valid > 0 {
            live.push(&String::from_utf8_lossy(&carry[..valid]));
            carry.drain(..valid);
        }
        if live
            .due()
            .is_some_and(|at| at <= tokio::time::Instant::now())
        {
            send(&mut live);
        }
    }
    if !carry.is_empty() {
        live.push(&String::from_utf8_lossy(&carry));
    }
    send(&mut live);
    let mut text = String::from_utf8_lossy(&captured).into_owned();
    if dropped > 0 {
        text.push_str(&format!(
            "\n[{dropped} more bytes were not kept; redirect large output to a file]\n"
        ));
    }
    text
}

/// The length of `bytes` without an incomplete UTF-8 sequence at its end (invalid bytes count as
/// complete: they become U+FFFD).
fn utf8_prefix_len(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    }
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
