//! A call that goes on after its turn as its source's task (F-99), in the gate alone: handed
//! over with what its result carries from what the model had read, kept with its call, and
//! resumed once: the late result passes the last stages with those sources, and is recorded as
//! the call's. The tool here says its calls go on and then ends them on its own; the MCP task,
//! end to end, is `tollgate-engine`'s `tests/suite/tasks.rs`.

use crate::common::*;
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::Arc;
use tollgate_executor::CallOrigin;
use tollgate_protocol::policy::{CallStatus, ExecutionPolicy};
use tollgate_protocol::Source;
use tollgate_provenance::{ExposureBuilder, SharedExposure};
use tollgate_store::RecordStatus;
use tollgate_tools::{Registry, Tool, ToolContext, ToolError, ToolGroup, ToolSpec};

/// Looks someone up as long work: its call goes on as the task `job-<name>`, which ends with
/// the record found.
struct Lookup(ToolSpec);

#[async_trait]
impl Tool for Lookup {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn execute(&self, args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        Ok(json!({"goesOnAs": format!("job-{}", args["name"].as_str().unwrap_or_default())}))
    }

    fn background_task(&self, data: &Value) -> Option<String> {
        data["goesOnAs"].as_str().map(str::to_string)
    }

    async fn resume(&self, task: &str, ctx: ToolContext) -> Result<Value, ToolError> {
        if task.ends_with("(stopped)") {
            // Its Stop lands while the follower polls it, after the follower looked at the
            // Stop: it ends in its own words for being stopped.
            ctx.cancel.cancel();
            return Err(ToolError::other("stopped by the user"));
        }
        Ok(json!(format!("the record of {task}: born 1970")))
    }
}

fn lookup() -> Lookup {
    Lookup(
        ToolSpec::new(
            "lookup",
            "Looks someone up in the directory.",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        )
        .policy(ExecutionPolicy::Auto)
        .read_only(),
    )
}

/// A chat whose only tools are the directory's [`lookup`].
async fn with_lookup(h: &Harness) -> Arc<tollgate_executor::ToolExecutor> {
    let exec = h.chat().await;
    let group = ToolGroup::new("directory", "Directory", "Look people up.")
        .enabled_by_default(true)
        .tool(lookup());
    exec.set_registry(Arc::new(Registry::with_groups([group]).unwrap()));
    exec
}

#[tokio::test]
async fn a_call_handed_over_carries_what_its_turn_read_into_its_late_result() {
    let h = Harness::new().await;
    let exec = with_lookup(&h).await;
    // The name to look up came from a page.
    let page = Source::Web {
        url: "https://news.example/p".into(),
        host: "news.example".into(),
    };
    let mut read = ExposureBuilder::new();
    read.add_typed("Look up whoever the page names.");
    read.add(
        std::slice::from_ref(&page),
        "Please look up Mallory Moss in the directory.",
    );
    let origin = CallOrigin {
        exposure: Some(SharedExposure(read.snapshot())),
        ..Default::default()
    };
    let r = exec
        .execute(
            call("lookup", json!({"name": "Mallory Moss"})),
            origin,
            &tokio_util::sync::CancellationToken::new(),
        )
        .await;
    assert_eq!(r.status, CallStatus::InBackground, "{r:?}");
    assert!(!r.is_error);
    assert!(
        !r.content.contains("job-"),
        "the task's id reached the model"
    );

    let mut handed = exec.under_way().take_handovers().unwrap();
    assert_eq!(handed.recv().await, Some(r.seq));
    let late = exec.under_way().resume(r.seq).await.unwrap();
    assert_eq!(late.result.status, CallStatus::Success);
    assert_eq!(
        late.result.content,
        "the record of job-Mallory Moss: born 1970"
    );
    assert!(
        late.result.sources.contains(&page),
        "the late result lost the page its lookup was keyed on: {:?}",
        late.result.sources
    );
    h.store.flush().await.unwrap();
    let row = h
        .store
        .calls()
        .recorded_call(exec.chat(), r.seq)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, RecordStatus::Success);
    assert!(row.sources.contains(&page));
    // Followed once: its task is no longer kept, and a second follower finds nothing to do.
    assert!(exec.under_way().resume(r.seq).await.is_none());
}

/// A Stop that lands while a handed-over call's task is followed (polled after the follower
/// looked at the Stop) is the user's Stop on its card, not the task's failure.
#[tokio::test]
async fn a_stop_that_lands_while_the_task_is_followed_is_the_users_stop() {
    let h = Harness::new().await;
    let exec = with_lookup(&h).await;
    let r = exec
        .execute(
            call("lookup", json!({"name": "(stopped)"})),
            CallOrigin::default(),
            &tokio_util::sync::CancellationToken::new(),
        )
        .await;
    assert_eq!(r.status, CallStatus::InBackground, "{r:?}");
    let late = exec.under_way().resume(r.seq).await.unwrap();
    assert_eq!(late.result.status, CallStatus::Cancelled, "{late:?}");
    assert!(
        late.result.content.contains("The user stopped the call"),
        "{}",
        late.result.content
    );
}
