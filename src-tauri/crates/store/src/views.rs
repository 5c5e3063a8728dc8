//! MCP Apps views (F-96): what a call's view shows, kept so that it shows again after a
//! restart from the stored result and the document last read, without calling the tool or
//! asking the server.

use super::calls::RecordStatus;
use super::{now_ms, StoreResult};
use crate::facets::ViewRows;
use rusqlite::{params, OptionalExtension};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::McpViewLink;

/// What a call's view needs from its record.
#[derive(Debug, Clone, PartialEq)]
pub struct CallView {
    pub link: McpViewLink,
    /// The tool's name in Tollgate (`server__tool`).
    pub tool: Option<String>,
    /// The arguments the call ran with (JSON), if it got that far.
    pub arguments: Option<String>,
    /// The result as the server returned it (JSON), when the call succeeded and its result
    /// was not withheld.
    pub result: Option<String>,
    /// The text the call ended with (why it failed, when it did).
    pub result_text: Option<String>,
    pub is_error: bool,
    /// The call still runs: its view shows, and is told the end when it comes.
    pub running: bool,
}

impl ViewRows<'_> {
    /// The view of call `seq` of `chat`, if its server shipped one.
    pub async fn call_view(&self, chat: ChatId, seq: u64) -> StoreResult<Option<CallView>> {
        self.store.call(move |c| {
            Ok(c.query_row(
                "SELECT view_server, view_uri, tool, resolved_args, view_result, result_text, is_error, status
                 FROM tool_calls WHERE chat_id = ?1 AND seq = ?2 AND view_server IS NOT NULL AND view_uri IS NOT NULL",
                params![chat.0, seq],
                |r| {
                    Ok(CallView {
                        link: McpViewLink {
                            server: r.get(0)?,
                            uri: r.get(1)?,
                        },
                        tool: r.get(2)?,
                        arguments: r.get(3)?,
                        result: r.get(4)?,
                        result_text: r.get(5)?,
                        is_error: r.get(6)?,
                        // Still to end: running, or going on as its server's task (F-99).
                        running: matches!(
                            RecordStatus::from_db(&r.get::<_, String>(7)?),
                            RecordStatus::Running | RecordStatus::InBackground
                        ),
                    })
                },
            )
            .optional()?)
        })
        .await
    }

    /// Queues what call `seq`'s view needs as the call starts running (the gate let it run): its
    /// tool, the arguments it runs with and the view, so the view shows before the call ends.
    pub fn record_call_view_start(
        &self,
        chat: ChatId,
        seq: u64,
        tool: String,
        resolved_args: String,
        link: McpViewLink,
    ) {
        self.store.write(move |c| {
            c.prepare_cached(
                "UPDATE tool_calls SET tool = ?3, resolved_args = ?4, view_server = ?5, view_uri = ?6
                 WHERE chat_id = ?1 AND seq = ?2",
            )?
            .execute(params![chat.0, seq, tool, resolved_args, link.server, link.uri])
            .map(|_| ())
        });
    }

    /// The document of a view as last read from its server (JSON of the parsed resource).
    pub async fn view_resource(&self, link: McpViewLink) -> StoreResult<Option<String>> {
        self.store
            .call(move |c| {
                Ok(c.query_row(
                    "SELECT resource FROM mcp_views WHERE server = ?1 AND uri = ?2",
                    params![link.server, link.uri],
                    |r| r.get(0),
                )
                .optional()?)
            })
            .await
    }

    /// Keeps the document of a view as just read from its server.
    pub async fn save_view_resource(&self, link: McpViewLink, resource: String) -> StoreResult<()> {
        self.store.call(move |c| {
            c.execute(
                "INSERT INTO mcp_views(server, uri, resource, fetched_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(server, uri) DO UPDATE SET resource = excluded.resource, fetched_at = excluded.fetched_at",
                params![link.server, link.uri, resource, now_ms()],
            )?;
            Ok(())
        })
        .await
    }

    /// Forgets the documents of a server's views (the server was removed).
    pub async fn forget_view_resources(&self, server: String) -> StoreResult<()> {
        self.store
            .call(move |c| {
                c.execute("DELETE FROM mcp_views WHERE server = ?1", params![server])?;
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::Store;
    use crate::{CallFinish, CallStart, NewChat};
    use tollgate_protocol::policy::{CallDecision, CallStatus, DecidedBy};
    use tollgate_protocol::GuardMark;

    #[tokio::test]
    async fn a_views_result_and_document_outlive_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let link = McpViewLink {
            server: "clock".into(),
            uri: "ui://clock/app.html".into(),
        };
        let chat = {
            let store = Store::open_in(dir.path()).unwrap();
            let chat = store.create_chat(NewChat::default()).await.unwrap().id;
            start(&store, chat, 1);
            store.calls().record_call_finish(CallFinish {
                tool: Some("clock__now".into()),
                resolved_args: Some("{\"zone\":\"UTC\"}".into()),
                ..finish(
                    chat,
                    1,
                    CallStatus::Success,
                    "12:00",
                    Some((link.clone(), Some("{\"content\":[]}".into()))),
                )
            });
            store
                .views()
                .save_view_resource(link.clone(), "{\"html\":\"<p>\"}".into())
                .await
                .unwrap();
            store.flush().await.unwrap();
            chat
        };
        let store = Store::open_in(dir.path()).unwrap();
        let view = store.views().call_view(chat, 1).await.unwrap().unwrap();
        assert!(!view.running);
        assert_eq!(view.link, link);
        assert_eq!(view.result.as_deref(), Some("{\"content\":[]}"));
        assert_eq!(view.arguments.as_deref(), Some("{\"zone\":\"UTC\"}"));
        assert_eq!(
            store
                .views()
                .view_resource(link.clone())
                .await
                .unwrap()
                .as_deref(),
            Some("{\"html\":\"<p>\"}")
        );
        let calls = store.calls().chat_calls(chat).await.unwrap();
        assert_eq!(calls[0].view.as_ref(), Some(&link));
        assert!(store.views().call_view(chat, 2).await.unwrap().is_none());
        store
            .views()
            .forget_view_resources("clock".into())
            .await
            .unwrap();
        assert!(store.views().view_resource(link).await.unwrap().is_none());
    }

    fn start(store: &Store, chat: ChatId, seq: u64) {
        store.calls().record_call_start(CallStart {
            chat,
            message_id: None,
            round: 1,
            seq,
            call_id: format!("c{seq}"),
            requested_name: "clock__wait".into(),
            raw_args: "{}".into(),
            started_at: 1,
            view_of: None,
        });
    }

    /// A call's end, with what these tests do not look at left plain.
    fn finish(
        chat: ChatId,
        seq: u64,
        status: CallStatus,
        result_text: &str,
        view: Option<(McpViewLink, Option<String>)>,
    ) -> CallFinish {
        CallFinish {
            chat,
            seq,
            tool: Some("clock__wait".into()),
            group: Some("clock".into()),
            resolved_args: Some("{}".into()),
            policy: None,
            decision: CallDecision::default(),
            decided_by: DecidedBy::Policy,
            status,
            result_text: result_text.into(),
            truncated: false,
            result_var: None,
            args_var: None,
            result_images: Vec::new(),
            sandbox: None,
            sources: Vec::new(),
            effects: None,
            guard: GuardMark::Quiet,
            ended_at: 2,
            duration_ms: 1,
            view,
        }
    }

    /// A call stopped by the user: a call that failed carries no result for a view.
    fn failed(chat: ChatId, seq: u64) -> CallFinish {
        finish(
            chat,
            seq,
            CallStatus::Cancelled,
            "Stopped by the user.",
            None,
        )
    }

    #[tokio::test]
    async fn a_running_calls_view_is_there_before_it_ends_and_stays_when_it_fails() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let chat = store.create_chat(NewChat::default()).await.unwrap().id;
        let link = McpViewLink {
            server: "clock".into(),
            uri: "ui://clock/wait.html".into(),
        };
        start(&store, chat, 1);
        // Asked, not started: no view yet.
        assert!(store.views().call_view(chat, 1).await.unwrap().is_none());
        store.views().record_call_view_start(
            chat,
            1,
            "clock__wait".into(),
            "{\"s\":5}".into(),
            link.clone(),
        );
        let running = store.views().call_view(chat, 1).await.unwrap().unwrap();
        assert!(running.running);
        assert_eq!(running.link, link);
        assert_eq!(running.arguments.as_deref(), Some("{\"s\":5}"));
        assert_eq!(running.result, None);

        store.calls().record_call_finish(failed(chat, 1));
        let ended = store.views().call_view(chat, 1).await.unwrap().unwrap();
        assert!(!ended.running);
        assert_eq!(ended.link, link, "the view outlives its call's failure");
        assert!(ended.is_error);
        assert_eq!(ended.result_text.as_deref(), Some("Stopped by the user."));

        // A call that never started has no view, failed or not.
        start(&store, chat, 2);
        store.calls().record_call_finish(failed(chat, 2));
        assert!(store.views().call_view(chat, 2).await.unwrap().is_none());
    }
}
