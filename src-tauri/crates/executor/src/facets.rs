//! The executor's rooms: each a view of one chat's [`ToolExecutor`] that owns one concern's
//! operations, so a stage or a caller names the concern it uses (`exec.policies().effects(..)`,
//! `exec.task().end_task()`) and the executor itself keeps the chat's state and its entry points
//! (docs/ARCHITECTURE.md, "Rooms and their doors").

use crate::tool_executor::ToolExecutor;

/// What the user set for each tool: policies, effects, targets (F-01, F-02, F-81).
pub struct Policies<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

/// The tools the chat offers the model, and its per-chat toggles (F-03, F-04).
pub struct Toolbox<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

/// What the chat was exposed to and what it trusts: endorsements, the ways out (F-82, F-83).
pub struct Guard<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

/// Where a result's content came from, and what files and commands it tainted (SPEC §12).
pub struct Sources<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

/// The task's grant the chat holds, from the approved plan to its end (F-98).
pub struct TaskGrants<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

/// What waits on the user in this chat: approval cards, their answers, ask-once records (F-05).
pub struct Asks<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

/// The calls under way: each stoppable on its own card, and those that go on after their turn as
/// their server's tasks, with their late results (F-99).
pub struct UnderWay<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

/// The stages one call passes, from admission to its stored result (SPEC §3).
pub struct Stages<'a> {
    pub(crate) exec: &'a ToolExecutor,
}

impl ToolExecutor {
    /// The tools' policies as the user set them.
    pub fn policies(&self) -> Policies<'_> {
        Policies { exec: self }
    }

    /// The tools this chat offers.
    pub fn toolbox(&self) -> Toolbox<'_> {
        Toolbox { exec: self }
    }

    /// This chat's exposure and trust.
    pub fn guard(&self) -> Guard<'_> {
        Guard { exec: self }
    }

    /// Where results came from.
    pub fn sources(&self) -> Sources<'_> {
        Sources { exec: self }
    }

    /// This chat's task grant.
    pub fn task(&self) -> TaskGrants<'_> {
        TaskGrants { exec: self }
    }

    /// What waits on the user in this chat.
    pub fn asks(&self) -> Asks<'_> {
        Asks { exec: self }
    }

    /// The stages of a call.
    /// The calls under way, and those going on as their server's tasks.
    pub fn under_way(&self) -> UnderWay<'_> {
        UnderWay { exec: self }
    }

    pub(crate) fn stages(&self) -> Stages<'_> {
        Stages { exec: self }
    }
}
