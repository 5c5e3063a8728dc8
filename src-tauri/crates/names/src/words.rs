//! The words of a name: `accessToken`, `api-key`, `user_agent`, `--dest.url`.

/// The words of `name`, lower case: split at anything not a letter or digit and before an upper
/// case letter that follows a lower case one or a digit (`accessToken` → `access`, `token`).
pub fn words(name: &str) -> Vec<String> {
    words_at(name).into_iter().map(|(_, word)| word).collect()
}

/// The words of `text` as [`words`] splits them, each with the byte offset it starts at: where
/// a name's words stand in prose that names it (`send_email` as "send email", `sendEmail`).
pub fn words_at(text: &str) -> Vec<(usize, String)> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut start = 0;
    let mut prev_lower = false;
    for (i, c) in text.char_indices() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push((start, std::mem::take(&mut word)));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            words.push((start, std::mem::take(&mut word)));
        }
        if word.is_empty() {
            start = i;
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push((start, word));
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
