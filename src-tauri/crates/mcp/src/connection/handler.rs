//! Tollgate's side of an MCP session: who we are, the server's list_changed notifications, its
//! questions to the user and its progress reports.

use super::*;

/// Tollgate's side of the session: it says who we are, passes the server's list_changed
/// notifications on, and puts the server's questions to the user.
pub(super) struct Handler {
    pub(super) changes: tokio::sync::mpsc::UnboundedSender<ListChanged>,
    pub(super) asks: Option<Asks>,
    pub(super) progress: crate::progress::ProgressRoutes,
    pub(super) pages: Arc<crate::pages::PagesDone>,
}

impl Handler {
    /// A server's question, to the user: refused (with why) when no call of its tools runs or
    /// it asks too often; never answered for the user.
    async fn elicit(
        &self,
        request: rmcp::model::ElicitRequestParams,
        context: &rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
        use tollgate_protocol::{ElicitationAnswer, ElicitationKind};
        let refuse = |why: String| rmcp::ErrorData::invalid_request(why, None);
        let Some(asks) = &self.asks else {
            return Err(refuse("this client does not take questions".into()));
        };
        let Some(call) = asks.slot.latest_call() else {
            return Err(refuse(crate::elicitation::AskRefused::NoCall.to_string()));
        };
        let (message, kind) = match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message,
                ElicitationKind::Form {
                    schema: serde_json::to_value(&requested_schema)
                        .map_err(|e| refuse(format!("the form's schema could not be read: {e}")))?,
                },
            ),
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                let host = crate::pages::web_host(&url).map_err(refuse)?;
                (message, ElicitationKind::Url { url, host })
            }
            #[allow(unreachable_patterns)]
            _ => return Err(refuse("this kind of question is not supported".into())),
        };
        // The question is withdrawn when its call ends or the server gives up on it.
        let withdraw = call.cancel.child_token();
        let call = crate::elicitation::RunningCall {
            cancel: withdraw.clone(),
            ..call
        };
        let gave_up = context.ct.clone();
        let watcher = tokio::spawn(async move {
            gave_up.cancelled().await;
            withdraw.cancel();
        });
        let answer = asks.hub.ask(asks.slot.name(), &call, message, kind).await;
        watcher.abort();
        let answer = answer.map_err(|e| refuse(e.to_string()))?;
        Ok(match answer {
            ElicitationAnswer::Accept { content } => {
                let result = ElicitResult::new(ElicitationAction::Accept);
                match content {
                    Some(c) => result.with_content(c),
                    None => result,
                }
            }
            ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(ListChanged::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(ListChanged::Resources);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(ListChanged::Prompts);
    }

    async fn on_custom_notification(
        &self,
        notification: rmcp::model::CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == crate::pages::PAGE_DONE_METHOD {
            self.pages.finished(notification.params.as_ref());
        }
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.report(params).await;
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.elicit(request, &context).await
    }

    fn get_info(&self) -> ClientConfig {
        client_config()
    }
}
