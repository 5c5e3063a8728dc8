//! Where a call's result came from (F-80, issue 45): the labels the provenance gate reads.

use super::ToolExecutor;
use crate::protocol::{SandboxGap, SandboxReport, Source};
use crate::tools::{ContentKind, RegisteredTool};
use serde_json::Value;

impl ToolExecutor {
    /// Where a call's result came from (F-80), by what its tool's results hold: the page at its
    /// URL, the file or pattern in the workspace, the command's folder, the MCP server's tool,
    /// the variable it read. Tollgate's own results have none.
    pub(super) fn result_sources(&self, entry: &RegisteredTool, args: &Value) -> Vec<Source> {
        let spec = entry.tool.spec();
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        let folder = || {
            self.workspace()
                .map(|w| w.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        match &spec.content {
            ContentKind::Own => Vec::new(),
            ContentKind::Workspace => vec![Source::File {
                folder: folder(),
                path: text("path")
                    .or_else(|| text("pattern"))
                    .unwrap_or_else(|| ".".into()),
            }],
            ContentKind::Command => vec![Source::Command { folder: folder() }],
            ContentKind::Web => {
                let url = text("url").unwrap_or_default();
                let host = reqwest::Url::parse(&url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
                    .unwrap_or_default();
                vec![Source::Web { url, host }]
            }
            ContentKind::Mcp { server } => vec![Source::McpTool {
                server: server.clone(),
                tool: spec.name.clone(),
            }],
            ContentKind::Variables => text("name")
                .and_then(|name| self.vars.sources(&name))
                .map(|s| s.to_vec())
                .unwrap_or_default(),
        }
    }
}

/// The network a command's output may carry (issue 45): when the run could reach the network
/// — its sandbox let it, or there was no sandbox to stop it — whatever it fetched is in what
/// it printed, and that text has no author the user knows. `command`: the run's own source.
pub(super) fn network_source(
    report: Option<&SandboxReport>,
    command: Option<&Source>,
) -> Option<Source> {
    let folder = match command {
        Some(Source::Command { folder }) => folder.clone(),
        _ => String::new(),
    };
    let any = || Source::Network {
        folder: folder.clone(),
        hosts: Vec::new(),
    };
    let Some(report) = report else {
        return Some(any());
    };
    let cut = report.confined() && !report.gaps.contains(&SandboxGap::Network);
    match (report.network, cut, report.hosts.is_empty()) {
        (true, _, _) | (false, false, _) => Some(any()),
        (false, true, false) => Some(Source::Network {
            folder,
            hosts: report.hosts.clone(),
        }),
        (false, true, true) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ChatSandbox, SandboxLevel, SandboxSupport};

    fn report(network: bool, hosts: &[&str], level: SandboxLevel, ns: bool) -> SandboxReport {
        let chat = ChatSandbox {
            level,
            network,
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            ..ChatSandbox::default()
        };
        let missing = (!ns).then(|| "no user namespaces".to_string());
        SandboxReport::planned(&chat, &SandboxSupport::new(true, 6, missing))
    }

    #[test]
    fn a_command_that_could_reach_the_network_carries_it_and_one_cut_off_does_not() {
        let command = Source::Command {
            folder: "/w".into(),
        };
        let any = Some(Source::Network {
            folder: "/w".into(),
            hosts: Vec::new(),
        });
        let ws = SandboxLevel::WorkspaceOnly;
        let run = |r: SandboxReport| network_source(Some(&r), Some(&command));
        assert_eq!(
            run(report(false, &[], ws, true)),
            None,
            "network off, enforced"
        );
        assert_eq!(run(report(true, &[], ws, true)), any, "network on");
        assert_eq!(
            run(report(false, &["registry.npmjs.org"], ws, true)),
            Some(Source::Network {
                folder: "/w".into(),
                hosts: vec!["registry.npmjs.org".into()],
            }),
            "only these hosts"
        );
        assert_eq!(
            run(report(false, &[], SandboxLevel::Off, true)),
            any,
            "no sandbox: nothing cut the network"
        );
        assert_eq!(network_source(None, Some(&command)), any, "no report");
    }
}
