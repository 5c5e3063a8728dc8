//! Broken streams (F-26) in both wire formats, against the real local mock server: every fault a
//! provider can produce mid-answer is retried by itself, the answer that finally arrives is
//! whole and the same as a fault-free run's, the broken attempt's text is replaced by a retry
//! notice on disk and on screen, a tool call from a broken stream never runs, and a stream that
//! breaks on every attempt ends in one visible error after exactly `max_retries + 1` requests.

use super::chat::{failure, next_event, text_of, Env};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tollgate_engine::chat::{ChatEvent, TurnInput, TurnOutcome};
use tollgate_mock_llm::{anthropic, openai, Reply};
use tollgate_providers::Provider;
use tollgate_store::MessageStatus;

const ANSWER: &str = "The whole answer, which arrives in many small pieces, ends here.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    OpenAi,
    Anthropic,
}

const FORMATS: [Format; 2] = [Format::OpenAi, Format::Anthropic];

fn text_reply(format: Format, text: &str) -> Reply {
    match format {
        Format::OpenAi => openai::text(text),
        Format::Anthropic => anthropic::text(text),
    }
}

fn calls_reply(format: Format, text: &str, calls: &[(&str, &str, &str)]) -> Reply {
    match format {
        Format::OpenAi => openai::calls(text, calls),
        Format::Anthropic => anthropic::calls(text, calls),
    }
}

fn provider(env: &Env, format: Format) -> Arc<dyn Provider> {
    match format {
        Format::OpenAi => env.openai(),
        Format::Anthropic => env.anthropic(),
    }
}

/// Every way a stream breaks after it has started showing the answer.
fn broken(format: Format) -> Vec<(&'static str, Reply)> {
    let good = text_reply(format, ANSWER);
    let finish = good.frames_before_finish();
    let mid = finish / 2;
    vec![
        ("cut without finish", good.clone().cut_after(mid)),
        ("finish events missing", good.clone().without_finish()),
        ("connection dropped", good.clone().drop_after(mid)),
        ("malformed chunk", good.clone().malformed_at(mid)),
        (
            "stalled past the idle timeout",
            good.stall_at(mid, Duration::from_secs(30)),
        ),
    ]
}

fn retries(events: &[ChatEvent]) -> Vec<(u32, u32, u64, Option<i64>)> {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::Retrying {
                attempt,
                max_retries,
                delay_ms,
                message_id,
                ..
            } => Some((*attempt, *max_retries, *delay_ms, *message_id)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn every_mid_stream_fault_is_retried_and_the_answer_is_whole_in_both_formats() {
    for format in FORMATS {
        // The fault-free run the recovered answers must equal.
        let clean = Env::new().await;
        clean.mock.push(text_reply(format, ANSWER));
        let (_, outcome) = clean.start(provider(&clean, format), "hi").collect().await;
        assert!(matches!(outcome, TurnOutcome::Completed { .. }));
        let expected = clean.messages().await[1].content.clone();
        assert_eq!(expected, ANSWER);

        for (fault, reply) in broken(format) {
            let mut env = Env::new().await;
            env.settings.idle_timeout_ms = 300;
            env.mock.push(reply);
            env.mock.push(text_reply(format, ANSWER));
            let (events, outcome) = env.start(provider(&env, format), "hi").collect().await;
            assert!(
                matches!(outcome, TurnOutcome::Completed { .. }),
                "{format:?} {fault}: {outcome:?}"
            );
            let msgs = env.messages().await;
            assert_eq!(msgs.len(), 2, "{format:?} {fault}: one answer, not two");
            assert_eq!(msgs[1].content, expected, "{format:?} {fault}");
            assert_eq!(msgs[1].status, MessageStatus::Complete);
            assert!(
                msgs[1]
                    .payload
                    .as_ref()
                    .is_none_or(|p| p.get("retry").is_none()),
                "{format:?} {fault}: the notice goes once the answer is back"
            );
            let r = retries(&events);
            assert_eq!(r.len(), 1, "{format:?} {fault}");
            assert_eq!(
                (r[0].0, r[0].1, r[0].3),
                (1, 3, Some(msgs[1].id)),
                "{format:?} {fault}: the shown attempt is named for discarding"
            );
            // What the window saw after the notice is exactly the answer.
            let after: Vec<ChatEvent> = events
                .iter()
                .skip_while(|e| !matches!(e, ChatEvent::Retrying { .. }))
                .cloned()
                .collect();
            assert_eq!(text_of(&after), expected, "{format:?} {fault}");
            assert_eq!(env.mock.bodies().len(), 2, "{format:?} {fault}");
            assert_eq!(
                env.mock.bodies()[0],
                env.mock.bodies()[1],
                "{format:?} {fault}: the same request is sent again"
            );
        }
    }
}

#[tokio::test]
async fn the_broken_attempt_is_replaced_on_disk_by_the_retry_notice() {
    let mut env = Env::new().await;
    env.settings.retry.base_delay_ms = 150;
    env.mock.push(openai::text(ANSWER).drop_after(6));
    env.mock.push(openai::text(ANSWER));
    let mut handle = env.start(env.openai(), "hi");
    let event = next_event(&mut handle.events, "the retry", |e| {
        matches!(e, ChatEvent::Retrying { .. })
    })
    .await;
    let ChatEvent::Retrying {
        message_id: Some(id),
        error,
        ..
    } = event
    else {
        panic!("{event:?}")
    };
    // The notice is on disk before the window hears of the retry.
    let row = env
        .messages()
        .await
        .into_iter()
        .find(|m| m.id == id)
        .unwrap();
    assert_eq!(row.content, "", "the broken attempt's text is gone");
    assert_eq!(row.status, MessageStatus::Streaming);
    let notice = &row.payload.unwrap()["retry"];
    assert_eq!(notice["attempt"], 1);
    assert_eq!(notice["maxRetries"], 3);
    assert_eq!(notice["error"], Value::String(error));
    assert!(matches!(handle.join().await, TurnOutcome::Completed { .. }));
    assert_eq!(env.messages().await[1].content, ANSWER);
}

#[tokio::test]
async fn a_tool_call_from_a_broken_stream_never_runs() {
    for format in FORMATS {
        let env = Env::new().await;
        let call = calls_reply(
            format,
            "Let me note that.",
            &[("call_1", "echo", r#"{"text":"from the broken stream"}"#)],
        );
        // The call is complete in the stream; only the finish is missing.
        let finish = call.frames_before_finish();
        env.mock.push(call.cut_after(finish));
        env.mock
            .push(text_reply(format, "No tool needed after all."));
        let (events, outcome) = env.start(provider(&env, format), "hi").collect().await;
        assert!(
            matches!(outcome, TurnOutcome::Completed { .. }),
            "{outcome:?}"
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, ChatEvent::ToolCallStarted { .. })),
            "{format:?}: the window saw the call start"
        );
        assert!(env.log.lock().is_empty(), "{format:?}: the tool never ran");
        assert!(
            env.store
                .calls()
                .chat_calls(env.exec.chat())
                .await
                .unwrap()
                .is_empty(),
            "{format:?}: no call was even recorded"
        );
        let msgs = env.messages().await;
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[1].content, "No tool needed after all.");
        assert!(
            msgs[1].payload.as_ref().unwrap()["toolCalls"]
                .as_array()
                .is_none_or(Vec::is_empty),
            "{format:?}: the stored answer has no calls"
        );
    }
}

#[tokio::test]
async fn a_stream_broken_on_every_attempt_fails_once_after_all_retries_with_growing_gaps() {
    for format in FORMATS {
        for (fault, reply) in broken(format) {
            let mut env = Env::new().await;
            env.settings.idle_timeout_ms = 200;
            let attempts = env.settings.retry.max_retries as usize + 1;
            for _ in 0..attempts {
                env.mock.push(reply.clone());
            }
            // A whole answer is waiting, and must not be asked for.
            env.mock.push(text_reply(format, ANSWER));
            let (events, outcome) = env.start(provider(&env, format), "hi").collect().await;
            let TurnOutcome::Failed {
                error, retryable, ..
            } = &outcome
            else {
                panic!("{format:?} {fault}: {outcome:?}")
            };
            assert!(retryable, "{format:?} {fault}: Retry is offered");
            assert_eq!(
                env.mock.bodies().len(),
                attempts,
                "{format:?} {fault}: exactly max_retries + 1 requests"
            );
            assert_eq!(env.mock.pending_replies(), 1);
            let r = retries(&events);
            let delays: Vec<u64> = r.iter().map(|x| x.2).collect();
            assert_eq!(delays, [10, 20, 40], "{format:?} {fault}: backoff doubles");
            let times: Vec<_> = env.mock.requests().iter().map(|q| q.at).collect();
            for (i, pair) in times.windows(2).enumerate() {
                assert!(
                    pair[1] - pair[0] >= Duration::from_millis(delays[i]),
                    "{format:?} {fault}: the wait before request {} was kept",
                    i + 2
                );
            }
            let finished: Vec<_> = events
                .iter()
                .filter(|e| matches!(e, ChatEvent::TurnFinished { .. }))
                .collect();
            assert_eq!(finished.len(), 1, "{format:?} {fault}: one visible error");
            let msgs = env.messages().await;
            assert_eq!(msgs.len(), 2, "{format:?} {fault}");
            assert_eq!(msgs[1].status, MessageStatus::Error);
            assert_eq!(
                msgs[1].payload.as_ref().unwrap()["failure"]["message"],
                error.as_str(),
                "{format:?} {fault}"
            );
        }
    }
}

#[tokio::test]
async fn a_wait_longer_than_the_maximum_fails_at_once_and_says_how_long() {
    let env = Env::new().await;
    env.mock
        .push(Reply::status(429, "quota exhausted").header("retry-after", "7500"));
    env.mock.push(openai::text(ANSWER));
    let (events, outcome) = env.start(env.openai(), "hi").collect().await;
    let (error, retryable) = failure(outcome);
    assert!(
        error.contains("2 h 5 min") && error.contains("quota exhausted"),
        "{error}"
    );
    assert!(retryable, "Retry stays on offer for later");
    assert!(retries(&events).is_empty());
    assert_eq!(env.mock.bodies().len(), 1);
}

#[tokio::test]
async fn a_stall_before_the_response_starts_is_an_idle_timeout_too() {
    let mut env = Env::new().await;
    env.settings.idle_timeout_ms = 200;
    env.mock
        .push(openai::text(ANSWER).stall_at(0, Duration::from_secs(30)));
    env.mock.push(openai::text(ANSWER));
    let (events, outcome) = env.start(env.openai(), "hi").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let r = retries(&events);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].3, None, "nothing was shown, so nothing is discarded");
    let error = events
        .iter()
        .find_map(|e| match e {
            ChatEvent::Retrying { error, .. } => Some(error.clone()),
            _ => None,
        })
        .unwrap();
    assert!(error.contains("stalled"), "{error}");
}

#[tokio::test]
async fn stop_during_the_retry_wait_ends_the_turn_as_stopped() {
    let mut env = Env::new().await;
    env.settings.retry.base_delay_ms = 30_000;
    env.settings.retry.max_delay_ms = 60_000;
    env.mock.push(openai::text(ANSWER).drop_after(5));
    let mut handle = env.start(env.openai(), "hi");
    next_event(&mut handle.events, "the retry", |e| {
        matches!(e, ChatEvent::Retrying { .. })
    })
    .await;
    handle.stop();
    let outcome = tokio::time::timeout(tollgate_test_support::wait::PATIENCE, handle.join())
        .await
        .unwrap();
    assert!(
        matches!(outcome, TurnOutcome::Stopped { .. }),
        "{outcome:?}"
    );
    let msgs = env.messages().await;
    assert_eq!(msgs[1].status, MessageStatus::Stopped);
    assert_eq!(
        msgs[1].content, "",
        "the discarded attempt does not come back"
    );
}

#[tokio::test]
async fn retry_from_a_failed_turn_still_regenerates_from_the_history() {
    let env = Env::new().await;
    env.mock.push(Reply::status(400, "bad request"));
    let (_e, outcome) = env.start(env.openai(), "hi").collect().await;
    assert!(matches!(
        outcome,
        TurnOutcome::Failed {
            retryable: false,
            ..
        }
    ));
    env.mock.push(openai::text("A whole answer."));
    let (_e, outcome) = tollgate_turn::start_turn(env.turn(env.openai()), TurnInput::Retry)
        .collect()
        .await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let body = &env.mock.bodies()[1];
    assert_eq!(
        body["messages"].as_array().unwrap().len(),
        2,
        "system + the user message only: the failed attempt is not sent"
    );
}

#[tokio::test]
async fn reasoning_streams_apart_from_the_answer_and_is_stored_with_it() {
    let env = Env::new().await;
    let mut reply = openai::text("Four.");
    reply.frames.insert(
        1,
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Two plus two.\"}}]}\n\n"
            .into(),
    );
    env.mock.push(reply);
    let (events, outcome) = env.start(env.openai(), "2+2?").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert_eq!(text_of(&events), "Four.");
    assert!(events
        .iter()
        .any(|e| matches!(e, ChatEvent::ReasoningDelta { text, .. } if text == "Two plus two.")));
    let msgs = env.messages().await;
    assert_eq!(msgs[1].content, "Four.", "reasoning is never answer text");
    assert_eq!(
        msgs[1].payload.as_ref().unwrap()["reasoning"],
        "Two plus two."
    );
}

#[tokio::test]
async fn anthropic_thinking_blocks_go_back_signed_in_the_next_round_and_the_prefix_is_cached() {
    use tollgate_providers::anthropic::AnthropicProvider;
    let env = Env::new().await;
    let thinking = Arc::new(AnthropicProvider {
        base_url: env.mock.url(),
        api_key: "sk-ant-test".into(),
        thinking_budget: Some(2_048),
    });
    let mut first = anthropic::calls("", &[("toolu_1", "echo", r#"{"text":"hi"}"#)]);
    // A signed thinking block before the tool use, as the API streams it.
    for (i, frame) in [
        r#"{"type":"content_block_start","index":9,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
        r#"{"type":"content_block_delta","index":9,"delta":{"type":"thinking_delta","thinking":"I should echo."}}"#,
        r#"{"type":"content_block_delta","index":9,"delta":{"type":"signature_delta","signature":"SIG-abc"}}"#,
        r#"{"type":"content_block_stop","index":9}"#,
    ]
    .iter()
    .enumerate()
    {
        first.frames.insert(2 + i, format!("event: x\ndata: {frame}\n\n"));
    }
    env.mock.push(first);
    env.mock.push(anthropic::text("Echoed."));
    let (_events, outcome) = env.start(thinking, "echo hi").collect().await;
    assert!(
        matches!(outcome, TurnOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let bodies = env.mock.bodies();
    assert_eq!(bodies[0]["thinking"]["budget_tokens"], 2_048);
    assert!(bodies[0].get("temperature").is_none());
    let assistant = &bodies[1]["messages"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(
        assistant["content"][0],
        serde_json::json!({"type": "thinking", "thinking": "I should echo.", "signature": "SIG-abc"}),
        "the signed block comes back unchanged, before the tool use"
    );
    for body in &bodies {
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools.last().unwrap()["cache_control"]["type"], "ephemeral");
    }
    let last_block = bodies[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last_block["type"], "tool_result");
    assert_eq!(last_block["cache_control"]["type"], "ephemeral");
    let msgs = env.messages().await;
    assert_eq!(
        msgs[1].payload.as_ref().unwrap()["reasoning"],
        "I should echo."
    );
}
