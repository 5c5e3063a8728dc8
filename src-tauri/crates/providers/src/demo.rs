//! The Demo provider (F-33): an offline, scripted stand-in for a model, so a new user with no key
//! can watch tools and approvals work. It reads the conversation like a model would: it calls
//! tools that are on offer (listing the workspace, reading a file, calculating), reacts to
//! denials, and answers with what the tools returned. Everything it says is labelled as a demo.

use super::{
    AssistantToolCall, ChatMessage, ChatRequest, Completion, FinishReason, Outgoing, Provider,
    ProviderError, StreamDelta, ToolResultMessage,
};
use async_trait::async_trait;
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::{ProviderKind, Usage};

/// The model name the Demo provider reports.
pub const DEMO_MODEL: &str = "tollgate-demo";

/// The offline demo.
#[derive(Debug, Clone)]
pub struct DemoProvider {
    /// Pause between streamed words (zero in tests).
    pub word_delay: Duration,
}

impl Default for DemoProvider {
    fn default() -> Self {
        Self {
            word_delay: Duration::from_millis(18),
        }
    }
}

/// One planned step: what to say, and which call to make (if any).
struct Step {
    text: String,
    call: Option<(String, serde_json::Value)>,
}

fn has_tool(req: &ChatRequest, name: &str) -> bool {
    req.tools.iter().any(|t| t.name == name)
}

/// The current turn: the last user message and the tool results since.
fn current_turn(req: &ChatRequest) -> (String, Vec<&ToolResultMessage>) {
    let mut results = Vec::new();
    for m in req.messages.iter().rev() {
        match m {
            ChatMessage::User { content, .. } => {
                results.reverse();
                return (content.clone(), results);
            }
            ChatMessage::Tool { results: r } => results.extend(r.iter().rev()),
            ChatMessage::Assistant { .. } => {}
        }
    }
    results.reverse();
    (String::new(), results)
}

/// An arithmetic expression in the user's text, if there is one.
fn expression_in(text: &str) -> Option<String> {
    let candidate: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit() && *c != '(')
        .take_while(|c| c.is_ascii_digit() || " .+-*/%^()".contains(*c))
        .collect();
    let candidate = candidate.trim();
    (candidate.chars().any(|c| "+-*/%^".contains(c))
        && candidate.chars().any(|c| c.is_ascii_digit()))
    .then(|| candidate.to_string())
}

/// The first file named in a directory listing.
fn first_file(listing: &str) -> Option<String> {
    listing
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.ends_with('/')
                && !l.starts_with('[')
                && !l.contains(" chars omitted")
        })
        .map(|l| l.split_whitespace().next().unwrap_or(l).to_string())
        .find(|name| name.contains('.'))
}

fn snippet(text: &str) -> String {
    let first: String = text.lines().take(3).collect::<Vec<_>>().join(" ⏎ ");
    tollgate_protocol::parse::preview(&first, 160)
}

fn plan(req: &ChatRequest) -> Step {
    let (question, results) = current_turn(req);
    let done: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
    let denied = results
        .iter()
        .find(|r| r.is_error && r.content.contains("denied"));
    let calc_expr = expression_in(&question).unwrap_or_else(|| "(17 + 25) * 2".to_string());

    if results.is_empty() {
        let intro = "This is Tollgate's offline **demo model**: no network, no API key. It shows how every tool call passes your gate. ";
        if has_tool(req, "list_dir") {
            return Step {
                text: format!("{intro}First I'll look at the workspace."),
                call: Some(("list_dir".into(), json!({"path": "."}))),
            };
        }
        if has_tool(req, "calculate") {
            return Step {
                text: format!("{intro}Let me work something out."),
                call: Some(("calculate".into(), json!({"expression": calc_expr}))),
            };
        }
        return Step {
            text: format!("{intro}No tools are enabled in this chat, so I can only talk. Enable a tool group from the tools button to watch the gate at work, or add a real provider in Settings."),
            call: None,
        };
    }
    if let Some(d) = denied {
        return Step {
            text: format!("You denied `{}`, so I won't run it. That is the gate working: nothing runs without your say-so. Add a real provider in Settings when you're ready for a real model.", d.name),
            call: None,
        };
    }
    let last = results.last().map(|r| r.name.as_str()).unwrap_or_default();
    if last == "list_dir" && has_tool(req, "read_file") && !done.contains(&"read_file") {
        if let Some(file) = results.last().and_then(|r| first_file(&r.content)) {
            return Step {
                text: format!("I see `{file}`. Let me read it."),
                call: Some(("read_file".into(), json!({"path": file}))),
            };
        }
    }
    if has_tool(req, "calculate") && !done.contains(&"calculate") {
        return Step {
            text: "Now a quick calculation.".into(),
            call: Some(("calculate".into(), json!({"expression": calc_expr}))),
        };
    }
    let mut summary = String::from("Here is what the tools returned:\n\n");
    for r in &results {
        let mark = if r.is_error { "⚠" } else { "✓" };
        summary.push_str(&format!(
            "- {mark} `{}` → {}\n",
            r.name,
            snippet(&r.content)
        ));
    }
    summary.push_str("\nEvery call above was checked by your gate and is in the tool-chain log. This was the demo model; add a real provider in Settings to chat with a real one.");
    Step {
        text: summary,
        call: None,
    }
}

#[async_trait]
impl Provider for DemoProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Demo
    }

    async fn complete(
        &self,
        request: &Outgoing,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let step = plan(request);
        let mut words = 0u64;
        for piece in step.text.split_inclusive(' ') {
            if cancel.is_cancelled() {
                return Err(ProviderError::Cancelled);
            }
            on_delta(StreamDelta::Text {
                text: piece.to_string(),
            });
            words += 1;
            if !self.word_delay.is_zero() {
                tokio::select! {
                    () = cancel.cancelled() => return Err(ProviderError::Cancelled),
                    () = tokio::time::sleep(self.word_delay) => {}
                }
            }
        }
        let n_calls = request
            .messages
            .iter()
            .filter(|m| matches!(m, ChatMessage::Assistant { tool_calls, .. } if !tool_calls.is_empty()))
            .count();
        let tool_calls: Vec<AssistantToolCall> = step
            .call
            .into_iter()
            .map(|(name, args)| {
                let arguments = args.to_string();
                on_delta(StreamDelta::ToolCallStart {
                    index: 0,
                    id: format!("demo_{n_calls}"),
                    name: name.clone(),
                });
                on_delta(StreamDelta::ToolCallArgs {
                    index: 0,
                    fragment: arguments.clone(),
                });
                AssistantToolCall {
                    id: format!("demo_{n_calls}"),
                    name,
                    arguments,
                }
            })
            .collect();
        let finish = if tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        };
        let input_tokens = request.messages.len() as u64 * 12 + request.system.len() as u64 / 4;
        Ok(Completion {
            text: step.text,
            reasoning: String::new(),
            thinking: Vec::new(),
            tool_calls,
            finish,
            usage: Usage {
                input_tokens,
                output_tokens: words,
                ..Usage::default()
            },
        })
    }

    async fn models(&self) -> Result<Vec<String>, ProviderError> {
        Ok(vec![DEMO_MODEL.to_string()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tollgate_protocol::ToolDefinition;

    fn tool(name: &str) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
        }
    }

    fn req(tools: &[&str], messages: Vec<ChatMessage>) -> ChatRequest {
        ChatRequest {
            model: DEMO_MODEL.into(),
            system: String::new(),
            messages,
            tools: tools.iter().map(|t| tool(t)).collect(),
            max_tokens: 100,
            temperature: None,
            ..Default::default()
        }
    }

    async fn step(r: &ChatRequest) -> Completion {
        DemoProvider {
            word_delay: Duration::ZERO,
        }
        .complete(&r.clone().into(), &mut |_| {}, &CancellationToken::new())
        .await
        .unwrap()
    }

    fn result(name: &str, content: &str, is_error: bool) -> ChatMessage {
        ChatMessage::Tool {
            results: vec![ToolResultMessage {
                call_id: "x".into(),
                name: name.into(),
                content: content.into(),
                is_error,
                sources: Vec::new(),
            }],
        }
    }

    #[tokio::test]
    async fn lists_reads_calculates_then_answers_with_the_results() {
        let tools = ["list_dir", "read_file", "calculate"];
        let mut msgs = vec![ChatMessage::User {
            content: "what is 6 * 7?".into(),
            images: Vec::new(),
        }];
        let c = step(&req(&tools, msgs.clone())).await;
        assert!(c.text.contains("demo model"));
        assert_eq!(c.tool_calls[0].name, "list_dir");
        msgs.push(ChatMessage::Assistant {
            content: c.text,
            tool_calls: c.tool_calls,
            thinking: Vec::new(),
        });
        msgs.push(result("list_dir", "src/\nREADME.md\t120 bytes\n", false));
        let c = step(&req(&tools, msgs.clone())).await;
        assert_eq!(c.tool_calls[0].name, "read_file");
        assert_eq!(c.tool_calls[0].arguments, r#"{"path":"README.md"}"#);
        msgs.push(ChatMessage::Assistant {
            content: c.text,
            tool_calls: c.tool_calls,
            thinking: Vec::new(),
        });
        msgs.push(result("read_file", "# Hello", false));
        let c = step(&req(&tools, msgs.clone())).await;
        assert_eq!(c.tool_calls[0].arguments, r#"{"expression":"6 * 7"}"#);
        msgs.push(ChatMessage::Assistant {
            content: c.text,
            tool_calls: c.tool_calls,
            thinking: Vec::new(),
        });
        msgs.push(result("calculate", "42", false));
        let c = step(&req(&tools, msgs)).await;
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.finish, FinishReason::Stop);
        assert!(c.text.contains("`calculate` → 42"), "{}", c.text);
        assert!(c.text.contains("`read_file` → # Hello"), "{}", c.text);
    }

    #[tokio::test]
    async fn adapts_to_denials_and_missing_tools() {
        let c = step(&req(
            &[],
            vec![ChatMessage::User {
                content: "hi".into(),
                images: Vec::new(),
            }],
        ))
        .await;
        assert!(c.tool_calls.is_empty());
        assert!(c.text.contains("No tools are enabled"));
        let msgs = vec![
            ChatMessage::User {
                content: "hi".into(),
                images: Vec::new(),
            },
            ChatMessage::Assistant {
                content: String::new(),
                tool_calls: vec![],
                thinking: Vec::new(),
            },
            result("calculate", "The user denied this call.", true),
        ];
        let c = step(&req(&["calculate"], msgs)).await;
        assert!(c.text.contains("You denied `calculate`"), "{}", c.text);
    }

    #[test]
    fn expressions_are_found_in_questions() {
        assert_eq!(
            expression_in("what is (2+3)*4 please").as_deref(),
            Some("(2+3)*4")
        );
        assert_eq!(expression_in("hello 42"), None);
    }
}
