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

use std::collections::HashSet;
use std::fmt;

use tree_sitter::{Node, Parser, Tree};

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

/// Words the shell gives a meaning of its own at the start of a command (`time` and `coproc`
/// change what runs; the others only belong in compound commands).
const RESERVED_WORDS: &[&str] = &[
    "!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "time", "until", "while",
];

/// Shells whose `-c` argument is a command string.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh",
    "tcsh",
];

/// Wrappers whose option syntax we do not model: every suffix of their arguments is listed.
const GENERIC_WRAPPERS: &[&str] = &[
    "ionice",
    "taskset",
    "chrt",
    "flock",
    "unbuffer",
    "strace",
    "ltrace",
    "firejail",
    "proxychains",
    "proxychains4",
    "torsocks",
    "systemd-run",
    "chroot",
    "nsenter",
    "unshare",
    "runuser",
    "pkexec",
    "sg",
    "caffeinate",
    "catchsegv",
    "coproc",
    "parallel",
    "valgrind",
    "fakeroot",
    "faketime",
    "prlimit",
    "cpulimit",
    "numactl",
    "dbus-run-session",
    "with-lock-ex",
    "chpst",
    "setpriv",
    "sandbox-exec",
];

/// Tools for which `tool subcommand *` may be suggested, and which sub-commands qualify.
///
/// Only git's sub-commands whose further words cannot name a program to run or a file to write
/// outside the repository. Build tools and package runners are absent on purpose: every
/// `cargo` sub-command takes `--config target.….runner=…` or `build.rustc-wrapper=…`, `go`
/// takes `-exec`/`-toolexec`/`-vettool`, `npm`/`pnpm`/`yarn` take `--script-shell`; with "any
/// further words" each of them runs any program. They get their exact words.
const SUBCOMMAND_TOOLS: &[(&str, SubcommandPolicy)] = &[(
    "git",
    SubcommandPolicy::Only(&[
        "status",
        "add",
        "commit",
        "branch",
        "checkout",
        "switch",
        "restore",
        "stash",
        "tag",
        "mv",
        "rm",
        "reset",
        "blame",
        "rev-parse",
        "ls-files",
        "describe",
    ]),
)];

/// Which sub-commands of a tool may be followed by "any further words" in a suggestion.
#[derive(Debug, Clone, Copy)]
enum SubcommandPolicy {
    /// Only these.
    Only(&'static [&'static str]),
}

// ---------------------------------------------------------------------------------------------
// ParsedCommand
// ---------------------------------------------------------------------------------------------

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

/// tree-sitter-bash 0.25.1's scanner passes the character after `{` (and after `{<digits>..`)
/// to C `isdigit`, which is undefined for non-ASCII characters and crashes on glibc (for example
/// on `{` followed by U+E01C5). Such text is never given to tree-sitter: it is treated as a
/// parse error (not plain; deny rules use the fallback).
fn trips_scanner_bug(src: &str) -> bool {
    let non_ascii_next = |s: &str| {
        s.trim_start_matches(|c: char| c.is_ascii_digit())
            .chars()
            .next()
            .is_some_and(|c| !c.is_ascii())
    };
    src.match_indices('{').any(|(i, _)| {
        let rest = src.get(i + 1..).unwrap_or_default();
        if non_ascii_next(rest) {
            return true;
        }
        rest.trim_start_matches(|c: char| c.is_ascii_digit())
            .strip_prefix("..")
            .is_some_and(non_ascii_next)
    })
}

fn parse_tree(src: &str) -> Option<Tree> {
    if trips_scanner_bug(src) {
        return None;
    }
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    parser.parse(src, None)
}

fn node_text<'a>(node: Node<'_>, src: &'a str) -> Option<&'a str> {
    src.get(node.byte_range())
}

fn children_of(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

// ---------------------------------------------------------------------------------------------
// Plain commands (allow rules)
// ---------------------------------------------------------------------------------------------

/// Characters that make a line "not plain" wherever they appear: control characters other than
/// tab and newline, whitespace the shell does not treat as blank, and invisible formatting
/// characters that could make the line display differently from what runs.
fn has_suspicious_chars(s: &str) -> bool {
    s.chars().any(|c| {
        (c.is_control() && c != '\t' && c != '\n')
            || (c.is_whitespace() && c != ' ' && c != '\t' && c != '\n')
            || matches!(c,
                '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}'
                | '\u{17B5}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
                | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}')
    })
}

/// Characters an unquoted word of a plain command may not contain: the shell would expand or
/// rewrite them (`\ * ? [ ] { } ~ $ #`, newline), or they are syntax tree-sitter should never
/// have put in a word.
const UNSAFE_UNQUOTED: &str = "\\*?[]{}~$#\n'\"`()<>|&; \t";

fn unsafe_unquoted(c: char) -> bool {
    UNSAFE_UNQUOTED.contains(c)
}

fn only_chars(s: &str, allowed: &str) -> bool {
    s.chars().all(|c| allowed.contains(c))
}

fn plain_argv_of(tree: &Tree, src: &str) -> Option<Vec<String>> {
    let root = tree.root_node();
    if root.has_error() || root.kind() != "program" || root.child_count() != 1 {
        return None;
    }
    let cmd = root.child(0)?;
    if cmd.kind() != "command" {
        return None;
    }
    if !only_chars(src.get(..cmd.start_byte())?, " \t\n")
        || !only_chars(src.get(cmd.end_byte()..)?, " \t\n")
    {
        return None;
    }
    let mut argv = Vec::new();
    let mut prev_end: Option<usize> = None;
    for (i, child) in children_of(cmd).into_iter().enumerate() {
        let gap = match prev_end {
            Some(end) => src.get(end..child.start_byte())?,
            None => "",
        };
        if !only_chars(gap, " \t") {
            return None;
        }
        prev_end = Some(child.end_byte());
        if i == 0 {
            if child.kind() != "command_name" || child.child_count() != 1 {
                return None;
            }
            let name = plain_word(child.child(0)?, src, true)?;
            if name.is_empty() || RESERVED_WORDS.contains(&name.as_str()) {
                return None;
            }
            argv.push(name);
        } else {
            argv.push(plain_word(child, src, true)?);
        }
    }
    (!argv.is_empty()).then_some(argv)
}

/// The value of one plain word, or `None` if it is not plain.
fn plain_word(node: Node<'_>, src: &str, allow_concatenation: bool) -> Option<String> {
    let text = node_text(node, src)?;
    match node.kind() {
        // tree-sitter-bash gives these operators of `test` their own tokens; to the shell they
        // are ordinary words.
        "==" | "=~" if !node.is_named() && allow_concatenation => Some(text.to_owned()),
        "word" | "number" => {
            if node.child_count() != 0 || text.chars().any(unsafe_unquoted) {
                return None;
            }
            Some(text.to_owned())
        }
        "raw_string" => text
            .strip_prefix('\'')
            .and_then(|t| t.strip_suffix('\''))
            .map(str::to_owned),
        "string" => {
            for child in children_of(node) {
                let ok = if child.is_named() {
                    child.kind() == "string_content"
                } else {
                    child.kind() == "\""
                };
                if !ok {
                    return None;
                }
            }
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            if inner.contains(['$', '`']) {
                return None;
            }
            Some(unescape_double_quoted(inner))
        }
        "concatenation" if allow_concatenation => {
            let mut value = String::new();
            let mut prev_end = node.start_byte();
            for child in children_of(node) {
                if child.start_byte() != prev_end {
                    return None;
                }
                prev_end = child.end_byte();
                value.push_str(&plain_word(child, src, false)?);
            }
            if prev_end != node.end_byte() {
                return None;
            }
            Some(value)
        }
        _ => None,
    }
}

/// Removes the backslashes that are special inside double quotes (before `\`, `"`, `$`, `` ` ``
/// and newline, the last one removed together with the newline).
fn unescape_double_quoted(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&next @ ('\\' | '"' | '$' | '`')) => {
                    out.push(next);
                    chars.next();
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Every command (deny and ask rules)
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Collector {
    out: Vec<Vec<String>>,
    seen: HashSet<Vec<String>>,
    listed_words: usize,
    work_words: usize,
    total_parsed: usize,
    parse_error: bool,
    limit_hit: bool,
    uncertain: bool,
}

/// A word as found in the tree: its normalised text, and whether that text is exactly what the
/// shell would use (no expansion, substitution, glob or brace).
struct LooseWord {
    text: String,
    literal: bool,
}

/// What looking through a wrapper found.
#[derive(Default)]
struct Unwrapped {
    /// Further argvs the line runs (the wrapped command, or every candidate for it).
    argvs: Vec<Vec<String>>,
    /// Command strings the command will run, to be parsed.
    scripts: Vec<String>,
    /// The command reads commands from somewhere we cannot see (for example `… | sh`).
    opaque: bool,
    /// Not every candidate was listed (too many words after a wrapper).
    truncated: bool,
}

impl Collector {
    /// Parses a nested command string and collects its commands.
    fn collect_script(&mut self, src: &str, level: usize) {
        if level > MAX_SCRIPT_NESTING || src.len() > MAX_COMMAND_LEN {
            self.limit_hit = true;
            return;
        }
        self.total_parsed = self.total_parsed.saturating_add(src.len());
        if self.total_parsed > MAX_TOTAL_PARSED {
            self.limit_hit = true;
            return;
        }
        match parse_tree(src) {
            Some(tree) => self.walk(&tree, src, level),
            None => self.parse_error = true,
        }
    }

    fn walk(&mut self, tree: &Tree, src: &str, level: usize) {
        let root = tree.root_node();
        if root.has_error() {
            self.parse_error = true;
        }
        if !tree_covers_text(root, src) {
            self.uncertain = true;
        }
        let mut stack = vec![(root, 0usize)];
        while let Some((node, depth)) = stack.pop() {
            if depth > MAX_TREE_DEPTH {
                self.limit_hit = true;
                continue;
            }
            match node.kind() {
                "command" => self.command(node, src, level),
                // `((…))` is arithmetic in bash but two nested subshells in dash.
                "compound_statement" if node.child(0).is_some_and(|c| c.kind() == "((") => {
                    self.uncertain = true;
                }
                "declaration_command" | "unset_command" => self.declaration(node, src),
                _ => {}
            }
            for child in children_of(node).into_iter().rev() {
                stack.push((child, depth + 1));
            }
        }
    }

    /// `export`, `declare`, `local`, `readonly`, `typeset`, `unset`: listed as commands too.
    fn declaration(&mut self, node: Node<'_>, src: &str) {
        let mut argv = Vec::new();
        for child in children_of(node) {
            if child.is_named() {
                argv.push(loose_word(child, src, 0).text);
            } else if let Some(text) = node_text(child, src) {
                argv.push(text.to_owned());
            }
        }
        if !argv.is_empty() {
            self.push(argv);
        }
    }

    fn command(&mut self, node: Node<'_>, src: &str, level: usize) {
        let Some(name_node) = node.child_by_field_name("name") else {
            return;
        };
        let Some(name_inner) = name_node.named_child(0) else {
            return;
        };
        let name = loose_word(name_inner, src, 0);
        if !name.literal {
            self.uncertain = true;
        }
        let mut argv = vec![basename(&name.text).to_owned()];
        let mut cursor = node.walk();
        for arg in node.children_by_field_name("argument", &mut cursor) {
            argv.push(loose_word(arg, src, 0).text);
        }

        // Text fed to the command's standard input by here-documents and here-strings.
        let mut stdin_scripts = Vec::new();
        for child in children_of(node) {
            if child.kind() == "herestring_redirect" {
                stdin_scripts.extend(redirect_text(child, src));
            }
        }
        if let Some(parent) = node.parent().filter(|p| p.kind() == "redirected_statement") {
            for child in children_of(parent) {
                if matches!(child.kind(), "heredoc_redirect" | "herestring_redirect") {
                    stdin_scripts.extend(redirect_text(child, src));
                }
            }
        }

        self.expand(argv, &stdin_scripts, level);
    }

    /// Lists `argv` and everything it is found to run, looking through wrappers. Text fed to the
    /// command's standard input is parsed if the command turns out to be a shell reading it.
    fn expand(&mut self, argv: Vec<String>, stdin_scripts: &[String], level: usize) {
        let mut queue = vec![argv];
        let mut visited = HashSet::new();
        let mut stdin_parsed = false;
        while let Some(argv) = queue.pop() {
            if !visited.insert(argv.clone()) {
                continue;
            }
            if argv.first().is_some_and(|name| !is_literal_name(name)) {
                self.uncertain = true;
            }
            let is_new = self.push(argv.clone());
            // An argv listed before was looked through then; only the search for a shell
            // reading this command's standard input needs to go on.
            if !is_new && stdin_scripts.is_empty() {
                continue;
            }
            if self.work_words > MAX_WORK_WORDS {
                self.limit_hit = true;
                continue;
            }
            let found = unwrap_command(&argv);
            self.work_words = found.argvs.iter().map(Vec::len).fold(
                self.work_words.saturating_add(argv.len()),
                usize::saturating_add,
            );
            if found.truncated {
                self.limit_hit = true;
            }
            if found.opaque {
                if stdin_scripts.is_empty() {
                    self.uncertain = true;
                } else if !stdin_parsed {
                    stdin_parsed = true;
                    for script in stdin_scripts {
                        self.collect_script(script, level + 1);
                    }
                }
            }
            if is_new {
                for script in &found.scripts {
                    self.collect_script(script, level + 1);
                }
            }
            queue.extend(found.argvs.into_iter().rev());
        }
    }

    /// Adds an argv unless already listed; `false` if it was not added.
    fn push(&mut self, argv: Vec<String>) -> bool {
        if argv.is_empty() || self.seen.contains(&argv) {
            return false;
        }
        if self.listed_words.saturating_add(argv.len()) > MAX_LISTED_WORDS {
            self.limit_hit = true;
            return false;
        }
        self.listed_words += argv.len();
        self.seen.insert(argv.clone());
        self.out.push(argv);
        true
    }

    /// Lists every suffix of the line's words (cut to a bounded length).
    fn add_fallback(&mut self, tokens: &[String]) {
        for start in 0..tokens.len().min(FALLBACK_LISTED_STARTS) {
            let end = start
                .saturating_add(FALLBACK_SUFFIX_WORDS)
                .min(tokens.len());
            let Some(words) = tokens.get(start..end) else {
                continue;
            };
            let mut argv = words.to_vec();
            if let Some(first) = argv.first_mut() {
                *first = basename(first).to_owned();
            }
            // The fallback must be listed whatever the budget, so it does not use `push`.
            if !self.seen.contains(&argv) {
                self.seen.insert(argv.clone());
                self.out.push(argv);
            }
        }
    }
}

/// Whether every character outside the tree's tokens is blank (whitespace or a line
/// continuation). tree-sitter-bash occasionally drops text without reporting an error (the `-`
/// of `- a=`), and a command could hide there.
fn tree_covers_text(root: Node<'_>, src: &str) -> bool {
    let mut ranges = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.child_count() == 0
            || matches!(
                node.kind(),
                "string" | "raw_string" | "translated_string" | "ansi_c_string" | "heredoc_body"
            )
        {
            ranges.push(node.byte_range());
        } else {
            stack.extend(children_of(node));
        }
    }
    ranges.sort_by_key(|r| r.start);
    let mut pos = 0;
    for range in ranges {
        if range.start > pos && !is_blank_gap(src.get(pos..range.start).unwrap_or("?")) {
            return false;
        }
        pos = pos.max(range.end);
    }
    is_blank_gap(src.get(pos..).unwrap_or("?"))
}

fn is_blank_gap(gap: &str) -> bool {
    gap.replace("\\\r\n", "")
        .replace("\\\n", "")
        .chars()
        .all(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

/// The text a here-document or here-string redirect feeds to standard input.
fn redirect_text(node: Node<'_>, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for child in children_of(node) {
        match child.kind() {
            "heredoc_body" => {
                if let Some(text) = node_text(child, src) {
                    out.push(text.to_owned());
                }
            }
            "heredoc_start" | "heredoc_end" | "file_descriptor" => {}
            _ if child.is_named() => out.push(loose_word(child, src, 0).text),
            _ => {}
        }
    }
    out
}

/// A command name is literal if the shell would not expand it.
fn is_literal_name(name: &str) -> bool {
    name == "[" || name == "[[" || !name.contains(['$', '`', '*', '?', '[', '{', '(', '<'])
}

/// The last `/`-separated part of a command name (`/bin/rm` is `rm`); the name itself if that
/// part would be empty.
fn basename(name: &str) -> &str {
    match name.rsplit('/').next() {
        Some(last) if !last.is_empty() => last,
        _ => name,
    }
}

/// Normalises any word-like node: quotes and backslashes removed, `$'…'` decoded, expansions
/// and substitutions kept as (unquoted) text and marked as not literal.
fn loose_word(node: Node<'_>, src: &str, depth: usize) -> LooseWord {
    let text = node_text(node, src).unwrap_or_default();
    if depth > 8 {
        return LooseWord {
            text: strip_quoting(text),
            literal: false,
        };
    }
    match node.kind() {
        "word" => LooseWord {
            text: unescape_unquoted(text),
            literal: !text.contains(['*', '?', '[', '{', '$', '`']),
        },
        "number" => LooseWord {
            text: text.to_owned(),
            literal: node.child_count() == 0,
        },
        "raw_string" => LooseWord {
            text: text
                .strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
                .unwrap_or(text)
                .to_owned(),
            literal: true,
        },
        "ansi_c_string" => LooseWord {
            text: decode_ansi_c(
                text.strip_prefix("$'")
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or(text),
            ),
            literal: true,
        },
        "string" | "translated_string"
            if children_of(node)
                .iter()
                .all(|c| !c.is_named() || c.kind() == "string_content") =>
        {
            let inner = text
                .strip_prefix('$')
                .unwrap_or(text)
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .unwrap_or(text);
            LooseWord {
                text: unescape_double_quoted(inner),
                literal: true,
            }
        }
        "string" | "translated_string" => {
            let mut out = String::new();
            let mut literal = true;
            let mut prev_end = None;
            for child in children_of(node) {
                match child.kind() {
                    "string_content" => {
                        // Text between two content pieces (a newline) belongs to the string.
                        if let Some(gap) = prev_end.and_then(|end| src.get(end..child.start_byte()))
                        {
                            out.push_str(gap);
                        }
                        out.push_str(&unescape_double_quoted(
                            node_text(child, src).unwrap_or_default(),
                        ));
                    }
                    "\"" | "$\"" => {}
                    _ => {
                        literal = false;
                        out.push_str(&strip_quoting(node_text(child, src).unwrap_or_default()));
                    }
                }
                prev_end = Some(child.end_byte());
            }
            LooseWord { text: out, literal }
        }
        "concatenation" => {
            let mut out = String::new();
            let mut literal = true;
            for child in children_of(node) {
                let part = loose_word(child, src, depth + 1);
                literal &= part.literal;
                out.push_str(&part.text);
            }
            LooseWord { text: out, literal }
        }
        _ => LooseWord {
            text: strip_quoting(text),
            literal: false,
        },
    }
}

/// Removes unquoted backslashes (`\x` is `x`, backslash-newline disappears).
fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Removes every quote and backslash, and a `$` right before a quote (`$'…'`, `$"…"`).
fn strip_quoting(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' | '\'' | '"' => {}
            '$' if matches!(chars.peek(), Some('\'' | '"')) => {}
            _ => out.push(c),
        }
    }
    out
}

/// Decodes the body of a bash `$'…'` string.
fn decode_ansi_c(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.get(i) else {
            out.push('\\');
            break;
        };
        i += 1;
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (radix, max_digits) = match e {
            '0'..='7' => {
                i -= 1;
                (8, 3)
            }
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            'c' => {
                if let Some(&ctl) = chars.get(i) {
                    i += 1;
                    out.push(char::from_u32(u32::from(ctl) & 0x1f).unwrap_or('?'));
                }
                continue;
            }
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut value: u32 = 0;
        let mut digits = 0;
        while digits < max_digits {
            match chars.get(i).and_then(|d| d.to_digit(radix)) {
                Some(d) => {
                    value = value.saturating_mul(radix).saturating_add(d);
                    i += 1;
                    digits += 1;
                }
                None => break,
            }
        }
        if digits == 0 {
            out.push('\\');
            out.push(e);
        } else if let Some(ch) = char::from_u32(value) {
            out.push(ch);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Wrappers
// ---------------------------------------------------------------------------------------------

/// Option syntax of a wrapper command.
struct OptSpec {
    /// Short options without an argument.
    flags: &'static str,
    /// Short options taking an argument (attached or the next word).
    with_arg: &'static str,
    /// Short options whose argument can only be attached.
    optional_arg: &'static str,
    /// Long options without an argument (or with an optional `=value`).
    long_flags: &'static [&'static str],
    /// Long options taking an argument (`--x=v` or `--x v`).
    long_with_arg: &'static [&'static str],
    /// `NAME=value` words before the command are skipped (`env`, `sudo`).
    assignments: bool,
    /// `-10` style numeric options are accepted (`nice`).
    numeric: bool,
}

const NO_OPTS: OptSpec = OptSpec {
    flags: "",
    with_arg: "",
    optional_arg: "",
    long_flags: &[],
    long_with_arg: &[],
    assignments: false,
    numeric: false,
};

/// The result of reading a wrapper's options.
struct Options {
    /// Index of the first operand (the wrapped command).
    operands: usize,
    /// Options seen, with their argument if any (short options by their letter).
    seen: Vec<(String, Option<String>)>,
}

/// Reads options per `spec`; `Err(i)` when the word at `i` is an option we do not know.
fn read_options(args: &[String], spec: &OptSpec) -> Result<Options, usize> {
    let mut seen = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return Ok(Options {
                operands: i + 1,
                seen,
            });
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            if spec.long_with_arg.contains(&name) {
                if value.is_some() {
                    seen.push((name.to_owned(), value));
                } else {
                    seen.push((name.to_owned(), args.get(i + 1).cloned()));
                    i += 1;
                }
            } else if spec.long_flags.contains(&name) {
                seen.push((name.to_owned(), value));
            } else {
                return Err(i);
            }
            i += 1;
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            if spec.numeric && cluster.chars().all(|c| c.is_ascii_digit()) {
                seen.push((cluster.to_owned(), None));
                i += 1;
                continue;
            }
            let mut consumed_next = false;
            for (pos, c) in cluster.char_indices() {
                let rest = cluster.get(pos + c.len_utf8()..).unwrap_or_default();
                if spec.with_arg.contains(c) {
                    if rest.is_empty() {
                        seen.push((c.to_string(), args.get(i + 1).cloned()));
                        consumed_next = true;
                    } else {
                        seen.push((c.to_string(), Some(rest.to_owned())));
                    }
                    break;
                } else if spec.optional_arg.contains(c) {
                    seen.push((c.to_string(), Some(rest.to_owned())));
                    break;
                } else if spec.flags.contains(c) {
                    seen.push((c.to_string(), None));
                } else {
                    return Err(i);
                }
            }
            i += if consumed_next { 2 } else { 1 };
            continue;
        }
        if spec.assignments && is_assignment(arg) {
            i += 1;
            continue;
        }
        break;
    }
    Ok(Options { operands: i, seen })
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            let mut chars = name.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// `args[start..]` as a command (name reduced to its basename), if not empty.
fn command_at(args: &[String], start: usize) -> Option<Vec<String>> {
    let rest = args.get(start..)?;
    let (first, tail) = rest.split_first()?;
    let mut command = Vec::with_capacity(rest.len());
    command.push(basename(first).to_owned());
    command.extend(tail.iter().cloned());
    Some(command)
}

/// Every suffix of `args` from `start` on, as commands (at most [`MAX_SUFFIX_STARTS`] of them;
/// `found.truncated` is set when there were more).
fn all_suffixes(args: &[String], start: usize, found: &mut Unwrapped) -> Vec<Vec<String>> {
    let end = args.len().min(start.saturating_add(MAX_SUFFIX_STARTS));
    if end < args.len() {
        found.truncated = true;
    }
    (start..end).filter_map(|i| command_at(args, i)).collect()
}

/// Looks through a wrapper with known option syntax: the command after its options, or every
/// suffix after an option we do not know. Returns the options seen.
fn after_options(
    args: &[String],
    spec: &OptSpec,
    found: &mut Unwrapped,
) -> Vec<(String, Option<String>)> {
    match read_options(args, spec) {
        Ok(opts) => {
            found.argvs.extend(command_at(args, opts.operands));
            opts.seen
        }
        Err(i) => {
            found.argvs = all_suffixes(args, i, found);
            Vec::new()
        }
    }
}

fn option_values(seen: &[(String, Option<String>)], names: &[&str]) -> Vec<String> {
    seen.iter()
        .filter(|(n, _)| names.contains(&n.as_str()))
        .filter_map(|(_, v)| v.clone())
        .collect()
}

const COMMAND_OPTS: OptSpec = OptSpec {
    flags: "pvV",
    ..NO_OPTS
};

const EXEC_OPTS: OptSpec = OptSpec {
    flags: "cl",
    with_arg: "a",
    ..NO_OPTS
};

const ENV_OPTS: OptSpec = OptSpec {
    flags: "i0v",
    with_arg: "uCSP",
    long_flags: &[
        "ignore-environment",
        "null",
        "debug",
        "default-signal",
        "ignore-signal",
        "block-signal",
        "list-signal-handling",
    ],
    long_with_arg: &["unset", "chdir", "split-string"],
    assignments: true,
    ..NO_OPTS
};

const SUDO_OPTS: OptSpec = OptSpec {
    flags: "AbEeHiKklnPSsVvBN",
    with_arg: "CDghpRrtTUu",
    long_flags: &[
        "askpass",
        "background",
        "bell",
        "edit",
        "help",
        "list",
        "login",
        "non-interactive",
        "preserve-env",
        "preserve-groups",
        "remove-timestamp",
        "reset-timestamp",
        "set-home",
        "shell",
        "stdin",
        "validate",
        "version",
    ],
    long_with_arg: &[
        "chdir",
        "close-from",
        "group",
        "host",
        "prompt",
        "chroot",
        "role",
        "type",
        "command-timeout",
        "other-user",
        "user",
    ],
    assignments: true,
    ..NO_OPTS
};

const DOAS_OPTS: OptSpec = OptSpec {
    flags: "nsL",
    with_arg: "uC",
    ..NO_OPTS
};

const SETSID_OPTS: OptSpec = OptSpec {
    flags: "cfw",
    long_flags: &["ctty", "fork", "wait"],
    ..NO_OPTS
};

const TIME_OPTS: OptSpec = OptSpec {
    flags: "pvqa",
    with_arg: "fo",
    long_flags: &["portability", "verbose", "quiet", "append"],
    long_with_arg: &["format", "output"],
    ..NO_OPTS
};

const NICE_OPTS: OptSpec = OptSpec {
    with_arg: "n",
    long_with_arg: &["adjustment"],
    numeric: true,
    ..NO_OPTS
};

const TIMEOUT_OPTS: OptSpec = OptSpec {
    flags: "v",
    with_arg: "sk",
    long_flags: &["preserve-status", "foreground", "verbose"],
    long_with_arg: &["signal", "kill-after"],
    ..NO_OPTS
};

const STDBUF_OPTS: OptSpec = OptSpec {
    with_arg: "ioe",
    long_with_arg: &["input", "output", "error"],
    ..NO_OPTS
};

const XARGS_OPTS: OptSpec = OptSpec {
    flags: "0oprtx",
    with_arg: "adEILnPs",
    optional_arg: "eil",
    long_flags: &[
        "null",
        "interactive",
        "no-run-if-empty",
        "verbose",
        "exit",
        "open-tty",
        "show-limits",
        "eof",
        "replace",
        "max-lines",
    ],
    long_with_arg: &[
        "arg-file",
        "delimiter",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
    ],
    ..NO_OPTS
};

const WATCH_OPTS: OptSpec = OptSpec {
    flags: "bcCegprtxw",
    with_arg: "nq",
    optional_arg: "d",
    long_flags: &[
        "beep",
        "color",
        "no-color",
        "errexit",
        "chgexit",
        "precise",
        "no-rerun",
        "no-title",
        "exec",
        "no-wrap",
        "differences",
    ],
    long_with_arg: &["interval", "equexit"],
    ..NO_OPTS
};

const SSH_OPTS: OptSpec = OptSpec {
    flags: "46AaCfGgKkMNnqsTtVvXxYy",
    with_arg: "BbcDEeFIiJLlmOoPpQRSWw",
    ..NO_OPTS
};

/// What a command runs besides itself: wrapped commands, command strings, or commands read
/// from standard input.
fn unwrap_command(command: &[String]) -> Unwrapped {
    let mut found = Unwrapped::default();
    let Some((name, args)) = command.split_first() else {
        return found;
    };
    let name = name.as_str();
    match name {
        "command" => {
            after_options(args, &COMMAND_OPTS, &mut found);
        }
        "builtin" | "busybox" | "noglob" | "nocorrect" => {
            found.argvs.extend(command_at(args, 0));
        }
        "exec" => {
            after_options(args, &EXEC_OPTS, &mut found);
        }
        "env" => {
            let seen = after_options(args, &ENV_OPTS, &mut found);
            found.scripts = option_values(&seen, &["S", "split-string"]);
        }
        "sudo" => {
            after_options(args, &SUDO_OPTS, &mut found);
        }
        "doas" => {
            after_options(args, &DOAS_OPTS, &mut found);
        }
        "nohup" => {
            after_options(args, &NO_OPTS, &mut found);
        }
        "setsid" => {
            after_options(args, &SETSID_OPTS, &mut found);
        }
        "time" => {
            after_options(args, &TIME_OPTS, &mut found);
        }
        "nice" => {
            after_options(args, &NICE_OPTS, &mut found);
        }
        "stdbuf" => {
            after_options(args, &STDBUF_OPTS, &mut found);
        }
        "timeout" => match read_options(args, &TIMEOUT_OPTS) {
            // The first operand is the duration.
            Ok(opts) => found.argvs.extend(command_at(args, opts.operands + 1)),
            Err(i) => found.argvs = all_suffixes(args, i, &mut found),
        },
        "xargs" => match read_options(args, &XARGS_OPTS) {
            // Without a command, xargs runs `echo`.
            Ok(opts) => found
                .argvs
                .push(command_at(args, opts.operands).unwrap_or_else(|| vec!["echo".to_owned()])),
            Err(i) => found.argvs = all_suffixes(args, i, &mut found),
        },
        "find" => found.argvs = find_exec_commands(args),
        "watch" => match read_options(args, &WATCH_OPTS) {
            // `watch` runs its arguments joined with spaces through `sh -c` (argv with -x).
            Ok(opts) => {
                found.argvs.extend(command_at(args, opts.operands));
                if let Some(rest) = args.get(opts.operands..).filter(|r| !r.is_empty()) {
                    found.scripts.push(rest.join(" "));
                }
            }
            Err(i) => found.argvs = all_suffixes(args, i, &mut found),
        },
        "ssh" => match read_options(args, &SSH_OPTS) {
            // The first operand is the host; the rest is a command line run remotely.
            Ok(opts) => {
                if let Some(rest) = args.get(opts.operands + 1..).filter(|r| !r.is_empty()) {
                    found.scripts.push(rest.join(" "));
                }
            }
            Err(i) => found.argvs = all_suffixes(args, i, &mut found),
        },
        "eval" if !args.is_empty() => found.scripts.push(args.join(" ")),
        "trap" => found
            .scripts
            .extend(args.iter().find(|a| !a.starts_with('-')).cloned()),
        "alias" => found.scripts.extend(
            args.iter()
                .filter_map(|a| a.split_once('=').map(|(_, value)| value.to_owned())),
        ),
        "su" | "script" => found.scripts = dash_c_values(args),
        _ if SHELLS.contains(&name) => shell_invocation(args, &mut found),
        _ if GENERIC_WRAPPERS.contains(&name) => {
            found.argvs = all_suffixes(args, 0, &mut found);
            found.scripts = dash_c_values(args);
        }
        _ => {}
    }
    found
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir` actions (up to `;` or `+`).
fn find_exec_commands(args: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i;
            while args.get(i).is_some_and(|a| a != ";" && a != "+") {
                i += 1;
            }
            out.extend(args.get(start..i).and_then(|a| command_at(a, 0)));
        }
    }
    out
}

/// Values of `-c X`, `-cX`, `--command X` and `--command=X`.
fn dash_c_values(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "-c" || arg == "--command" {
            if let Some(value) = iter.next() {
                out.push(value.clone());
            }
        } else if let Some(value) = arg.strip_prefix("--command=") {
            out.push(value.to_owned());
        } else if let Some(value) = arg.strip_prefix("-c").filter(|v| !v.is_empty()) {
            out.push(value.to_owned());
        }
    }
    out
}

/// `bash -c '…'` (and `-lc`, `-xc`, `--command`…): every operand may be the command string, so
/// all are parsed. Without `-c`, a shell with no script file reads commands from its input.
fn shell_invocation(args: &[String], found: &mut Unwrapped) {
    let mut has_c = false;
    let mut reads_stdin = false;
    let mut operands = Vec::new();
    let mut after_dashdash = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if after_dashdash {
            operands.push(arg.clone());
        } else if arg == "--" {
            after_dashdash = true;
        } else if arg == "--command" {
            has_c = true;
            if let Some(value) = iter.next() {
                operands.push(value.clone());
            }
        } else if let Some(value) = arg.strip_prefix("--command=") {
            has_c = true;
            operands.push(value.to_owned());
        } else if arg.starts_with("--") {
            // Long options such as --norc, --login.
        } else if let Some(cluster) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) {
            if cluster.is_empty() {
                reads_stdin = true;
            }
            has_c |= cluster.contains('c');
            reads_stdin |= cluster.contains('s');
        } else {
            operands.push(arg.clone());
        }
    }
    if has_c {
        found.scripts = operands;
    } else if reads_stdin || operands.is_empty() {
        found.opaque = true;
    }
}

// ---------------------------------------------------------------------------------------------
// Fallback
// ---------------------------------------------------------------------------------------------

/// The line split on whitespace and shell operators, each word with its quotes and backslashes
/// removed. Empty words are dropped.
fn fallback_tokens_of(line: &str) -> Vec<String> {
    line.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ';' | '&' | '|' | '(' | ')' | '<' | '>' | '`' | '{' | '}' | ','
            )
    })
    .map(strip_quoting)
    .filter(|t| !t.is_empty())
    .collect()
}

// ---------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------

/// One piece of a pattern word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordPart {
    /// These characters, literally.
    Literal(String),
    /// `*`: any run of characters (possibly empty) within the word.
    AnyChars,
    /// `?`: exactly one character.
    AnyChar,
}

/// Why a rule pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// The pattern has no words.
    Empty,
    /// The pattern starts with the `*` word: it would match every command.
    NoCommandWord,
    /// A `*` word appears before the last word.
    StarNotLast,
    /// A quote is not closed.
    UnclosedQuote(char),
    /// The pattern ends with a lone backslash.
    TrailingBackslash,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "the pattern is empty; it needs at least a command name"),
            Self::NoCommandWord => write!(
                f,
                "the pattern must start with a command name, not `*` (that would match every command)"
            ),
            Self::StarNotLast => write!(
                f,
                "a lone `*` word (\"any further words\") may only be the last word of the pattern"
            ),
            Self::UnclosedQuote(q) => write!(f, "the pattern has an unclosed {q} quote"),
            Self::TrailingBackslash => write!(f, "the pattern ends with a lone backslash"),
        }
    }
}

impl std::error::Error for PatternError {}

/// A rule pattern over a command's words: `git status *` is the words `git`, `status`, then
/// any further words (the `*` word is only allowed last); without a final `*` word the argv
/// must have exactly the pattern's words. Inside a word, unquoted `*` and `?` are wildcards
/// that never cross a word boundary; quoted ones are literal. Quoting follows the shell:
/// `'…'`, `"…"` (with `\\`, `\"`, `\$`, `` \` `` escapes) and `\x` outside quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    words: Vec<String>,
    globs: Vec<Vec<WordPart>>,
    any_further: bool,
}

/// Structured description of a pattern, for the UI to put into words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternDescription {
    /// The words the command must start with, each as literal pieces and wildcards.
    pub words: Vec<Vec<WordPart>>,
    /// Whether any further words may follow (the pattern ended with the `*` word).
    pub any_further_words: bool,
}

/// Describes a pattern as data the UI can turn into words.
#[must_use]
pub fn describe_pattern(p: &CommandPattern) -> PatternDescription {
    PatternDescription {
        words: p.globs.clone(),
        any_further_words: p.any_further,
    }
}

impl CommandPattern {
    /// Parses a rule pattern.
    ///
    /// # Errors
    ///
    /// [`PatternError`] for an empty pattern, a pattern that starts with the `*` word, a `*`
    /// word that is not last, an unclosed quote or a trailing lone backslash.
    pub fn parse(pattern: &str) -> Result<CommandPattern, PatternError> {
        let raw = split_pattern(pattern)?;
        let mut words = Vec::new();
        let mut globs = Vec::new();
        let mut any_further = false;
        let count = raw.len();
        for (i, parts) in raw.into_iter().enumerate() {
            if parts == [WordPart::AnyChars] {
                if i == 0 {
                    return Err(PatternError::NoCommandWord);
                }
                if i + 1 != count {
                    return Err(PatternError::StarNotLast);
                }
                any_further = true;
                continue;
            }
            words.push(parts_text(&parts));
            globs.push(parts);
        }
        if words.is_empty() {
            return Err(PatternError::Empty);
        }
        Ok(CommandPattern {
            words,
            globs,
            any_further,
        })
    }

    /// Builds the pattern that matches exactly these words (no wildcards).
    #[must_use]
    pub fn exact(argv: &[String]) -> Option<CommandPattern> {
        if argv.is_empty() {
            return None;
        }
        Some(CommandPattern {
            words: argv.to_vec(),
            globs: argv
                .iter()
                .map(|w| {
                    if w.is_empty() {
                        Vec::new()
                    } else {
                        vec![WordPart::Literal(w.clone())]
                    }
                })
                .collect(),
            any_further: false,
        })
    }

    /// Whether `argv` matches: each of the pattern's words matches the argv word at the same
    /// place, and the argv has no further words unless the pattern ends with `*`.
    #[must_use]
    pub fn matches(&self, argv: &[String]) -> bool {
        if argv.len() < self.globs.len() || (!self.any_further && argv.len() != self.globs.len()) {
            return false;
        }
        self.globs
            .iter()
            .zip(argv)
            .all(|(parts, word)| glob_matches(parts, word))
    }

    /// The pattern's words with quotes removed (without the final `*` word). Wildcards appear
    /// as `*` and `?`; use [`describe_pattern`] to tell them from literal characters.
    #[must_use]
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Whether the pattern ends with the `*` word: any further words may follow.
    #[must_use]
    pub fn any_further_words(&self) -> bool {
        self.any_further
    }

    /// The same pattern with its first word reduced to the part after its last `/`.
    fn with_basename_first(&self) -> CommandPattern {
        let mut out = self.clone();
        if let Some(first) = out.globs.first_mut() {
            let slash = first.iter().rposition(|p| match p {
                WordPart::Literal(s) => s.contains('/'),
                _ => false,
            });
            if let Some(pos) = slash {
                let mut tail: Vec<WordPart> = first.split_off(pos);
                if let Some(WordPart::Literal(s)) = tail.first_mut() {
                    *s = s.rsplit('/').next().unwrap_or_default().to_owned();
                    if s.is_empty() {
                        tail.remove(0);
                    }
                }
                if !tail.is_empty() {
                    *first = tail;
                }
            }
            if let Some(word) = out.words.first_mut() {
                *word = parts_text(first);
            }
        }
        out
    }
}

impl fmt::Display for CommandPattern {
    /// The pattern in canonical form; it parses back to an equal pattern.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for parts in &self.globs {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            f.write_str(&quote_parts(parts))?;
        }
        if self.any_further {
            f.write_str(" *")?;
        }
        Ok(())
    }
}

fn parts_text(parts: &[WordPart]) -> String {
    parts
        .iter()
        .map(|p| match p {
            WordPart::Literal(s) => s.as_str(),
            WordPart::AnyChars => "*",
            WordPart::AnyChar => "?",
        })
        .collect()
}

/// Shell-quotes a pattern word: wildcards bare, literal text quoted when needed.
fn quote_parts(parts: &[WordPart]) -> String {
    if parts.is_empty() {
        return "''".to_owned();
    }
    let mut out = String::new();
    for part in parts {
        match part {
            WordPart::Literal(s) => out.push_str(&quote_literal(s)),
            WordPart::AnyChars => out.push('*'),
            WordPart::AnyChar => out.push('?'),
        }
    }
    out
}

/// Shell-quotes literal text so that it reads back as the same characters and no wildcard.
fn quote_literal(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-+=/.,:@%^".contains(c));
    if safe {
        return s.to_owned();
    }
    let mut out = String::from("'");
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

fn push_literal(parts: &mut Vec<WordPart>, c: char) {
    if let Some(WordPart::Literal(s)) = parts.last_mut() {
        s.push(c);
    } else {
        parts.push(WordPart::Literal(c.to_string()));
    }
}

/// Splits a pattern into words with shell-like quoting.
fn split_pattern(pattern: &str) -> Result<Vec<Vec<WordPart>>, PatternError> {
    let mut words = Vec::new();
    let mut current: Option<Vec<WordPart>> = None;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if let Some(word) = current.take() {
                    words.push(word);
                }
            }
            '\'' => {
                let word = current.get_or_insert_with(Vec::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(q) => push_literal(word, q),
                        None => return Err(PatternError::UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                let word = current.get_or_insert_with(Vec::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('\\' | '"' | '$' | '`')) => push_literal(word, e),
                            Some('\n') => {}
                            Some(e) => {
                                push_literal(word, '\\');
                                push_literal(word, e);
                            }
                            None => return Err(PatternError::UnclosedQuote('"')),
                        },
                        Some(q) => push_literal(word, q),
                        None => return Err(PatternError::UnclosedQuote('"')),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(e) => push_literal(current.get_or_insert_with(Vec::new), e),
                None => return Err(PatternError::TrailingBackslash),
            },
            '*' => {
                let word = current.get_or_insert_with(Vec::new);
                if word.last() != Some(&WordPart::AnyChars) {
                    word.push(WordPart::AnyChars);
                }
            }
            '?' => current.get_or_insert_with(Vec::new).push(WordPart::AnyChar),
            _ => push_literal(current.get_or_insert_with(Vec::new), c),
        }
    }
    if let Some(word) = current.take() {
        words.push(word);
    }
    Ok(words)
}

/// Wildcard matching of one word (iterative, with backtracking to the last `*`).
fn glob_matches(parts: &[WordPart], word: &str) -> bool {
    enum Tok<'a> {
        Lit(&'a str),
        Star,
        One,
    }
    let toks: Vec<Tok<'_>> = parts
        .iter()
        .map(|p| match p {
            WordPart::Literal(s) => Tok::Lit(s.as_str()),
            WordPart::AnyChars => Tok::Star,
            WordPart::AnyChar => Tok::One,
        })
        .collect();
    let mut ti = 0;
    let mut wi = 0;
    let mut backtrack: Option<(usize, usize)> = None;
    loop {
        let rest = word.get(wi..).unwrap_or_default();
        let step = match toks.get(ti) {
            None if rest.is_empty() => return true,
            None => None,
            Some(Tok::Star) => {
                backtrack = Some((ti, wi));
                ti += 1;
                continue;
            }
            Some(Tok::One) => rest.chars().next().map(|c| wi + c.len_utf8()),
            Some(Tok::Lit(lit)) => rest.starts_with(lit).then(|| wi + lit.len()),
        };
        if let Some(next) = step {
            wi = next;
            ti += 1;
            continue;
        }
        // Mismatch: the last `*` takes one more character, or there is no match.
        let Some((star_token, star_at)) = backtrack else {
            return false;
        };
        let Some(c) = word.get(star_at..).and_then(|r| r.chars().next()) else {
            return false;
        };
        let resume = star_at + c.len_utf8();
        backtrack = Some((star_token, resume));
        ti = star_token + 1;
        wi = resume;
    }
}

// ---------------------------------------------------------------------------------------------
// Suggestions
// ---------------------------------------------------------------------------------------------

/// A word that looks like a sub-command name: lowercase letters and digits, inner dashes.
fn is_subcommand_word(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
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

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    fn plain(cmd: &str) -> Option<Vec<String>> {
        parse(cmd).plain_argv().map(<[String]>::to_vec)
    }

    fn lists_rm(cmd: &str) -> bool {
        parse(cmd)
            .commands()
            .iter()
            .any(|argv| argv.first().map(String::as_str) == Some("rm"))
    }

    fn pat(p: &str) -> CommandPattern {
        CommandPattern::parse(p).unwrap()
    }

    // --- plain_argv -------------------------------------------------------------------------

    #[test]
    fn plain_simple_commands() {
        assert_eq!(plain("git status"), Some(s(&["git", "status"])));
        assert_eq!(plain("git status -s"), Some(s(&["git", "status", "-s"])));
        assert_eq!(plain("echo \"hi there\""), Some(s(&["echo", "hi there"])));
        assert_eq!(plain("ls 'a b'"), Some(s(&["ls", "a b"])));
        assert_eq!(plain("  git status\n"), Some(s(&["git", "status"])));
    }

    #[test]
    fn plain_quotes_removed() {
        assert_eq!(plain("r\"\"m x"), Some(s(&["rm", "x"])));
        assert_eq!(plain("'r'm x"), Some(s(&["rm", "x"])));
        assert_eq!(plain("\"git\" status"), Some(s(&["git", "status"])));
        assert_eq!(
            plain("git commit -m \"say \\\"hi\\\" \\\\ ok\""),
            Some(s(&["git", "commit", "-m", "say \"hi\" \\ ok"]))
        );
        assert_eq!(
            plain("git commit -m \"line1\nline2\""),
            Some(s(&["git", "commit", "-m", "line1\nline2"]))
        );
        assert_eq!(plain("echo 'a\\b'"), Some(s(&["echo", "a\\b"])));
        assert_eq!(plain("rg -g'*.rs' x"), Some(s(&["rg", "-g*.rs", "x"])));
        assert_eq!(plain("echo 123 -1"), Some(s(&["echo", "123", "-1"])));
    }

    #[test]
    fn not_plain() {
        let cases = [
            "git status > ~/.ssh/authorized_keys",
            "git status >x",
            "git status 2>&1",
            "git status < x",
            "git status && rm x",
            "git status || rm x",
            "git status; rm x",
            "git status;",
            "git status\nrm x",
            "git status | sh",
            "git status $(rm x)",
            "git status `rm x`",
            "echo \"$HOME\"",
            "echo \"${HOME}\"",
            "echo \"\\$HOME\"",
            "echo $HOME",
            "echo $((1+2))",
            "FOO=1 git status",
            "(git status)",
            "{ git status; }",
            "git status &",
            "rm *.tmp",
            "ls ~",
            "ls ~/x",
            "echo {a,b}",
            "ls [ab]",
            "ls a?",
            "git st\\\natus",
            "git status \\\n -s",
            "r\\m x",
            "\\rm x",
            "echo a\\ b",
            "echo $'\\x41'",
            "echo $\"x\"",
            "cat <<EOF\nhello\nEOF",
            "cat <<< hi",
            "",
            "   ",
            "git status \"unclosed",
            "git status # comment",
            "if true; then ls; fi",
            "! ls",
            "export A=1",
            "[[ -f x ]]",
            "git status\r",
            "git\u{00A0}status",
            "echo \u{202E}txt",
            "echo \u{0}x",
            "f() { ls; }",
            "ls <(true)",
        ];
        for cmd in cases {
            assert_eq!(plain(cmd), None, "{cmd:?} should not be plain");
        }
    }

    #[test]
    fn oversized_or_deep_is_not_plain() {
        let long = format!("echo {}", "a".repeat(MAX_COMMAND_LEN));
        assert_eq!(plain(&long), None);
        let deep = format!("{}ls{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(plain(&deep), None);
        assert!(!parse(&deep).is_exhaustive() || lists_ls(&deep));
    }

    fn lists_ls(cmd: &str) -> bool {
        parse(cmd).commands().iter().any(|argv| argv == &s(&["ls"]))
    }

    // --- commands() -------------------------------------------------------------------------

    #[test]
    fn commands_find_rm_everywhere() {
        let cases = [
            "\\rm -rf x",
            "command rm x",
            "command -p rm x",
            "builtin rm x",
            "exec rm x",
            "/bin/rm x",
            "(rm x)",
            "{ rm x; }",
            "ls; rm x",
            "ls && rm x",
            "ls || rm x",
            "ls | rm x",
            "echo $(rm x)",
            "echo \"$(rm x)\"",
            "echo `rm x`",
            "cat <(rm x)",
            "bash -c 'rm -rf ~'",
            "bash -lc 'rm -rf ~'",
            "bash -xc 'rm -rf ~'",
            "/usr/bin/bash -c 'rm -rf ~'",
            "sh -c \"ls; rm x\"",
            "zsh -c 'rm x'",
            "dash -c 'rm x'",
            "eval \"rm x\"",
            "eval rm x",
            "env FOO=1 rm x",
            "env -i -u HOME FOO=1 rm x",
            "env -S 'rm x'",
            "sudo -u root rm x",
            "sudo -E -u root -- rm x",
            "sudo --user=root rm x",
            "sudo -g wheel -q rm x",
            "doas -u root rm x",
            "nohup rm x &",
            "nice -n 10 rm x",
            "nice -10 rm x",
            "time rm x",
            "timeout 5 rm x",
            "timeout -s KILL -k 1 5 rm x",
            "stdbuf -oL rm x",
            "setsid -f rm x",
            "xargs rm",
            "xargs -0 -n 1 rm",
            "xargs -I {} rm {}",
            "find . -exec rm {} \\;",
            "find . -name '*.o' -execdir rm {} +",
            "find . -ok rm {} ';'",
            "'r'm x",
            "r\"\"m x",
            "$'rm' x",
            "$'\\x72m' x",
            "if true; then rm x; fi",
            "if rm x; then :; fi",
            "while true; do rm x; done",
            "for f in a b; do rm $f; done",
            "case x in x) rm x;; esac",
            "f() { rm x; }; f",
            "function f { rm x; }",
            "rm x \"unclosed",
            "ls \"unclosed && rm x",
            "rm x > /dev/null 2>&1",
            "2>/dev/null rm x",
            "FOO=1 rm x",
            "! rm x",
            "export X=$(rm x)",
            "[[ -n $(rm x) ]]",
            "cat <<EOF\n$(rm x)\nEOF",
            "bash <<EOF\nrm x\nEOF",
            "sh <<< 'rm x'",
            "bash <<EOF\nls\nEOF\nbash <<EOF\nrm x\nEOF",
            "sudo bash <<< ls; sudo bash <<< 'rm x'",
            "sudo bash -c 'rm x'",
            "xargs sh -c 'rm x'",
            "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
            "bash -c \"bash -c 'rm x'\"",
            "watch rm x",
            "watch -n 1 'rm x'",
            "su -c 'rm x' root",
            "ssh host rm -rf /",
            "ssh -p 22 host 'rm -rf /'",
            "trap 'rm x' EXIT",
            "alias ls='rm -rf'",
            "pkexec rm x",
            "flock /tmp/l rm x",
            "busybox rm x",
            "coproc rm x",
            "{rm,-rf,x}",
            "sudo sudo rm x",
            "nohup nice timeout 5 env A=1 rm x",
        ];
        for cmd in cases {
            assert!(
                lists_rm(cmd),
                "{cmd:?} should list rm: {:?}",
                parse(cmd).commands()
            );
        }
    }

    #[test]
    fn commands_normalised() {
        assert_eq!(parse("ls -la").commands(), &[s(&["ls", "-la"])]);
        assert!(parse("ls -la").is_exhaustive());
        let p = parse("sudo -u root /bin/rm -rf 'a b'");
        assert!(p.commands().contains(&s(&["rm", "-rf", "a b"])));
        let wrapper = s(&["sudo", "-u", "root", "/bin/rm", "-rf", "a b"]);
        assert!(p.commands().contains(&wrapper));
        assert!(p.is_exhaustive());
        let p = parse("ls && git status | wc -l");
        assert_eq!(
            p.commands(),
            &[s(&["ls"]), s(&["git", "status"]), s(&["wc", "-l"])]
        );
        assert_eq!(
            parse("find . -exec rm {} \\;").commands(),
            &[
                s(&["find", ".", "-exec", "rm", "{}", ";"]),
                s(&["rm", "{}"])
            ]
        );
        // Text written by a here-document is data unless a shell reads it.
        let p = parse("cat > script.sh <<'EOF'\nrm -rf build\nEOF");
        assert_eq!(p.commands(), &[s(&["cat"])]);
        assert!(p.is_exhaustive());
        assert!(!p.matches_any(&pat("rm *")));
        assert!(!parse("git commit -m 'rm x; sudo rm y'").matches_any(&pat("rm *")));
        assert_eq!(
            parse("xargs -0").commands(),
            &[s(&["xargs", "-0"]), s(&["echo"])]
        );
    }

    #[test]
    fn commands_uncertain_cases_use_fallback() {
        // Text tree-sitter drops silently is not trusted.
        assert!(!parse("- a=").is_exhaustive());
        // Computed command names cannot be resolved.
        let p = parse("$CMD -rf x");
        assert!(!p.is_exhaustive());
        let p = parse("curl https://x | sh");
        assert!(!p.is_exhaustive());
        // A broken line lists every suffix of its words.
        let p = parse("ls x; /bin/rm y \"");
        assert!(!p.is_exhaustive());
        assert!(p.commands().contains(&s(&["rm", "y"])));
    }

    #[test]
    fn matches_any_is_conservative() {
        let deny = pat("rm *");
        for cmd in [
            "\\rm -rf /",
            "bash -c 'rm x'",
            "ls \"x && rm -rf /",
            "git status; /bin/rm a",
        ] {
            assert!(parse(cmd).matches_any(&deny), "{cmd:?}");
        }
        assert!(!parse("ls -la").matches_any(&deny));
        assert!(!parse("git commit -m 'rm x'").matches_any(&deny));
        // An exact deny pattern matches the words of a broken line even if more follow.
        assert!(parse("rm x \"unclosed").matches_any(&pat("rm x")));
        // A pattern with a path matches by basename.
        assert!(parse("rm -rf x").matches_any(&pat("/bin/rm *")));
        // Too big to inspect: every deny matches.
        let huge = "a ".repeat(MAX_INSPECTED_LEN);
        assert!(parse(&huge).matches_any(&pat("zzz")));
        // Too big to parse, but inspected by the fallback.
        let big = format!("{} rm -rf /", "echo a;".repeat(MAX_COMMAND_LEN / 7 + 1));
        let p = parse(&big);
        assert_eq!(p.plain_argv(), None);
        assert!(p.matches_any(&deny));
        assert!(!p.matches_any(&pat("shutdown *")));
    }

    #[test]
    fn scanner_bug_input_does_not_crash() {
        for cmd in [
            "{\u{e01c5}",
            "x{\u{e01c5}?&",
            "echo {12é",
            "echo {1..é}",
            "bash -c '{\u{e01c5}'",
        ] {
            let p = parse(cmd);
            assert_eq!(p.plain_argv(), None, "{cmd:?}");
            assert!(!p.is_exhaustive());
        }
        assert!(parse("rm -rf {\u{e01c5}").matches_any(&pat("rm *")));
        // Non-ASCII text elsewhere is parsed normally.
        assert_eq!(plain("echo 'héllo {x}'"), Some(s(&["echo", "héllo {x}"])));
    }

    #[test]
    fn deep_nesting_is_handled() {
        let deep = format!("{}rm x{}", "$(".repeat(5000), ")".repeat(5000));
        let p = parse(&deep);
        assert!(p.matches_any(&pat("rm *")));
        let mut nested = "rm x".to_owned();
        while nested.len() < MAX_COMMAND_LEN {
            nested = format!("sh -c {}", quote_literal(&nested));
            assert!(parse(&nested).matches_any(&pat("rm *")), "{nested}");
        }
        let chain = vec!["rm x"; 2000].join(" && ");
        assert!(parse(&chain).matches_any(&pat("rm x")));
    }

    // --- CommandPattern ---------------------------------------------------------------------

    #[test]
    fn pattern_prefix_and_exact() {
        let p = pat("git status *");
        assert!(p.matches(&s(&["git", "status"])));
        assert!(p.matches(&s(&["git", "status", "-s"])));
        assert!(!p.matches(&s(&["git", "statusx"])));
        assert!(!p.matches(&s(&["git", "push"])));
        assert!(!p.matches(&s(&["git"])));
        assert_eq!(p.words(), &s(&["git", "status"]));
        assert!(p.any_further_words());

        let p = pat("git status");
        assert!(p.matches(&s(&["git", "status"])));
        assert!(!p.matches(&s(&["git", "status", "-s"])));
        assert!(!p.any_further_words());
    }

    #[test]
    fn pattern_wildcards_stay_in_word() {
        let p = pat("rm *.tmp");
        assert!(p.matches(&s(&["rm", "a.tmp"])));
        assert!(p.matches(&s(&["rm", ".tmp"])));
        assert!(!p.matches(&s(&["rm", "-rf", "~", "a.tmp"])));
        assert!(!p.matches(&s(&["rm", "a b.tmpx"])));
        let p = pat("ls a?c");
        assert!(p.matches(&s(&["ls", "abc"])));
        assert!(p.matches(&s(&["ls", "aéc"])));
        assert!(!p.matches(&s(&["ls", "ac"])));
        let p = pat("x *a*b*");
        assert!(p.matches(&s(&["x", "zzazzbzz"])));
        assert!(!p.matches(&s(&["x", "zzbzza"])));
    }

    #[test]
    fn pattern_quoting() {
        let p = pat("echo 'a b' \"c d\" e\\ f");
        assert_eq!(p.words(), &s(&["echo", "a b", "c d", "e f"]));
        assert!(p.matches(&s(&["echo", "a b", "c d", "e f"])));
        // Quoted wildcards are literal.
        let p = pat("rm '*.tmp'");
        assert!(p.matches(&s(&["rm", "*.tmp"])));
        assert!(!p.matches(&s(&["rm", "a.tmp"])));
        let p = pat("echo '*'");
        assert!(!p.any_further_words());
        assert!(p.matches(&s(&["echo", "*"])));
        assert!(!p.matches(&s(&["echo", "x"])));
        let p = pat("echo ''");
        assert!(p.matches(&s(&["echo", ""])));
    }

    #[test]
    fn pattern_errors() {
        assert_eq!(CommandPattern::parse(""), Err(PatternError::Empty));
        assert_eq!(CommandPattern::parse("   "), Err(PatternError::Empty));
        assert_eq!(
            CommandPattern::parse("* git"),
            Err(PatternError::NoCommandWord)
        );
        assert_eq!(CommandPattern::parse("*"), Err(PatternError::NoCommandWord));
        assert_eq!(
            CommandPattern::parse("git * status"),
            Err(PatternError::StarNotLast)
        );
        assert_eq!(
            CommandPattern::parse("git * *"),
            Err(PatternError::StarNotLast)
        );
        assert_eq!(
            CommandPattern::parse("echo 'a"),
            Err(PatternError::UnclosedQuote('\''))
        );
        assert_eq!(
            CommandPattern::parse("echo \"a"),
            Err(PatternError::UnclosedQuote('"'))
        );
        assert_eq!(
            CommandPattern::parse("echo a\\"),
            Err(PatternError::TrailingBackslash)
        );
        let message = CommandPattern::parse("git * status")
            .unwrap_err()
            .to_string();
        assert!(message.contains("last"), "{message}");
    }

    #[test]
    fn pattern_display_round_trips() {
        for text in [
            "git status *",
            "rm '*.tmp'",
            "echo 'a b' ''",
            "ls *.rs",
            "echo 'it'\\''s'",
        ] {
            let p = pat(text);
            assert_eq!(pat(&p.to_string()), p, "{text} -> {p}");
        }
    }

    #[test]
    fn describe_pattern_is_structured() {
        let d = describe_pattern(&pat("rm *.tmp *"));
        assert!(d.any_further_words);
        assert_eq!(
            d.words,
            vec![
                vec![WordPart::Literal("rm".into())],
                vec![WordPart::AnyChars, WordPart::Literal(".tmp".into())],
            ]
        );
    }

    // --- suggest_pattern --------------------------------------------------------------------

    #[test]
    fn suggestions() {
        let sug = |c: &str| suggest_pattern(c);
        assert_eq!(sug("git status -s").as_deref(), Some("git status *"));
        assert_eq!(sug("git status").as_deref(), Some("git status *"));
        assert_eq!(
            sug("cargo test --release").as_deref(),
            Some("cargo test --release"),
            "cargo test --config 'target.x.runner=…' would run anything"
        );
        assert_eq!(sug("go test ./...").as_deref(), Some("go test ./..."));
        assert_eq!(sug("npm run build").as_deref(), Some("npm run build"));
        assert_eq!(sug("rm *.tmp"), None);
        assert_eq!(sug("ls && rm x"), None);
        assert_eq!(sug("rm -rf build").as_deref(), Some("rm -rf build"));
        assert_eq!(sug("rm build").as_deref(), Some("rm build"));
        assert_eq!(sug("find . -name x").as_deref(), Some("find . -name x"));
        assert_eq!(sug("bash -c 'ls'").as_deref(), Some("bash -c ls"));
        assert_eq!(sug("bash -c 'ls -la'").as_deref(), Some("bash -c 'ls -la'"));
        assert_eq!(
            sug("python3 script.py").as_deref(),
            Some("python3 script.py")
        );
        assert_eq!(
            sug("cargo run --bin x").as_deref(),
            Some("cargo run --bin x")
        );
        assert_eq!(
            sug("git -c x=y status").as_deref(),
            Some("git -c x=y status")
        );
        assert_eq!(
            sug("git log --oneline").as_deref(),
            Some("git log --oneline")
        );
        assert_eq!(sug("npm exec foo").as_deref(), Some("npm exec foo"));
        assert_eq!(
            sug("/usr/bin/git status").as_deref(),
            Some("/usr/bin/git status")
        );
        assert_eq!(sug("ls").as_deref(), Some("ls"));
        assert_eq!(
            sug("grep -r 'a*b' src").as_deref(),
            Some("grep -r 'a*b' src")
        );
        for cmd in [
            "bash -c 'ls -la'",
            "grep -r 'a*b' src",
            "echo \"it's\" ''",
            "git status -s",
        ] {
            let suggestion = sug(cmd).unwrap();
            let argv = plain(cmd).unwrap();
            assert!(pat(&suggestion).matches(&argv), "{cmd} -> {suggestion}");
        }
    }

    // --- properties -------------------------------------------------------------------------

    const RESERVED: &[&str] = &[
        "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
        "do", "done", "in", "function", "time", "coproc", "declare", "typeset", "export",
        "readonly", "local", "unset",
    ];

    /// Words without shell syntax. (tree-sitter-bash reads a final `==` or `=~` word as an
    /// unfinished test expression: such lines are not plain, which is safe, so they are left
    /// out here.)
    fn plain_word_strategy() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_./:=,+%@^-]{1,12}".prop_filter("test operator", |w| w != "==" && w != "=~")
    }

    fn command_name_strategy() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_./][A-Za-z0-9_./+^-]{0,11}"
            .prop_filter("reserved word", |w| !RESERVED.contains(&w.as_str()))
    }

    /// Any word, quoted so that the shell reads it back unchanged.
    fn quoted_word_strategy() -> impl Strategy<Value = (String, String)> {
        prop_oneof![
            plain_word_strategy().prop_map(|w| (w.clone(), w)),
            "[ -#%-_a-~]{0,12}".prop_map(|w| (w.clone(), quote_literal_for_shell(&w))),
            "[a-z$`]{0,6}".prop_map(|w| (w.clone(), format!("'{w}'"))),
            "[a-z *?\"\\\\]{0,8}".prop_map(|w| {
                let q = format!("\"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""));
                (w, q)
            }),
        ]
    }

    /// Quotes a word without `$` or backquote: single quotes, or double quotes if it has a `'`.
    fn quote_literal_for_shell(w: &str) -> String {
        if w.contains('\'') {
            format!("\"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""))
        } else {
            format!("'{w}'")
        }
    }

    proptest! {
        // 256 cases by default; set PROPTEST_CASES for a longer run.

        #[test]
        fn parse_never_panics(input in any::<String>()) {
            let p = parse(&input);
            let _ = p.plain_argv();
            let _ = p.commands();
            let _ = suggest_pattern(&input);
        }

        #[test]
        fn parse_never_panics_on_shellish(input in "[ a-z$(){}\\[\\]<>|&;'\"`\\\\*?~#!=\n-]{0,200}") {
            let p = parse(&input);
            if let Some(argv) = p.plain_argv() {
                prop_assert!(!argv.is_empty());
            }
            let _ = suggest_pattern(&input);
            let _ = p.matches_any(&pat("rm *"));
        }

        #[test]
        fn parse_survives_deep_nesting(
            depth in 1usize..3000,
            open in prop_oneof![Just("("), Just("$("), Just("{ "), Just("`"), Just("\""), Just("if "), Just("bash -c '")],
        ) {
            let cmd = format!("{}rm x", open.repeat(depth));
            let p = parse(&cmd);
            // An even number of quotes closes them all: `""rm x` is plain and runs `rm`.
            if !open.contains(['"', '\'']) {
                prop_assert!(p.plain_argv().is_none());
            }
            prop_assert!(p.matches_any(&pat("rm *")));
        }

        #[test]
        fn plain_words_round_trip(
            name in command_name_strategy(),
            args in proptest::collection::vec(plain_word_strategy(), 0..8),
        ) {
            let mut words = vec![name];
            words.extend(args);
            let cmd = words.join(" ");
            prop_assert_eq!(plain(&cmd), Some(words.clone()));
            let mut normalised = words.clone();
            normalised[0] = basename(&words[0]).to_owned();
            prop_assert!(parse(&cmd).commands().contains(&normalised));
        }

        #[test]
        fn quoted_words_round_trip_and_suggestion_matches(
            name in command_name_strategy(),
            args in proptest::collection::vec(quoted_word_strategy(), 0..6),
        ) {
            let mut words = vec![name.clone()];
            let mut line = vec![name];
            for (word, quoted) in args {
                words.push(word);
                line.push(quoted);
            }
            let cmd = line.join(" ");
            prop_assert_eq!(plain(&cmd), Some(words.clone()));
            let suggestion = suggest_pattern(&cmd);
            prop_assert!(suggestion.is_some());
            let suggestion = suggestion.unwrap_or_default();
            let pattern = CommandPattern::parse(&suggestion);
            prop_assert!(pattern.is_ok(), "{} -> {}", cmd, suggestion);
            prop_assert!(pattern.map(|p| p.matches(&words)).unwrap_or(false), "{} -> {}", cmd, suggestion);
        }

        #[test]
        fn exact_pattern_round_trips(words in proptest::collection::vec("[ -~]{0,6}", 1..5)) {
            if let Some(p) = CommandPattern::exact(&words) {
                let text = p.to_string();
                let back = CommandPattern::parse(&text);
                prop_assert!(back.is_ok(), "{}", text);
                prop_assert!(back.map(|b| b.matches(&words)).unwrap_or(false), "{}", text);
            }
        }
    }
}
