//! Calls that go on after their turn as their server's task (F-99): the task's id kept with the
//! call, so the task is followed again after a restart and its result still reaches the call.
//! A row lives from the moment its call went on in the background until its result (or its end)
//! is recorded.

use super::variables::{sources_from_db, sources_to_db};
use super::StoreResult;
use crate::facets::Calls;
use rusqlite::{params, OptionalExtension};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::policy::ResultPolicy;
use tollgate_protocol::Source;

/// A call that goes on as its server's task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTask {
    pub chat: ChatId,
    pub seq: u64,
    /// The server's id of the task.
    pub task_id: String,
    /// Whether the user reviews its result before the model sees it, as the call's grant said.
    pub review: ResultPolicy,
    /// What its result carries from what the model had read when it made the call (a lookup
    /// keyed on untrusted content returns what that content chose, F-97): the late result has
    /// them as the result would have had them in its turn.
    pub result_from: Vec<Source>,
    /// What its arguments carry (the variables they expanded, F-84), for the arguments'
    /// variable the late result stores.
    pub args_from: Vec<Source>,
}

impl Calls<'_> {
    /// Keeps `task` with its call (awaited: the call is on disk as going on before the model is
    /// told so).
    pub async fn record_call_task(&self, task: CallTask) -> StoreResult<()> {
        self.store
            .call(move |c| {
                c.execute(
                    "INSERT OR REPLACE INTO call_tasks(chat_id, seq, task_id, review, result_from, args_from)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        task.chat.0,
                        task.seq,
                        task.task_id,
                        task.review.as_str(),
                        sources_to_db(&task.result_from),
                        sources_to_db(&task.args_from)
                    ],
                )?;
                Ok(())
            })
            .await
    }

    /// The task call `seq` of `chat` goes on as, if it still does.
    pub async fn call_task(&self, chat: ChatId, seq: u64) -> StoreResult<Option<CallTask>> {
        self.store
            .call(move |c| {
                Ok(c.query_row(
                    "SELECT task_id, review, result_from, args_from FROM call_tasks WHERE chat_id = ?1 AND seq = ?2",
                    params![chat.0, seq],
                    |r| {
                        Ok(CallTask {
                            chat,
                            seq,
                            task_id: r.get(0)?,
                            // A value this version does not know asks the user: the cautious
                            // reading.
                            review: ResultPolicy::parse(&r.get::<_, String>(1)?)
                                .unwrap_or(ResultPolicy::Always),
                            result_from: sources_from_db(r.get(2)?),
                            args_from: sources_from_db(r.get(3)?),
                        })
                    },
                )
                .optional()?)
            })
            .await
    }

    /// The calls of `chat` that go on as tasks, in order.
    pub async fn chat_call_tasks(&self, chat: ChatId) -> StoreResult<Vec<u64>> {
        self.store
            .call(move |c| {
                let mut stmt =
                    c.prepare_cached("SELECT seq FROM call_tasks WHERE chat_id = ?1 ORDER BY seq")?;
                let rows = stmt
                    .query_map([chat.0], |r| r.get(0))?
                    .collect::<Result<Vec<u64>, _>>()?;
                Ok(rows)
            })
            .await
    }

    /// The chats with a call that goes on as a task (followed again at start).
    pub async fn chats_with_call_tasks(&self) -> StoreResult<Vec<ChatId>> {
        self.store
            .call(move |c| {
                let mut stmt =
                    c.prepare_cached("SELECT DISTINCT chat_id FROM call_tasks ORDER BY chat_id")?;
                let rows = stmt
                    .query_map([], |r| r.get(0).map(ChatId))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .await
    }

    /// The task call `seq` of `chat` went on as has ended: its result is recorded.
    pub async fn end_call_task(&self, chat: ChatId, seq: u64) -> StoreResult<()> {
        self.store
            .call(move |c| {
                c.execute(
                    "DELETE FROM call_tasks WHERE chat_id = ?1 AND seq = ?2",
                    params![chat.0, seq],
                )?;
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NewChat, Store};

    #[tokio::test]
    async fn a_task_is_kept_with_its_call_until_it_ends_and_goes_with_its_chat() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(NewChat::default()).await.unwrap().id;
        let task = CallTask {
            chat,
            seq: 3,
            task_id: "task-7".into(),
            review: ResultPolicy::OnError,
            result_from: vec![Source::McpTool {
                server: "mail".into(),
                tool: "mail__read".into(),
            }],
            args_from: Vec::new(),
        };
        store.calls().record_call_task(task.clone()).await.unwrap();
        assert_eq!(store.calls().call_task(chat, 3).await.unwrap(), Some(task));
        assert_eq!(store.calls().chat_call_tasks(chat).await.unwrap(), vec![3]);
        assert_eq!(
            store.calls().chats_with_call_tasks().await.unwrap(),
            vec![chat]
        );
        store.calls().end_call_task(chat, 3).await.unwrap();
        assert_eq!(store.calls().call_task(chat, 3).await.unwrap(), None);
        store
            .calls()
            .record_call_task(CallTask {
                chat,
                seq: 4,
                task_id: "task-8".into(),
                review: ResultPolicy::Never,
                result_from: Vec::new(),
                args_from: Vec::new(),
            })
            .await
            .unwrap();
        store.delete_chat(chat).await.unwrap();
        assert!(store
            .calls()
            .chats_with_call_tasks()
            .await
            .unwrap()
            .is_empty());
    }
}
