//! The sandbox of a chat's commands as the window uses it (F-46): its level and network switch,
//! and the user's "run again without the sandbox" on a blocked call.

use super::services::Gate;
use super::{ServiceError, Tollgate};
use crate::chat::{ChatEvent, TurnInput, UserInput};
use crate::ids::ChatId;
use crate::protocol::{ChatSandbox, SandboxLevel};
use crate::protocol::{Invalid, Missing};
use crate::providers::AssistantToolCall;
use std::sync::Arc;

impl Gate<'_> {
    /// The paths no sandboxed command and no file tool reads (F-46), as the Tools popover
    /// lists them: the user's secret paths (each also where a symlink really leads) and
    /// Tollgate's data folder; `~` for the home folder.
    pub fn hidden_paths(&self) -> Vec<String> {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        self.app
            .hidden
            .iter()
            .map(
                |p| match home.as_deref().and_then(|h| p.strip_prefix(h).ok()) {
                    Some(rest) => format!("~/{}", rest.display()),
                    None => p.display().to_string(),
                },
            )
            .collect()
    }

    /// The chat's sandbox level and network switch (F-46).
    pub async fn chat_sandbox(&self, chat: ChatId) -> Result<ChatSandbox, ServiceError> {
        Ok(self.app.executor(chat).await?.sandbox())
    }

    /// Sets the chat's sandbox. Turning it off is a decision the user confirms: without
    /// `confirmed_off` a change to "Off" is refused, so no slip of the window can do it alone.
    pub async fn set_chat_sandbox(
        &self,
        chat: ChatId,
        sandbox: ChatSandbox,
        confirmed_off: bool,
    ) -> Result<(), ServiceError> {
        if let Some(why) = sandbox
            .env
            .keys()
            .find_map(|name| crate::tools::sandbox::environment::refused_for_chat(name))
        {
            return Err(super::refused(why));
        }
        let exec = self.app.executor(chat).await?;
        let was = exec.sandbox();
        if sandbox.level == SandboxLevel::Off && was.level != SandboxLevel::Off && !confirmed_off {
            return Err(ServiceError::Invalid(Invalid::SandboxOffUnconfirmed));
        }
        if was != sandbox {
            tracing::info!(
                "chat {chat}: sandbox {:?} (network {}) → {:?} (network {})",
                was.level,
                if was.network { "on" } else { "off" },
                sandbox.level,
                if sandbox.network { "on" } else { "off" }
            );
        }
        Ok(exec.set_sandbox(sandbox).await?)
    }
}

impl Tollgate {
    // On the app itself: a rerun is a turn.
    /// Runs call `c<seq>` again with the sandbox off, because the user asked (`text` is their
    /// message saying so): only a call this machine recorded as blocked by the sandbox, with
    /// exactly the arguments that ran — never expanded again — in the workspace it ran in, and
    /// the click is the decision. Then the model answers.
    pub async fn rerun_unsandboxed(
        self: &Arc<Self>,
        chat: ChatId,
        seq: u64,
        text: String,
        on_event: Box<dyn Fn(ChatEvent) + Send + Sync>,
    ) -> Result<(), ServiceError> {
        self.not_running(chat)?;
        let calls = self.store.calls().chat_calls(chat).await?;
        let call = calls
            .iter()
            .find(|c| c.seq == seq)
            .ok_or(ServiceError::NotFound(Missing::Call { chat, seq }))?;
        let blocked = call
            .sandbox
            .as_ref()
            .is_some_and(|r| r.confined() && !r.blocked.is_empty());
        let workspace = call
            .sandbox
            .as_ref()
            .and_then(|r| r.workspace.as_ref())
            .map(std::path::PathBuf::from);
        let (Some(tool), Some(args), true) = (&call.tool, &call.resolved_args, blocked) else {
            return Err(ServiceError::Invalid(Invalid::NotBlocked { seq }));
        };
        let exec = self.executor(chat).await?;
        let id = format!("rerun_c{seq}_{}", exec.last_seq() + 1);
        let input = TurnInput::Rerun {
            message: UserInput {
                text,
                attachments: Vec::new(),
                sources: Vec::new(),
            },
            call: AssistantToolCall {
                id,
                name: tool.clone(),
                arguments: args.clone(),
            },
            of: crate::executor::Rerun {
                of_seq: seq,
                workspace,
            },
        };
        tracing::info!("chat {chat}: c{seq} runs again without the sandbox, as the user asked");
        self.send(chat, input, on_event).await
    }
}
