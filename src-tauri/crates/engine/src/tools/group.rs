//! Tool groups: the unit the user enables, and the rules they bring into the system prompt.

use super::Tool;
use std::fmt;
use std::sync::Arc;

/// Builds a rule prompt from the names of a group's enabled tools.
pub type RulePromptFn = Arc<dyn Fn(&[&str]) -> String + Send + Sync>;

/// A group's rule prompt: fixed text, or text built from the names of its enabled tools.
#[derive(Clone)]
pub enum RulePrompt {
    Text(String),
    Dynamic(RulePromptFn),
}

impl RulePrompt {
    /// The prompt for the given enabled tools.
    pub fn render(&self, enabled_tools: &[&str]) -> String {
        match self {
            Self::Text(t) => t.clone(),
            Self::Dynamic(f) => f(enabled_tools),
        }
    }
}

impl fmt::Debug for RulePrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(t) => f.debug_tuple("Text").field(t).finish(),
            Self::Dynamic(_) => f.write_str("Dynamic(..)"),
        }
    }
}

/// A skill rule: guidance the model loads when it needs it (SPEC §1).
#[derive(Debug, Clone)]
pub struct SkillRule {
    pub name: String,
    /// One line shown in the system prompt's rule table.
    pub desc: String,
    /// The full rule, stored as the variable `Rule/<group>/<name>`.
    pub prompt: String,
    /// When the model should read it.
    pub when: Option<String>,
    /// Inline the rule in the system prompt instead of listing it.
    pub always_load: bool,
}

/// A named set of tools the user enables or disables together.
#[derive(Clone)]
pub struct ToolGroup {
    pub name: String,
    pub title: String,
    pub description: String,
    pub tools: Vec<Arc<dyn Tool>>,
    pub enabled_by_default: bool,
    pub rule_prompt: Option<RulePrompt>,
    pub skill_rules: Vec<SkillRule>,
    /// Offered only in chats that have a workspace folder (file and shell tools).
    pub needs_workspace: bool,
}

impl ToolGroup {
    pub fn new(
        name: impl Into<String>,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            title: title.into(),
            description: description.into(),
            tools: Vec::new(),
            enabled_by_default: false,
            rule_prompt: None,
            skill_rules: Vec::new(),
            needs_workspace: false,
        }
    }

    pub fn needs_workspace(mut self) -> Self {
        self.needs_workspace = true;
        self
    }

    pub fn tool(mut self, tool: impl super::Tool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    pub fn enabled_by_default(mut self, enabled: bool) -> Self {
        self.enabled_by_default = enabled;
        self
    }

    pub fn rule_prompt(mut self, prompt: RulePrompt) -> Self {
        self.rule_prompt = Some(prompt);
        self
    }

    pub fn skill_rule(mut self, rule: SkillRule) -> Self {
        self.skill_rules.push(rule);
        self
    }

    /// The variable name of one of this group's skill rules.
    pub fn rule_var_name(&self, rule: &SkillRule) -> String {
        format!("{}{}/{}", crate::vars::RULE_PREFIX, self.name, rule.name)
    }
}

impl fmt::Debug for ToolGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolGroup")
            .field("name", &self.name)
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|t| t.spec().name.clone())
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}
