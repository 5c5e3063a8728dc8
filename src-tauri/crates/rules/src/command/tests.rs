//! The command parser's and patterns' tests: what is plain, what a line may run, how wrappers
//! are looked through, and property tests over random lines.
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
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "declare", "typeset", "export", "readonly",
    "local", "unset",
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
