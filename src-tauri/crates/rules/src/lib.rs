//! Rules (F-04), a crate of its own: what an allow / ask / deny rule for a tool matches,
//! optionally narrowed by a pattern over a tool-specific subject, for one chat or globally, and
//! which rule decides a call. It holds the shell parser the command rules read commands with
//! ([`command`], tree-sitter-bash). Pure: it keeps no rules and does no I/O (the engine's
//! `RuleBook` keeps them in the store) and depends only on `tollgate-protocol`; it must never
//! depend on the engine or the store.
//!
//! A rule matches what the call will really do, never what its text looks like, and it reads
//! no broader than it matches:
//! - **Commands** are parsed as the shell parses them ([`command`], tree-sitter-bash). An
//!   *allow* matches only one plain simple command whose words match the pattern's words — no
//!   redirection, pipe, list, substitution, expansion, subshell, background job or assignment,
//!   ever. A *deny* or *ask* matches if any command the line may run matches, found through
//!   `\rm`, `/bin/rm`, `command rm`, `(rm …)`, `bash -c '…'`, `xargs rm`, `find -exec rm`, …
//! - **Paths** are matched after today's symlinks ([`RuleSubject::Path`]); a path that leaves
//!   the workspace ([`RuleSubject::Outside`]) is matched by no allow.
//! - **URLs** are matched after parsing and normalising.
//!
//! Among matching rules the most specific wins, deny before ask before allow. A rule always
//! has a pattern unless the user chose "every call of this tool" explicitly: an empty pattern is
//! refused, never read as "everything".

pub mod command;

use serde::{Deserialize, Serialize};
use tollgate_protocol::ids::ChatId;
use tollgate_protocol::{Rule, RuleAction, RuleScope, RuleSubjectKind};

/// What a rule says about a call, for the types the protocol defines ([`Rule`]).
pub trait RuleMatch {
    /// Whether the rule matches `subject`.
    fn matches(&self, subject: &RuleSubject) -> bool;
    /// The rule in plain words, for approval reasons and the settings list.
    fn describe(&self) -> String;
}

impl RuleMatch for Rule {
    fn matches(&self, subject: &RuleSubject) -> bool {
        let parsed = match subject {
            RuleSubject::Command(cmd) => Some(command::parse(cmd)),
            _ => None,
        };
        match_kind(self, subject, parsed.as_ref()).is_some()
    }

    fn describe(&self) -> String {
        let what = match &self.pattern {
            Some(p) => format!("{} matching \"{p}\"", self.tool),
            None => format!("every {} call", self.tool),
        };
        let scope = match self.scope {
            RuleScope::Global => "in every chat",
            RuleScope::Chat { .. } => "in this chat",
        };
        format!("{} {what} {scope}", capitalise(self.action.as_str()))
    }
}

/// Whether `rule` applies in `chat`: a global rule everywhere, a chat's rule in its chat.
pub fn applies_in(rule: &Rule, chat: ChatId) -> bool {
    match rule.scope {
        RuleScope::Global => true,
        RuleScope::Chat { chat: c } => c == chat,
    }
}

/// How `rule` matches `subject` (`parsed` is the subject's command, parsed once by the
/// caller), or `None`.
fn match_kind(
    rule: &Rule,
    subject: &RuleSubject,
    parsed: Option<&command::ParsedCommand>,
) -> Option<MatchKind> {
    let Some(pattern) = rule.pattern.as_deref() else {
        return Some(MatchKind::Direct);
    };
    let direct = |yes: bool| yes.then_some(MatchKind::Direct);
    match (subject, parsed) {
        (RuleSubject::Command(cmd), Some(parsed)) => {
            command_match(pattern, cmd, parsed, rule.action)
        }
        (RuleSubject::Command(cmd), None) => {
            command_match(pattern, cmd, &command::parse(cmd), rule.action)
        }
        (RuleSubject::Path(path), _) => direct(path_matches(pattern, path)),
        // Outside the workspace: never allowed; an ask or deny covers it (the tool refuses
        // to run there anyway, and in doubt a deny matches).
        (RuleSubject::Outside(_), _) => direct(rule.action != RuleAction::Allow),
        (RuleSubject::Url(text) | RuleSubject::Args(text), _) => direct(wildcard(pattern, text)),
    }
}

/// Specificity: a pattern beats none; more literal characters beat fewer.
fn specificity(rule: &Rule) -> (u8, usize) {
    match &rule.pattern {
        None => (0, 0),
        Some(p) => (1, p.chars().filter(|c| !matches!(c, '*' | '?')).count()),
    }
}

/// What a tool's rules match against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
pub enum RuleSubject {
    /// A shell command line: patterns are words (`git status *`), matched against the parsed
    /// command (see the module doc).
    Command(String),
    /// A path relative to the workspace, after symlinks: patterns are globs.
    Path(String),
    /// A path that leads out of the workspace: no allow rule matches it.
    Outside(String),
    /// A URL, normalised: patterns are wildcards.
    Url(String),
    /// The canonical JSON of the arguments: patterns are wildcards.
    Args(String),
}

impl RuleSubject {
    pub fn kind(&self) -> RuleSubjectKind {
        match self {
            Self::Command(_) => RuleSubjectKind::Command,
            Self::Path(_) | Self::Outside(_) => RuleSubjectKind::Path,
            Self::Url(_) => RuleSubjectKind::Url,
            Self::Args(_) => RuleSubjectKind::Args,
        }
    }
}

/// Why a rule pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("the pattern is empty: type what the rule should allow, or choose \"every call of this tool\"")]
    Empty,
    #[error("the command pattern cannot be read: {0}")]
    Command(String),
    #[error("the path pattern is not a valid glob: {0}")]
    Glob(String),
}

/// Checks a pattern the user typed for a tool whose rules match `kind`.
pub fn check_pattern(kind: RuleSubjectKind, pattern: &str) -> Result<(), PatternError> {
    if pattern.trim().is_empty() {
        return Err(PatternError::Empty);
    }
    match kind {
        RuleSubjectKind::Command => command::CommandPattern::parse(pattern)
            .map(|_| ())
            .map_err(|e| PatternError::Command(e.to_string())),
        RuleSubjectKind::Path => globset::GlobBuilder::new(pattern.trim())
            .literal_separator(true)
            .build()
            .map(|_| ())
            .map_err(|e| PatternError::Glob(e.to_string())),
        RuleSubjectKind::Url | RuleSubjectKind::Args => Ok(()),
    }
}

/// The pattern to offer for "always allow" (F-05): as narrow as the call itself unless a wider
/// one still reads as what it matches. Commands follow [`command::suggest_pattern`] (no
/// suggestion where no allow rule can match); paths are the resolved path; URLs are their
/// origin with any path below it; other tools' arguments exactly as given.
pub fn suggest_pattern(subject: &RuleSubject) -> Option<String> {
    match subject {
        RuleSubject::Command(cmd) => command::suggest_pattern(cmd),
        // Escaped, so a file literally named `docs/**` is not offered as the whole folder.
        RuleSubject::Path(p) => Some(globset::escape(p)),
        RuleSubject::Outside(_) => None,
        RuleSubject::Url(u) => url::Url::parse(u)
            .ok()
            .filter(|url| url.has_host())
            .map(|url| format!("{}/*", url.origin().ascii_serialization())),
        // Wildcards have no escape: arguments holding `*` or `?` get no suggestion rather than
        // one that matches more than this call.
        RuleSubject::Args(args) => (!args.contains(['*', '?'])).then(|| args.clone()),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `*` matches any run of chars, `?` one char; everything else literally.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Matches a command pattern against a command line (see the module doc). An allow needs one
/// plain simple command; a deny or ask matches any command the line may run, and a pattern
/// that does not read as words falls back to matching the raw text (so a deny still bites).
/// How a rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MatchKind {
    /// The subject itself: the plain command's own words, the path, the URL, the arguments.
    Direct,
    /// A command the line may run besides its plain words: wrapped (`timeout 60 rm …`), nested
    /// (`bash -c 'rm …'`), in a list or substitution. Only deny and ask rules match this way,
    /// and such a match beats every allow, however specific: an allow for `timeout 60 *` must not
    /// outweigh a deny for `rm *` on `timeout 60 rm -rf ~`.
    Nested,
}

fn command_match(
    pattern: &str,
    cmd: &str,
    parsed: &command::ParsedCommand,
    action: RuleAction,
) -> Option<MatchKind> {
    let words = command::CommandPattern::parse(pattern);
    let plain = parsed.plain_argv();
    match action {
        RuleAction::Allow => match (words, plain) {
            (Ok(words), Some(argv)) => words.matches(argv).then_some(MatchKind::Direct),
            _ => None,
        },
        RuleAction::Ask | RuleAction::Deny => {
            let (direct, any) = match words {
                Ok(words) => (
                    plain.is_some_and(|argv| words.matches(argv)),
                    parsed.matches_any(&words),
                ),
                Err(_) => (
                    false,
                    wildcard(pattern.trim(), cmd.trim())
                        || parsed
                            .commands()
                            .iter()
                            .any(|argv| wildcard(pattern.trim(), &argv.join(" "))),
                ),
            };
            if direct {
                Some(MatchKind::Direct)
            } else {
                any.then_some(MatchKind::Nested)
            }
        }
    }
}

fn path_matches(pattern: &str, path: &str) -> bool {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(path))
        .unwrap_or(false)
}

/// The rule among `rules` that decides a call of `tool` in `chat` with `subject`, if any.
///
/// A deny or ask that matched a command the line runs besides its own plain words
/// ([`MatchKind::Nested`]) wins over every allow; otherwise the most specific rule wins.
pub fn winning_rule(
    rules: &[Rule],
    chat: ChatId,
    tool: &str,
    subject: &RuleSubject,
) -> Option<Rule> {
    let candidates: Vec<&Rule> = rules
        .iter()
        .filter(|r| r.tool == tool && applies_in(r, chat))
        .collect();
    if candidates.is_empty() {
        return None;
    }
    // Parsed once, and only when some rule may need it.
    let parsed = match subject {
        RuleSubject::Command(cmd) => Some(command::parse(cmd)),
        _ => None,
    };
    let matching: Vec<(&Rule, MatchKind)> = candidates
        .into_iter()
        .filter_map(|r| match_kind(r, subject, parsed.as_ref()).map(|k| (r, k)))
        .collect();
    let key = |r: &&Rule| {
        (
            specificity(r),
            r.action.rank(),
            matches!(r.scope, RuleScope::Chat { .. }),
        )
    };
    let nested = matching
        .iter()
        .filter(|(_, k)| *k == MatchKind::Nested)
        .map(|(r, _)| *r)
        .max_by_key(|r| (r.action.rank(), key(r)));
    nested
        .or_else(|| matching.iter().map(|(r, _)| *r).max_by_key(key))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(pattern: Option<&str>, action: RuleAction) -> Rule {
        Rule {
            id: 0,
            tool: "shell".into(),
            pattern: pattern.map(str::to_string),
            action,
            scope: RuleScope::Global,
            created_at: 0,
        }
    }

    fn cmd(s: &str) -> RuleSubject {
        RuleSubject::Command(s.into())
    }

    #[test]
    fn wildcards() {
        assert!(wildcard("a*c", "abbbc"));
        assert!(wildcard("a?c", "abc"));
        assert!(!wildcard("a?c", "abbc"));
        assert!(wildcard("*", ""));
        assert!(wildcard(
            "{\"path\":\"src/*\"}",
            "{\"path\":\"src/main.rs\"}"
        ));
        assert!(!wildcard("abc", "abcd"));
    }

    #[test]
    fn command_prefix_rules_never_stretch_across_operators() {
        let allow = rule(Some("git status *"), RuleAction::Allow);
        assert!(allow.matches(&cmd("git status")));
        assert!(allow.matches(&cmd("git status -s")));
        assert!(!allow.matches(&cmd("git statusx")));
        assert!(!allow.matches(&cmd("git push")));
        for sneaky in [
            "git status && rm -rf ~",
            "git status; rm -rf ~",
            "git status | sh",
            "git status $(rm -rf ~)",
            "git status `rm -rf ~`",
            "git status\nrm -rf ~",
            "git status & rm x",
            "git status || rm x",
        ] {
            assert!(!allow.matches(&cmd(sneaky)), "{sneaky}");
        }
        let deny = rule(Some("rm *"), RuleAction::Deny);
        assert!(deny.matches(&cmd("ls && rm -rf x")));
        assert!(deny.matches(&cmd("rm x")));
        assert!(!deny.matches(&cmd("ls")));
    }

    /// Issue item 3: an allow rule reads no broader than it matches.
    #[test]
    fn allow_rules_never_cover_redirections_or_operators() {
        let allow = rule(Some("git status *"), RuleAction::Allow);
        assert!(allow.matches(&cmd("git status --short")));
        for sneaky in [
            "git status > ~/.ssh/authorized_keys",
            "git status >> ~/.bashrc",
            "git status 2>&1 | tee /etc/x",
            "git status < /dev/tcp/1.2.3.4/80",
            "git status <<EOF\nx\nEOF",
            "FOO=1 git status",
            "git status $HOME",
            "git status \"$(id)\"",
            "(git status)",
            "git status &",
            "git status ~",
            "git status *.rs",
            "git st\\\natus",
        ] {
            assert!(!allow.matches(&cmd(sneaky)), "{sneaky}");
        }
        // The model's own wildcards and flags never make a rule wider than the user read.
        let narrow = rule(Some("rm *.tmp"), RuleAction::Allow);
        assert!(narrow.matches(&cmd("rm a.tmp")));
        assert!(!narrow.matches(&cmd("rm -rf ~ a.tmp")));
        assert!(
            !narrow.matches(&cmd("rm *.tmp")),
            "a glob is expanded by the shell"
        );
    }

    #[test]
    fn suggestions_read_no_broader_than_the_call() {
        let suggest = |c: &str| suggest_pattern(&cmd(c));
        assert_eq!(suggest("git status -s"), Some("git status *".into()));
        assert_eq!(suggest("rm *.tmp"), None, "a glob can never be allowed");
        assert_eq!(suggest("ls && rm x"), None);
        for exact in ["find . -name x", "rm -rf build", "python3 script.py"] {
            let s = suggest(exact).unwrap();
            assert!(!s.ends_with(" *"), "{exact} → {s}");
            let r = rule(Some(&s), RuleAction::Allow);
            assert!(r.matches(&cmd(exact)), "{exact} → {s}");
            assert!(!r.matches(&cmd(&format!("{exact} -exec rm {{}} ;"))), "{s}");
        }
        let bash = suggest("bash -c 'ls'").unwrap();
        assert!(!bash.ends_with(" *"), "{bash}");
        assert!(!rule(Some(&bash), RuleAction::Allow).matches(&cmd("bash -c 'rm -rf ~'")));
        assert_eq!(
            suggest_pattern(&RuleSubject::Url("https://docs.rs/serde/latest".into())),
            Some("https://docs.rs/*".into())
        );
        assert_eq!(
            suggest_pattern(&RuleSubject::Args("{\"a\":1}".into())),
            Some("{\"a\":1}".into())
        );
        assert_eq!(
            suggest_pattern(&RuleSubject::Outside("/etc/passwd".into())),
            None
        );
        assert_eq!(
            suggest_pattern(&RuleSubject::Args("{\"sql\":\"SELECT * FROM t\"}".into())),
            None,
            "a `*` in the arguments would match other arguments too"
        );
        let odd = suggest_pattern(&RuleSubject::Path("docs/**".into())).unwrap();
        let r = Rule {
            pattern: Some(odd),
            ..rule(None, RuleAction::Allow)
        };
        assert!(r.matches(&RuleSubject::Path("docs/**".into())));
        assert!(
            !r.matches(&RuleSubject::Path("docs/secret.md".into())),
            "escaped, not a glob"
        );
    }

    #[test]
    fn deny_rules_see_through_quoting_paths_and_wrappers() {
        let deny = rule(Some("rm *"), RuleAction::Deny);
        for spelled in [
            "rm -rf x",
            "\\rm -rf x",
            "command rm x",
            "/bin/rm x",
            "(rm x)",
            "'r'm x",
            "r\"\"m x",
            "bash -c 'rm -rf ~'",
            "sh -c \"ls; rm x\"",
            "eval \"rm x\"",
            "sudo rm x",
            "env FOO=1 rm x",
            "xargs rm",
            "find . -exec rm {} \\;",
            "echo $(rm x)",
            "ls && rm x",
            "nohup rm x &",
            "rm x \"unclosed",
        ] {
            assert!(deny.matches(&cmd(spelled)), "{spelled}");
        }
        assert!(!deny.matches(&cmd("ls -la")));
        // Outside the workspace, a path is never allowed and always denied or asked.
        let allow_all = rule(None, RuleAction::Allow);
        let deny_all = rule(Some("**"), RuleAction::Deny);
        let allow_glob = rule(Some("**"), RuleAction::Allow);
        assert!(
            allow_all.matches(&RuleSubject::Outside("/etc/passwd".into())),
            "every call, as chosen"
        );
        assert!(!allow_glob.matches(&RuleSubject::Outside("/etc/passwd".into())));
        assert!(deny_all.matches(&RuleSubject::Outside("/etc/passwd".into())));
    }

    #[test]
    fn path_globs_respect_separators() {
        let r = Rule {
            pattern: Some("src/*.rs".into()),
            ..rule(None, RuleAction::Allow)
        };
        assert!(r.matches(&RuleSubject::Path("src/main.rs".into())));
        assert!(!r.matches(&RuleSubject::Path("src/a/b.rs".into())));
        let r = Rule {
            pattern: Some("src/**".into()),
            ..r
        };
        assert!(r.matches(&RuleSubject::Path("src/a/b.rs".into())));
        assert!(!r.matches(&RuleSubject::Path("../src/a".into())));
    }

    #[test]
    fn descriptions_are_plain_words() {
        let r = rule(Some("git status *"), RuleAction::Allow);
        assert_eq!(
            r.describe(),
            "Allow shell matching \"git status *\" in every chat"
        );
        let r = Rule {
            scope: RuleScope::Chat { chat: ChatId(1) },
            ..rule(None, RuleAction::Deny)
        };
        assert_eq!(r.describe(), "Deny every shell call in this chat");
    }
}
