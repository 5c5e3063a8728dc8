//! Which tools exist: every built-in group, in one list.
//!
//! Tool names are `snake_case` (`read_file`, `run_command`, `fetch_url`). The variable tools keep
//! the names the design notes gave them (`ReadVar`, `WriteVar`, …, see [`SEED_NAMES`]): stored
//! chats and the system prompts of running conversations name them, so renaming them would break
//! those chats. The service builds each chat's registry
//! from this list and then adds one group per ready MCP server through the same
//! [`Registry::register_group`] call, so a new built-in tool is added here and nowhere else.

use super::questions::{self, QuestionHub};
use super::{basic, files, shell, vars_tools, web, Registry, RegistryError, ToolGroup};
use std::sync::Arc;

/// The built-in tools whose names predate the `snake_case` rule and stay as they are.
pub const SEED_NAMES: &[&str] = &["ListVars", "ReadVar", "WriteVar", "RemoveVars"];

/// The built-in groups, in the order the settings list them: the variable tools, the basic
/// tools, `ask_user`, files, shell and web. `questions` routes `ask_user`'s questions to the UI.
pub fn groups(questions: &Arc<QuestionHub>) -> Vec<ToolGroup> {
    vec![
        vars_tools::group(),
        basic::group(),
        questions::group(Arc::clone(questions)),
        files::group(),
        shell::group(),
        web::group(),
    ]
}

impl Registry {
    /// A registry with every built-in group (see [`groups`]).
    pub fn with_builtins(questions: &Arc<QuestionHub>) -> Result<Self, RegistryError> {
        Self::with_groups(groups(questions))
    }

    /// A registry with exactly these groups (tests and benches pick the groups they need).
    pub fn with_groups(groups: impl IntoIterator<Item = ToolGroup>) -> Result<Self, RegistryError> {
        let mut registry = Self::new();
        for group in groups {
            registry.register_group(group)?;
        }
        Ok(registry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_group_registers_and_names_are_unique() {
        let hub = Arc::new(QuestionHub::default());
        let registry = Registry::with_builtins(&hub).unwrap();
        let names: Vec<String> = groups(&hub).into_iter().map(|g| g.name).collect();
        assert_eq!(names, ["vars", "basic", "chat", "files", "shell", "web"]);
        for name in &names {
            assert!(registry.group(name).is_some(), "{name} is registered");
        }
    }

    #[test]
    fn new_tools_are_named_in_snake_case() {
        let hub = Arc::new(QuestionHub::default());
        for group in groups(&hub) {
            for tool in &group.tools {
                let name = &tool.spec().name;
                let snake = name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                assert!(
                    snake || SEED_NAMES.contains(&name.as_str()),
                    "{name} in {} is not snake_case",
                    group.name
                );
            }
        }
    }
}
