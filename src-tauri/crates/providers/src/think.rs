//! `<think>…</think>` at the start of a local model's answer (DeepSeek-R1, Qwen3 and others
//! served without a separate reasoning field) is reasoning, not answer text (F-29). The splitter
//! works on streamed pieces: a tag may arrive cut anywhere, so a piece that could be the start of
//! a tag is held back until the next piece says what it is.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// A piece of split text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Answer(String),
    Reasoning(String),
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace yet: the answer may still open with `<think>`.
    #[default]
    Start,
    Thinking,
    /// Just after `</think>`: whitespace before the answer is dropped.
    AfterThinking,
    Answer,
}

/// Splits streamed answer text into reasoning and answer.
#[derive(Debug, Default)]
pub struct ThinkSplitter {
    state: State,
    held: String,
}

impl ThinkSplitter {
    /// Feeds a piece of text; emits what is certain so far.
    pub fn push(&mut self, text: &str, emit: &mut dyn FnMut(Part)) {
        match self.state {
            State::Answer => {
                if !text.is_empty() {
                    emit(Part::Answer(text.to_string()));
                }
            }
            State::Start => {
                self.held.push_str(text);
                let rest = self.held.trim_start();
                if let Some(after) = rest.strip_prefix(OPEN) {
                    let after = after.to_string();
                    self.held.clear();
                    self.state = State::Thinking;
                    self.push(&after, emit);
                } else if !OPEN.starts_with(rest) {
                    self.state = State::Answer;
                    let held = std::mem::take(&mut self.held);
                    emit(Part::Answer(held));
                }
            }
            State::Thinking => {
                self.held.push_str(text);
                if let Some(end) = self.held.find(CLOSE) {
                    let reasoning = self.held[..end].to_string();
                    let after = self.held[end + CLOSE.len()..].to_string();
                    self.held.clear();
                    if !reasoning.is_empty() {
                        emit(Part::Reasoning(reasoning));
                    }
                    self.state = State::AfterThinking;
                    self.push(&after, emit);
                } else {
                    let keep = partial_tag_len(&self.held, CLOSE);
                    let sure = self.held.len() - keep;
                    if sure > 0 {
                        let rest = self.held.split_off(sure);
                        emit(Part::Reasoning(std::mem::replace(&mut self.held, rest)));
                    }
                }
            }
            State::AfterThinking => {
                let trimmed = text.trim_start();
                if !trimmed.is_empty() {
                    self.state = State::Answer;
                    emit(Part::Answer(trimmed.to_string()));
                }
            }
        }
    }

    /// The stream ended: whatever was held back is emitted as what it turned out to be.
    pub fn finish(&mut self, emit: &mut dyn FnMut(Part)) {
        let held = std::mem::take(&mut self.held);
        if held.is_empty() {
            return;
        }
        match self.state {
            State::Start | State::Answer | State::AfterThinking => emit(Part::Answer(held)),
            State::Thinking => emit(Part::Reasoning(held)),
        }
    }
}

/// How many bytes at the end of `text` could be the start of `tag` (always a char boundary:
/// the tags are ASCII).
fn partial_tag_len(text: &str, tag: &str) -> usize {
    (1..tag.len().min(text.len() + 1))
        .rev()
        .find(|&n| {
            text.is_char_boundary(text.len() - n) && tag.starts_with(&text[text.len() - n..])
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split(pieces: &[&str]) -> (String, String) {
        let mut s = ThinkSplitter::default();
        let (mut answer, mut reasoning) = (String::new(), String::new());
        let mut emit = |p: Part| match p {
            Part::Answer(t) => answer.push_str(&t),
            Part::Reasoning(t) => reasoning.push_str(&t),
        };
        for p in pieces {
            s.push(p, &mut emit);
        }
        s.finish(&mut emit);
        (answer, reasoning)
    }

    #[test]
    fn a_leading_think_block_is_reasoning() {
        assert_eq!(
            split(&["<think>\nweigh it", " up</think>\n\nThe answer."]),
            ("The answer.".into(), "\nweigh it up".into())
        );
    }

    #[test]
    fn tags_cut_anywhere_are_still_found() {
        assert_eq!(
            split(&["  <th", "ink>hm", "m</th", "ink", ">ok"]),
            ("ok".into(), "hmm".into())
        );
    }

    #[test]
    fn think_later_in_the_answer_or_never_closed() {
        assert_eq!(
            split(&["Use <think> tags like this"]),
            ("Use <think> tags like this".into(), String::new())
        );
        assert_eq!(
            split(&["<think>still going"]),
            (String::new(), "still going".into())
        );
        assert_eq!(split(&["<th"]), ("<th".into(), String::new()));
        assert_eq!(
            split(&["中文 answer"]),
            ("中文 answer".into(), String::new())
        );
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_parts(
            reasoning in "[a-z <>/]{0,30}",
            answer in "[a-zé中 <>]{0,30}",
            cuts in proptest::collection::vec(0usize..100, 0..8),
        ) {
            prop_assume!(!reasoning.contains(CLOSE));
            let text = format!("<think>{reasoning}</think>{answer}");
            let mut bounds: Vec<usize> = cuts
                .into_iter()
                .map(|c| c % (text.len() + 1))
                .filter(|&c| text.is_char_boundary(c))
                .collect();
            bounds.sort_unstable();
            let mut pieces = Vec::new();
            let mut last = 0;
            for b in bounds {
                pieces.push(&text[last..b]);
                last = b;
            }
            pieces.push(&text[last..]);
            let (a, r) = split(&pieces);
            prop_assert_eq!(r, reasoning);
            prop_assert_eq!(a, answer.trim_start().to_string());
        }
    }
}
