//! Code fences that the text inside cannot close (exports, inlined attachments).

/// `text` in a code fence longer than any run of backticks inside it.
pub fn fence(text: &str, lang: &str) -> String {
    // A fence longer than any run of backticks inside, so the content cannot close it.
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    format!("{ticks}{lang}\n{}\n{ticks}", text.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fence("a", "json"), "```json\na\n```");
        assert_eq!(fence("x ```` y", ""), "`````\nx ```` y\n`````");
    }
}
