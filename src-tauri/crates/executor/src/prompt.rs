//! The tool section of the system prompt (F-20): general rules, then each enabled group's
//! guidance and guides (always-load guides inline, the others in a table to read on demand).

use super::ToolExecutor;
use crate::tools::vars_tools::VARS_GROUP;

const GENERAL_RULES: &str = "# Tools

You can call tools. Every call passes the user's gate: some run at once, others wait for the user's approval, and the user may deny a call or withhold its result. Never claim that a tool ran or invent its output; when a call is denied, adapt or ask the user.

## Results and variables
Each tool result is kept in full as a variable named `<tool>_c<N>_result` (its arguments as `<tool>_c<N>_args`). Long results are shortened for you with a notice saying how much was left out; read more with `ReadVar(name, start, length)` and list variables with `ListVars`. To pass stored text to a tool without copying it, write `$VAR_REF{{name}}` (or `$VAR_REF{{name:start:length}}` for a slice of characters) inside any string argument; it is replaced before the tool runs. Every tool accepts an optional `limit` argument: the most characters of its result to show you (0 or -1 shows everything).";

impl ToolExecutor {
    /// The system-prompt section for the enabled groups; empty when no group is enabled.
    pub fn system_prompt_section(&self) -> String {
        let registry = self.registry();
        let enabled = self.enabled_tool_names();
        let groups: Vec<_> = registry
            .groups()
            .iter()
            .filter(|g| g.name != VARS_GROUP && self.group_enabled_in(&registry, &g.name))
            .collect();
        if groups.is_empty() {
            return String::new();
        }
        let mut out = String::from(GENERAL_RULES);
        for group in groups {
            let tools: Vec<&str> = group
                .tools
                .iter()
                .map(|t| t.spec().name.as_str())
                .filter(|n| enabled.iter().any(|e| e == n))
                .collect();
            out.push_str(&format!("\n\n## {} (`{}`)\n", group.title, group.name));
            if !group.description.is_empty() {
                out.push_str(&group.description);
                out.push('\n');
            }
            if let Some(prompt) = &group.guidance {
                let text = prompt.render(&tools);
                if !text.trim().is_empty() {
                    out.push('\n');
                    out.push_str(text.trim());
                    out.push('\n');
                }
            }
            for guide in group.guides.iter().filter(|g| g.always_load) {
                out.push_str(&format!(
                    "\n### Guide: {}\n{}\n",
                    guide.name,
                    guide.prompt.trim()
                ));
            }
            let on_demand: Vec<_> = group.guides.iter().filter(|g| !g.always_load).collect();
            if !on_demand.is_empty() {
                out.push_str("\nGuides to read when they apply:\n\n| Guide | When | What | Read with |\n|---|---|---|---|\n");
                for guide in on_demand {
                    out.push_str(&format!(
                        "| {} | {} | {} | `ReadVar(name=\"{}\")` |\n",
                        guide.name,
                        guide.when.as_deref().unwrap_or("when relevant"),
                        guide.desc,
                        group.guide_var_name(guide)
                    ));
                }
            }
        }
        out
    }
}
