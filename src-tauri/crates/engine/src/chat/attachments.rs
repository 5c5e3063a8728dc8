//! Files attached to a user message (F-57): images go to the model as image parts, text files
//! are inlined into the message with their names. Both are stored with the message, checked
//! before anything is stored or sent: the size, the kind, and for an image its real format
//! (read from its bytes, not from what the file was called).

pub use crate::images::MAX_IMAGE_BYTES;
pub use crate::protocol::{Attachment, AttachmentKind, UserPayload};
use crate::providers::{ChatMessage, ImagePart};

/// At most this many files per message.
pub const MAX_ATTACHMENTS: usize = 10;
/// The largest text file, in bytes (it is read by the model as part of the message).
pub const MAX_TEXT_BYTES: usize = 256 * 1024;

/// Checks the files of a message; each image gets the media type its bytes show. The error
/// names the file and says what is wrong, in words for the user.
pub fn check(mut attachments: Vec<Attachment>) -> Result<Vec<Attachment>, String> {
    if attachments.len() > MAX_ATTACHMENTS {
        return Err(format!(
            "{} files are attached; a message takes at most {MAX_ATTACHMENTS}.",
            attachments.len()
        ));
    }
    for a in &mut attachments {
        a.name = a.name.trim().chars().filter(|c| !c.is_control()).collect();
        if a.name.is_empty() {
            a.name = "unnamed".into();
        }
        match a.kind {
            AttachmentKind::Image => {
                let image = crate::images::check_base64(&a.data)
                    .map_err(|e| format!("\"{}\" {e}.", a.name))?;
                a.media_type = image.media_type.to_string();
            }
            AttachmentKind::Text => {
                if a.data.len() > MAX_TEXT_BYTES {
                    return Err(format!(
                        "\"{}\" is {} KB of text; a text file can be at most {} KB.",
                        a.name,
                        a.data.len() / 1024,
                        MAX_TEXT_BYTES / 1024
                    ));
                }
                if a.data.contains('\0') {
                    return Err(format!(
                        "\"{}\" is not a text file (it has binary content).",
                        a.name
                    ));
                }
            }
            AttachmentKind::ResourceLink => {
                return Err(format!(
                    "\"{}\" is only a link to a server's resource; attach the resource itself.",
                    a.name
                ));
            }
        }
    }
    Ok(attachments)
}

/// The user message the model is sent: its text, each text file inlined after it under its
/// name, and the images as image parts.
pub fn user_message(text: &str, attachments: &[Attachment]) -> ChatMessage {
    let mut content = text.to_string();
    let mut images = Vec::new();
    for a in attachments {
        match a.kind {
            AttachmentKind::Text => {
                if !content.is_empty() {
                    content.push_str("\n\n");
                }
                content.push_str(&format!(
                    "Attached file \"{}\":\n{}",
                    a.name,
                    crate::chat::fence::fence(&a.data, "")
                ));
            }
            AttachmentKind::Image => images.push(ImagePart {
                media_type: a.media_type.clone(),
                data: a.data.clone(),
            }),
            // `check` refuses links in a message; one stored before says where it pointed.
            AttachmentKind::ResourceLink => {
                if !content.is_empty() {
                    content.push_str("\n\n");
                }
                content.push_str(&format!("Linked resource \"{}\": <{}>", a.name, a.data));
            }
        }
    }
    ChatMessage::User { content, images }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn image(name: &str, bytes: &[u8]) -> Attachment {
        Attachment {
            name: name.into(),
            kind: AttachmentKind::Image,
            media_type: "image/jpeg".into(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            source: None,
        }
    }

    fn text(name: &str, data: &str) -> Attachment {
        Attachment {
            name: name.into(),
            kind: AttachmentKind::Text,
            media_type: "text/plain".into(),
            data: data.into(),
            source: None,
        }
    }

    #[test]
    fn an_image_is_known_by_its_bytes_and_a_file_that_is_none_is_refused() {
        let png = b"\x89PNG\r\n\x1a\n rest";
        let checked = check(vec![image("cat.jpg", png)]).unwrap();
        assert_eq!(
            checked[0].media_type, "image/png",
            "the bytes say PNG, not the name"
        );
        let err = check(vec![image("evil.png", b"#!/bin/sh\nrm -rf ~")]).unwrap_err();
        assert!(
            err.contains("\"evil.png\" is not a PNG, JPEG, GIF or WebP"),
            "{err}"
        );
        let mut garbled = image("x.png", png);
        garbled.data = "not base64!!".into();
        assert!(check(vec![garbled])
            .unwrap_err()
            .contains("could not be read"));
        let mut big = b"\x89PNG\r\n\x1a\n".to_vec();
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        let err = check(vec![image("huge.png", &big)]).unwrap_err();
        assert!(
            err.contains("\"huge.png\" is 5.0 MB; images can be at most 5.0 MB"),
            "{err}"
        );
    }

    #[test]
    fn text_files_are_limited_and_inlined_under_their_names() {
        let err = check(vec![text("big.log", &"x".repeat(MAX_TEXT_BYTES + 1))]).unwrap_err();
        assert!(err.contains("at most 256 KB"), "{err}");
        assert!(check(vec![text("a.bin", "a\0b")]).is_err());
        assert!(check(vec![text("a", "b"); MAX_ATTACHMENTS + 1]).is_err());
        let named = check(vec![text(" notes\n.md ", "b")]).unwrap();
        assert_eq!(named[0].name, "notes.md");
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0];
        let files = check(vec![
            text("notes.md", "Buy ```milk```"),
            image("p.jpg", &jpeg),
        ])
        .unwrap();
        let ChatMessage::User { content, images } = user_message("Summarise", &files) else {
            panic!("a user message")
        };
        assert_eq!(
            content,
            "Summarise\n\nAttached file \"notes.md\":\n````\nBuy ```milk```\n````"
        );
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].media_type, "image/jpeg");
    }
}
