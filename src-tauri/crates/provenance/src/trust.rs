//! Whether a source is trusted and whether it holds private data, decided from the user's
//! settings and the chat's endorsements at the moment of asking (F-82).

use std::path::Path;
use tollgate_names::HostPattern;
use tollgate_protocol::{GuardSettings, Source, ToolSettings, TrustKey};

/// What decides trust in one chat: the app's settings and the sources the user endorsed for the
/// chat.
pub struct Trust<'a> {
    pub settings: &'a ToolSettings,
    pub endorsed: &'a [TrustKey],
}

/// Whether `host` is covered by the `listed` one, read as every list of hosts is
/// ([`HostPattern`]): `docs.rs` is that host, `*.docs.rs` it and every name under it.
fn host_covers(listed: &str, host: &str) -> bool {
    HostPattern::parse(listed).covers(host)
}

/// Whether `folder` is `listed` or inside it (compared as paths, not as strings: `/a/bc` is not
/// inside `/a/b`).
fn folder_covers(listed: &str, folder: &str) -> bool {
    let listed = listed.trim();
    !listed.is_empty() && Path::new(folder).starts_with(Path::new(listed))
}

/// Whether `key` covers `source`: the same host, a parent folder, the server, the tool.
fn covers(key: &TrustKey, source: &Source) -> bool {
    match (key, source) {
        (TrustKey::Host { host: listed }, Source::Web { host, .. }) => host_covers(listed, host),
        (
            TrustKey::Folder { folder: listed },
            Source::File { folder, .. } | Source::Command { folder },
        ) => folder_covers(listed, folder),
        (
            TrustKey::Server { server: listed },
            Source::McpTool { server, .. }
            | Source::McpResource { server, .. }
            | Source::McpPrompt { server, .. }
            | Source::McpServer { server }
            | Source::McpView { server },
        ) => listed == server,
        (TrustKey::Tool { tool: listed }, Source::McpTool { tool, .. }) => listed == tool,
        (TrustKey::Host { host: listed }, Source::Network { hosts, .. }) => {
            !hosts.is_empty() && hosts.iter().all(|h| host_covers(listed, h))
        }
        (TrustKey::Network {}, Source::Network { .. }) => true,
        (TrustKey::Attachment { name: listed }, Source::Attachment { name }) => listed == name,
        (TrustKey::Import { title: listed }, Source::Import { title }) => listed == title,
        _ => false,
    }
}

impl Trust<'_> {
    fn guard(&self) -> &GuardSettings {
        &self.settings.guard
    }

    /// Whether the gate is on.
    pub fn enabled(&self) -> bool {
        self.guard().enabled
    }

    /// Whether the user trusts `source` everywhere (settings).
    fn trusted_everywhere(&self, source: &Source) -> bool {
        self.guard().trusted.iter().any(|k| covers(k, source))
    }

    /// Whether the user endorsed `source` for this chat.
    pub fn endorsed(&self, source: &Source) -> bool {
        self.endorsed.iter().any(|k| covers(k, source))
    }

    /// Whether content from `source` can tell the model what to do without the user knowing:
    /// the web, MCP servers, attachments and imports unless trusted; a workspace's files and
    /// commands only when its folder is marked untrusted (and not trusted more specifically).
    pub fn untrusted(&self, source: &Source) -> bool {
        if self.endorsed(source) || self.trusted_everywhere(source) {
            return false;
        }
        match source {
            Source::File { folder, .. } | Source::Command { folder } => self
                .guard()
                .untrusted_folders
                .iter()
                .any(|f| folder_covers(f, folder)),
            Source::Web { .. }
            | Source::Network { .. }
            | Source::McpTool { .. }
            | Source::McpResource { .. }
            | Source::McpPrompt { .. }
            | Source::McpServer { .. }
            | Source::McpView { .. }
            | Source::Attachment { .. }
            | Source::Import { .. } => true,
        }
    }

    /// Whether content from `source` is the user's private data: files and what commands print,
    /// and the results of MCP tools — a mailbox, a chat workspace, a bank — unless the user
    /// marked the tool as reading nothing private (SPEC §12: private until said otherwise).
    pub fn private(&self, source: &Source) -> bool {
        match source {
            Source::File { .. } | Source::Command { .. } | Source::Network { .. } => true,
            Source::McpTool { tool, .. } => {
                self.settings.effects(tool).is_none_or(|e| e.reads_private)
            }
            Source::Web { .. }
            | Source::McpResource { .. }
            | Source::McpPrompt { .. }
            | Source::McpServer { .. }
            | Source::McpView { .. }
            | Source::Attachment { .. }
            | Source::Import { .. } => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tollgate_protocol::ToolEffects;

    fn web(host: &str) -> Source {
        Source::Web {
            url: format!("https://{host}/x"),
            host: host.into(),
        }
    }

    #[test]
    fn the_web_mcp_attachments_and_imports_are_untrusted_until_trusted() {
        let mut settings = ToolSettings::default();
        let none = Trust {
            settings: &settings,
            endorsed: &[],
        };
        assert!(none.untrusted(&web("docs.rs")));
        assert!(none.untrusted(&Source::McpTool {
            server: "mail".into(),
            tool: "mail__send".into()
        }));
        assert!(none.untrusted(&Source::Attachment {
            name: "a.txt".into()
        }));
        assert!(none.untrusted(&Source::Import { title: "t".into() }));
        assert!(!none.untrusted(&Source::File {
            folder: "/home/u/p".into(),
            path: "README.md".into()
        }));

        settings.guard.trusted.push(TrustKey::Host {
            host: "docs.rs".into(),
        });
        settings.guard.trusted.push(TrustKey::Host {
            host: "*.crates.io".into(),
        });
        settings
            .guard
            .untrusted_folders
            .push("/home/u/Downloads".into());
        let endorsed = [TrustKey::Server {
            server: "mail".into(),
        }];
        let trust = Trust {
            settings: &settings,
            endorsed: &endorsed,
        };
        assert!(!trust.untrusted(&web("docs.rs")));
        assert!(
            trust.untrusted(&web("www.docs.rs")),
            "a listed name covers that name only"
        );
        assert!(trust.untrusted(&web("evildocs.rs")));
        assert!(trust.untrusted(&web("docs.rs.evil.example")));
        assert!(!trust.untrusted(&web("crates.io")) && !trust.untrusted(&web("static.crates.io")));
        assert!(trust.untrusted(&web("evilcrates.io")));
        assert!(!trust.untrusted(&Source::McpTool {
            server: "mail".into(),
            tool: "mail__send".into()
        }));
        assert!(trust.untrusted(&Source::File {
            folder: "/home/u/Downloads/repo".into(),
            path: "README.md".into()
        }));
        assert!(!trust.untrusted(&Source::File {
            folder: "/home/u/Downloads-old".into(),
            path: "README.md".into()
        }));
    }

    #[test]
    fn private_means_files_commands_and_mcp_results_unless_marked_public() {
        let mut settings = ToolSettings::default();
        settings.tool_mut("mail__inbox").effects = Some(ToolEffects {
            reads_private: true,
            ..ToolEffects::NONE
        });
        settings.tool_mut("mail__send").effects = Some(ToolEffects {
            sends_out: true,
            ..ToolEffects::NONE
        });
        let trust = Trust {
            settings: &settings,
            endorsed: &[],
        };
        assert!(trust.private(&Source::Command {
            folder: "/p".into()
        }));
        assert!(trust.private(&Source::McpTool {
            server: "mail".into(),
            tool: "mail__inbox".into()
        }));
        assert!(
            !trust.private(&Source::McpTool {
                server: "mail".into(),
                tool: "mail__send".into()
            }),
            "marked as reading nothing private"
        );
        assert!(
            trust.private(&Source::McpTool {
                server: "bank".into(),
                tool: "bank__statement".into()
            }),
            "not marked: private"
        );
        assert!(!trust.private(&web("example.com")));
        let fetched = Source::Network {
            folder: "/p".into(),
            hosts: vec!["registry.npmjs.org".into()],
        };
        assert!(trust.private(&fetched) && trust.untrusted(&fetched));
        let endorsed = [TrustKey::Host {
            host: "npmjs.org".into(),
        }];
        let trust = Trust {
            settings: &settings,
            endorsed: &endorsed,
        };
        assert!(
            trust.untrusted(&fetched),
            "npmjs.org is not registry.npmjs.org"
        );
        let endorsed = [TrustKey::Host {
            host: "*.npmjs.org".into(),
        }];
        let trust = Trust {
            settings: &settings,
            endorsed: &endorsed,
        };
        assert!(!trust.untrusted(&fetched));
        assert!(trust.untrusted(&Source::Network {
            folder: "/p".into(),
            hosts: Vec::new()
        }));
    }
}
