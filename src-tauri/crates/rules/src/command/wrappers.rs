//! Commands that run other commands (`sudo`, `env`, `xargs`, `find -exec`, `bash -c` …): their
//! option tables, and looking through them to the command they run.

use super::*;

/// Words the shell gives a meaning of its own at the start of a command (`time` and `coproc`
/// change what runs; the others only belong in compound commands).
pub(super) const RESERVED_WORDS: &[&str] = &[
    "!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "time", "until", "while",
];

/// Shells whose `-c` argument is a command string.
pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh",
    "tcsh",
];

/// Wrappers whose option syntax we do not model: every suffix of their arguments is listed.
pub(super) const GENERIC_WRAPPERS: &[&str] = &[
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
pub(super) const SUBCOMMAND_TOOLS: &[(&str, SubcommandPolicy)] = &[(
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
pub(super) enum SubcommandPolicy {
    /// Only these.
    Only(&'static [&'static str]),
}

// ---------------------------------------------------------------------------------------------
// ParsedCommand
// ---------------------------------------------------------------------------------------------

/// Option syntax of a wrapper command.
pub(super) struct OptSpec {
    /// Short options without an argument.
    pub(super) flags: &'static str,
    /// Short options taking an argument (attached or the next word).
    pub(super) with_arg: &'static str,
    /// Short options whose argument can only be attached.
    pub(super) optional_arg: &'static str,
    /// Long options without an argument (or with an optional `=value`).
    pub(super) long_flags: &'static [&'static str],
    /// Long options taking an argument (`--x=v` or `--x v`).
    pub(super) long_with_arg: &'static [&'static str],
    /// `NAME=value` words before the command are skipped (`env`, `sudo`).
    pub(super) assignments: bool,
    /// `-10` style numeric options are accepted (`nice`).
    pub(super) numeric: bool,
}

pub(super) const NO_OPTS: OptSpec = OptSpec {
    flags: "",
    with_arg: "",
    optional_arg: "",
    long_flags: &[],
    long_with_arg: &[],
    assignments: false,
    numeric: false,
};

/// The result of reading a wrapper's options.
pub(super) struct Options {
    /// Index of the first operand (the wrapped command).
    pub(super) operands: usize,
    /// Options seen, with their argument if any (short options by their letter).
    pub(super) seen: Vec<(String, Option<String>)>,
}

/// Reads options per `spec`; `Err(i)` when the word at `i` is an option we do not know.
pub(super) fn read_options(args: &[String], spec: &OptSpec) -> Result<Options, usize> {
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

pub(super) fn is_assignment(word: &str) -> bool {
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
pub(super) fn command_at(args: &[String], start: usize) -> Option<Vec<String>> {
    let rest = args.get(start..)?;
    let (first, tail) = rest.split_first()?;
    let mut command = Vec::with_capacity(rest.len());
    command.push(basename(first).to_owned());
    command.extend(tail.iter().cloned());
    Some(command)
}

/// Every suffix of `args` from `start` on, as commands (at most [`MAX_SUFFIX_STARTS`] of them;
/// `found.truncated` is set when there were more).
pub(super) fn all_suffixes(
    args: &[String],
    start: usize,
    found: &mut Unwrapped,
) -> Vec<Vec<String>> {
    let end = args.len().min(start.saturating_add(MAX_SUFFIX_STARTS));
    if end < args.len() {
        found.truncated = true;
    }
    (start..end).filter_map(|i| command_at(args, i)).collect()
}

/// Looks through a wrapper with known option syntax: the command after its options, or every
/// suffix after an option we do not know. Returns the options seen.
pub(super) fn after_options(
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

pub(super) fn option_values(seen: &[(String, Option<String>)], names: &[&str]) -> Vec<String> {
    seen.iter()
        .filter(|(n, _)| names.contains(&n.as_str()))
        .filter_map(|(_, v)| v.clone())
        .collect()
}

pub(super) const COMMAND_OPTS: OptSpec = OptSpec {
    flags: "pvV",
    ..NO_OPTS
};

pub(super) const EXEC_OPTS: OptSpec = OptSpec {
    flags: "cl",
    with_arg: "a",
    ..NO_OPTS
};

pub(super) const ENV_OPTS: OptSpec = OptSpec {
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

pub(super) const SUDO_OPTS: OptSpec = OptSpec {
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

pub(super) const DOAS_OPTS: OptSpec = OptSpec {
    flags: "nsL",
    with_arg: "uC",
    ..NO_OPTS
};

pub(super) const SETSID_OPTS: OptSpec = OptSpec {
    flags: "cfw",
    long_flags: &["ctty", "fork", "wait"],
    ..NO_OPTS
};

pub(super) const TIME_OPTS: OptSpec = OptSpec {
    flags: "pvqa",
    with_arg: "fo",
    long_flags: &["portability", "verbose", "quiet", "append"],
    long_with_arg: &["format", "output"],
    ..NO_OPTS
};

pub(super) const NICE_OPTS: OptSpec = OptSpec {
    with_arg: "n",
    long_with_arg: &["adjustment"],
    numeric: true,
    ..NO_OPTS
};

pub(super) const TIMEOUT_OPTS: OptSpec = OptSpec {
    flags: "v",
    with_arg: "sk",
    long_flags: &["preserve-status", "foreground", "verbose"],
    long_with_arg: &["signal", "kill-after"],
    ..NO_OPTS
};

pub(super) const STDBUF_OPTS: OptSpec = OptSpec {
    with_arg: "ioe",
    long_with_arg: &["input", "output", "error"],
    ..NO_OPTS
};

pub(super) const XARGS_OPTS: OptSpec = OptSpec {
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

pub(super) const WATCH_OPTS: OptSpec = OptSpec {
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

pub(super) const SSH_OPTS: OptSpec = OptSpec {
    flags: "46AaCfGgKkMNnqsTtVvXxYy",
    with_arg: "BbcDEeFIiJLlmOoPpQRSWw",
    ..NO_OPTS
};

/// What a command runs besides itself: wrapped commands, command strings, or commands read
/// from standard input.
pub(super) fn unwrap_command(command: &[String]) -> Unwrapped {
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
pub(super) fn find_exec_commands(args: &[String]) -> Vec<Vec<String>> {
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
pub(super) fn dash_c_values(args: &[String]) -> Vec<String> {
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
pub(super) fn shell_invocation(args: &[String], found: &mut Unwrapped) {
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
pub(super) fn fallback_tokens_of(line: &str) -> Vec<String> {
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
