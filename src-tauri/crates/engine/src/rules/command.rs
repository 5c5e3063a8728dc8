//! Temporary stand-in until the tree-sitter parser lands: allows nothing, denies by tokens.
#[derive(Debug)]
pub struct ParsedCommand {
    commands: Vec<Vec<String>>,
}
pub fn parse(cmd: &str) -> ParsedCommand {
    let tokens: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    let commands = (0..tokens.len()).map(|i| tokens[i..].to_vec()).collect();
    ParsedCommand { commands }
}
impl ParsedCommand {
    pub fn plain_argv(&self) -> Option<&[String]> {
        None
    }
    pub fn commands(&self) -> &[Vec<String>] {
        &self.commands
    }
}
#[derive(Debug)]
pub struct CommandPattern {
    words: Vec<String>,
}
#[derive(Debug)]
pub struct PatternError;
impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("bad pattern")
    }
}
impl CommandPattern {
    pub fn parse(p: &str) -> Result<Self, PatternError> {
        Ok(Self {
            words: p.split_whitespace().map(str::to_string).collect(),
        })
    }
    pub fn matches(&self, argv: &[String]) -> bool {
        argv.starts_with(&self.words)
    }
}
pub fn suggest_pattern(_cmd: &str) -> Option<String> {
    None
}
