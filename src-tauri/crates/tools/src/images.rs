//! What counts as an image anywhere in the app: a file the user attaches (F-57), an image an MCP
//! tool returns (F-45), an image in an imported chat. Each is base64 from outside; it is shown
//! and sent only when its bytes decode and begin like one of the formats every provider and the
//! window take. The format comes from the bytes, never from the name or the declared type, so
//! an SVG with a script or a script called `photo.png` is never treated as an image.

use base64::Engine;

/// The largest image, in bytes (what the providers accept comfortably).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// Why base64 data is not an image we show or send.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("could not be read as an image")]
    NotBase64,
    #[error("is {}; images can be at most {}", megabytes(*.0), megabytes(MAX_IMAGE_BYTES))]
    TooLarge(usize),
    #[error("is not a PNG, JPEG, GIF or WebP image, the formats models take")]
    UnknownFormat,
}

/// A size in megabytes with one decimal, for messages.
pub fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

/// A size for a person: bytes, KB or MB.
pub fn human_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        megabytes(bytes)
    }
}

/// The image format these bytes begin with, as a media type.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// An image that passed [`check_base64`]: its real media type and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckedImage {
    pub media_type: &'static str,
    pub bytes: usize,
}

/// Decodes base64 image data (whitespace allowed, as some servers wrap it) and checks its size
/// and format.
pub fn check_base64(data: &str) -> Result<CheckedImage, ImageError> {
    // Base64 is 4 characters per 3 bytes: a string this long cannot be small enough.
    if data.len() / 4 * 3 > MAX_IMAGE_BYTES + 3 {
        return Err(ImageError::TooLarge(data.len() / 4 * 3));
    }
    let compact: String;
    let data = if data.bytes().any(|b| b.is_ascii_whitespace()) {
        compact = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        compact.as_str()
    } else {
        data
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.as_bytes())
        .map_err(|_| ImageError::NotBase64)?;
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge(bytes.len()));
    }
    let media_type = sniff(&bytes).ok_or(ImageError::UnknownFormat)?;
    Ok(CheckedImage {
        media_type,
        bytes: bytes.len(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn the_bytes_decide_what_an_image_is() {
        let png = b"\x89PNG\r\n\x1a\n rest";
        assert_eq!(
            check_base64(&b64(png)).unwrap(),
            CheckedImage {
                media_type: "image/png",
                bytes: png.len()
            }
        );
        let wrapped: String = b64(png)
            .chars()
            .enumerate()
            .flat_map(|(i, c)| (i % 4 == 3).then_some('\n').into_iter().chain([c]))
            .collect();
        assert_eq!(check_base64(&wrapped).unwrap().media_type, "image/png");
        assert_eq!(
            check_base64(&b64(b"<svg onload=alert(1)>")),
            Err(ImageError::UnknownFormat)
        );
        assert_eq!(
            check_base64(&b64(b"#!/bin/sh\nrm -rf ~")),
            Err(ImageError::UnknownFormat)
        );
        assert_eq!(check_base64("not base64!!"), Err(ImageError::NotBase64));
        let mut big = b"\x89PNG\r\n\x1a\n".to_vec();
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        assert_eq!(
            check_base64(&b64(&big)),
            Err(ImageError::TooLarge(MAX_IMAGE_BYTES + 1))
        );
        assert_eq!(
            ImageError::TooLarge(MAX_IMAGE_BYTES + 1).to_string(),
            "is 5.0 MB; images can be at most 5.0 MB"
        );
        assert!(matches!(
            check_base64(&"A".repeat(MAX_IMAGE_BYTES * 2)),
            Err(ImageError::TooLarge(_))
        ));
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(human_size(70), "70 bytes");
        assert_eq!(human_size(1536), "1.5 KB");
        assert_eq!(human_size(3 * 1024 * 1024), "3.0 MB");
    }
}
