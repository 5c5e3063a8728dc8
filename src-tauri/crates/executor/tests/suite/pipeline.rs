//! The stages of SPEC §3 end to end: parse, resolve, validate, execute, format, record, events.

use crate::common::*;
use serde_json::json;
use tollgate_protocol::policy::{CallStatus, DecidedBy, ExecutionPolicy};
use tollgate_protocol::ToolEvent;
use tollgate_protocol::ToolSettings;
use tollgate_store::RecordStatus;

#[tokio::test]
async fn an_auto_call_runs_is_recorded_and_emits_every_stage() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("echo", json!({"text": "hello"}))).await;
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(r.content, "hello");
    assert!(!r.is_error);
    assert_eq!(r.seq, 1);
    assert_eq!(r.result_var.as_deref(), Some("echo_c1_result"));
    assert_eq!(r.args_var.as_deref(), Some("echo_c1_args"));
    assert_eq!(exec.vars().peek("echo_c1_result").as_deref(), Some("hello"));

    h.store.flush().await.unwrap();
    let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row.status, RecordStatus::Success);
    assert_eq!(row.tool.as_deref(), Some("echo"));
    assert_eq!(row.group.as_deref(), Some("test"));
    assert_eq!(row.decided_by, DecidedBy::Auto);
    assert_eq!(row.policy, Some(ExecutionPolicy::Auto));
    assert_eq!(row.result_text.as_deref(), Some("hello"));
    assert_eq!(row.raw_args, r#"{"text":"hello"}"#);
    assert!(row.ended_at.is_some() && row.duration_ms.is_some());

    let kinds: Vec<&str> = h
        .sink
        .events
        .lock()
        .iter()
        .map(|e| match e {
            ToolEvent::BeforeCall { .. } => "before",
            ToolEvent::Started { .. } => "started",
            ToolEvent::Finished { .. } => "finished",
            ToolEvent::ApprovalRequested { .. } => "asked",
            ToolEvent::ApprovalResolved { .. } => "resolved",
            ToolEvent::OutputDelta { .. } => "output",
            ToolEvent::Progress { .. } => "progress",
            ToolEvent::QuestionAsked { .. } => "question",
            ToolEvent::QuestionResolved { .. } => "question resolved",
            ToolEvent::ElicitationRequested { .. } => "server asks",
            ToolEvent::ElicitationResolved { .. } => "server's question resolved",
            ToolEvent::ModelLent { .. } => "the chat's model lent to a server",
            ToolEvent::ServerAsked { .. } => "a server's question kept with its call",
            ToolEvent::TaskChanged { .. } => "task",
        })
        .collect();
    assert_eq!(kinds, ["before", "started", "finished"]);
}

#[tokio::test]
async fn invalid_json_arguments_give_an_error_with_position_and_a_row() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call_text("echo", r#"{"text": "a", }"#)).await;
    assert_eq!(r.status, CallStatus::InvalidArgs);
    assert!(r.is_error);
    assert!(
        r.content.contains("Invalid JSON in the arguments"),
        "{}",
        r.content
    );
    assert!(r.content.contains("line 1, column 15"), "{}", r.content);
    assert!(
        r.content
            .contains(r#"Received (first 500 chars): {"text": "a", }"#),
        "{}",
        r.content
    );
    h.store.flush().await.unwrap();
    let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
    assert_eq!(rows[0].status, RecordStatus::InvalidArgs);
    assert!(rows[0].is_error);
    assert!(
        matches!(h.sink.events.lock().last(), Some(ToolEvent::Finished { summary, .. }) if summary.status == CallStatus::InvalidArgs)
    );
}

#[tokio::test]
async fn tool_names_are_repaired_and_unknown_tools_list_the_enabled_ones() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("ECHO", json!({"text": "x"}))).await;
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(r.tool.as_deref(), Some("echo"));
    let r = run(&exec, call("current-time", json!({}))).await;
    assert_eq!(r.status, CallStatus::Success);
    assert_eq!(r.tool.as_deref(), Some("current_time"));
    h.store.flush().await.unwrap();
    let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
    assert_eq!(
        rows[1].requested_name, "current-time",
        "the record keeps what the model wrote"
    );

    let r = run(&exec, call("ehco", json!({"text": "x"}))).await;
    assert_eq!(r.status, CallStatus::NotFound);
    assert!(
        r.content
            .starts_with("There is no tool called \"ehco\". Did you mean \"echo\""),
        "{}",
        r.content
    );
    assert!(r.content.contains("Enabled tools: "), "{}", r.content);
    assert!(
        r.content.contains("calculate") && r.content.contains("ReadVar"),
        "{}",
        r.content
    );
}

#[tokio::test]
async fn schema_violations_list_every_error_with_paths() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("echo", json!({"txt": 5}))).await;
    assert_eq!(r.status, CallStatus::InvalidArgs);
    assert!(
        r.content
            .starts_with("Validation failed for tool \"echo\":"),
        "{}",
        r.content
    );
    assert!(
        r.content.contains("\"text\" is a required property"),
        "{}",
        r.content
    );
    assert!(
        r.content
            .contains("- /txt: unknown property \"txt\"; did you mean \"text\"?"),
        "{}",
        r.content
    );
    assert!(
        r.content.contains(r#"Received arguments: {"txt":5}"#),
        "{}",
        r.content
    );
    let r = run(&exec, call("echo", json!({"text": 5}))).await;
    assert!(
        r.content.contains("- /text: 5 is not of type \"string\""),
        "{}",
        r.content
    );
}

#[tokio::test]
async fn variable_references_resolve_before_validation_and_errors_name_close_variables() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let w = run(
        &exec,
        call(
            "WriteVar",
            json!({"name": "greeting", "value": "hello world"}),
        ),
    )
    .await;
    assert_eq!(w.status, CallStatus::Success, "{}", w.content);
    assert!(
        w.result_var.is_none(),
        "variable tools do not store their own results"
    );
    let r = run(
        &exec,
        call("echo", json!({"text": "<$VAR_REF{{greeting:6:5}}>"})),
    )
    .await;
    assert_eq!(r.content, "<world>");
    // The recorded resolved arguments are what ran.
    h.store.flush().await.unwrap();
    let rows = h.store.calls().chat_calls(exec.chat()).await.unwrap();
    assert_eq!(
        rows[1].resolved_args.as_deref(),
        Some(r#"{"text":"<world>"}"#)
    );
    assert_eq!(rows[1].raw_args, r#"{"text":"<$VAR_REF{{greeting:6:5}}>"}"#);

    // A previous result by reference.
    let r2 = run(
        &exec,
        call("echo", json!({"text": "again: $VAR_REF{{echo_c2_result}}"})),
    )
    .await;
    assert_eq!(r2.content, "again: <world>");

    let bad = run(&exec, call("echo", json!({"text": "$VAR_REF{{greetng}}"}))).await;
    assert_eq!(bad.status, CallStatus::InvalidArgs);
    assert!(
        bad.content
            .contains("Variable \"greetng\" does not exist. Closest names: \"greeting\""),
        "{}",
        bad.content
    );

    // References inside stored text (e.g. a file that contains one) expand too, so cycles are
    // possible; they are caught.
    use tollgate_tools::vars::VarKind;
    exec.vars()
        .set("loop_a", "$VAR_REF{{loop_b}}".into(), VarKind::ToolResult)
        .unwrap();
    exec.vars()
        .set("loop_b", "$VAR_REF{{loop_a}}".into(), VarKind::ToolResult)
        .unwrap();
    let cyc = run(&exec, call("echo", json!({"text": "$VAR_REF{{loop_a}}"}))).await;
    assert_eq!(cyc.status, CallStatus::InvalidArgs);
    assert!(
        cyc.content
            .contains("Cyclic variable reference: loop_a → loop_b → loop_a"),
        "{}",
        cyc.content
    );
}

#[tokio::test]
async fn runtime_errors_carry_suggestions() {
    let h = Harness::with_settings(ToolSettings {
        tools: [(
            "fails".to_string(),
            tollgate_protocol::ToolOverride {
                result_policy: Some(tollgate_protocol::policy::ResultPolicy::Never),
                ..Default::default()
            },
        )]
        .into(),
        ..Default::default()
    })
    .await;
    let exec = h.chat().await;
    let r = run(&exec, call("fails", json!({}))).await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(r.is_error);
    assert!(
        r.content
            .starts_with("Error from tool \"fails\": no such thing: x.txt"),
        "{}",
        r.content
    );
    assert!(
        r.content.contains("Suggestion: Check the name or path"),
        "{}",
        r.content
    );
    assert_eq!(
        exec.vars().peek("fails_c1_result").as_deref(),
        Some(r.content.as_str()),
        "error output is kept too"
    );
}

#[tokio::test]
async fn builtin_basic_tools_work_through_the_pipeline() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(
        &exec,
        call("calculate", json!({"expression": "(3.5 + 2) * sqrt(16)"})),
    )
    .await;
    assert_eq!(r.content, "22");
    let r = run(&exec, call("calculate", json!({"expression": "1/0"}))).await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(r.content.contains("division by zero"), "{}", r.content);
    let r = run(
        &exec,
        call("current_time", json!({"timezone": "Asia/Shanghai"})),
    )
    .await;
    assert_eq!(r.status, CallStatus::Success);
    assert!(
        r.content.contains("Asia/Shanghai, UTC+08:00"),
        "{}",
        r.content
    );
    let r = run(
        &exec,
        call("current_time", json!({"timezone": "Mars/Olympus"})),
    )
    .await;
    assert!(r.content.contains("unknown time zone"), "{}", r.content);
}

#[tokio::test]
async fn deny_policy_hides_the_tool_and_refuses_calls() {
    let mut settings = ToolSettings::default();
    settings.tool_mut("echo").execution_policy = Some(ExecutionPolicy::Deny);
    let h = Harness::with_settings(settings).await;
    let exec = h.chat().await;
    assert!(!exec
        .toolbox()
        .definitions()
        .iter()
        .any(|d| d.name == "echo"));
    let r = run(&exec, call("echo", json!({"text": "x"}))).await;
    assert_eq!(r.status, CallStatus::ExecutionRejected);
    assert!(
        r.content.contains("settings deny the tool \"echo\""),
        "{}",
        r.content
    );
    h.store.flush().await.unwrap();
    assert_eq!(
        h.store.calls().chat_calls(exec.chat()).await.unwrap()[0].decided_by,
        DecidedBy::Policy
    );
}

#[tokio::test]
async fn groups_toggle_per_chat_and_vars_follow_any_enabled_group() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let names = |e: &tollgate_executor::ToolExecutor| {
        e.toolbox()
            .definitions()
            .into_iter()
            .map(|d| d.name)
            .collect::<Vec<_>>()
    };
    assert!(names(&exec).contains(&"echo".to_string()));
    assert!(names(&exec).contains(&"ReadVar".to_string()));
    assert!(exec
        .toolbox()
        .definitions()
        .iter()
        .all(|d| d.parameters["properties"]["limit"]["type"] == "integer"));

    exec.toolbox()
        .set_group_enabled("test", Some(false))
        .await
        .unwrap();
    assert!(!names(&exec).contains(&"echo".to_string()));
    let r = run(&exec, call("echo", json!({"text": "x"}))).await;
    assert_eq!(r.status, CallStatus::NotFound);
    assert!(
        r.content
            .starts_with("The tool \"echo\" is not enabled in this chat."),
        "{}",
        r.content
    );

    exec.toolbox()
        .set_group_enabled("basic", Some(false))
        .await
        .unwrap();
    assert!(
        names(&exec).is_empty(),
        "vars disappear with the last group: {:?}",
        names(&exec)
    );
    assert_eq!(exec.system_prompt_section(), "");

    // Per-chat toggles persist and stay in their chat.
    let other = h.chat().await;
    assert!(names(&other).contains(&"echo".to_string()));
    let reopened = h.executor(exec.chat()).await;
    assert!(names(&reopened).is_empty());
    reopened
        .toolbox()
        .set_group_enabled("test", None)
        .await
        .unwrap();
    reopened
        .toolbox()
        .set_tool_enabled("echo", Some(false))
        .await
        .unwrap();
    let n = names(&reopened);
    assert!(
        n.contains(&"lines".to_string()) && !n.contains(&"echo".to_string()),
        "{n:?}"
    );
}

#[tokio::test]
async fn the_system_prompt_carries_group_rules_and_rule_variables() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let p = exec.system_prompt_section();
    assert!(p.starts_with("# Tools"), "{p}");
    assert!(p.contains("$VAR_REF{{name}}"));
    assert!(p.contains("## Test tools (`test`)"));
    assert!(p.contains("Test tools available: echo, lines,"), "{p}");
    assert!(p.contains("### Guide: inline\nINLINE RULE TEXT"));
    assert!(
        !p.contains("DEEP RULE TEXT"),
        "on-demand rules are not inlined"
    );
    assert!(
        p.contains(
            "| deep | when going deep | how to go deep | `ReadVar(name=\"Guide/test/deep\")` |"
        ),
        "{p}"
    );

    let r = run(&exec, call("ReadVar", json!({"name": "Guide/test/deep"}))).await;
    assert_eq!(r.content, "DEEP RULE TEXT");
    let r = run(
        &exec,
        call("RemoveVars", json!({"names": ["Guide/test/deep"]})),
    )
    .await;
    assert!(r.content.contains("not removed"), "{}", r.content);
    let r = run(
        &exec,
        call("WriteVar", json!({"name": "Guide/test/deep", "value": "x"})),
    )
    .await;
    assert_eq!(r.status, CallStatus::Error);
    assert_eq!(
        exec.vars().peek("Guide/test/deep").as_deref(),
        Some("DEEP RULE TEXT")
    );
}

#[tokio::test]
async fn concurrent_calls_get_distinct_numbers_and_rows() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    let futs = (0..20).map(|i| {
        let exec = exec.clone();
        async move { run(&exec, call("echo", json!({"text": format!("n{i}")}))).await }
    });
    let results = futures::future::join_all(futs).await;
    let mut seqs: Vec<u64> = results.iter().map(|r| r.seq).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=20).collect::<Vec<_>>());
    for r in &results {
        assert_eq!(
            exec.vars()
                .peek(r.result_var.as_deref().unwrap())
                .as_deref(),
            Some(r.content.as_str())
        );
    }
    h.store.flush().await.unwrap();
    assert_eq!(
        h.store.calls().chat_calls(exec.chat()).await.unwrap().len(),
        20
    );
}

#[tokio::test]
async fn read_var_pages_through_long_results() {
    let h = Harness::new().await;
    let exec = h.chat().await;
    run(
        &exec,
        call("WriteVar", json!({"name": "doc", "value": "abcdefghij"})),
    )
    .await;
    let r = run(
        &exec,
        call("ReadVar", json!({"name": "doc", "start": 2, "length": 3})),
    )
    .await;
    assert_eq!(
        r.content,
        "[chars 2–5 of 10] Continue with ReadVar(name=\"doc\", start=5).\ncde"
    );
    let r = run(&exec, call("ReadVar", json!({"name": "doc", "start": 8}))).await;
    assert_eq!(r.content, "[chars 8–10 of 10]\nij");
    let r = run(&exec, call("ReadVar", json!({"name": "dco"}))).await;
    assert_eq!(r.status, CallStatus::Error);
    assert!(r.content.contains("Closest: doc"), "{}", r.content);
    let r = run(&exec, call("ListVars", json!({}))).await;
    assert!(r.content.contains("doc\tuser\t10 chars"), "{}", r.content);
}

#[tokio::test]
async fn live_output_reaches_the_log_between_start_and_finish() {
    use tollgate_protocol::OutputStream;
    let h = Harness::new().await;
    let exec = h.chat().await;
    let r = run(&exec, call("chatty", json!({}))).await;
    assert_eq!(r.content, "done");
    let events = h.sink.events.lock().clone();
    let trail: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            ToolEvent::Started { tool, .. } => Some(format!("started {tool}")),
            ToolEvent::OutputDelta {
                stream, text, seq, ..
            } => {
                assert_eq!(*seq, r.seq);
                Some(format!(
                    "{}:{}",
                    if *stream == OutputStream::Stdout {
                        "out"
                    } else {
                        "err"
                    },
                    text.trim()
                ))
            }
            ToolEvent::Finished { .. } => Some("finished".into()),
            _ => None,
        })
        .collect();
    assert_eq!(
        trail,
        ["started chatty", "out:first", "err:warning", "finished"]
    );
}
