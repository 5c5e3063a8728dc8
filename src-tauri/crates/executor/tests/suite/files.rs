//! The `files` group through the real executor: confinement to the workspace (including a path
//! that becomes a symlink after approval), reading, listing, glob and grep with .gitignore,
//! writing and editing with a diff on the approval card, and path rules.

use crate::common::*;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use tollgate_executor::ToolExecutor;
use tollgate_protocol::policy::CallStatus;
use tollgate_protocol::ApprovalPreview;
use tollgate_protocol::{ApprovalRequest, RuleGrant, RuleScopeChoice};
use tollgate_protocol::{Decision, ExecutionDecision};

fn write(root: &Path, rel: &str, content: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

/// Runs a call that asks, answering with `d`; returns the approval and the result.
async fn decided(
    h: &Harness,
    exec: &Arc<ToolExecutor>,
    req: tollgate_executor::ToolCallRequest,
    d: ExecutionDecision,
) -> (
    tollgate_protocol::PendingApproval,
    tollgate_executor::ToolCallResult,
) {
    let task = spawn(exec, req);
    let p = h.next_approval().await;
    exec.asks()
        .answer_approval(&p.id, Decision::Execution(d))
        .unwrap();
    (p, task.await.unwrap())
}

#[tokio::test]
async fn without_a_workspace_file_tools_are_not_offered() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    assert!(!exec
        .toolbox()
        .definitions()
        .iter()
        .any(|d| d.name == "read_file"));
    let r = run(&exec, call("read_file", json!({"path": "a.txt"}))).await;
    assert_eq!(r.status, CallStatus::NotFound);
    let (exec, _ws) = h.chat_in_workspace().await;
    assert!(exec
        .toolbox()
        .definitions()
        .iter()
        .any(|d| d.name == "read_file"));
    assert!(exec.system_prompt_section().contains("## Files (`files`)"));
}

#[tokio::test]
async fn reading_lists_and_refusals() {
    let h = Harness::new().await;
    let (exec, ws) = h.chat_in_workspace().await;
    let lines: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    write(ws.path(), "notes/a.txt", &lines);
    write(ws.path(), "b.md", "# B\n");
    std::fs::write(
        ws.path().join("img.png"),
        [0x89, b'P', b'N', b'G', 0, 0, 1, 2],
    )
    .unwrap();

    let (p, r) = decided(
        &h,
        &exec,
        call(
            "read_file",
            json!({"path": "notes/a.txt", "offset": 10, "lines": 3}),
        ),
        ExecutionDecision::AllowForChat,
    )
    .await;
    let ApprovalRequest::Execution { policy, .. } = &p.request else {
        panic!()
    };
    assert_eq!(policy.as_str(), "ask-once");
    assert_eq!(
        r.content,
        "[notes/a.txt: lines 10–12 of 30] Continue with offset=13.\nline 10\nline 11\nline 12\n"
    );
    // Same call again: the ask-once record covers it.
    assert_eq!(
        run(
            &exec,
            call(
                "read_file",
                json!({"path": "notes/a.txt", "offset": 10, "lines": 3})
            )
        )
        .await
        .status,
        CallStatus::Success
    );

    let (_, r) = decided(
        &h,
        &exec,
        call("read_file", json!({"path": "img.png"})),
        ExecutionDecision::AllowOnce,
    )
    .await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(
        r.content.contains("is a binary file (8 bytes)"),
        "{}",
        r.content
    );
    let (_, r) = decided(
        &h,
        &exec,
        call("read_file", json!({"path": "missing.txt"})),
        ExecutionDecision::AllowOnce,
    )
    .await;
    assert!(
        r.content.contains("does not exist") && r.content.contains("Suggestion:"),
        "{}",
        r.content
    );

    let (_, r) = decided(
        &h,
        &exec,
        call("list_dir", json!({})),
        ExecutionDecision::AllowOnce,
    )
    .await;
    assert_eq!(
        r.content,
        "notes/\nb.md\t4 bytes\nimg.png\t8 bytes\n[1 folders, 2 files]"
    );

    for (path, why) in [
        ("../outside.txt", "leaves the workspace"),
        ("/etc/passwd", "absolute path"),
    ] {
        let (_, r) = decided(
            &h,
            &exec,
            call("read_file", json!({"path": path})),
            ExecutionDecision::AllowOnce,
        )
        .await;
        assert_eq!(r.status, CallStatus::Error);
        assert!(r.content.contains(why), "{path}: {}", r.content);
    }
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_out_are_refused_even_when_they_appear_after_approval() {
    let h = Harness::new().await;
    let (exec, ws) = h.chat_in_workspace().await;
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", "TOP SECRET");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        ws.path().join("link.txt"),
    )
    .unwrap();
    let (_, r) = decided(
        &h,
        &exec,
        call("read_file", json!({"path": "link.txt"})),
        ExecutionDecision::AllowOnce,
    )
    .await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(r.content.contains("outside the workspace"), "{}", r.content);
    assert!(!r.content.contains("TOP SECRET"));

    // Approved while "report.txt" was an ordinary new file; swapped for a link before it ran.
    let task = spawn(
        &exec,
        call(
            "write_file",
            json!({"path": "report.txt", "content": "overwritten"}),
        ),
    );
    let p = h.next_approval().await;
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        ws.path().join("report.txt"),
    )
    .unwrap();
    exec.asks()
        .answer_approval(&p.id, Decision::Execution(ExecutionDecision::AllowOnce))
        .unwrap();
    // The pre-run re-check sees that the approved path now leads elsewhere (the tool would also
    // refuse to follow the link out of the workspace).
    let r = task.await.unwrap();
    assert_eq!(r.status, CallStatus::ExecutionRejected, "{}", r.content);
    assert!(r.content.contains("leads somewhere else"), "{}", r.content);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "TOP SECRET"
    );
}

#[tokio::test]
async fn glob_and_grep_honour_gitignore() {
    let h = Harness::new().await;
    let (exec, ws) = h.chat_in_workspace().await;
    write(ws.path(), ".gitignore", "target/\n");
    write(
        ws.path(),
        "src/main.rs",
        "fn main() {\n    println!(\"Hello\");\n}\n",
    );
    write(
        ws.path(),
        "src/lib.rs",
        "pub fn hello() {}\n// TODO: more\n",
    );
    write(ws.path(), "target/gen.rs", "fn hello_generated() {}\n");
    write(ws.path(), "README.md", "Say hello.\n");
    h.deps.settings.write().tool_mut("glob").execution_policy =
        Some(tollgate_protocol::policy::ExecutionPolicy::Auto);
    h.deps.settings.write().tool_mut("grep").execution_policy =
        Some(tollgate_protocol::policy::ExecutionPolicy::Auto);

    let r = run(&exec, call("glob", json!({"pattern": "**/*.rs"}))).await;
    assert_eq!(r.content, "src/lib.rs\nsrc/main.rs");
    let r = run(
        &exec,
        call("grep", json!({"pattern": "hello", "ignore_case": true})),
    )
    .await;
    assert_eq!(r.content, "README.md:1: Say hello.\nsrc/lib.rs:1: pub fn hello() {}\nsrc/main.rs:2:     println!(\"Hello\");\n");
    let r = run(
        &exec,
        call("grep", json!({"pattern": "hello", "glob": "*.rs"})),
    )
    .await;
    assert_eq!(r.content, "src/lib.rs:1: pub fn hello() {}\n");
    let r = run(
        &exec,
        call("grep", json!({"pattern": "println!(", "literal": true})),
    )
    .await;
    assert!(r.content.starts_with("src/main.rs:2:"), "{}", r.content);
    let r = run(&exec, call("grep", json!({"pattern": "fn (" }))).await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(
        r.content.contains("invalid pattern") && r.content.contains("literal=true"),
        "{}",
        r.content
    );
    let r = run(&exec, call("grep", json!({"pattern": "nothing-like-this"}))).await;
    assert_eq!(r.content, "No matches.");
}

#[tokio::test]
async fn writes_and_edits_show_a_diff_and_edits_must_be_unique() {
    let h = Harness::new().await;
    let (exec, ws) = h.chat_in_workspace().await;
    write(ws.path(), "app.txt", "alpha\nbeta\ngamma\nbeta\n");

    let (p, r) = decided(
        &h,
        &exec,
        call(
            "write_file",
            json!({"path": "new/dir/hello.txt", "content": "hi\n"}),
        ),
        ExecutionDecision::AllowOnce,
    )
    .await;
    let ApprovalRequest::Execution {
        preview: Some(ApprovalPreview::Diff { path, diff }),
        ..
    } = &p.request
    else {
        panic!("{p:?}")
    };
    assert_eq!(path, "new/dir/hello.txt");
    assert!(diff.contains("+hi"), "{diff}");
    assert_eq!(r.content, "Created \"new/dir/hello.txt\" (3 bytes).");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("new/dir/hello.txt")).unwrap(),
        "hi\n"
    );

    let (p, r) = decided(
        &h,
        &exec,
        call(
            "edit_file",
            json!({"path": "app.txt", "old_text": "alpha\n", "new_text": "ALPHA\n"}),
        ),
        ExecutionDecision::AllowOnce,
    )
    .await;
    let ApprovalRequest::Execution {
        preview: Some(ApprovalPreview::Diff { diff, .. }),
        ..
    } = &p.request
    else {
        panic!()
    };
    assert!(diff.contains("-alpha\n+ALPHA\n"), "{diff}");
    assert_eq!(r.status, CallStatus::Success, "{}", r.content);
    assert_eq!(
        std::fs::read_to_string(ws.path().join("app.txt")).unwrap(),
        "ALPHA\nbeta\ngamma\nbeta\n"
    );

    let (_, r) = decided(
        &h,
        &exec,
        call(
            "edit_file",
            json!({"path": "app.txt", "old_text": "beta", "new_text": "B"}),
        ),
        ExecutionDecision::AllowOnce,
    )
    .await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(
        r.content.contains("appears 2 times") && r.content.contains("more surrounding lines"),
        "{}",
        r.content
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("app.txt")).unwrap(),
        "ALPHA\nbeta\ngamma\nbeta\n",
        "nothing changed"
    );
}

#[tokio::test]
async fn path_rules_cover_matching_files_only() {
    let h = Harness::new().await;
    let (exec, ws) = h.chat_in_workspace().await;
    let (_, r) = decided(
        &h,
        &exec,
        call(
            "write_file",
            json!({"path": "notes/one.md", "content": "1"}),
        ),
        ExecutionDecision::AlwaysAllow {
            scope: RuleScopeChoice::ThisChat,
            grant: RuleGrant::Matching {
                pattern: "notes/*".into(),
            },
        },
    )
    .await;
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(
        run(
            &exec,
            call(
                "write_file",
                json!({"path": "./notes/two.md", "content": "2"})
            )
        )
        .await
        .status,
        CallStatus::Success
    );
    let task = spawn(
        &exec,
        call("write_file", json!({"path": "src/main.rs", "content": "x"})),
    );
    let p = h.next_approval().await;
    exec.asks()
        .answer_approval(
            &p.id,
            Decision::Execution(ExecutionDecision::Deny { reason: None }),
        )
        .unwrap();
    assert_eq!(task.await.unwrap().status, CallStatus::ExecutionRejected);
    assert!(!ws.path().join("src/main.rs").exists());
}
