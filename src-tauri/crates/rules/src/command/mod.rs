//! Understanding a shell command line well enough to match it against the user's rules.
//!
//! # Why this exists
//!
//! The `run_command` tool runs `sh -c <command>`. Matching rules against the raw text by string
//! prefix is unsound in both directions: a prefix such as `git status` also "allows"
//! `git status > ~/.ssh/authorized_keys` or `git status; rm -rf ~`, and a deny rule for `rm`
//! misses `\rm`, `command rm`, `/bin/rm`, `(rm …)`, `bash -c 'rm …'` and many other spellings.
//! This module parses the line with tree-sitter-bash and answers the two questions rules need:
//! "is this exactly one plain command, and what are its words?" (for allow rules) and "which
//! commands could this line run?" (for deny and ask rules).
//!
//! Use it like this: an allow rule applies when `parse(cmd).plain_argv()` is `Some(argv)` and
//! `pattern.matches(argv)`; a deny or ask rule applies when `parse(cmd).matches_any(&pattern)`.
//!
//! # The rules, in plain words
//!
//! * **Allow rules only allow plain commands.** A line is plain when it is a single simple
//!   command made only of words and quoted strings: no `;`, `&&`, `|`, `&`, no redirections
//!   (`>`, `<`, `2>&1`, here-documents), no `$VAR`, `${…}`, `$(…)` or backticks (not even inside
//!   double quotes), no subshells, no `VAR=x` prefixes, no `$'…'` strings, no comments, no
//!   control flow, and no shell keyword (`time`, `if`, `!`…) as the command name. Unquoted words
//!   may not contain `\ * ? [ ] { } ~ $ #` or a newline, because the shell would expand or
//!   rewrite them and the text we see would not be what runs. The line must also be free of
//!   control characters, unusual whitespace and invisible formatting characters, so that what
//!   the user reads is what runs. Anything else can never be allowed by a rule: the user is
//!   asked.
//! * **Deny and ask rules match any command the line may run.** The line's commands are found
//!   everywhere: in lists and pipelines, subshells, `$(…)`, backticks, process substitutions,
//!   `if`/`for`/`while`/`case` bodies and functions. Command names are reduced to their basename
//!   (`/bin/rm` is `rm`) and lose their quotes and backslashes (`\rm`, `'r'm`, `r""m` are `rm`).
//!   Wrappers such as `sudo`, `env`, `command`, `exec`, `nohup`, `nice`, `timeout`, `xargs` or
//!   `find … -exec` are looked through, so the wrapped command is listed too, and the strings
//!   given to `bash -c`, `sh -c`, `eval`, `su -c`, `watch`, `trap`, `alias`, `ssh`, or fed to a
//!   shell as a here-document, are parsed as commands in their turn. What a program does with
//!   its own arguments (`python -c`, `make`, scripts) is beyond this module.
//! * **When in doubt, the deny rule matches.** If the line does not parse cleanly, is too big
//!   (over [`MAX_COMMAND_LEN`]) or too deeply nested, runs a command whose name is computed
//!   (`$cmd x`, `{rm,x}`), or pipes into a shell (`… | sh`), every word of the line is also
//!   treated as a possible start of a command, so a deny rule for `rm` matches any such line
//!   containing an `rm` word. Lines over [`MAX_INSPECTED_LEN`] match every deny rule.
//! * **A rule pattern is a list of words.** `git status *` means the words `git` and `status`
//!   followed by any further words; without a final `*` word the command must have exactly the
//!   pattern's words. Inside a word, `*` stands for any characters and `?` for one character,
//!   never crossing a word boundary. Quoting works as in the shell: `'a b'` is one word, and a
//!   quoted `*` is a literal star.
//! * **Suggested "always allow" patterns are narrow.** Only plain commands get a suggestion. A
//!   `tool subcommand *` prefix is offered only for a short list of git sub-commands
//!   (`git status *`), never for interpreters, runners, build tools or tools whose further
//!   words can run other programs or write anywhere (`bash`, `python`, `find`, `cargo test
//!   --config …runner=…`, `go test -exec`, `npm run --script-shell`, `git -c`, `git log
//!   --output=…`). Everything else gets its exact words.

mod pattern;
mod syntax;
#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests;
mod words;
mod wrappers;

pub use pattern::*;
use syntax::*;
use words::*;
use wrappers::*;

/// Lines longer than this (in bytes) are not parsed: they are never plain, and deny rules are
/// matched against them with the word-by-word fallback only.
pub const MAX_COMMAND_LEN: usize = 64 * 1024;

/// Lines longer than this (in bytes) are not inspected at all: every deny or ask rule matches.
pub const MAX_INSPECTED_LEN: usize = 1024 * 1024;

/// Syntax tree depth beyond which the walk stops and the fallback is used.
pub const MAX_TREE_DEPTH: usize = 256;

/// How many times command strings may nest (`bash -c "sh -c 'eval …'"`) before the fallback is
/// used.
pub const MAX_SCRIPT_NESTING: usize = 16;

/// Budget of words over all listed commands; past it the fallback is used.
const MAX_LISTED_WORDS: usize = 200_000;

/// Budget of words generated while looking through wrappers; past it the fallback is used.
const MAX_WORK_WORDS: usize = 1_000_000;

/// A wrapper whose options are not understood lists the command starting at each of this many
/// following words at most; past it the fallback is used.
const MAX_SUFFIX_STARTS: usize = 32;

/// Budget of bytes parsed over all nested command strings; past it the fallback is used.
const MAX_TOTAL_PARSED: usize = 1024 * 1024;

/// The fallback lists every suffix of the line's words, each cut to this many words.
const FALLBACK_SUFFIX_WORDS: usize = 32;

/// The fallback lists suffixes starting at no more than this many words (the rest is still
/// checked by [`ParsedCommand::matches_any`]).
const FALLBACK_LISTED_STARTS: usize = 8192;

/// A shell command line, parsed once, with the answers rules need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedCommand {
    plain: Option<Vec<String>>,
    commands: Vec<Vec<String>>,
    fallback_tokens: Vec<String>,
    exhaustive: bool,
    uninspectable: bool,
}

/// Parses `cmd` (the text given to `sh -c`). Never panics, whatever the input.
#[must_use]
pub fn parse(cmd: &str) -> ParsedCommand {
    if cmd.len() > MAX_INSPECTED_LEN {
        return ParsedCommand {
            plain: None,
            commands: Vec::new(),
            fallback_tokens: Vec::new(),
            exhaustive: false,
            uninspectable: true,
        };
    }

    let mut collector = Collector::default();
    let mut plain = None;
    if cmd.len() > MAX_COMMAND_LEN {
        collector.limit_hit = true;
    } else {
        match parse_tree(cmd) {
            Some(tree) => {
                if !has_suspicious_chars(cmd) {
                    plain = plain_argv_of(&tree, cmd);
                }
                collector.total_parsed = cmd.len();
                collector.walk(&tree, cmd, 0);
            }
            None => collector.parse_error = true,
        }
    }

    let needs_fallback = collector.parse_error || collector.limit_hit || collector.uncertain;
    let mut fallback_tokens = Vec::new();
    if needs_fallback {
        fallback_tokens = fallback_tokens_of(cmd);
        collector.add_fallback(&fallback_tokens);
    }

    ParsedCommand {
        plain,
        commands: collector.out,
        fallback_tokens,
        exhaustive: !needs_fallback,
        uninspectable: false,
    }
}

impl ParsedCommand {
    /// The command's words when the whole line is one plain simple command (see the module
    /// documentation for what "plain" excludes), with quotes removed: `ls 'a b'` is
    /// `["ls", "a b"]`. `None` otherwise. Allow rules may match only this.
    #[must_use]
    pub fn plain_argv(&self) -> Option<&[String]> {
        self.plain.as_deref()
    }

    /// Every command the line may run, found conservatively, each as a normalised argv: the
    /// command name reduced to its basename, quotes and backslashes removed, wrappers looked
    /// through (both the wrapper and the wrapped command are listed), command strings given to
    /// shells and `eval` parsed in turn. When the line could not be fully understood, every
    /// suffix of its words is listed too (see [`ParsedCommand::is_exhaustive`]). Deny and ask
    /// rules match if any listed command matches; prefer [`ParsedCommand::matches_any`], which
    /// also covers the parts of the fallback too large to list.
    #[must_use]
    pub fn commands(&self) -> &[Vec<String>] {
        &self.commands
    }

    /// `true` when the line parsed without error, within the limits, and every command name
    /// and every command string was literal, so that [`ParsedCommand::commands`] is believed to
    /// list everything the shell itself would run (programs may of course run others). When
    /// `false`, the word-by-word fallback was added; a caller may also choose to ask the user.
    #[must_use]
    pub fn is_exhaustive(&self) -> bool {
        self.exhaustive
    }

    /// Whether a deny or ask rule with this pattern applies to the line: `true` if any listed
    /// command matches (the pattern's first word compared by basename, so `/bin/rm *` also
    /// matches `rm x`), if the fallback is in use and any run of the line's words starting at
    /// any word matches the pattern's words (ignoring what follows), or if the line is too big
    /// to inspect at all. When in doubt, this says yes.
    #[must_use]
    pub fn matches_any(&self, pattern: &CommandPattern) -> bool {
        if self.uninspectable {
            return true;
        }
        let base = pattern.with_basename_first();
        if self.commands.iter().any(|argv| base.matches(argv)) {
            return true;
        }
        if self.fallback_tokens.is_empty() {
            return false;
        }
        let n = base.words.len();
        (0..self.fallback_tokens.len()).any(|start| {
            let Some(window) = self.fallback_tokens.get(start..start.saturating_add(n)) else {
                return false;
            };
            window.iter().enumerate().all(|(i, token)| {
                let token = if i == 0 {
                    basename(token)
                } else {
                    token.as_str()
                };
                base.globs
                    .get(i)
                    .is_some_and(|parts| glob_matches(parts, token))
            })
        })
    }
}

/// The pattern to offer for "always allow" on this command, or `None` when no allow rule can
/// cover it (the line is not plain). For a known tool followed by a sub-command whose further
/// words cannot mean "run anything" this is `tool subcommand *` (`git status -s` gives
/// `git status *`); otherwise it is the exact words, quoted so they parse back the same
/// (`bash -c 'ls -la'`, `rm -rf build`).
#[must_use]
pub fn suggest_pattern(cmd: &str) -> Option<String> {
    let parsed = parse(cmd);
    let argv = parsed.plain_argv()?;
    if let [tool, sub, ..] = argv {
        let policy = SUBCOMMAND_TOOLS
            .iter()
            .find(|(name, _)| name == tool)
            .map(|(_, policy)| *policy);
        let allowed = match policy {
            Some(SubcommandPolicy::Only(list)) => list.contains(&sub.as_str()),
            None => false,
        };
        if allowed && is_subcommand_word(sub) {
            return Some(format!("{tool} {sub} *"));
        }
    }
    CommandPattern::exact(argv).map(|p| p.to_string())
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------
