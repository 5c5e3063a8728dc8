//! A server's session from start to end (F-45): connected and listed, put on its entry, watched
//! while it runs (lists read again when the server says they changed, a sign-in asked for
//! mid-session), and marked failed with what it last wrote when it stops. Part of
//! [`McpManager`], kept apart to keep each file one subject.

use super::{current, McpManager, McpStatus, Start};
use crate::connection::{ListChanged, McpConnection, ServerIdentity};
use crate::inline_secrets;
use rmcp::model::{Prompt, Resource, Tool as McpToolInfo};
use std::sync::Arc;

/// A server's session as it started: the connection and its first lists.
struct Session {
    conn: Arc<McpConnection>,
    tools: Vec<McpToolInfo>,
    resources: Vec<Resource>,
    prompts: Vec<Prompt>,
}

impl McpManager {
    /// Connects, lists the tools, resources and prompts, and then watches the connection until
    /// it ends, listing again whatever the server says has changed.
    pub(super) async fn run(self: Arc<Self>, launch: Start) {
        let (name, generation) = (launch.name.clone(), launch.generation);
        let started = self.start_session(launch).await;
        let Some(conn) = self.settle_start(&name, generation, started) else {
            return;
        };
        self.notify();
        match self.watch(&name, generation, &conn).await {
            Some(challenge) => self.refused_mid_session(&name, generation, challenge).await,
            None => self.stopped(&name, generation, &conn),
        }
    }

    /// The server of `launch` connected, with its tools, resources and prompts.
    async fn start_session(&self, launch: Start) -> Result<Session, crate::McpError> {
        let Start {
            name,
            config,
            oauth,
            slot,
            ..
        } = launch;
        let session = crate::connection::Session {
            oauth,
            asks: self.questions.as_ref().map(|hub| crate::connection::Asks {
                slot,
                hub: Arc::clone(hub),
                sampler: self.sampler.clone(),
            }),
        };
        let conn = McpConnection::connect(&config, &self.hidden, session).await?;
        let tools = conn.tools().await?;
        // A server whose resources or prompts cannot be listed still offers its tools.
        let resources = conn.resources().await.unwrap_or_else(|e| {
            tracing::warn!("MCP server {name}: {e}");
            Vec::new()
        });
        let prompts = conn.prompts().await.unwrap_or_else(|e| {
            tracing::warn!("MCP server {name}: {e}");
            Vec::new()
        });
        Ok(Session {
            conn: Arc::new(conn),
            tools,
            resources,
            prompts,
        })
    }

    /// Puts what a start gave on the server's entry: its lists and Ready, or why it failed.
    /// The connection to watch, or `None` when it failed or was superseded while connecting
    /// (then `started`, and its process, are dropped here).
    fn settle_start(
        &self,
        name: &str,
        generation: u64,
        started: Result<Session, crate::McpError>,
    ) -> Option<Arc<McpConnection>> {
        let mut entries = self.entries.lock();
        let entry = current(&mut entries, name, generation)?;
        match started {
            Ok(session) => {
                entry.challenge = None;
                entry.identity = session.conn.identity().clone();
                entry.tools = session.tools;
                entry.resources = session.resources;
                entry.prompts = session.prompts;
                self.review(entry);
                entry.status = McpStatus::Ready;
                entry.slot.replace(Some(Arc::clone(&session.conn)));
                Some(session.conn)
            }
            // A start that failed has no session: no name, version or protocol to show.
            Err(crate::McpError::AuthRequired { expired, challenge }) => {
                entry.identity = ServerIdentity::default();
                entry.status = McpStatus::NeedsSignIn { expired };
                entry.challenge = challenge;
                drop(entries);
                self.notify();
                None
            }
            Err(e) => {
                entry.identity = ServerIdentity::default();
                entry.status = McpStatus::Failed {
                    error: inline_secrets::scrub(&e.to_string(), &entry.config.transport),
                };
                drop(entries);
                self.notify();
                None
            }
        }
    }

    /// Watches `conn` until its session ends (`None`) or the server asks for a (further)
    /// sign-in mid-session (`Some` with its challenge, if any), listing again what the server
    /// says has changed meanwhile.
    async fn watch(
        &self,
        name: &str,
        generation: u64,
        conn: &Arc<McpConnection>,
    ) -> Option<Option<String>> {
        let mut sign_in = conn.sign_in_wanted();
        let wanted = async {
            let found = sign_in
                .wait_for(Option::is_some)
                .await
                .map(|challenge| challenge.clone().flatten());
            match found {
                Ok(challenge) => challenge,
                Err(_) => std::future::pending().await,
            }
        };
        let watched = async {
            let Some(mut changes) = conn.take_changes() else {
                conn.closed().await;
                return;
            };
            loop {
                tokio::select! {
                    () = conn.closed() => break,
                    change = changes.recv() => match change {
                        Some(kind) => self.relist(name, generation, conn, kind).await,
                        None => {
                            conn.closed().await;
                            break;
                        }
                    },
                }
            }
        };
        tokio::select! {
            challenge = wanted => Some(challenge),
            () = watched => None,
        }
    }

    /// The server asked for a sign-in mid-session: the card shows Sign in, and the session that
    /// was refused goes.
    async fn refused_mid_session(&self, name: &str, generation: u64, challenge: Option<String>) {
        let refused = {
            let mut entries = self.entries.lock();
            let Some(entry) = current(&mut entries, name, generation) else {
                return;
            };
            entry.status = McpStatus::NeedsSignIn { expired: false };
            entry.challenge = challenge;
            entry.clear_lists();
            entry.slot.replace(None)
        };
        self.notify();
        if let Some(refused) = refused {
            refused.shutdown().await;
        }
    }

    /// The session of `conn` ended without being asked to: the server failed, with what it
    /// last wrote.
    fn stopped(&self, name: &str, generation: u64, conn: &McpConnection) {
        let mut entries = self.entries.lock();
        let Some(entry) = current(&mut entries, name, generation) else {
            return;
        };
        let mut error = "the server stopped unexpectedly".to_string();
        if let Some(tail) = conn.stderr_tail() {
            error.push_str(&format!("; it last wrote: {tail}"));
        }
        entry.status = McpStatus::Failed {
            error: inline_secrets::scrub(&error, &entry.config.transport),
        };
        entry.slot.replace(None);
        entry.clear_lists();
        drop(entries);
        self.notify();
    }

    /// Lists again what the server said changed (its tools change the chats' tool groups).
    async fn relist(&self, name: &str, generation: u64, conn: &McpConnection, kind: ListChanged) {
        enum Fresh {
            Tools(Vec<McpToolInfo>),
            Resources(Vec<Resource>),
            Prompts(Vec<Prompt>),
        }
        let fresh = match kind {
            ListChanged::Tools => conn.tools().await.map(Fresh::Tools),
            ListChanged::Resources => conn.resources().await.map(Fresh::Resources),
            ListChanged::Prompts => conn.prompts().await.map(Fresh::Prompts),
        };
        let fresh = match fresh {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!("MCP server {name}: {e}");
                return;
            }
        };
        {
            let mut entries = self.entries.lock();
            let Some(entry) = current(&mut entries, name, generation) else {
                return;
            };
            match fresh {
                Fresh::Tools(t) => {
                    entry.tools = t;
                    self.review(entry);
                }
                Fresh::Resources(r) => entry.resources = r,
                Fresh::Prompts(p) => entry.prompts = p,
            }
        }
        self.notify();
    }
}
