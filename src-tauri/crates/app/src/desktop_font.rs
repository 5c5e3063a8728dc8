//! The desktop's interface font, handed to the page with its window (F-71).
//!
//! The page's Linux font stack used to be `system-ui, sans-serif`. WebKitGTK looks up every font
//! the page uses (a family at a size and weight) in fontconfig, and each lookup costs 2–3 ms on
//! a 2-core machine: WebKit weighs the strength of each of the hundred or so aliases fontconfig's
//! rules add to the family. Where the desktop names no font of its own (GTK's built-in "Sans":
//! Xvfb, window managers without a settings daemon), the `system-ui` lookup fails and WebKit
//! looks the font up again as `sans-serif`; on a year of chats the sidebar's first layout took
//! 41 ms instead of 20. So the app reads the desktop's font family from GTK itself: the page
//! names that family, or goes straight to `sans-serif` when there is none. Either way the text
//! is drawn in the same font `system-ui` would have given it.

/// The global the page reads the desktop's font family from (`applyDesktopFont` in
/// `ui/src/platform.ts`): a family name, or null when the desktop names none of its own.
pub const GLOBAL: &str = "__TOLLGATE_UI_FONT__";

/// Family names that are fontconfig's own generic aliases, not a font the desktop chose: the
/// page's `sans-serif` fallback resolves them the same way, one lookup sooner.
const GENERIC: [&str; 6] = [
    "sans",
    "sans-serif",
    "serif",
    "monospace",
    "system-ui",
    "cursive",
];

/// The family of a GTK font name ("Cantarell 11", "Noto Sans Bold 10", "Adwaita Sans 11"), read
/// as pango reads it; `None` when it names no family or only a generic one ("Sans 10", GTK's
/// default).
#[cfg(target_os = "linux")]
pub fn family_of(font_name: &str) -> Option<String> {
    let family = gtk::pango::FontDescription::from_string(font_name).family()?;
    // A family list ("Cantarell, Noto Sans") keeps its first family: the one the desktop shows.
    let first = family.split(',').next()?.trim();
    if first.is_empty() || GENERIC.iter().any(|g| first.eq_ignore_ascii_case(g)) {
        None
    } else {
        Some(first.to_string())
    }
}

/// The desktop's interface font family (GTK's `gtk-font-name`), when it names one of its own.
/// Call it on the main thread once GTK is running (in Tauri's `setup`).
#[cfg(target_os = "linux")]
pub fn desktop_family() -> Option<String> {
    use gtk::prelude::GtkSettingsExt;
    let name = gtk::Settings::default()?.gtk_font_name()?;
    family_of(&name)
}

/// A script that sets [`GLOBAL`] to `family` (or null), as data whatever the name holds.
pub fn script(family: Option<&str>) -> Result<String, serde_json::Error> {
    crate::page_globals::script(GLOBAL, &family)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_family_is_what_the_desktop_chose_never_a_generic_alias() {
        assert_eq!(family_of("Cantarell 11").as_deref(), Some("Cantarell"));
        assert_eq!(
            family_of("Adwaita Sans 11").as_deref(),
            Some("Adwaita Sans")
        );
        // Styles and sizes are not part of the family.
        assert_eq!(family_of("Noto Sans Bold 10").as_deref(), Some("Noto Sans"));
        assert_eq!(family_of("Ubuntu Italic 11").as_deref(), Some("Ubuntu"));
        assert_eq!(
            family_of("Cantarell, Noto Sans 11").as_deref(),
            Some("Cantarell")
        );
        // GTK's own default and the other generic names: the page's sans-serif says the same.
        for generic in [
            "Sans 10",
            "sans-serif 10",
            "Serif 12",
            "Monospace 10",
            "system-ui 10",
        ] {
            assert_eq!(family_of(generic), None, "{generic}");
        }
        assert_eq!(family_of(""), None);
        assert_eq!(family_of("11"), None);
    }

    #[test]
    fn the_script_holds_the_family_as_data() {
        let hostile = "Evil\", sans-serif; } </script><script>alert(1)</script>\u{2028}";
        let parsed = crate::page_globals::read(&script(Some(hostile)).unwrap(), GLOBAL);
        assert_eq!(parsed, hostile);
        assert_eq!(
            super::script(None).unwrap(),
            format!("window.{GLOBAL} = null;")
        );
    }
}
