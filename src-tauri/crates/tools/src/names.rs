//! Name matching for things the model types: tool names (F-11) and variable names.

/// How a requested tool name was matched to a registered one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameMatch {
    Exact(String),
    /// Matched after repair (case, `-` vs `_`); the model's spelling differed.
    Repaired(String),
    Unknown,
}

fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Finds `requested` among `names`: exact, then case-insensitive, then a *unique* match that
/// ignores `-` and `_` (and case). Ambiguity is never guessed at.
pub fn repair_name<'a, I>(requested: &str, names: I) -> NameMatch
where
    I: IntoIterator<Item = &'a str> + Clone,
{
    if names.clone().into_iter().any(|n| n == requested) {
        return NameMatch::Exact(requested.to_string());
    }
    let lowered: Vec<&str> = names
        .clone()
        .into_iter()
        .filter(|n| n.eq_ignore_ascii_case(requested))
        .collect();
    if let [one] = lowered.as_slice() {
        return NameMatch::Repaired((*one).to_string());
    }
    let want = squash(requested);
    let squashed: Vec<&str> = names.into_iter().filter(|n| squash(n) == want).collect();
    match squashed.as_slice() {
        [one] => NameMatch::Repaired((*one).to_string()),
        _ => NameMatch::Unknown,
    }
}

/// Up to `n` names closest to `wanted`, best first; only names that are plausibly a typo (close
/// by Jaro-Winkler, or a few edits away including transpositions) are returned.
pub fn closest_names<'a, I>(wanted: &str, names: I, n: usize) -> Vec<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let wanted_l = wanted.to_lowercase();
    let max_edits = (wanted_l.chars().count() / 3).max(1);
    let mut scored: Vec<(f64, &str)> = names
        .into_iter()
        .filter_map(|name| {
            let name_l = name.to_lowercase();
            let jw = strsim::jaro_winkler(&wanted_l, &name_l);
            let edits = strsim::damerau_levenshtein(&wanted_l, &name_l);
            let score = jw.max(strsim::normalized_damerau_levenshtein(&wanted_l, &name_l));
            (jw >= 0.7 || edits <= max_edits).then_some((score, name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(n)
        .map(|(_, name)| name.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = ["read_file", "ReadVar", "list-dir", "write_file"];

    #[test]
    fn exact_then_case_then_separator_repair() {
        assert_eq!(
            repair_name("read_file", NAMES),
            NameMatch::Exact("read_file".into())
        );
        assert_eq!(
            repair_name("READ_FILE", NAMES),
            NameMatch::Repaired("read_file".into())
        );
        assert_eq!(
            repair_name("readvar", NAMES),
            NameMatch::Repaired("ReadVar".into())
        );
        assert_eq!(
            repair_name("list_dir", NAMES),
            NameMatch::Repaired("list-dir".into())
        );
        assert_eq!(
            repair_name("ReadFile", NAMES),
            NameMatch::Repaired("read_file".into())
        );
        assert_eq!(repair_name("delete_file", NAMES), NameMatch::Unknown);
    }

    #[test]
    fn ambiguous_repair_is_refused() {
        let names = ["a_b", "a-b", "ab_c"];
        assert_eq!(repair_name("AB", names), NameMatch::Unknown);
    }

    #[test]
    fn closest_names_ranks_typos() {
        let got = closest_names("raed_file", NAMES, 2);
        assert_eq!(got.first().map(String::as_str), Some("read_file"));
        assert!(closest_names("zzzz", NAMES, 3).is_empty());
        assert_eq!(closest_names("dco", ["doc", "other"], 3), ["doc"]);
    }
}
