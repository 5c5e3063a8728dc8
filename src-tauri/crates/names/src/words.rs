//! The words of a name: `accessToken`, `api-key`, `user_agent`, `--dest.url`.

/// The words of `name`, lower case: split at anything not a letter or digit and before an upper
/// case letter that follows a lower case one or a digit (`accessToken` → `access`, `token`).
pub fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_separators_and_camel_case_humps() {
        assert_eq!(words("accessToken"), ["access", "token"]);
        assert_eq!(words("API_KEY"), ["api", "key"]);
        assert_eq!(words("--dest.url"), ["dest", "url"]);
        assert_eq!(words("user agent"), ["user", "agent"]);
        assert_eq!(words("v2Endpoint"), ["v2", "endpoint"]);
        assert_eq!(words("webhook/target"), ["webhook", "target"]);
        assert_eq!(words("URL"), ["url"]);
        assert!(words("__").is_empty());
    }
}
