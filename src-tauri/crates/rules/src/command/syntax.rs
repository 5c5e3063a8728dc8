//! Reading the command line's syntax tree: the plain command's words, and every command a
//! line may run (the collector), with the fallback that treats each word as a possible start.

use std::collections::HashSet;
use tree_sitter::{Node, Parser, Tree};

use super::*;

/// tree-sitter-bash 0.25.1's scanner passes the character after `{` (and after `{<digits>..`)
/// to C `isdigit`, which is undefined for non-ASCII characters and crashes on glibc (for example
/// on `{` followed by U+E01C5). Such text is never given to tree-sitter: it is treated as a
/// parse error (not plain; deny rules use the fallback).
pub(super) fn trips_scanner_bug(src: &str) -> bool {
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

pub(super) fn parse_tree(src: &str) -> Option<Tree> {
    if trips_scanner_bug(src) {
        return None;
    }
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    parser.parse(src, None)
}

pub(super) fn node_text<'a>(node: Node<'_>, src: &'a str) -> Option<&'a str> {
    src.get(node.byte_range())
}

pub(super) fn children_of(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

// ---------------------------------------------------------------------------------------------
// Plain commands (allow rules)
// ---------------------------------------------------------------------------------------------

/// Characters that make a line "not plain" wherever they appear: control characters other than
/// tab and newline, whitespace the shell does not treat as blank, and invisible formatting
/// characters that could make the line display differently from what runs.
pub(super) fn has_suspicious_chars(s: &str) -> bool {
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
pub(super) const UNSAFE_UNQUOTED: &str = "\\*?[]{}~$#\n'\"`()<>|&; \t";

pub(super) fn unsafe_unquoted(c: char) -> bool {
    UNSAFE_UNQUOTED.contains(c)
}

pub(super) fn only_chars(s: &str, allowed: &str) -> bool {
    s.chars().all(|c| allowed.contains(c))
}

pub(super) fn plain_argv_of(tree: &Tree, src: &str) -> Option<Vec<String>> {
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
pub(super) fn plain_word(node: Node<'_>, src: &str, allow_concatenation: bool) -> Option<String> {
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
pub(super) fn unescape_double_quoted(inner: &str) -> String {
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
pub(super) struct Collector {
    pub(super) out: Vec<Vec<String>>,
    pub(super) seen: HashSet<Vec<String>>,
    pub(super) listed_words: usize,
    pub(super) work_words: usize,
    pub(super) total_parsed: usize,
    pub(super) parse_error: bool,
    pub(super) limit_hit: bool,
    pub(super) uncertain: bool,
}

/// A word as found in the tree: its normalised text, and whether that text is exactly what the
/// shell would use (no expansion, substitution, glob or brace).
pub(super) struct LooseWord {
    pub(super) text: String,
    pub(super) literal: bool,
}

/// What looking through a wrapper found.
#[derive(Default)]
pub(super) struct Unwrapped {
    /// Further argvs the line runs (the wrapped command, or every candidate for it).
    pub(super) argvs: Vec<Vec<String>>,
    /// Command strings the command will run, to be parsed.
    pub(super) scripts: Vec<String>,
    /// The command reads commands from somewhere we cannot see (for example `… | sh`).
    pub(super) opaque: bool,
    /// Not every candidate was listed (too many words after a wrapper).
    pub(super) truncated: bool,
}

impl Collector {
    /// Parses a nested command string and collects its commands.
    pub(super) fn collect_script(&mut self, src: &str, level: usize) {
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

    pub(super) fn walk(&mut self, tree: &Tree, src: &str, level: usize) {
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
    pub(super) fn declaration(&mut self, node: Node<'_>, src: &str) {
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

    pub(super) fn command(&mut self, node: Node<'_>, src: &str, level: usize) {
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
    pub(super) fn expand(&mut self, argv: Vec<String>, stdin_scripts: &[String], level: usize) {
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
    pub(super) fn push(&mut self, argv: Vec<String>) -> bool {
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
    pub(super) fn add_fallback(&mut self, tokens: &[String]) {
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
pub(super) fn tree_covers_text(root: Node<'_>, src: &str) -> bool {
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

pub(super) fn is_blank_gap(gap: &str) -> bool {
    gap.replace("\\\r\n", "")
        .replace("\\\n", "")
        .chars()
        .all(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

/// The text a here-document or here-string redirect feeds to standard input.
pub(super) fn redirect_text(node: Node<'_>, src: &str) -> Vec<String> {
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
pub(super) fn is_literal_name(name: &str) -> bool {
    name == "[" || name == "[[" || !name.contains(['$', '`', '*', '?', '[', '{', '(', '<'])
}

/// The last `/`-separated part of a command name (`/bin/rm` is `rm`); the name itself if that
/// part would be empty.
pub(super) fn basename(name: &str) -> &str {
    match name.rsplit('/').next() {
        Some(last) if !last.is_empty() => last,
        _ => name,
    }
}

/// Normalises any word-like node: quotes and backslashes removed, `$'…'` decoded, expansions
/// and substitutions kept as (unquoted) text and marked as not literal.
pub(super) fn loose_word(node: Node<'_>, src: &str, depth: usize) -> LooseWord {
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
