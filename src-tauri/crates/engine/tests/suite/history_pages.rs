//! A chat's history read a page at a time (F-71), through the service against a mock provider:
//! a window opens a long chat on its last page and reads the pages before it afterwards. The
//! pages must add up to exactly the branch on screen, never split a turn from the tool results
//! it folds in, keep each call with its answer, and never mix in another branch.

use super::service::{collector, open, turn, until_finished, with_mock};
use std::collections::HashSet;
use tollgate_engine::chat::TurnInput;
use tollgate_engine::service::{ChatHistory, Tollgate};
use tollgate_engine::ChatId;
use tollgate_mock_llm::{openai, MockLlm};
use tollgate_protocol::{CommandError, ErrorKind};
use tollgate_store::Role;

/// Turns `from..to`, each a question, an answer that calls the calculator, its result and a
/// last answer: four messages and one call a turn.
async fn calculating_turns(
    app: &std::sync::Arc<Tollgate>,
    mock: &MockLlm,
    chat: ChatId,
    turns: std::ops::Range<usize>,
) {
    for i in turns {
        let args = format!(r#"{{"expression": "{i}+1"}}"#);
        mock.push(openai::calls("", &[(&format!("c{i}"), "calculate", &args)]));
        mock.push(openai::text(&format!("answer {i}")));
        turn(
            app,
            chat,
            TurnInput::Message(format!("question {i}").into()),
        )
        .await;
    }
}

/// Every page of the branch ending at `before` (none: the chat's leaf), last page first.
async fn pages(app: &Tollgate, chat: ChatId, limit: usize) -> Vec<ChatHistory> {
    let mut out = vec![app
        .chats()
        .chat_history(chat, None, Some(limit))
        .await
        .unwrap()];
    while let Some(before) = out.last().and_then(|p| p.earlier) {
        out.push(
            app.chats()
                .chat_history(chat, Some(before), Some(limit))
                .await
                .unwrap(),
        );
        assert!(out.len() < 100, "paging does not end");
    }
    out
}

fn ids(history: &ChatHistory) -> Vec<i64> {
    history.messages.iter().map(|m| m.id).collect()
}

#[tokio::test]
async fn pages_add_up_to_the_branch_in_whole_turns_with_their_calls() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    calculating_turns(&app, &mock, chat, 0..7).await;
    let whole = app.chats().chat_history(chat, None, None).await.unwrap();
    assert_eq!(whole.messages.len(), 28);
    assert_eq!(whole.calls.len(), 7);
    assert_eq!(
        whole.earlier, None,
        "the whole branch has nothing before it"
    );

    // 5 messages reach back into the second-last turn: both last turns come, 8 messages.
    let last = app.chats().chat_history(chat, None, Some(5)).await.unwrap();
    assert_eq!(last.messages.len(), 8);
    assert_eq!(last.messages[0].role, Role::User);
    assert_eq!(last.messages[0].content, "question 5");
    assert_eq!(last.earlier, Some(last.messages[0].id));
    assert_eq!(last.revision, whole.revision);
    let mine: HashSet<i64> = ids(&last).into_iter().collect();
    assert_eq!(last.calls.len(), 2);
    assert!(last
        .calls
        .iter()
        .all(|c| c.message_id.is_some_and(|m| mine.contains(&m))));

    for limit in [1, 3, 4, 5, 9, 27, 28, 1000] {
        let all = pages(&app, chat, limit).await;
        let mut messages: Vec<i64> = all.iter().rev().flat_map(ids).collect();
        assert_eq!(
            messages,
            ids(&whole),
            "limit {limit}: the pages are the branch, in order"
        );
        messages.dedup();
        assert_eq!(messages.len(), 28, "limit {limit}: no message twice");
        for page in &all {
            assert_eq!(
                page.messages[0].role,
                Role::User,
                "limit {limit}: a page starts a turn"
            );
            assert!(page.messages.len() >= limit.min(28) || page.earlier.is_none());
        }
        let mut seqs: Vec<u64> = all
            .iter()
            .flat_map(|p| p.calls.iter().map(|c| c.seq))
            .collect();
        seqs.sort_unstable();
        assert_eq!(
            seqs,
            (1..=7).collect::<Vec<_>>(),
            "limit {limit}: every call once"
        );
    }
}

#[tokio::test]
async fn the_pages_before_a_message_are_its_own_branch_and_other_chats_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path()).await;
    let mock = with_mock(&app).await;
    let chat = crate::common::new_chat(&app).await;
    calculating_turns(&app, &mock, chat, 0..4).await;
    let old = app.chats().chat_history(chat, None, None).await.unwrap();

    // Edit the second question: the branch on screen now forks after the first turn.
    let question1 = old.messages[4].id;
    mock.push(openai::text("edited answer"));
    let (on_event, mut rx) = collector();
    app.edit_message(chat, question1, "question 1, edited".into(), on_event)
        .await
        .unwrap();
    until_finished(&mut rx).await;
    let new = app.chats().chat_history(chat, None, None).await.unwrap();
    assert_eq!(new.messages.len(), 6);

    // Before the old branch's last question: the old branch's messages, with its calls, none
    // of the edited branch.
    let old_last_question = old.messages[12].id;
    let before = app
        .chats()
        .chat_history(chat, Some(old_last_question), Some(1000))
        .await
        .unwrap();
    assert_eq!(ids(&before), ids(&old)[..12].to_vec());
    assert_eq!(before.earlier, None);
    assert_eq!(
        before.calls.iter().map(|c| c.seq).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let edited: HashSet<i64> = ids(&new)[4..].iter().copied().collect();
    assert!(before.messages.iter().all(|m| !edited.contains(&m.id)));
    // The edited question's versions come with it on the page that holds it.
    let tail = app.chats().chat_history(chat, None, Some(2)).await.unwrap();
    assert_eq!(tail.messages[0].content, "question 1, edited");
    assert_eq!(
        tail.messages[0].siblings,
        vec![question1, tail.messages[0].id]
    );

    // A message of another chat, or none at all, is refused: never another chat's text.
    let other = crate::common::new_chat(&app).await;
    let refused = app
        .chats()
        .chat_history(other, Some(question1), Some(10))
        .await;
    assert_eq!(
        CommandError::from(refused.unwrap_err()).kind,
        ErrorKind::NotFound
    );
    let refused = app
        .chats()
        .chat_history(chat, Some(i64::MAX), Some(10))
        .await;
    assert_eq!(
        CommandError::from(refused.unwrap_err()).kind,
        ErrorKind::NotFound
    );
    // The first message has nothing before it.
    let first = app
        .chats()
        .chat_history(chat, Some(old.messages[0].id), None)
        .await
        .unwrap();
    assert!(first.messages.is_empty() && first.calls.is_empty() && first.earlier.is_none());
    // An empty chat reads as empty; a chat that does not exist is named.
    let empty = app
        .chats()
        .chat_history(other, None, Some(10))
        .await
        .unwrap();
    assert!(empty.messages.is_empty() && empty.earlier.is_none());
    let missing = app
        .chats()
        .chat_history(ChatId(i64::MAX), None, Some(10))
        .await;
    assert_eq!(
        CommandError::from(missing.unwrap_err()).kind,
        ErrorKind::NotFound
    );
}
