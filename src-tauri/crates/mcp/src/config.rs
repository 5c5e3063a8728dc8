//! MCP server settings (F-45): how to reach a server, whether it is on, and the defaults its tools
//! get. Also reads the `mcpServers` JSON other desktop clients use (Claude Desktop, Cursor, Cline,
//! VS Code's `servers`), so a user can paste their existing configuration.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use thiserror::Error;
use tollgate_protocol::policy::{ExecutionPolicy, ResultPolicy};

/// Seconds a tool call may take when the server's settings give none.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;
/// Group names the app's own tools use; a server cannot take them.
pub const RESERVED_NAMES: [&str; 6] = ["vars", "basic", "chat", "files", "shell", "web"];

/// Why a server's settings were refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum McpConfigError {
    #[error("a server name must be 1–32 letters, digits, '-' or '_' (got \"{0}\")")]
    BadName(String),
    #[error("\"{0}\" is the name of a built-in tool group; choose another name for the server (when importing, rename it in the JSON and import again)")]
    Reserved(String),
    #[error("server \"{name}\": {message}")]
    Invalid { name: String, message: String },
    #[error("this is not MCP server JSON: {0}")]
    Json(String),
}

/// How to reach a server.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    #[serde(rename_all = "camelCase")]
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        /// Extra environment variables. Values are secrets: they live in the keychain.
        #[serde(default)]
        env: BTreeMap<String, String>,
        #[serde(default)]
        cwd: Option<String>,
    },
    /// A streamable-HTTP endpoint.
    #[serde(rename_all = "camelCase")]
    Http {
        url: String,
        /// Extra request headers (e.g. `Authorization`). Values are secrets: they live in the
        /// keychain.
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

impl McpTransport {
    /// The secret values (environment or headers).
    pub fn secrets(&self) -> &BTreeMap<String, String> {
        match self {
            Self::Stdio { env, .. } => env,
            Self::Http { headers, .. } => headers,
        }
    }

    /// The secret values, to fill in or blank out.
    pub fn secrets_mut(&mut self) -> &mut BTreeMap<String, String> {
        match self {
            Self::Stdio { env, .. } => env,
            Self::Http { headers, .. } => headers,
        }
    }

    /// One line for the settings list: the command line or the URL.
    pub fn summary(&self) -> String {
        match self {
            Self::Stdio { command, args, .. } => {
                let mut s = command.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            Self::Http { url, .. } => url.clone(),
        }
    }
}

/// One server's settings.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerConfig {
    /// Also the name of its tool group.
    pub name: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    pub transport: McpTransport,
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// The execution policy of every tool of this server; `None` derives it from the tool's
    /// hints (read-only tools ask once, others ask every time).
    #[serde(default)]
    pub execution_policy: Option<ExecutionPolicy>,
    #[serde(default)]
    pub result_policy: Option<ResultPolicy>,
    /// Run this local server under the sandbox (F-46); `None`: without it. Imported servers
    /// start without it: the user knows best which folders a server they already use needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sandbox: Option<McpSandbox>,
    /// For a remote server whose authorization server does not let Tollgate register itself:
    /// the id of a client the user registered there (SPEC §11). Not a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub oauth_client_id: Option<String>,
    /// The secret of that client, where the authorization server gave one (sent with HTTP Basic
    /// or in the token request, as the server's metadata says; F-96). A secret: it lives
    /// in the keychain, and the settings and the window see `""` for "one is stored".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub oauth_client_secret: Option<String>,
    /// The https address of a Client ID Metadata Document that describes Tollgate (SEP-991),
    /// published by whoever runs Tollgate for its users: where the authorization server says
    /// it reads such documents, the address is Tollgate's client id there, and Tollgate does
    /// not register itself. Not a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub oauth_client_metadata_url: Option<String>,
    /// Show the views this server ships with its tools (MCP Apps, F-96). Off: no view is
    /// rendered and no view of it may call a tool.
    #[serde(default = "yes")]
    pub views: bool,
    /// Let this server see the folder of the chat that calls it (MCP roots, F-99): its
    /// `roots/list`, or a round's request for roots, is answered with that chat's workspace
    /// folder. Off (the default): it is told of no folder, and Tollgate does not say it has
    /// roots.
    #[serde(default)]
    pub share_workspace: bool,
    /// Let this server ask the chat's model to answer its own text (MCP sampling, F-99). Each
    /// request is still put to the user on the card of the call it belongs to, and the model is
    /// sent the server's text alone, nothing of the chat. Off (the default): every request is
    /// declined with why, and Tollgate does not say it takes them.
    #[serde(default)]
    pub share_model: bool,
}

/// A local server in the sandbox (F-46): it reads the system but never the user's secret
/// folders, writes only in `folders` and a private temp folder, and opens network connections
/// only when `network` is on.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct McpSandbox {
    pub network: bool,
    /// Absolute paths of the folders the server may write in.
    pub folders: Vec<String>,
    /// With the network off, the hosts the server may still reach through Tollgate's proxy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub hosts: Vec<String>,
}

fn yes() -> bool {
    true
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

impl McpServerConfig {
    /// A stdio server with defaults.
    pub fn stdio(name: impl Into<String>, command: impl Into<String>, args: &[&str]) -> Self {
        Self {
            name: name.into(),
            enabled: true,
            transport: McpTransport::Stdio {
                command: command.into(),
                args: args.iter().map(|a| (*a).to_string()).collect(),
                env: BTreeMap::new(),
                cwd: None,
            },
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            execution_policy: None,
            result_policy: None,
            sandbox: None,
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth_client_metadata_url: None,
            views: true,
            share_workspace: false,
            share_model: false,
        }
    }

    /// This server with `key=value` in its environment (a stdio server; an HTTP one has none).
    pub fn with_env(mut self, key: &str, value: impl Into<String>) -> Self {
        if let McpTransport::Stdio { env, .. } = &mut self.transport {
            env.insert(key.to_string(), value.into());
        }
        self
    }

    /// A streamable-HTTP server with defaults.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            enabled: true,
            transport: McpTransport::Http {
                url: url.into(),
                headers: BTreeMap::new(),
            },
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            execution_policy: None,
            result_policy: None,
            sandbox: None,
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth_client_metadata_url: None,
            views: true,
            share_workspace: false,
            share_model: false,
        }
    }

    /// Checks the name, the command or URL, and the timeout.
    pub fn validate(&self) -> Result<(), McpConfigError> {
        validate_name(&self.name)?;
        let invalid = |message: &str| McpConfigError::Invalid {
            name: self.name.clone(),
            message: message.to_string(),
        };
        match &self.transport {
            McpTransport::Stdio { command, env, .. } => {
                if command.trim().is_empty() {
                    return Err(invalid("the command is empty"));
                }
                if env
                    .keys()
                    .any(|k| k.is_empty() || k.contains('=') || k.contains('\0'))
                {
                    return Err(invalid(
                        "an environment variable name is empty or holds '='",
                    ));
                }
            }
            McpTransport::Http { url, headers } => {
                let parsed = tollgate_names::web_url(url).map_err(|e| invalid(&e.to_string()))?;
                // A credential in a header goes over plain http only to this machine: anywhere
                // else anyone on the way reads it — the one rule for providers and MCP servers
                // (`tollgate_names::check_credential`).
                let credential = headers.keys().any(|k| {
                    let k = k.to_ascii_lowercase();
                    k == "authorization"
                        || k == "proxy-authorization"
                        || k.contains("api-key")
                        || k.contains("token")
                });
                if credential {
                    tollgate_names::check_credential(&parsed)
                        .map_err(|e| invalid(&e.to_string()))?;
                }
                if headers
                    .keys()
                    .any(|k| reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err())
                {
                    return Err(invalid("a header name is not valid"));
                }
            }
        }
        if self.timeout_secs == 0 || self.timeout_secs > 3_600 {
            return Err(invalid("the timeout must be 1–3600 seconds"));
        }
        // A client id that is an address: https with a path, as SEP-991 requires (the
        // authorization server fetches it).
        if let Some(address) = &self.oauth_client_metadata_url {
            let parsed = reqwest::Url::parse(address.trim()).ok();
            if !parsed
                .is_some_and(|u| u.scheme() == "https" && u.path() != "/" && u.host().is_some())
            {
                return Err(invalid(
                    "the client metadata document's address must be an https:// address with a path",
                ));
            }
        }
        if let Some(sandbox) = &self.sandbox {
            if matches!(self.transport, McpTransport::Http { .. }) {
                return Err(invalid(
                    "only a local server (a command) can run in the sandbox",
                ));
            }
            if let Some(f) = sandbox
                .folders
                .iter()
                .find(|f| !std::path::Path::new(f.trim()).is_absolute())
            {
                return Err(invalid(&format!(
                    "the sandbox folder \"{f}\" must be a full path (starting with /)"
                )));
            }
            // The one rule for folders something may write (a chat's workspace alike).
            if let Some(why) = sandbox.folders.iter().find_map(|f| {
                tollgate_sandbox::fit::unfit_workspace(std::path::Path::new(f.trim()))
            }) {
                return Err(invalid(&format!(
                    "a sandbox folder cannot be written: {why}"
                )));
            }
        }
        Ok(())
    }
}

/// Checks a server name: it becomes a tool-group name and a prefix of tool names.
pub fn validate_name(name: &str) -> Result<(), McpConfigError> {
    if name.is_empty()
        || name.len() > 32
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(McpConfigError::BadName(name.to_string()));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(McpConfigError::Reserved(name.to_string()));
    }
    Ok(())
}

/// Turns any label into a valid server name ("My Server!" → "My-Server"). A built-in group's
/// name stays as it is, for [`validate_name`] to refuse: the user is told and chooses another,
/// never renamed behind their back (SPEC §12).
pub fn sanitize_name(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out: String = out.trim_matches('-').chars().take(32).collect();
    if out.is_empty() {
        out = "server".into();
    }
    out
}

/// Reads `{"mcpServers": {...}}` (or VS Code's `{"servers": {...}}`, or the inner object alone).
/// Servers are returned sorted by name; legacy SSE-only servers are refused with a clear error.
pub fn import_json(text: &str) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let root: Value =
        serde_json::from_str(text).map_err(|e| McpConfigError::Json(e.to_string()))?;
    let servers = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .or_else(|| root.get("mcp").and_then(|m| m.get("servers")))
        .unwrap_or(&root);
    let Value::Object(map) = servers else {
        return Err(McpConfigError::Json(
            "expected an object of servers, e.g. {\"mcpServers\": {\"name\": {\"command\": \"…\"}}}"
                .into(),
        ));
    };
    if map.is_empty() {
        return Err(McpConfigError::Json("it lists no servers".into()));
    }
    let mut out: Vec<McpServerConfig> = Vec::new();
    for (raw_name, entry) in map {
        let name = sanitize_name(raw_name);
        if RESERVED_NAMES.contains(&name.as_str()) {
            return Err(McpConfigError::Reserved(name));
        }
        if out.iter().any(|s| s.name == name) {
            return Err(McpConfigError::Invalid {
                name,
                message: "two servers have this name".into(),
            });
        }
        let server = one_server(&name, entry)?;
        server.validate()?;
        out.push(server);
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn string_map(v: Option<&Value>) -> BTreeMap<String, String> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let value = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), value)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn one_server(name: &str, entry: &Value) -> Result<McpServerConfig, McpConfigError> {
    let invalid = |message: &str| McpConfigError::Invalid {
        name: name.to_string(),
        message: message.to_string(),
    };
    if !entry.is_object() {
        return Err(invalid("each server must be an object"));
    }
    let kind = entry
        .get("type")
        .or_else(|| entry.get("transport"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let url = entry
        .get("url")
        .or_else(|| entry.get("serverUrl"))
        .and_then(Value::as_str);
    let transport = if let Some(command) = entry.get("command").and_then(Value::as_str) {
        let args = entry
            .get("args")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        McpTransport::Stdio {
            command: command.to_string(),
            args,
            env: string_map(entry.get("env")),
            cwd: entry.get("cwd").and_then(Value::as_str).map(str::to_string),
        }
    } else if let Some(url) = url {
        if kind == "sse" {
            return Err(invalid(
                "the legacy SSE transport is not supported; use the server's streamable-HTTP URL (often ending in /mcp)",
            ));
        }
        McpTransport::Http {
            url: url.to_string(),
            headers: string_map(entry.get("headers")),
        }
    } else {
        return Err(invalid("it has neither a \"command\" nor a \"url\""));
    };
    let enabled = !entry
        .get("disabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let timeout_secs = entry
        .get("timeout")
        .and_then(Value::as_u64)
        // Some clients give milliseconds.
        .map(|t| if t > 3_600 { t / 1000 } else { t })
        .filter(|t| *t > 0)
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    Ok(McpServerConfig {
        name: name.to_string(),
        enabled,
        transport,
        timeout_secs: timeout_secs.min(3_600),
        execution_policy: None,
        result_policy: None,
        sandbox: None,
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth_client_metadata_url: None,
        views: true,
        // An imported server sees no folder of the user's, nor uses the model, until the user lets it.
        share_workspace: false,
        share_model: false,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn imports_the_claude_desktop_format() {
        let servers = import_json(
            r#"{"mcpServers": {
                "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
                "github": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"],
                           "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"}, "disabled": true},
                "remote docs": {"type": "http", "url": "https://example.org/mcp",
                                "headers": {"Authorization": "Bearer t0ken"}, "timeout": 30000}
            }}"#,
        )
        .unwrap();
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["filesystem", "github", "remote-docs"]);
        assert!(servers[0].enabled);
        assert_eq!(
            servers[0].transport.summary(),
            "npx -y @modelcontextprotocol/server-filesystem /tmp"
        );
        assert!(!servers[1].enabled);
        assert_eq!(
            servers[1].transport.secrets()["GITHUB_PERSONAL_ACCESS_TOKEN"],
            "ghp_secret"
        );
        assert_eq!(servers[2].timeout_secs, 30);
        assert!(
            matches!(&servers[2].transport, McpTransport::Http { url, .. } if url == "https://example.org/mcp")
        );
    }

    #[test]
    fn imports_vscode_servers_and_bare_objects() {
        let s = import_json(r#"{"servers": {"time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}}}"#).unwrap();
        assert_eq!(s[0].name, "time");
        let s =
            import_json(r#"{"everything": {"command": "node", "args": ["index.js"]}}"#).unwrap();
        assert_eq!(s[0].name, "everything");
    }

    #[test]
    fn refuses_what_it_cannot_run() {
        assert!(matches!(
            import_json("not json"),
            Err(McpConfigError::Json(_))
        ));
        assert!(matches!(
            import_json(r#"{"mcpServers": {}}"#),
            Err(McpConfigError::Json(_))
        ));
        let e = import_json(r#"{"mcpServers": {"old": {"type": "sse", "url": "http://x/sse"}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("legacy SSE"), "{e}");
        let e = import_json(r#"{"mcpServers": {"x": {"args": []}}}"#).unwrap_err();
        assert!(e.to_string().contains("neither"), "{e}");
        let e = import_json(r#"{"mcpServers": {"x": {"url": "ftp://x"}}}"#).unwrap_err();
        assert!(e.to_string().contains("http"), "{e}");
    }

    #[test]
    fn a_credential_header_goes_over_plain_http_only_to_this_machine() {
        let with = |url: &str, header: &str| {
            let mut c = McpServerConfig::stdio("remote", "x", &[]);
            c.transport = McpTransport::Http {
                url: url.into(),
                headers: [(header.to_string(), String::new())].into_iter().collect(),
            };
            c.validate()
        };
        let refused = with("http://mcp.example.com/mcp", "Authorization").unwrap_err();
        assert!(refused.to_string().contains("https://"), "{refused}");
        assert!(with("http://mcp.example.com/mcp", "X-Api-Key").is_err());
        assert!(with("https://mcp.example.com/mcp", "Authorization").is_ok());
        assert!(with("http://127.0.0.1:3001/mcp", "Authorization").is_ok());
        assert!(with("http://localhost:3001/mcp", "Authorization").is_ok());
        assert!(with("http://mcp.example.com/mcp", "Accept").is_ok());
    }

    #[test]
    fn names_are_sanitised_and_builtin_groups_reserved() {
        assert_eq!(sanitize_name("My Server!"), "My-Server");
        assert_eq!(sanitize_name("files"), "files");
        let clash = import_json(r#"{"mcpServers": {"files": {"command": "node"}}}"#).unwrap_err();
        assert_eq!(clash, McpConfigError::Reserved("files".into()));
        assert!(
            clash.to_string().contains("rename it in the JSON"),
            "{clash}"
        );
        assert_eq!(sanitize_name("☃"), "server");
        assert!(validate_name("shell").is_err());
        assert!(validate_name("a b").is_err());
        assert!(validate_name(&"x".repeat(33)).is_err());
        assert!(validate_name("git-hub_2").is_ok());
        let mut c = McpServerConfig::stdio("ok", " ", &[]);
        assert!(c.validate().is_err());
        c = McpServerConfig::stdio("ok", "node", &[]);
        c.timeout_secs = 0;
        assert!(c.validate().is_err());
    }
}
