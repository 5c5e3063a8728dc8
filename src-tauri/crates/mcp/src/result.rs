//! What an MCP tool call returns, for Tollgate: the text the model reads, the images and links
//! shown to the user beside it, and the mark of a call that goes on as its server's task.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tollgate_protocol::{Attachment, AttachmentKind};
use tollgate_tools::images::{check_base64, human_size};

/// The data of a call that goes on as its server's task after its turn (F-99): only the gate
/// reads it (`Tool::background_task`); no server's result has this shape (a result is text,
/// or [`WithImages`]).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunsOn {
    #[serde(rename = "tollgateTaskRunsOn")]
    task: String,
}

impl RunsOn {
    pub(crate) fn data(task: String) -> Value {
        serde_json::to_value(Self { task }).unwrap_or(Value::Null)
    }

    pub(crate) fn read(data: &Value) -> Option<String> {
        serde_json::from_value::<Self>(data.clone())
            .ok()
            .map(|r| r.task)
    }
}

/// At most this many images of one result are kept and shown; the rest are noted in the text.
pub const MAX_RESULT_IMAGES: usize = 8;
/// At most this many resource links of one result are offered to attach; all are in the text.
pub const MAX_RESULT_LINKS: usize = 16;

/// A result with images, as the tool's data: the text is what the model reads (and the
/// variable keeps), the images are shown to the user beside it.
#[derive(Serialize, Deserialize)]
pub(crate) struct WithImages {
    pub(crate) text: String,
    #[serde(default)]
    pub(crate) images: Vec<Attachment>,
    /// The `CallToolResult` as the server sent it, for the server's view (F-96).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) raw: Option<Value>,
}

impl WithImages {
    pub(crate) fn read(data: &Value) -> Option<Self> {
        if !data.is_object() {
            return None;
        }
        Self::deserialize(data).ok()
    }
}

/// A call's result for Tollgate: its text for the model, the images to show the user and the
/// links to the server's resources the user may attach (kind `ResourceLink`, no source yet).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub images: Vec<Attachment>,
    pub links: Vec<Attachment>,
}

impl Rendered {
    /// Keeps an image (checked by its bytes) to show the user, and tells the model about it;
    /// an image that is not one, or one too many, is only described.
    fn image(&mut self, what: &str, declared: &str, data: &str) -> String {
        let size = human_size(data.len() / 4 * 3);
        if self.images.len() >= MAX_RESULT_IMAGES {
            return format!("[{what} {declared} of about {size}, not shown: more than {MAX_RESULT_IMAGES} images]");
        }
        match check_base64(data) {
            Ok(image) => {
                let n = self.images.len() + 1;
                self.images.push(Attachment {
                    name: format!("{what} {n}"),
                    kind: AttachmentKind::Image,
                    media_type: image.media_type.to_string(),
                    data: data.chars().filter(|c| !c.is_ascii_whitespace()).collect(),
                    source: None,
                });
                format!(
                    "[{what} {n}: {}, {}, shown to the user; you cannot see it]",
                    image.media_type,
                    human_size(image.bytes)
                )
            }
            Err(e) => format!("[{what} {declared} of about {size}, not shown: it {e}]"),
        }
    }
}

/// A call's content for Tollgate: text blocks as they are, resources with their URI, images
/// (also image blobs) kept to show the user with a note for the model, other binary content as
/// a short note (the model cannot read base64 usefully), structured content when nothing else
/// was given.
pub fn render_result(result: &CallToolResult) -> Rendered {
    let mut out = Rendered::default();
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::Image(img) => {
                let note = out.image("image", &img.mime_type, &img.data);
                parts.push(note);
            }
            ContentBlock::Audio(a) => parts.push(format!(
                "[audio {} of about {}, not shown]",
                a.mime_type,
                human_size(a.data.len() / 4 * 3)
            )),
            ContentBlock::Resource(res) => match &res.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    parts.push(format!("[resource {uri}]\n{text}"));
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => {
                    let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
                    if mime.starts_with("image/") {
                        let note = out.image("image", mime, blob);
                        parts.push(format!("[resource {uri}] {note}"));
                    } else {
                        parts.push(format!(
                            "[binary resource {uri} ({mime}, about {}), not shown]",
                            human_size(blob.len() / 4 * 3)
                        ));
                    }
                }
                #[allow(unreachable_patterns)]
                _ => parts.push("[resource of an unknown kind]".into()),
            },
            ContentBlock::ResourceLink(link) => {
                parts.push(format!("[resource link: {} <{}>]", link.name, link.uri));
                if out.links.len() < MAX_RESULT_LINKS {
                    out.links.push(Attachment {
                        name: link.title.clone().unwrap_or_else(|| link.name.clone()),
                        kind: AttachmentKind::ResourceLink,
                        media_type: link.mime_type.clone().unwrap_or_default(),
                        data: link.uri.clone(),
                        source: None,
                    });
                }
            }
            #[allow(unreachable_patterns)]
            _ => parts.push("[content of an unknown kind]".into()),
        }
    }
    if let Some(structured) = &result.structured_content {
        if parts.is_empty() {
            parts.push(
                serde_json::to_string_pretty(structured).unwrap_or_else(|_| structured.to_string()),
            );
        }
    }
    out.text = parts.join("\n");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    const DOT: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";

    #[test]
    fn results_become_text_and_images_to_show() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": DOT, "mimeType": "image/jpeg"},
                {"type": "image", "data": "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+", "mimeType": "image/svg+xml"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "file:///d.png", "blob": DOT, "mimeType": "image/png"}},
                {"type": "resource", "resource": {"uri": "file:///x.bin", "blob": "AAAA"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b"}
            ]
        }))
        .unwrap();
        let rendered = render_result(&result);
        assert_eq!(
            rendered.text,
            "hello\n[image 1: image/png, 70 bytes, shown to the user; you cannot see it]\n\
             [image image/svg+xml of about 21 bytes, not shown: it is not a PNG, JPEG, GIF or WebP image, the formats models take]\n\
             [resource file:///a.txt]\ninside\n\
             [resource file:///d.png] [image 2: image/png, 70 bytes, shown to the user; you cannot see it]\n\
             [binary resource file:///x.bin (application/octet-stream, about 3 bytes), not shown]\n\
             [resource link: b <file:///b>]"
        );
        assert_eq!(rendered.images.len(), 2);
        assert_eq!(
            rendered.images[0].media_type, "image/png",
            "the bytes, not the server, say what it is"
        );
        assert_eq!(rendered.images[0].data, DOT);
        assert_eq!(
            rendered.links,
            [Attachment {
                name: "b".into(),
                kind: AttachmentKind::ResourceLink,
                media_type: String::new(),
                data: "file:///b".into(),
                source: None,
            }],
            "the link is offered to the user to attach"
        );
        let structured: CallToolResult =
            serde_json::from_value(json!({"content": [], "structuredContent": {"sum": 3}}))
                .unwrap();
        assert_eq!(render_result(&structured).text, "{\n  \"sum\": 3\n}");
    }

    #[test]
    fn a_flood_of_images_is_cut_to_a_few() {
        let blocks: Vec<Value> = (0..MAX_RESULT_IMAGES + 3)
            .map(|_| json!({"type": "image", "data": DOT, "mimeType": "image/png"}))
            .collect();
        let result: CallToolResult = serde_json::from_value(json!({ "content": blocks })).unwrap();
        let rendered = render_result(&result);
        assert_eq!(rendered.images.len(), MAX_RESULT_IMAGES);
        assert_eq!(rendered.text.matches("more than 8 images").count(), 3);
    }

    #[test]
    fn a_flood_of_links_offers_a_few_and_names_them_all_to_the_model() {
        let blocks: Vec<Value> = (0..MAX_RESULT_LINKS + 4)
            .map(|i| json!({"type": "resource_link", "uri": format!("probe://r{i}"), "name": format!("r{i}"), "title": "A report", "mimeType": "text/markdown"}))
            .collect();
        let result: CallToolResult = serde_json::from_value(json!({ "content": blocks })).unwrap();
        let rendered = render_result(&result);
        assert_eq!(rendered.links.len(), MAX_RESULT_LINKS);
        assert_eq!(rendered.links[0].name, "A report");
        assert_eq!(rendered.links[0].media_type, "text/markdown");
        assert_eq!(
            rendered.text.matches("[resource link: ").count(),
            MAX_RESULT_LINKS + 4
        );
    }
}
