//! Tollgate's side of an MCP session: who we are, the server's list_changed notifications, its
//! questions to the user and its progress reports.

use super::*;

/// Tollgate's side of the session: it says who we are, passes the server's list_changed
/// notifications on, and puts the server's questions to the user.
#[derive(Clone)]
pub(super) struct Handler {
    pub(super) changes: tokio::sync::mpsc::UnboundedSender<ListChanged>,
    pub(super) asks: Option<Asks>,
    pub(super) progress: crate::progress::ProgressRoutes,
    pub(super) pages: Arc<crate::pages::PagesDone>,
    /// The user lets the server see the calling chat's workspace folder (its roots).
    pub(super) share_workspace: bool,
    /// The user lets the server ask the chat's model (sampling), each request on its card.
    pub(super) share_model: bool,
}

/// The roots a server is told of for `call`: the workspace folder of the call's chat where the
/// user lets the server see it (`share`), else none. Roots are deprecated by the 2026-07-28
/// revision (SEP-2577), and servers of both eras still ask for them.
#[allow(deprecated)]
pub(super) fn roots_for(
    share: bool,
    call: Option<&crate::elicitation::RunningCall>,
) -> rmcp::model::ListRootsResult {
    let roots = call
        .filter(|_| share)
        .and_then(|call| call.workspace.as_deref())
        .and_then(|folder| url::Url::from_directory_path(folder).ok())
        .map(|uri| {
            let mut root = rmcp::model::Root::new(uri.to_string());
            root.name = Some("The chat's workspace folder".into());
            root
        });
    rmcp::model::ListRootsResult::new(roots.into_iter().collect())
}

/// A server's question, to the user on the card of `call` (or, without one, of the latest call
/// of its tools that runs, where they all run in one chat): refused (with why) when no call runs or it asks too often; never
/// answered for the user. `gave_up` withdraws it (the server no longer waits for it).
pub(super) async fn put_to_user(
    asks: Option<&Asks>,
    call: Option<crate::elicitation::RunningCall>,
    request: rmcp::model::ElicitRequestParams,
    gave_up: CancellationToken,
) -> Result<rmcp::model::ElicitResult, String> {
    use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
    use tollgate_protocol::{ElicitationAnswer, ElicitationKind};
    let Some(asks) = asks else {
        return Err("this client does not take questions".into());
    };
    let call = match call {
        Some(call) => call,
        // A question that names no call goes to the chat its server works for, and only where
        // that is one chat: never to another chat's user.
        None => asks
            .slot
            .latest_call_of_one_chat()
            .map_err(|()| "the server's tools run in more than one chat, so Tollgate cannot tell which chat's user it asks".to_string())?
            .ok_or_else(|| crate::elicitation::AskRefused::NoCall.to_string())?,
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
                    .map_err(|e| format!("the form's schema could not be read: {e}"))?,
            },
        ),
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
            let host = crate::pages::web_host(&url)?;
            (message, ElicitationKind::Url { url, host })
        }
        #[allow(unreachable_patterns)]
        _ => return Err("this kind of question is not supported".into()),
    };
    // The question is withdrawn when its call ends or the server gives up on it (the hub's
    // wait, dropped, withdraws it).
    let answer = tokio::select! {
        answer = asks.hub.ask(asks.slot.name(), &call, message, kind) => answer,
        () = gave_up.cancelled() => Ok(tollgate_protocol::ElicitationAnswer::Cancel),
    };
    Ok(match answer.map_err(|e| e.to_string())? {
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
        put_to_user(self.asks.as_ref(), None, request, context.ct)
            .await
            .map_err(|why| rmcp::ErrorData::invalid_request(why, None))
    }

    #[allow(deprecated)]
    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        // The folder of the chat the server works for, where that is one chat: no other's.
        let call = self
            .asks
            .as_ref()
            .and_then(|asks| asks.slot.latest_call_of_one_chat().ok().flatten());
        Ok(roots_for(self.share_workspace, call.as_ref()))
    }

    #[allow(deprecated)]
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        if !self.share_model {
            return Err(rmcp::ErrorData::invalid_request(
                super::sampling::NOT_LET,
                None,
            ));
        }
        super::sampling::lend_model(self.asks.as_ref(), None, params, context.ct)
            .await
            .map_err(|not| not.to_error_data())
    }

    fn get_info(&self) -> ClientConfig {
        client_config(self.share_workspace, self.share_model)
    }
}
