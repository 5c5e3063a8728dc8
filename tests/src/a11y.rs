//! What a native window tells assistive technology (AT-SPI): the one state a test can wait for
//! before it gives a GTK dialog keys. The dialog takes keys before it is ready for them (its
//! folder still loading, its location field not there yet) and shows nothing outside itself
//! when it is; which of its parts has the keyboard, and what a text field holds, it does tell.

use crate::{io, seat, E2eError};
use std::path::Path;

/// What a window has focused.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Focus {
    /// Whether a window of that title is on the accessibility bus at all.
    pub window: bool,
    /// The role of its part that has the keyboard ("text", "table", …), if one has.
    pub role: Option<String>,
    /// What that part holds, if it is a text field.
    pub text: Option<String>,
}

impl Focus {
    /// A text field has the keyboard.
    pub fn in_text(&self) -> bool {
        self.role.as_deref() == Some("text")
    }
}

/// What the window titled exactly `title` has focused now.
pub fn focus_in(title: &str) -> Result<Focus, E2eError> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/a11y_focus.py");
    // Debian's Python (its python3-gi); `timeout` so a bus that does not answer fails the step.
    let out = seat::x_command("timeout")
        .arg("20")
        .arg("/usr/bin/python3")
        .arg(&script)
        .arg(title)
        .output()
        .map_err(io(
            "asking the accessibility bus (install python3-gi and gir1.2-atspi-2.0)",
        ))?;
    if !out.status.success() {
        return Err(E2eError::Timeout(format!(
            "the accessibility bus did not say what \"{title}\" has focused: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| {
        E2eError::Timeout(format!(
            "the accessibility bus's answer could not be read ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        ))
    })
}
