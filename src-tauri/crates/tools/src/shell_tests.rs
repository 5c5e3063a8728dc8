//! The tests of `shell.rs`, kept beside it.

use super::*;

#[test]
fn a_sandbox_that_failed_is_told_apart_from_a_command_that_failed() {
    assert_eq!(
        sandbox_failure(Some(125), "tollgate-sandbox: the kernel has no Landlock\n"),
        Some("the kernel has no Landlock".to_string())
    );
    assert_eq!(
        sandbox_failure(Some(1), "bwrap: setting up uid map: Permission denied\n"),
        Some(
            "the sandbox could not be set up: bwrap: setting up uid map: Permission denied"
                .to_string()
        )
    );
    // The command's own failures, even ones that mention bwrap later, are its own.
    assert_eq!(
        sandbox_failure(Some(1), "make: *** [all] Error 1\nbwrap: x"),
        None
    );
    assert_eq!(sandbox_failure(Some(0), "bwrap: note"), None);
    assert_eq!(sandbox_failure(Some(125), "exit 125 of its own"), None);
}

mod running {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use tollgate_protocol::ToolEvent;

    fn ctx(dir: &Path) -> (ToolContext, tokio::sync::mpsc::UnboundedReceiver<ToolEvent>) {
        ToolContext::for_test(Some(dir))
    }

    fn alive(pid: u32) -> bool {
        // A zombie is dead for our purposes.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                let state = s.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with('Z') && !state.starts_with('X')
            })
            .unwrap_or(false)
    }

    /// How long a test waits for a state before it fails, however busy the machine.
    const PATIENCE: Duration = Duration::from_secs(60);

    async fn wait_for_file(path: &Path) -> String {
        let deadline = std::time::Instant::now() + PATIENCE;
        while std::time::Instant::now() < deadline {
            if let Ok(s) = std::fs::read_to_string(path) {
                if s.ends_with('\n') {
                    return s;
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{} never appeared", path.display());
    }

    async fn wait_dead(pid: u32) -> bool {
        let deadline = std::time::Instant::now() + PATIENCE;
        while std::time::Instant::now() < deadline {
            if !alive(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        false
    }

    #[tokio::test]
    async fn returns_exit_code_and_both_streams_from_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("here.txt"), "x").unwrap();
        let (ctx, _rx) = ctx(dir.path());
        let out = RunCommand::new()
            .execute(json!({"command": "ls; echo oops >&2; exit 3"}), ctx)
            .await
            .unwrap();
        assert_eq!(out["exit_code"], 3);
        assert_eq!(out["stdout"], "here.txt\n");
        assert_eq!(out["stderr"], "oops\n");
        assert_eq!(out["timed_out"], false);
        let text = format_output(&out);
        assert!(text.starts_with("Exit code 3."), "{text}");
        assert!(text.contains("--- stdout ---\nhere.txt\n"), "{text}");
        assert!(text.contains("--- stderr ---\noops\n"), "{text}");
    }

    #[tokio::test]
    async fn streams_output_into_the_log_while_running() {
        let dir = tempfile::tempdir().unwrap();
        let (ctx, mut rx) = ctx(dir.path());
        let task = tokio::spawn(async move {
            RunCommand::new()
                .execute(
                    json!({"command": "echo first; sleep 0.3; echo second >&2"}),
                    ctx,
                )
                .await
        });
        // The first line arrives before the command has finished.
        let first = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap();
        match first {
            ToolEvent::OutputDelta { stream, text, .. } => {
                assert_eq!(stream, OutputStream::Stdout);
                assert_eq!(text, "first\n");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(!task.is_finished());
        let out = task.await.unwrap().unwrap();
        assert_eq!(out["exit_code"], 0);
        let mut rest = Vec::new();
        while let Ok(e) = rx.try_recv() {
            rest.push(e);
        }
        assert!(rest.iter().any(|e| matches!(e,
            ToolEvent::OutputDelta { stream: OutputStream::Stderr, text, .. } if text == "second\n")));
    }

    /// The characters of output the log was told of (shown, and left out before what is
    /// shown), and how many events told it; every event must be output.
    fn logged_chars(rx: &mut tokio::sync::mpsc::UnboundedReceiver<ToolEvent>) -> (u64, usize) {
        let (mut logged, mut events) = (0, 0);
        while let Ok(event) = rx.try_recv() {
            match event {
                ToolEvent::OutputDelta { text, skipped, .. } => {
                    logged += skipped + text.chars().count() as u64;
                    events += 1;
                    assert!(text.len() <= crate::live_output::LIVE_TAIL_BYTES);
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        (logged, events)
    }

    #[tokio::test]
    async fn a_ten_megabyte_output_is_kept_whole_and_past_the_cap_the_drop_is_counted() {
        let dir = tempfile::tempdir().unwrap();
        let (ctx10, mut rx) = ctx(dir.path());
        let out = RunCommand::new()
            .execute(
                json!({"command": "head -c 10000000 /dev/zero | tr '\\0' a"}),
                ctx10,
            )
            .await
            .unwrap();
        let stdout = out["stdout"].as_str().unwrap();
        assert_eq!(stdout.len(), 10_000_000);
        assert!(stdout.bytes().all(|b| b == b'a'));
        // The log was told of every character, in a few bounded events (at most one per 50 ms
        // and stream, plus the last), not one per 16 KiB read.
        let (logged, events) = logged_chars(&mut rx);
        assert_eq!(logged, 10_000_000);
        assert!(events < 200, "{events} events");

        let over = MAX_CAPTURE_BYTES + 1_000;
        let (ctx_over, mut rx) = ctx(dir.path());
        let out = RunCommand::new()
            .execute(
                json!({ "command": format!("head -c {over} /dev/zero | tr '\\0' b") }),
                ctx_over,
            )
            .await
            .unwrap();
        let stdout = out["stdout"].as_str().unwrap();
        let note = "\n[1000 more bytes were not kept; redirect large output to a file]\n";
        assert!(stdout.ends_with(note), "{}", &stdout[stdout.len() - 100..]);
        assert_eq!(stdout.len(), MAX_CAPTURE_BYTES + note.len());
        // The log was still told of every byte.
        assert_eq!(logged_chars(&mut rx).0, over as u64);
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let (ctx, _rx) = ctx(dir.path());
        let out = RunCommand::new()
            .execute(
                json!({"command": "sleep 60 & echo $! > child.pid; echo started; sleep 60", "timeout_seconds": 1}),
                ctx,
            )
            .await
            .unwrap();
        assert_eq!(out["timed_out"], true);
        assert_eq!(out["exit_code"], Value::Null);
        assert_eq!(out["stdout"], "started\n");
        assert!(format_output(&out).starts_with("Timed out after 1 s"));
        let pid: u32 = std::fs::read_to_string(dir.path().join("child.pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            wait_dead(pid).await,
            "grandchild {pid} survived the timeout"
        );
    }

    #[tokio::test]
    async fn stop_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let (ctx, _rx) = ctx(dir.path());
        let cancel = ctx.cancel.clone();
        let task = tokio::spawn(async move {
            RunCommand::new()
                .execute(
                    json!({"command": "sh -c 'sleep 60' & echo $! > child.pid; sleep 60"}),
                    ctx,
                )
                .await
        });
        let pid: u32 = wait_for_file(&dir.path().join("child.pid"))
            .await
            .trim()
            .parse()
            .unwrap();
        assert!(alive(pid));
        cancel.cancel();
        let err = task.await.unwrap().unwrap_err();
        assert!(err.message.contains("stopped by the user"), "{err}");
        assert!(wait_dead(pid).await, "child {pid} survived Stop");
    }

    #[tokio::test]
    async fn dropping_the_call_kills_the_process_group() {
        // The executor's own timeout drops the future instead of cancelling it.
        let dir = tempfile::tempdir().unwrap();
        let (ctx, _rx) = ctx(dir.path());
        let tool = RunCommand::new();
        let fut = tool.execute(
            json!({"command": "sleep 60 & echo $! > child.pid; sleep 60"}),
            ctx,
        );
        let _ = tokio::time::timeout(Duration::from_millis(500), fut).await;
        let pid: u32 = wait_for_file(&dir.path().join("child.pid"))
            .await
            .trim()
            .parse()
            .unwrap();
        assert!(
            wait_dead(pid).await,
            "child {pid} survived the dropped call"
        );
    }

    #[tokio::test]
    async fn background_children_do_not_hold_the_call_open() {
        let dir = tempfile::tempdir().unwrap();
        let (ctx, _rx) = ctx(dir.path());
        let out = tokio::time::timeout(
            Duration::from_secs(20),
            RunCommand::new().execute(json!({"command": "sleep 60 & echo done"}), ctx),
        )
        .await
        .expect("the call waited for a background child")
        .unwrap();
        assert_eq!(out["exit_code"], 0);
        assert_eq!(out["stdout"], "done\n");
    }

    #[tokio::test]
    async fn refuses_to_run_without_a_workspace() {
        let (mut ctx, _rx) = ctx(Path::new("/"));
        ctx.workspace = None;
        let err = RunCommand::new()
            .execute(json!({"command": "true"}), ctx)
            .await
            .unwrap_err();
        assert!(err.message.contains("workspace"), "{err}");
    }

    #[test]
    fn rule_subject_and_preview_show_the_command() {
        let tool = RunCommand::new();
        let args = json!({"command": "cargo test && rm -rf /"});
        assert_eq!(
            tool.rule_subject(&args, None),
            RuleSubject::Command("cargo test && rm -rf /".into())
        );
        assert_eq!(
            tool.approval_preview(&args, Some(Path::new("/w"))),
            Some(ApprovalPreview::Command {
                command: "cargo test && rm -rf /".into(),
                cwd: "/w".into()
            })
        );
        assert_eq!(tool.spec().execution_policy, ExecutionPolicy::AskAlways);
        assert_eq!(
            tool.compress_args(&json!({"command": "a\nb"})).unwrap(),
            "a …"
        );
    }

    #[test]
    fn split_utf8_is_held_back() {
        let s = "é".as_bytes();
        assert_eq!(utf8_prefix_len(&s[..1]), 0);
        assert_eq!(utf8_prefix_len(s), 2);
        assert_eq!(utf8_prefix_len(&[b'a', 0xff, b'b']), 3);
    }
}
