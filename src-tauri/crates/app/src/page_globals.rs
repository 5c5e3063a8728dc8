//! What the window is built with (the first chats, the desktop's font) reaches the page as
//! globals its own scripts read once, before anything else runs (`first_page`, `desktop_font`).

/// A script that sets `window[global]` to `value` as JSON, which is a JavaScript expression: text
/// in it holding quotes, `</script>` or line separators stays data. What the window is built
/// with (the first chats, the desktop's font) reaches the page this way, before its own scripts.
pub fn script(global: &str, value: &impl serde::Serialize) -> Result<String, serde_json::Error> {
    Ok(format!(
        "window.{global} = {};",
        serde_json::to_string(value)?
    ))
}

/// The value a [`script`] sets `global` to, read back as JSON: one value, or the test fails.
#[cfg(test)]
pub fn read(script: &str, global: &str) -> serde_json::Value {
    #![allow(clippy::unwrap_used)]
    let json = script
        .strip_prefix(&format!("window.{global} = "))
        .and_then(|s| s.strip_suffix(';'))
        .unwrap();
    serde_json::from_str(json).unwrap()
}
