//! Names that say their value is a secret: an environment variable (`GITHUB_TOKEN`), a command's
//! flag (`--api-key`), a URL's query parameter (`?access_token=`), a form's field ("Password").
//! One list for every place that asks — the sandbox's environment, the MCP settings that keep
//! secrets out of command lines and URLs, and the UI, which gets the list generated into
//! `ui/src/bindings.ts` (`SECRET_NAME_WORDS`) and splits names the same way
//! (`ui/src/secretNames.ts`).

/// The words that make a name a secret's, lower case. A name is split into words first (at `_`,
/// `-`, `.`, spaces and camelCase humps), so `author` is not `auth` and `spinner` is not `pin`;
/// two neighbouring words count joined too (`api_key` is `apikey`), and a word that ends in a
/// listed word of five letters or more counts as it (`githubtoken`, `dbpassword`).
pub const SECRET_NAME_WORDS: [&str; 22] = [
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "pwd",
    "pin",
    "key",
    "apikey",
    "accesskey",
    "privatekey",
    "credential",
    "credentials",
    "auth",
    "oauth",
    "authorization",
    "session",
    "sessionid",
    "cookie",
    "bearer",
    "otp",
];

/// The prefixes of environment variables that belong to a cloud's or a model provider's
/// command-line tools, whose values are credentials whatever the rest of the name says
/// (`AWS_REGION` travels with `AWS_SECRET_ACCESS_KEY`).
pub const SECRET_ENV_PREFIXES: [&str; 6] =
    ["AWS_", "AZURE_", "GOOGLE_", "GCP_", "OPENAI_", "ANTHROPIC_"];

/// The words of `name`, lower case, split the one way every name is split
/// ([`tollgate_names::words`]).
pub use tollgate_names::words as name_words;

/// The shortest listed word a longer word may end in and still count as it: `githubtoken`
/// counts as `token`, but `monkey` does not count as `key`.
pub const SECRET_SUFFIX_MIN: usize = 5;

/// Whether `name` says its value is a secret: one of its words, or two neighbouring words
/// joined, is in [`SECRET_NAME_WORDS`] or ends in one of [`SECRET_SUFFIX_MIN`] letters or more.
pub fn secret_named(name: &str) -> bool {
    let words = name_words(name);
    let listed = |w: &str| {
        SECRET_NAME_WORDS
            .iter()
            .any(|s| w == *s || (s.len() >= SECRET_SUFFIX_MIN && w.ends_with(s)))
    };
    words.iter().any(|w| listed(w))
        || words
            .windows(2)
            .any(|pair| listed(&format!("{}{}", pair[0], pair[1])))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The examples both sides are held to (`ui/src/secretNames.test.ts` reads the same file).
    fn examples(which: &str) -> Vec<String> {
        let all: serde_json::Value =
            serde_json::from_str(include_str!("secret_names.json")).unwrap();
        all[which]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn names_that_say_secret_are_found_in_every_spelling() {
        let names = examples("secret");
        assert!(names.len() > 10);
        for name in names {
            assert!(secret_named(&name), "{name} should be a secret's name");
        }
    }

    #[test]
    fn names_that_only_contain_the_letters_are_not() {
        let names = examples("not");
        assert!(names.len() > 5);
        for name in names {
            assert!(!secret_named(&name), "{name} is not a secret's name");
        }
    }

    #[test]
    fn words_split_at_separators_and_humps() {
        let all: serde_json::Value =
            serde_json::from_str(include_str!("secret_names.json")).unwrap();
        let table = all["words"].as_object().unwrap();
        assert!(table.len() >= 8);
        for (name, words) in table {
            let expected: Vec<&str> = words
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_str().unwrap())
                .collect();
            assert_eq!(name_words(name), expected, "{name}");
        }
    }
}
