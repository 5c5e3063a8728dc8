//! One round of the model's calls (F-21, F-23), handed to the executor at once: consecutive
//! read-only calls that need nobody run in parallel (bounded); calls that wait for the user are
//! asked together and run in order; other calls run one at a time. Results come back in the
//! model's order. The lane of each call is read from the same decision the permission stage
//! makes ([`crate::decision::verdict`]), so the chat loop calls the executor once per round and
//! never judges a call itself.

use super::call::{CallOrigin, ToolCallRequest, ToolCallResult};
use super::grant::GuardView;
use super::turnstile::Turnstile;
use crate::tool_executor::ToolExecutor;
use futures::stream::{self, StreamExt};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::canonical::canonical_json;
use tollgate_provenance::Exposure;

/// Counts identical consecutive calls across a turn (the doom-loop check, F-23): the turn keeps
/// one and hands it to every round.
#[derive(Default)]
pub struct RepeatTracker {
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

/// How a round treats one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    /// Read-only and asks nobody: runs beside its read-only neighbours.
    Parallel,
    /// The user is asked (before it runs or about its result): asked together with its
    /// neighbours that ask, run in order.
    Ask,
    /// Changes something without asking: runs alone.
    Serial,
}

/// The limits of a round, from the turn's settings.
#[derive(Debug, Clone, Copy)]
pub struct RoundLimits {
    /// Identical consecutive calls from which the doom-loop check asks (`0`: never).
    pub doom_loop_threshold: u32,
    /// Read-only calls run at the same time, at most.
    pub max_parallel: usize,
}

impl ToolExecutor {
    /// Runs one round of the model's calls and returns their results in the model's order.
    pub async fn run_round(
        self: &Arc<Self>,
        calls: Vec<ToolCallRequest>,
        base: CallOrigin,
        repeats: &mut RepeatTracker,
        limits: RoundLimits,
        cancel: &CancellationToken,
    ) -> Vec<ToolCallResult> {
        let threshold = limits.doom_loop_threshold;
        let exposure = base.exposure.as_ref().map(|e| &*e.0);
        let planned: Vec<(ToolCallRequest, Lane, Option<u32>)> = calls
            .into_iter()
            .map(|req| {
                let run = repeats.observe(&req);
                let force = (threshold > 0 && run >= threshold).then_some(run);
                let lane = self.lane(&req, force, exposure);
                (req, lane, force)
            })
            .collect();

        let mut results = Vec::with_capacity(planned.len());
        let mut planned = planned.into_iter().peekable();
        while let Some((req, lane, force)) = planned.next() {
            let mut group = vec![(req, force)];
            if lane != Lane::Serial {
                while let Some((next, _, force)) = planned.next_if(|(_, l, _)| *l == lane) {
                    group.push((next, force));
                }
            }
            let origin = |force: Option<u32>, turnstile: Option<Turnstile>| CallOrigin {
                repeats: force,
                turnstile,
                ..base.clone()
            };
            match lane {
                Lane::Parallel => {
                    let outs: Vec<ToolCallResult> =
                        stream::iter(group.into_iter().map(|(req, force)| {
                            let exec = Arc::clone(self);
                            let origin = origin(force, None);
                            async move { exec.execute(req, origin, cancel).await }
                        }))
                        .buffered(limits.max_parallel.max(1))
                        .collect()
                        .await;
                    results.extend(outs);
                }
                Lane::Ask => {
                    // All cards appear together; the turnstile runs the calls in order.
                    let places = Turnstile::sequence(group.len());
                    let outs = futures::future::join_all(group.into_iter().zip(places).map(
                        |((req, force), place)| {
                            let exec = Arc::clone(self);
                            let origin = origin(force, Some(place));
                            async move { exec.execute(req, origin, cancel).await }
                        },
                    ))
                    .await;
                    results.extend(outs);
                }
                Lane::Serial => {
                    for (req, force) in group {
                        results.push(self.execute(req, origin(force, None), cancel).await);
                    }
                }
            }
        }
        results
    }

    /// The lane of a call, without side effects (`exposure`: what the model had read, F-83):
    /// read from the decision the permission stage will make, as the tool stands (a change its
    /// source lists at the permission stage asks there). A call that will not get that far (its
    /// arguments unreadable, its tool unknown) ends without running anything: it runs beside the
    /// others.
    fn lane(
        &self,
        req: &ToolCallRequest,
        repeats: Option<u32>,
        exposure: Option<&Exposure>,
    ) -> Lane {
        let Ok(args) = req.args() else {
            return Lane::Parallel;
        };
        let registry = self.registry();
        let Ok(entry) = self.resolve_tool(&registry, &req.name) else {
            return Lane::Parallel;
        };
        let view = GuardView {
            exposure,
            expanded: &[],
        };
        let inputs = self.permission_inputs(entry, args, view);
        let verdict = super::decision::verdict(&inputs.decision(repeats, false));
        if verdict.asks_first() || verdict.reviews_any_result() {
            Lane::Ask
        } else if entry.tool.spec().read_only {
            Lane::Parallel
        } else {
            Lane::Serial
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::approvals::ApprovalHub;
    use crate::rules::RuleBook;
    use crate::tool_executor::{ExecutorDeps, SharedSettings};
    use tollgate_protocol::parse::RawArguments;
    use tollgate_protocol::policy::CallStatus;
    use tollgate_protocol::{NullSink, ToolSettings};
    use tollgate_store::Store;
    use tollgate_tools::{basic, Registry};

    /// A call's arguments are read once on their way through: the repeat count, the round's
    /// lane and the pipeline's parse stage all read the one parse the request keeps. (A
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
        let before = tollgate_protocol::parse::parses_on_this_thread();
        let call = ToolCallRequest::new(
            "c1",
            "calculate",
            RawArguments::Text(r#"{"expression": "(3.5 + 2) * 2"}"#.into()),
        );
        let limits = RoundLimits {
            doom_loop_threshold: 3,
            max_parallel: 4,
        };
        let results = exec
            .run_round(
                vec![call],
                CallOrigin::default(),
                &mut RepeatTracker::default(),
                limits,
                &CancellationToken::new(),
            )
            .await;
        assert_eq!(results[0].status, CallStatus::Success, "{results:?}");
        assert!(results[0].content.contains("11"), "{results:?}");
        assert_eq!(
            tollgate_protocol::parse::parses_on_this_thread() - before,
            1,
            "the arguments were parsed more than once"
        );
    }
}
