//! The gate decides in one place (docs/ARCHITECTURE.md, "4. Permission"): of the executor's
//! files only `decision.rs` weighs a policy. Another file that compares one (`== ExecutionPolicy::
//! Deny`, `matches!(policy, ExecutionPolicy::AskOnce)`) is deciding beside it, the shape each
//! earlier "deny wins" or "remember only for ask-once" took before it moved into `decision.rs`.
//! Test modules are not counted; naming a policy as a value (a card's example) is not deciding.

use std::path::PathBuf;

fn executor_src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../executor/src")
}

/// The lines of `text` before its `#[cfg(test)]` module, without comments.
fn production_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| !l.trim_start().starts_with("#[cfg(test)]"))
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or_default().to_string()))
        .collect()
}

/// Whether `line` weighs a policy: compares one, or matches on one.
fn weighs_a_policy(line: &str) -> bool {
    let compact: String = line.split_whitespace().collect();
    [
        "==ExecutionPolicy::",
        "!=ExecutionPolicy::",
        "==crate::policy::ExecutionPolicy::",
        "!=crate::policy::ExecutionPolicy::",
    ]
    .iter()
    .any(|form| compact.contains(form))
        || (compact.contains("matches!(") && compact.contains("ExecutionPolicy::"))
        || (compact.starts_with("ExecutionPolicy::") && compact.contains("=>"))
}

#[test]
fn only_the_decision_weighs_a_policy() {
    let mut found = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(executor_src()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".rs") || name == "decision.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in production_lines(&text) {
            if weighs_a_policy(&line) {
                found.push(format!("executor/src/{name}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(files > 10, "only {files} files read: is the path right?");
    assert!(
        found.is_empty(),
        "decide in executor/src/decision.rs (add a function there) rather than here:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_policy_weighed() {
    for weighs in [
        "if policy == ExecutionPolicy::Deny {",
        "&& self.execution_policy(spec) != ExecutionPolicy::Deny",
        "if policy == crate::policy::ExecutionPolicy::Deny {",
        "matches!(inputs.policy(), ExecutionPolicy::AskOnce)",
        "    ExecutionPolicy::Auto => allow(i, DecidedBy::Auto),",
    ] {
        assert!(weighs_a_policy(weighs), "{weighs}");
    }
    for names in [
        "policy: ExecutionPolicy::AskAlways,",
        "if super::decision::denies(policy) {",
    ] {
        assert!(!weighs_a_policy(names), "{names}");
    }
}
