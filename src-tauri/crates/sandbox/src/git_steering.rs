//! git's data that still steers git (docs/ARCHITECTURE.md, "The sandbox"; SECURITY.md, "git
//! reads more than hooks").
//!
//! Only git's data comes back from a sandboxed command's copy of a git folder
//! ([`crate::git_stage`]). Most of it is inert: objects, refs, logs. Three pieces of it are read
//! by git as instructions the next time the user runs it, outside any sandbox:
//!
//! - a rebase's or a sequence's to-do list (`rebase-merge/git-rebase-todo`, `sequencer/todo`):
//!   an `exec` line there runs a shell command at the user's `git rebase --continue`, and a
//!   merge strategy (`-s x`, the `strategy` file) runs the program `git-merge-x`;
//! - the index: an entry marked assume-unchanged or skip-worktree (`git update-index
//!   --assume-unchanged run.sh`) hides a later edit of that file from the user's `git status`
//!   and `git diff`.
//!
//! So those files are read before and after the command: a to-do list keeps only the
//! instructions it had before (a new one is turned into a comment, and said so), and an index
//! that newly hides a file is not kept (the command's own `git add`s with it; said so).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The to-do lists in a git root whose lines git runs at `--continue`.
const TODO_LISTS: &[&str] = &["rebase-merge/git-rebase-todo", "sequencer/todo"];

/// The file of a rebase that names its merge strategy.
const STRATEGY_FILE: &str = "rebase-merge/strategy";

/// A git root's index.
const INDEX: &str = "index";

/// The to-do lists and the strategy file: the lists whose lines git runs.
fn lists() -> impl Iterator<Item = &'static str> {
    TODO_LISTS.iter().copied().chain([STRATEGY_FILE])
}

/// The merge strategies git has built in; any other name runs a program `git-merge-<name>`.
const BUILTIN_STRATEGIES: &[&str] = &["ort", "recursive", "resolve", "octopus", "ours", "subtree"];

/// What a piece of git's data tells git to do later, read before a command ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Steering {
    /// Each to-do list and strategy file as it was, by path relative to the git folder.
    lists: Vec<(PathBuf, Vec<u8>)>,
    /// Each index's hidden entries, by path relative to the git folder; `None` for an index
    /// that could not be read.
    hidden: Vec<(PathBuf, Option<BTreeSet<Vec<u8>>>)>,
}

/// What [`Steering::settle_file`] says to do with one file of git's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// Inert data, or nothing new: copy it back as it is.
    AsItIs,
    /// A to-do list with new instructions: these bytes go back instead (each new instruction
    /// a comment), and these instructions were held.
    Rewritten { text: Vec<u8>, held: Vec<String> },
    /// An index that newly hides files from `git status`, or a strategy file that names a
    /// program: not kept (the file as it was before stays, or none).
    Refused { reason: String },
}

impl Steering {
    /// The files in a git root that this reads, relative to the root: the lists and the index.
    pub fn watched() -> impl Iterator<Item = &'static str> {
        lists().chain([INDEX])
    }

    /// Whether `rel` (relative to a git folder with the roots `roots`) is a file this reads:
    /// one of [`Self::watched`] in one of the roots (a branch named `index` is not an index).
    pub fn watches(rel: &Path, roots: &[PathBuf]) -> bool {
        roots
            .iter()
            .any(|root| Self::watched().any(|name| root.join(name) == rel))
    }

    /// Reads what the git folder `git` (with its roots `roots`, see
    /// [`crate::git_stage::git_roots`]) tells git to do later.
    pub fn read(git: &Path, roots: &[PathBuf]) -> Self {
        let mut steering = Self::default();
        for root in roots {
            for name in lists() {
                let rel = root.join(name);
                if let Ok(bytes) = std::fs::read(git.join(&rel)) {
                    steering.lists.push((rel, bytes));
                }
            }
            let rel = root.join(INDEX);
            if let Ok(bytes) = std::fs::read(git.join(&rel)) {
                steering.hidden.push((rel, hidden_entries(&bytes)));
            }
        }
        steering
    }

    /// What to do with the file `rel` (relative to the git folder) that a command left as
    /// `now`: as it is, rewritten, or refused.
    pub fn settle_file(&self, rel: &Path, now: &[u8]) -> Settled {
        if rel.file_name().is_some_and(|n| n == INDEX) {
            return self.settle_index(rel, now);
        }
        if !is_steering_list(rel) {
            return Settled::AsItIs;
        }
        let before = self
            .list_before(rel)
            .map(|bytes| instructions(rel, bytes))
            .unwrap_or_default();
        let text = String::from_utf8_lossy(now);
        let strategy_file = rel.ends_with(STRATEGY_FILE);
        let mut held = Vec::new();
        let mut out = String::with_capacity(text.len() + 64);
        for line in text.split_inclusive('\n') {
            match instruction(line, strategy_file) {
                Some(i) if !before.contains(&i) => {
                    held.push(i);
                    out.push_str("# held by Tollgate (a sandboxed command added it): ");
                    out.push_str(line.trim_start());
                    if !line.ends_with('\n') {
                        out.push('\n');
                    }
                }
                _ => out.push_str(line),
            }
        }
        match (held.is_empty(), strategy_file) {
            (true, _) => Settled::AsItIs,
            (false, true) => Settled::Refused {
                reason: format!(
                    "it names the merge {}, a program git would run",
                    held.join(", ")
                ),
            },
            (false, false) => Settled::Rewritten {
                text: out.into_bytes(),
                held,
            },
        }
    }

    /// A to-do list's or strategy file's bytes before the command ran, if it existed.
    pub fn list_before(&self, rel: &Path) -> Option<&[u8]> {
        self.lists
            .iter()
            .find(|(p, _)| p == rel)
            .map(|(_, bytes)| bytes.as_slice())
    }

    fn settle_index(&self, rel: &Path, now: &[u8]) -> Settled {
        let before = self
            .hidden
            .iter()
            .find(|(p, _)| p == rel)
            .map(|(_, set)| set.clone())
            .unwrap_or(Some(BTreeSet::new()));
        // Without its signature git reads no index at all (it stops with "bad signature"):
        // such a file hides nothing, whatever else it holds.
        if !now.starts_with(b"DIRC") {
            return Settled::AsItIs;
        }
        let Some(after) = hidden_entries(now) else {
            return Settled::Refused {
                reason: "it could not be read as an index".to_string(),
            };
        };
        let new: Vec<String> = after
            .iter()
            .filter(|p| !before.as_ref().is_some_and(|b| b.contains(*p)))
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        if new.is_empty() {
            return Settled::AsItIs;
        }
        let shown = named(&new.iter().map(PathBuf::from).collect::<Vec<_>>());
        Settled::Refused {
            reason: format!(
                "it marks {shown} assume-unchanged or skip-worktree, which hides their later edits from `git status` and `git diff`"
            ),
        }
    }
}

/// Whether `rel` is a to-do list or a strategy file, whose lines git runs.
fn is_steering_list(rel: &Path) -> bool {
    lists().any(|name| rel.ends_with(name))
}

/// The instructions in a to-do list or strategy file that run something.
fn instructions(rel: &Path, bytes: &[u8]) -> BTreeSet<String> {
    let strategy_file = rel.ends_with(STRATEGY_FILE);
    String::from_utf8_lossy(bytes)
        .split_inclusive('\n')
        .filter_map(|line| instruction(line, strategy_file))
        .collect()
}

/// The instruction that runs something in one line of a to-do list (an `exec`, or a `merge`
/// with a strategy that is not built in) or of a strategy file; `None` for any other line.
fn instruction(line: &str, strategy_file: bool) -> Option<String> {
    let line = line.trim();
    if strategy_file {
        return (!line.is_empty() && !BUILTIN_STRATEGIES.contains(&line))
            .then(|| format!("strategy {line}"));
    }
    let mut words = line.split([' ', '\t']).filter(|w| !w.is_empty());
    match words.next()? {
        "exec" | "x" => Some(line.to_string()),
        "merge" | "m" => {
            let mut rest = words.peekable();
            while let Some(word) = rest.next() {
                let strategy = match word.strip_prefix("--strategy=") {
                    Some(s) => Some(s.to_string()),
                    None if word == "-s" || word == "--strategy" => {
                        rest.peek().map(|s| s.to_string())
                    }
                    None => word
                        .strip_prefix("-s")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                };
                if let Some(s) = strategy.filter(|s| !BUILTIN_STRATEGIES.contains(&s.as_str())) {
                    return Some(format!("merge strategy {s}: {line}"));
                }
            }
            None
        }
        _ => None,
    }
}

/// The paths of an index's entries marked assume-unchanged (`CE_VALID`) or skip-worktree;
/// `None` when the bytes are not an index of a version this reads (2, 3, 4) with either hash.
pub(crate) fn hidden_entries(bytes: &[u8]) -> Option<BTreeSet<Vec<u8>>> {
    [20, 32]
        .into_iter()
        .find_map(|hash| read_index(bytes, hash))
}

/// An index's hidden entries, reading object names of `hash` bytes.
fn read_index(bytes: &[u8], hash: usize) -> Option<BTreeSet<Vec<u8>>> {
    let u32_at = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = u32_at(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = u32_at(8)?;
    let mut at = 12usize;
    let mut previous: Vec<u8> = Vec::new();
    let mut hidden = BTreeSet::new();
    for _ in 0..count {
        let start = at;
        let flags_at = start.checked_add(40 + hash)?;
        let flags = u16::from_be_bytes([*bytes.get(flags_at)?, *bytes.get(flags_at + 1)?]);
        at = flags_at + 2;
        let mut skip_worktree = false;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return None;
            }
            let extended = u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]);
            skip_worktree = extended & 0x4000 != 0;
            at += 2;
        }
        let path = if version == 4 {
            let (strip, used) = varint(bytes.get(at..)?)?;
            at += used;
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(&bytes[at..end]);
            at = end + 1;
            path
        } else {
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let path = bytes[at..end].to_vec();
            let len = flags & 0x0fff;
            if len != 0x0fff && usize::from(len) != path.len() {
                return None;
            }
            // Padded with one to eight NULs to a multiple of eight bytes from the entry's start.
            let padded = start + (end - start + 8) / 8 * 8;
            if bytes.get(end..padded)?.iter().any(|b| *b != 0) {
                return None;
            }
            at = padded;
            path
        };
        if path.is_empty() {
            return None;
        }
        if flags & 0x8000 != 0 || skip_worktree {
            hidden.insert(path.clone());
        }
        previous = path;
    }
    // What follows is extensions and the checksum: at least the checksum's bytes.
    (bytes.len() >= at + hash).then_some(hidden)
}

/// git's offset varint (index version 4): the value and the bytes it took.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut used = 0;
    let mut c = *bytes.first()?;
    let mut value = u64::from(c & 0x7f);
    while c & 0x80 != 0 {
        used += 1;
        c = *bytes.get(used)?;
        value = value.checked_add(1)?.checked_shl(7)? | u64::from(c & 0x7f);
    }
    Some((value, used + 1))
}

/// How many paths one line names before "… and N more".
const NAMED: usize = 6;

pub(crate) fn named(paths: &[PathBuf]) -> String {
    let mut shown: Vec<String> = paths
        .iter()
        .take(NAMED)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    if paths.len() > NAMED {
        shown.push(format!("… and {} more", paths.len() - NAMED));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use tollgate_test_support::git;

    /// Real indexes of every version git writes, with and without hidden entries, read as git
    /// wrote them: the hidden paths and nothing else.
    #[test]
    fn a_real_index_of_each_version_says_which_entries_it_hides() {
        for version in ["2", "3", "4"] {
            for format in ["sha1", "sha256"] {
                let dir = tempfile::tempdir().unwrap();
                let ws = dir.path();
                git(ws, &["init", "-q", &format!("--object-format={format}")]);
                std::fs::create_dir_all(ws.join("deep/er")).unwrap();
                for f in ["a.txt", "b.txt", "deep/er/c.txt", "deep/d.txt"] {
                    std::fs::write(ws.join(f), f).unwrap();
                }
                git(ws, &["add", "."]);
                git(ws, &["update-index", "--index-version", version]);
                let read = || hidden_entries(&std::fs::read(ws.join(".git/index")).unwrap());
                assert_eq!(read(), Some(BTreeSet::new()), "v{version} {format}");
                git(ws, &["update-index", "--assume-unchanged", "deep/er/c.txt"]);
                if version != "2" {
                    git(ws, &["update-index", "--skip-worktree", "b.txt"]);
                }
                let mut want: BTreeSet<Vec<u8>> = [b"deep/er/c.txt".to_vec()].into();
                if version != "2" {
                    want.insert(b"b.txt".to_vec());
                }
                assert_eq!(read(), Some(want), "v{version} {format}");
            }
        }
    }

    #[test]
    fn bytes_that_are_not_an_index_are_not_read_as_one() {
        assert_eq!(hidden_entries(b""), None);
        assert_eq!(hidden_entries(b"DIRC\0\0\0\x02\0\0\0\x05"), None);
        assert_eq!(hidden_entries(b"not an index at all, just text"), None);
    }

    #[test]
    fn new_instructions_in_a_to_do_list_become_comments_and_old_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let git_dir = dir.path();
        std::fs::create_dir_all(git_dir.join("rebase-merge")).unwrap();
        std::fs::write(
            git_dir.join("rebase-merge/git-rebase-todo"),
            "pick 1234 one\nexec make test\n",
        )
        .unwrap();
        let steering = Steering::read(git_dir, &[PathBuf::new()]);
        let rel = Path::new("rebase-merge/git-rebase-todo");
        assert_eq!(
            steering.settle_file(rel, b"pick 1234 one\nexec make test\npick 5678 two\n"),
            Settled::AsItIs
        );
        for added in [
            "exec touch /tmp/m",
            "x touch /tmp/m",
            "  exec\ttouch /tmp/m",
            "merge -s evil -C 1234 label",
            "merge --strategy=evil -C 1234 label",
            "m -sevil -C 1234 label",
        ] {
            let now = format!("pick 1234 one\nexec make test\n{added}\npick 5678 two");
            let Settled::Rewritten { text, held } = steering.settle_file(rel, now.as_bytes())
            else {
                panic!("{added}: not held");
            };
            let text = String::from_utf8(text).unwrap();
            assert_eq!(held.len(), 1, "{added}");
            assert!(text.contains("exec make test\n"), "{text}");
            assert!(text.ends_with("pick 5678 two"), "{text}");
            let line = text.lines().nth(2).unwrap();
            assert!(line.starts_with("# held by Tollgate"), "{added}: {line}");
        }
        for ordinary in ["merge -C 1234 label", "merge -s ort -C 1 l", "pick 9 exec"] {
            let now = format!("pick 1234 one\nexec make test\n{ordinary}\n");
            assert_eq!(
                steering.settle_file(rel, now.as_bytes()),
                Settled::AsItIs,
                "{ordinary}"
            );
        }
        let strategy = Path::new("rebase-merge/strategy");
        assert_eq!(steering.settle_file(strategy, b"ort\n"), Settled::AsItIs);
        assert!(matches!(
            steering.settle_file(strategy, b"evil\n"),
            Settled::Refused { .. }
        ));
        assert_eq!(
            steering.settle_file(Path::new("refs/heads/main"), b"exec x\n"),
            Settled::AsItIs
        );
    }
}
