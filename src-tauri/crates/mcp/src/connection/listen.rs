//! A 2026-07-28 session's list changes (F-99): no standing stream and no unasked notifications;
//! the client opens `subscriptions/listen` for the lists the server says can change, and the
//! answer is the stream. Each change goes where a 2025-11-25 server's `list_changed` goes (the
//! manager lists again, and a changed tool goes under review). A stream that ends while the
//! session lives is opened again, and the lists are read again (changes may have been missed
//! meanwhile); one that ends at once, again and again, is given up with a line in the log.

use super::ListChanged;
use rmcp::model::{ServerCapabilities, ServerNotification, SubscriptionFilter};
use rmcp::{Peer, RoleClient};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// A stream shorter than this that ends is counted as ending at once.
const SHORT_LIVED: Duration = Duration::from_secs(1);
/// How many streams in a row may end at once before listening is given up.
const SHORT_LIVED_IN_A_ROW: u32 = 3;

/// The lists `capabilities` says can change, as a subscription's filter; `None` when none can.
pub(super) fn filter_for(capabilities: &ServerCapabilities) -> Option<SubscriptionFilter> {
    let mut builder = SubscriptionFilter::builder();
    let mut any = false;
    if capabilities
        .tools
        .as_ref()
        .is_some_and(|t| t.list_changed == Some(true))
    {
        builder = builder.tools_list_changed();
        any = true;
    }
    if capabilities
        .resources
        .as_ref()
        .is_some_and(|r| r.list_changed == Some(true))
    {
        builder = builder.resources_list_changed();
        any = true;
    }
    if capabilities
        .prompts
        .as_ref()
        .is_some_and(|p| p.list_changed == Some(true))
    {
        builder = builder.prompts_list_changed();
        any = true;
    }
    any.then(|| builder.build())
}

/// Listens to `peer`'s list changes until `shutdown`, passing each to `changes`.
pub(super) async fn listen(
    peer: Peer<RoleClient>,
    filter: SubscriptionFilter,
    changes: UnboundedSender<ListChanged>,
    shutdown: CancellationToken,
) {
    let mut short_lived = 0;
    let mut first = true;
    loop {
        let opened = tokio::select! {
            opened = peer.listen(filter.clone()) => opened,
            () = shutdown.cancelled() => return,
        };
        let mut subscription = match opened {
            Ok(subscription) => subscription,
            Err(e) => {
                tracing::info!("the server's list changes cannot be listened to: {e}");
                return;
            }
        };
        // Opened again after an end: what changed meanwhile was not heard.
        if !first {
            for list in [
                ListChanged::Tools,
                ListChanged::Resources,
                ListChanged::Prompts,
            ] {
                let _ = changes.send(list);
            }
        }
        first = false;
        let began = Instant::now();
        loop {
            let next = tokio::select! {
                next = subscription.next() => next,
                () = shutdown.cancelled() => return,
            };
            match next {
                Ok(Some(notification)) => {
                    if let Some(list) = changed_list(&notification) {
                        let _ = changes.send(list);
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::info!("the server's list changes stream failed: {e}");
                    break;
                }
            }
        }
        if peer.is_transport_closed() || shutdown.is_cancelled() {
            return;
        }
        short_lived = if began.elapsed() < SHORT_LIVED {
            short_lived + 1
        } else {
            0
        };
        if short_lived >= SHORT_LIVED_IN_A_ROW {
            tracing::warn!("the server keeps ending its list changes stream; no longer listening");
            return;
        }
    }
}

/// The list a notification says changed.
fn changed_list(notification: &ServerNotification) -> Option<ListChanged> {
    match notification {
        ServerNotification::ToolListChangedNotification(_) => Some(ListChanged::Tools),
        ServerNotification::ResourceListChangedNotification(_) => Some(ListChanged::Resources),
        ServerNotification::PromptListChangedNotification(_) => Some(ListChanged::Prompts),
        _ => None,
    }
}
