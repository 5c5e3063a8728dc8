//! Deleting a chat of a heavy user's shape (calls, records, rules, variables): gone from every
//! list at once, its rows purged in the background, across a restart, and its pages given back.

use tollgate_engine::ChatId;
use tollgate_store::{ApprovalRecordRow, Store};

/// Rows of `chat` in each table a chat owns.
async fn rows_of(store: &Store, chat: ChatId) -> Vec<(&'static str, i64)> {
    store
        .call(move |c| {
            let mut out = Vec::new();
            for table in [
                "messages",
                "tool_calls",
                "variables",
                "approval_records",
                "rules",
            ] {
                let n: i64 = c.query_row(
                    &format!("SELECT count(*) FROM {table} WHERE chat_id = ?1"),
                    [chat.0],
                    |r| r.get(0),
                )?;
                out.push((table, n));
            }
            Ok(out)
        })
        .await
        .unwrap()
}

/// A chat of `size` messages with calls, a variable, an ask-once record and a chat rule.
async fn full_chat(store: &Store, size: usize, seed: u64) -> ChatId {
    let chat = store
        .import_chat(tollgate_scale::one_chat(size, seed))
        .await
        .unwrap()
        .id;
    store
        .variables()
        .put_variable(chat, "c1_result".into(), "tool_result", "42".into(), 0, &[]);
    store
        .gate_records()
        .put_approval_record(ApprovalRecordRow {
            chat,
            tool: "run_command".into(),
            args_hash: "h".into(),
            args: "{}".into(),
            workspace: None,
            allowed: true,
            created_at: 0,
        })
        .await
        .unwrap();
    store
        .gate_records()
        .insert_rule(
            "run_command".into(),
            Some("ls *".into()),
            "allow".into(),
            Some(chat),
        )
        .await
        .unwrap();
    store.flush().await.unwrap();
    chat
}

#[tokio::test]
async fn a_deleted_chat_is_gone_at_once_and_its_rows_are_purged_even_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let kept = full_chat(&store, 40, 1).await;
    let gone = full_chat(&store, 3_000, 2).await;
    let before = rows_of(&store, kept).await;
    assert!(before.iter().all(|(_, n)| *n > 0), "{before:?}");
    let word = store.branches().chat_messages(gone).await.unwrap()[0]
        .content
        .split_whitespace()
        .last()
        .unwrap()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_string();

    store.delete_chat(gone).await.unwrap();
    assert!(store.chat(gone).await.unwrap().is_none());
    assert!(store
        .list_chats()
        .await
        .unwrap()
        .iter()
        .all(|c| c.id != gone));
    assert!(store
        .gate_records()
        .rules()
        .await
        .unwrap()
        .iter()
        .all(|r| r.chat != Some(gone)));
    assert!(store
        .search_index()
        .search_chats(&word)
        .await
        .unwrap()
        .iter()
        .all(|h| h.chat != gone));
    // One step, then a restart: the purge goes on where it stopped.
    assert!(store.purge_deleted_step(500).await.unwrap());
    drop(store);
    let store = Store::open_in(dir.path()).unwrap();
    assert!(rows_of(&store, gone).await.iter().any(|(_, n)| *n > 0));
    store.purge_deleted().await.unwrap();
    assert!(
        rows_of(&store, gone).await.iter().all(|(_, n)| *n == 0),
        "{:?}",
        rows_of(&store, gone).await
    );
    assert_eq!(
        rows_of(&store, kept).await,
        before,
        "another chat's rows are kept"
    );
    assert!(!store.purge_deleted_step(500).await.unwrap());
}

#[tokio::test]
async fn a_new_database_gives_deleted_chats_pages_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let pages = |store: &Store| {
        let store = store.clone();
        async move {
            store
                .call(|c| {
                    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?;
                    Ok(c.query_row("PRAGMA page_count", [], |r| r.get::<_, i64>(0))?)
                })
                .await
                .unwrap()
        }
    };
    let empty = pages(&store).await;
    let chat = full_chat(&store, 2_000, 3).await;
    let full = pages(&store).await;
    store.delete_chat(chat).await.unwrap();
    store.purge_deleted().await.unwrap();
    let after = pages(&store).await;
    assert!(full > empty * 4, "{empty} → {full}");
    assert!(
        after < empty + (full - empty) / 4,
        "{empty} → {full} → {after}"
    );
}
