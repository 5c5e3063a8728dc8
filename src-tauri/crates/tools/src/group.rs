//! Tool groups: the unit the user enables, and the guidance they bring into the system prompt.
//! ("Guidance" and "guides" are prompt text for the model; permission rules are `tollgate_rules`.)

use super::Tool;
use std::fmt;
use std::sync::Arc;

/// Builds a group's guidance from the names of a group's enabled tools.
pub type GuidanceFn = Arc<dyn Fn(&[&str]) -> String + Send + Sync>;

/// A group's guidance: fixed text, or text built from the names of its enabled tools.
#[derive(Clone)]
pub enum Guidance {
    Text(String),
    Dynamic(GuidanceFn),
}

impl Guidance {
    /// The prompt for the given enabled tools.
    pub fn render(&self, enabled_tools: &[&str]) -> String {
        match self {
            Self::Text(t) => t.clone(),
            Self::Dynamic(f) => f(enabled_tools),
        }
    }
}

impl fmt::Debug for Guidance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(t) => f.debug_tuple("Text").field(t).finish(),
            Self::Dynamic(_) => f.write_str("Dynamic(..)"),
        }
    }
}

/// A guide: guidance the model loads when it needs it (SPEC §1).
#[derive(Debug, Clone)]
pub struct Guide {
    pub name: String,
    /// One line shown in the system prompt's table of guides.
    pub desc: String,
    /// The full text, stored as the variable `Guide/<group>/<name>`.
    pub prompt: String,
    /// When the model should read it.
    pub when: Option<String>,
    /// Inline the guide in the system prompt instead of listing it.
    pub always_load: bool,
}

/// A named set of tools the user enables or disables together.
#[derive(Clone)]
pub struct ToolGroup {
    pub name: String,
    pub title: String,
    pub description: String,
    pub tools: Vec<Arc<dyn Tool>>,
    /// Tools only the group's server's views may call (MCP Apps, F-96): registered, never
    /// offered to the model.
    pub view_tools: Vec<Arc<dyn Tool>>,
    pub enabled_by_default: bool,
    pub guidance: Option<Guidance>,
    pub guides: Vec<Guide>,
    /// Offered only in chats that have a workspace folder (file and shell tools).
    pub needs_workspace: bool,
    /// Who wrote the group's texts — its title, description, guidance, guides and its tools'
    /// definitions — when the user has not confirmed them: an MCP server before its
    /// first-sight review is confirmed. Every piece of them the model is sent counts as read
    /// from that source (the request ledger, `tollgate_provenance::ledger`). `None`: Tollgate's
    /// own texts, or texts the user confirmed.
    pub said_by: Option<tollgate_protocol::Source>,
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
            view_tools: Vec::new(),
            enabled_by_default: false,
            guidance: None,
            guides: Vec::new(),
            needs_workspace: false,
            said_by: None,
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

    /// Adds a tool only the server's views may call (F-96).
    pub fn view_tool(mut self, tool: impl super::Tool) -> Self {
        self.view_tools.push(Arc::new(tool));
        self
    }

    pub fn enabled_by_default(mut self, enabled: bool) -> Self {
        self.enabled_by_default = enabled;
        self
    }

    pub fn guidance(mut self, prompt: Guidance) -> Self {
        self.guidance = Some(prompt);
        self
    }

    pub fn guide(mut self, guide: Guide) -> Self {
        self.guides.push(guide);
        self
    }

    /// The variable name of one of this group's guides.
    pub fn guide_var_name(&self, guide: &Guide) -> String {
        format!("{}{}/{}", crate::vars::GUIDE_PREFIX, self.name, guide.name)
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
