//! The tool section of the system prompt (F-20): general rules, then each enabled group's
//! guidance and guides (always-load guides inline, the others in a table to read on demand).

use crate::tool_executor::ToolExecutor;
use tollgate_provenance::Ledger;
use tollgate_tools::vars_tools::VARS_GROUP;
use tollgate_tools::ToolGroup;

const GENERAL_RULES: &str = "# Tools

You can call tools. Every call passes the user's gate: some run at once, others wait for the user's approval, and the user may deny a call or withhold its result. Never claim that a tool ran or invent its output; when a call is denied, adapt or ask the user.

## Results and variables
Each tool result is kept in full as a variable named `<tool>_c<N>_result` (its arguments as `<tool>_c<N>_args`). Long results are shortened for you with a notice saying how much was left out; read more with `ReadVar(name, start, length)` and list variables with `ListVars`. To pass stored text to a tool without copying it, write `$VAR_REF{{name}}` (or `$VAR_REF{{name:start:length}}` for a slice of characters) inside any string argument; it is replaced before the tool runs. Every tool accepts an optional `limit` argument: the most characters of its result to show you (0 or -1 shows everything).";

impl ToolExecutor {
    /// The system-prompt section for the enabled groups, piece by piece with who wrote each
    /// (the request ledger): Tollgate's rules, then each group's title, description, guidance
    /// and guides, written by the group's [`ToolGroup::said_by`] when the user has not confirmed
    /// them. Empty when no group is enabled.
    ///
    /// [`ToolGroup::said_by`]: tollgate_tools::ToolGroup
    pub fn system_prompt_ledger(&self) -> Ledger {
        let registry = self.registry();
        let enabled = self.toolbox().enabled_tool_names();
        let groups: Vec<_> = registry
            .groups()
            .iter()
            .filter(|g| g.name != VARS_GROUP && self.toolbox().group_enabled_in(&registry, &g.name))
            .collect();
        prompt_ledger(&groups, &enabled)
    }

    /// [`Self::system_prompt_ledger`] as the text sent.
    pub fn system_prompt_section(&self) -> String {
        self.system_prompt_ledger().text()
    }
}

/// The tool section of the system prompt for the enabled `groups` offering the tools
/// `enabled`, each piece with who wrote it.
pub(crate) fn prompt_ledger(groups: &[&ToolGroup], enabled: &[String]) -> Ledger {
    let mut out = Ledger::new();
    if groups.is_empty() {
        return out;
    }
    out.push(None, GENERAL_RULES);
    for group in groups {
        let by = group.said_by.as_ref();
        let tools: Vec<&str> = group
            .tools
            .iter()
            .map(|t| t.spec().name.as_str())
            .filter(|n| enabled.iter().any(|e| e == n))
            .collect();
        out.push(None, "\n\n## ");
        out.push(by, group.title.as_str());
        out.push(None, format!(" (`{}`)\n", group.name));
        if !group.description.is_empty() {
            out.push(by, group.description.as_str());
            out.push(None, "\n");
        }
        if let Some(prompt) = &group.guidance {
            let text = prompt.render(&tools);
            if !text.trim().is_empty() {
                out.push(None, "\n");
                out.push(by, text.trim());
                out.push(None, "\n");
            }
        }
        for guide in group.guides.iter().filter(|g| g.always_load) {
            out.push(None, "\n### Guide: ");
            out.push(by, guide.name.as_str());
            out.push(None, "\n");
            out.push(by, guide.prompt.trim());
            out.push(None, "\n");
        }
        let on_demand: Vec<_> = group.guides.iter().filter(|g| !g.always_load).collect();
        if !on_demand.is_empty() {
            out.push(None, "\nGuides to read when they apply:\n\n| Guide | When | What | Read with |\n|---|---|---|---|\n");
            for guide in on_demand {
                out.push(None, "| ");
                out.push(by, guide.name.as_str());
                out.push(None, " | ");
                out.push(by, guide.when.as_deref().unwrap_or("when relevant"));
                out.push(None, " | ");
                out.push(by, guide.desc.as_str());
                out.push(None, " | `ReadVar(name=\"");
                out.push(by, group.guide_var_name(guide));
                out.push(None, "\")` |\n");
            }
        }
    }
    out
}
