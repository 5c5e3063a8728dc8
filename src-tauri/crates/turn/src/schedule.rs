//! Running one round's calls (F-21, F-23): consecutive read-only calls that need nobody run in
//! parallel (bounded); calls that wait for the user are asked together and run in order; other
//! calls run one at a time. Results come back in the model's order.

use futures::stream::{self, StreamExt};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tollgate_engine::canonical::canonical_json;
use tollgate_engine::executor::{
    CallOrigin, ToolCallRequest, ToolCallResult, ToolExecutor, Turnstile,
};
use tollgate_engine::parse::RawArguments;

/// Counts identical consecutive calls across a turn (the doom-loop check, F-23).
#[derive(Default)]
pub(crate) struct RepeatTracker {
    last: Option<String>,
    run: u32,
}

impl RepeatTracker {
    /// Registers a call; returns how many times in a row it has now been made.
    fn observe(&mut self, req: &ToolCallRequest) -> u32 {
        let args = req
            .args()
            .map(canonical_json)
            .unwrap_or_else(|_| req.arguments().raw_text());
        let key = format!("{}\u{0}{args}", req.name);
        if self.last.as_deref() == Some(key.as_str()) {
            self.run += 1;
        } else {
            self.last = Some(key);
            self.run = 1;
        }
        self.run
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lane {
    Parallel,
    Ask,
    Serial,
}

/// Runs `calls` and returns their results in the same order.
pub(crate) async fn run_calls(
    exec: &Arc<ToolExecutor>,
    calls: Vec<ToolCallRequest>,
    base: CallOrigin,
    repeats: &mut RepeatTracker,
    threshold: u32,
    max_parallel: usize,
    cancel: &CancellationToken,
) -> Vec<ToolCallResult> {
    // Decide each call's lane and doom-loop flag, in order.
    let planned: Vec<(ToolCallRequest, Lane, Option<u32>)> = calls
        .into_iter()
        .map(|req| {
            let run = repeats.observe(&req);
            let force = (threshold > 0 && run >= threshold).then_some(run);
            let exposure = base.exposure.as_ref().map(|e| &*e.0);
            let pre = exec.preflight(&req, force, exposure);
            let lane = if pre.asks {
                Lane::Ask
            } else if pre.read_only {
                Lane::Parallel
            } else {
                Lane::Serial
            };
            (req, lane, force)
        })
        .collect();

    let mut results = Vec::with_capacity(planned.len());
    let mut i = 0;
    while i < planned.len() {
        let lane = planned[i].1;
        let mut j = i + 1;
        if lane != Lane::Serial {
            while j < planned.len() && planned[j].1 == lane {
                j += 1;
            }
        }
        let group: Vec<(ToolCallRequest, Option<u32>)> = planned[i..j]
            .iter()
            .map(|(r, _, f)| (r.clone(), *f))
            .collect();
        let origin = |force: Option<u32>, turnstile: Option<Turnstile>| CallOrigin {
            repeats: force,
            turnstile,
            ..base.clone()
        };
        match lane {
            Lane::Parallel => {
                let outs: Vec<ToolCallResult> =
                    stream::iter(group.into_iter().map(|(req, force)| {
                        let exec = Arc::clone(exec);
                        let origin = origin(force, None);
                        async move { exec.execute(req, origin, cancel).await }
                    }))
                    .buffered(max_parallel.max(1))
                    .collect()
                    .await;
                results.extend(outs);
            }
            Lane::Ask => {
                // All cards appear together; the turnstile runs the calls in order.
                let places = Turnstile::sequence(group.len());
                let outs = futures::future::join_all(group.into_iter().zip(places).map(
                    |((req, force), place)| {
                        let exec = Arc::clone(exec);
                        let origin = origin(force, Some(place));
                        async move { exec.execute(req, origin, cancel).await }
                    },
                ))
                .await;
                results.extend(outs);
            }
            Lane::Serial => {
                for (req, force) in group {
                    results.push(exec.execute(req, origin(force, None), cancel).await);
                }
            }
        }
        i = j;
    }
    results
}

/// Builds the executor's request from an assistant tool call.
pub(crate) fn request(id: &str, name: &str, arguments: RawArguments) -> ToolCallRequest {
    ToolCallRequest::new(id, name, arguments)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use tollgate_engine::approvals::ApprovalHub;
    use tollgate_engine::executor::{ExecutorDeps, SharedSettings};
    use tollgate_engine::policy::CallStatus;
    use tollgate_engine::protocol::{NullSink, ToolSettings};
    use tollgate_engine::rules::RuleBook;
    use tollgate_engine::tools::{basic, Registry};
    use tollgate_engine::Store;

    /// A call's arguments are read once on their way through: the repeat count, the scheduler's
    /// preflight and the pipeline's parse stage all read the one parse the request keeps. (A
    /// current-thread runtime: every stage runs on this thread, whose parses are counted.)
    #[tokio::test(flavor = "current_thread")]
    async fn a_calls_arguments_are_parsed_once_on_their_way_through() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let settings: SharedSettings = Arc::new(parking_lot::RwLock::new(ToolSettings::default()));
        let deps = ExecutorDeps {
            registry: Arc::new(Registry::with_groups([basic::group()]).unwrap()),
            store: store.clone(),
            hub: Arc::new(ApprovalHub::new()),
            rules: Arc::new(RuleBook::load(store.clone()).await.unwrap()),
            settings,
            sink: Arc::new(NullSink),
            hidden: Default::default(),
        };
        let chat = store.create_chat(Default::default()).await.unwrap().id;
        let exec = ToolExecutor::open(chat, deps).await.unwrap();
        let before = tollgate_engine::parse::parses_on_this_thread();
        let call = request(
            "c1",
            "calculate",
            RawArguments::Text(r#"{"expression": "(3.5 + 2) * 2"}"#.into()),
        );
        let results = run_calls(
            &exec,
            vec![call],
            CallOrigin::default(),
            &mut RepeatTracker::default(),
            3,
            4,
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(results[0].status, CallStatus::Success, "{results:?}");
        assert!(results[0].content.contains("11"), "{results:?}");
        assert_eq!(
            tollgate_engine::parse::parses_on_this_thread() - before,
            1,
            "the arguments were parsed more than once"
        );
    }
}
