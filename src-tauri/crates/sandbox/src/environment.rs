//! The environment a sandboxed command starts with (F-46): a short, documented list taken
//! from Tollgate's own, never the addresses of the session bus, the display, an agent, or a
//! variable shaped like a secret. Whatever else Tollgate was started with — `GITHUB_TOKEN`,
//! `AWS_*`, `DBUS_SESSION_BUS_ADDRESS`, `DISPLAY`, `SSH_AUTH_SOCK` — stays outside.

/// The variables passed through from Tollgate's environment, by exact name.
pub const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "PAGER",
    "GIT_PAGER",
    "NO_COLOR",
    "EDITOR",
    // Where the trusted certificates are (a company's or a proxy's own CA): no secret in them,
    // and without them TLS fails in the sandbox where it works outside.
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "GIT_SSL_CAINFO",
    "PIP_CERT",
];

/// Variables passed through by prefix (locale settings).
pub const PASSED_PREFIXES: &[&str] = &["LC_"];

/// The variables the sandbox sets itself: its private temp folder, and caches kept there so
/// that tools which write a cache in the home folder (npm, pip) still work.
pub fn own(temp: &str) -> Vec<(String, String)> {
    [
        ("TMPDIR", temp.to_string()),
        ("XDG_CACHE_HOME", format!("{temp}/.cache")),
        ("npm_config_cache", format!("{temp}/.npm")),
        ("PIP_CACHE_DIR", format!("{temp}/.cache/pip")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The variables that send HTTP(S) clients (curl, git, npm, pip, …) to the proxy of "only these
/// hosts", listening on `port` of the sandbox's own loopback.
pub fn proxy(port: u16) -> Vec<(String, String)> {
    let url = format!("http://127.0.0.1:{port}");
    [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "ALL_PROXY",
        "npm_config_proxy",
        "npm_config_https_proxy",
    ]
    .iter()
    .map(|k| (k.to_string(), url.clone()))
    .chain([
        (
            "NO_PROXY".to_string(),
            "localhost,127.0.0.1,::1".to_string(),
        ),
        (
            "no_proxy".to_string(),
            "localhost,127.0.0.1,::1".to_string(),
        ),
    ])
    .collect()
}

/// Variables that reach a service outside the sandbox; never passed, even when asked for.
const OUTSIDE_SERVICES: &[&str] = &[
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "XDG_RUNTIME_DIR",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "GNOME_KEYRING_CONTROL",
    "PULSE_SERVER",
    "PULSE_RUNTIME_PATH",
    "DOCKER_HOST",
    "SESSION_MANAGER",
    "KRB5CCNAME",
];

/// Why a variable may not enter the sandbox, or `None` when it may. Used for the names an MCP
/// server's settings or a chat adds to the environment (F-46).
pub fn refused(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    if OUTSIDE_SERVICES.contains(&upper.as_str()) {
        return Some("it is the address of a service outside the sandbox");
    }
    if upper.starts_with("TOLLGATE_") {
        return Some("it is Tollgate's own");
    }
    None
}

/// Why the user may not add `name` to the commands' environment, or `None` when they may: a
/// valid name, not the address of a service outside, not shaped like a secret (a chat's
/// settings are kept in the database, which never holds a secret).
pub fn refused_for_chat(name: &str) -> Option<String> {
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Some(format!(
            "\"{name}\" is not a variable name (letters, digits and _)"
        ));
    }
    if let Some(why) = refused(name) {
        return Some(format!("{name} cannot be set for commands: {why}"));
    }
    if PASSED.contains(&name) || own("/tmp").iter().any(|(o, _)| o == name) {
        return Some(format!("{name} is set by the sandbox itself"));
    }
    if secret_shaped(name) {
        return Some(format!(
            "{name} looks like a secret: Tollgate keeps secrets out of its database and out of commands"
        ));
    }
    None
}

/// Whether a variable's name says it holds a secret (`*_TOKEN`, `*_API_KEY`, `AWS_*`, …): the
/// one list of secret-shaped names (`tollgate_secrets::names`), and the prefixes of clouds' and
/// model providers' variables.
pub fn secret_shaped(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    tollgate_secrets::secret_named(name)
        || tollgate_secrets::SECRET_ENV_PREFIXES
            .iter()
            .any(|p| upper.starts_with(p))
}

/// The environment of a sandboxed command: [`PASSED`] from `parent`, the names in `keep` (an MCP
/// server's own settings) unless [`refused`], and the sandbox's own variables ([`own`]).
pub fn clean(
    parent: impl IntoIterator<Item = (String, String)>,
    keep: &[String],
    temp: &str,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = parent
        .into_iter()
        .filter(|(name, _)| {
            PASSED.contains(&name.as_str())
                || PASSED_PREFIXES.iter().any(|p| name.starts_with(p))
                || (keep.contains(name) && refused(name).is_none())
        })
        .collect();
    out.retain(|(name, _)| !own(temp).iter().any(|(o, _)| o == name));
    out.extend(own(temp));
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn only_the_short_list_and_the_kept_names_pass() {
        let parent = vars(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/home/ann"),
            ("LC_ALL", "C.UTF-8"),
            ("GITHUB_TOKEN", "ghp_secret"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
            ("DISPLAY", ":0"),
            ("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1"),
            ("MY_SERVER_KEY", "from the server's settings"),
            ("TMPDIR", "/var/tmp"),
            ("TOLLGATE_SANDBOX", "{}"),
        ]);
        let keep = ["MY_SERVER_KEY".to_string(), "DISPLAY".to_string()];
        let env = clean(parent, &keep, "/tmp");
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "HOME",
                "LC_ALL",
                "MY_SERVER_KEY",
                "PATH",
                "PIP_CACHE_DIR",
                "TMPDIR",
                "XDG_CACHE_HOME",
                "npm_config_cache"
            ]
        );
        assert!(env.contains(&("TMPDIR".into(), "/tmp".into())));
        assert!(refused("DISPLAY").is_some());
        assert!(refused("ssh_auth_sock").is_some());
        assert!(refused("NODE_OPTIONS").is_none());
        assert!(secret_shaped("GITHUB_TOKEN"));
        assert!(refused_for_chat("RUST_LOG").is_none());
        assert!(refused_for_chat("DISPLAY")
            .unwrap()
            .contains("service outside"));
        assert!(refused_for_chat("GITHUB_TOKEN")
            .unwrap()
            .contains("looks like a secret"));
        assert!(refused_for_chat("PATH")
            .unwrap()
            .contains("set by the sandbox"));
        assert!(refused_for_chat("1BAD").is_some());
        assert!(refused_for_chat("A-B").is_some());
        assert!(secret_shaped("aws_region"));
        assert!(!secret_shaped("RUST_LOG"));
    }
}
