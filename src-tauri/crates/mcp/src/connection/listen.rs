//! A 2026-07-28 session's list changes (F-99): no standing stream and no unasked notifications;
//! the client opens `subscriptions/listen` for the lists the server says can change, and the
//! answer is the stream. Each change goes where a 2025-11-25 server's `list_changed` goes (the
//! manager lists again, and a changed tool goes under review). A stream that ends while the
//! session lives is opened again, and the lists are read again (changes may have been missed
//! meanwhile), after a wait that grows while openings keep failing or ending without a change;
//! after five such in a row it is given up with a line in the log.

use super::ListChanged;
use rmcp::model::{ServerCapabilities, ServerNotification, SubscriptionFilter};
use rmcp::{Peer, RoleClient};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// A stream that lasted this long without a change is not counted as a failure when it ends.
const LONG_LIVED: Duration = Duration::from_secs(60);
/// How many openings in a row may fail, or end soon without a change, before listening is
/// given up.
const GIVE_UP_AFTER: u32 = 5;
/// The longest wait before opening a stream again.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

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

/// Listens to `peer`'s list changes until `shutdown`, passing each to `changes`. A stream that
/// fails to open, or ends soon without a change, is opened again after a wait that doubles
/// (1 s, 2 s, … 60 s); after [`GIVE_UP_AFTER`] such in a row, listening is given up (logged).
pub(super) async fn listen(
    peer: Peer<RoleClient>,
    filter: SubscriptionFilter,
    changes: UnboundedSender<ListChanged>,
    shutdown: CancellationToken,
) {
    let mut quiet = 0;
    let mut first = true;
    loop {
        if quiet >= GIVE_UP_AFTER {
            tracing::warn!("the server's list changes cannot be listened to; no longer trying");
            return;
        }
        if quiet > 0 {
            let wait = Duration::from_secs(1 << (quiet - 1).min(6)).min(LONGEST_WAIT);
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.cancelled() => return,
            }
        }
        let opened = tokio::select! {
            opened = peer.listen(filter.clone()) => opened,
            () = shutdown.cancelled() => return,
        };
        let mut subscription = match opened {
            Ok(subscription) => subscription,
            Err(e) => {
                tracing::info!("the server's list changes could not be listened to: {e}");
                if peer.is_transport_closed() {
                    return;
                }
                quiet += 1;
                continue;
            }
        };
        // Opened again after an end: what changed meanwhile was not heard.
        if !first {
            for list in lists_of(&filter) {
                let _ = changes.send(list);
            }
        }
        first = false;
        let began = Instant::now();
        let mut heard = false;
        loop {
            let next = tokio::select! {
                next = subscription.next() => next,
                () = shutdown.cancelled() => return,
            };
            match next {
                Ok(Some(notification)) => {
                    if let Some(list) = changed_list(&notification) {
                        heard = true;
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
        quiet = if heard || began.elapsed() >= LONG_LIVED {
            0
        } else {
            quiet + 1
        };
    }
}

/// The lists `filter` listens to.
fn lists_of(filter: &SubscriptionFilter) -> Vec<ListChanged> {
    let mut lists = Vec::new();
    if filter.tools_list_changed == Some(true) {
        lists.push(ListChanged::Tools);
    }
    if filter.resources_list_changed == Some(true) {
        lists.push(ListChanged::Resources);
    }
    if filter.prompts_list_changed == Some(true) {
        lists.push(ListChanged::Prompts);
    }
    lists
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
