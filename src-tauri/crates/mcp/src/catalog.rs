//! What a server offers besides tools (F-45): resources, which the user attaches to a message
//! (they become the message's attachments, F-57), and prompts, which fill the composer for the
//! user to read and send. Nothing here reaches the model without the user sending it.

use rmcp::model::{ContentBlock, GetPromptResult, Prompt, Resource, ResourceContents, Role};
use serde::Serialize;
use tollgate_protocol::{Attachment, AttachmentKind};

/// A resource a server offers.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceView {
    pub server: String,
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// One argument of a prompt.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptArgument {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

/// A prompt a server offers.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptView {
    pub server: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Vec<McpPromptArgument>,
}

/// A prompt filled in, for the composer: its text and the files it brought.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilledPrompt {
    pub text: String,
    pub attachments: Vec<Attachment>,
    /// Where the text came from, for the message that sends it (F-80).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<tollgate_protocol::Source>>")]
    pub sources: Vec<tollgate_protocol::Source>,
}

pub fn resource_view(server: &str, r: &Resource) -> McpResourceView {
    McpResourceView {
        server: server.to_string(),
        uri: r.uri.clone(),
        name: r.name.clone(),
        title: r.title.clone(),
        description: r.description.clone(),
        mime_type: r.mime_type.clone(),
    }
}

pub fn prompt_view(server: &str, p: &Prompt) -> McpPromptView {
    McpPromptView {
        server: server.to_string(),
        name: p.name.clone(),
        title: p.title.clone(),
        description: p.description.clone(),
        arguments: p
            .arguments
            .iter()
            .flatten()
            .map(|a| McpPromptArgument {
                name: a.name.clone(),
                description: a.description.clone(),
                required: a.required.unwrap_or(false),
            })
            .collect(),
    }
}

/// The last part of a URI's path: a file name for a resource without a better one.
fn file_name(uri: &str) -> String {
    uri.trim_end_matches('/')
        .rsplit(['/', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or(uri)
        .to_string()
}

/// A resource's contents as attachments: text as a text file, an image as an image; other
/// binary contents cannot be attached (the error says which).
pub fn attachments(
    name: Option<&str>,
    contents: Vec<ResourceContents>,
) -> Result<Vec<Attachment>, String> {
    let mut out = Vec::with_capacity(contents.len());
    for c in contents {
        match c {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => out.push(Attachment {
                name: name.map_or_else(|| file_name(&uri), str::to_string),
                kind: AttachmentKind::Text,
                media_type: mime_type.unwrap_or_else(|| "text/plain".into()),
                data: text,
                source: None,
            }),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                let mime = mime_type.unwrap_or_else(|| "application/octet-stream".into());
                if !mime.starts_with("image/") {
                    return Err(format!(
                        "{uri} is binary content ({mime}); only text and images can be attached."
                    ));
                }
                out.push(Attachment {
                    name: name.map_or_else(|| file_name(&uri), str::to_string),
                    kind: AttachmentKind::Image,
                    media_type: mime,
                    data: blob,
                    source: None,
                });
            }
            #[allow(unreachable_patterns)]
            _ => return Err("the resource has contents of an unknown kind".into()),
        }
    }
    Ok(out)
}

/// A prompt's messages as one text for the composer (an assistant's part marked as such) and
/// the files its messages carry.
pub fn filled(result: GetPromptResult) -> Result<FilledPrompt, String> {
    let mut texts: Vec<String> = Vec::new();
    let mut files = Vec::new();
    for (n, m) in result.messages.into_iter().enumerate() {
        let said = |text: String| match m.role {
            Role::User => text,
            Role::Assistant => format!("Assistant: {text}"),
        };
        match m.content {
            ContentBlock::Text(t) => texts.push(said(t.text.clone())),
            ContentBlock::Image(img) => files.push(Attachment {
                name: format!("image {}", n + 1),
                kind: AttachmentKind::Image,
                media_type: img.mime_type.clone(),
                data: img.data.clone(),
                source: None,
            }),
            ContentBlock::Resource(res) => {
                files.extend(attachments(None, vec![res.resource.clone()])?);
            }
            ContentBlock::ResourceLink(link) => {
                texts.push(said(format!("[{}]({})", link.name, link.uri)));
            }
            #[allow(unreachable_patterns)]
            _ => {
                return Err(
                    "the prompt has content Tollgate cannot put in a message (audio?)".into(),
                )
            }
        }
    }
    Ok(FilledPrompt {
        text: texts.join("\n\n"),
        attachments: files,
        sources: Vec::new(),
    })
}
