//! Rule patterns: words with `*` and `?`, parsed, shown and matched against a command's words.

use std::fmt;

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
    pub(super) words: Vec<String>,
    pub(super) globs: Vec<Vec<WordPart>>,
    pub(super) any_further: bool,
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
    pub(super) fn with_basename_first(&self) -> CommandPattern {
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

pub(super) fn parts_text(parts: &[WordPart]) -> String {
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
pub(super) fn quote_parts(parts: &[WordPart]) -> String {
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
pub(super) fn quote_literal(s: &str) -> String {
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

pub(super) fn push_literal(parts: &mut Vec<WordPart>, c: char) {
    if let Some(WordPart::Literal(s)) = parts.last_mut() {
        s.push(c);
    } else {
        parts.push(WordPart::Literal(c.to_string()));
    }
}

/// Splits a pattern into words with shell-like quoting.
pub(super) fn split_pattern(pattern: &str) -> Result<Vec<Vec<WordPart>>, PatternError> {
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
pub(super) fn glob_matches(parts: &[WordPart], word: &str) -> bool {
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
pub(super) fn is_subcommand_word(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
