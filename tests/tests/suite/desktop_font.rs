//! The page draws in the desktop's interface font, looked up once per font (F-71): the
//! app reads the family from GTK's settings and hands it to the page, which names it before
//! sans-serif; a desktop that names no font of its own (GTK's built-in "Sans") gets sans-serif
//! alone, where WebKit's `system-ui` lookup would fail first for every size and weight.

use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;

/// A config folder whose GTK settings name `font` (none: GTK's defaults).
fn gtk_config(font: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    if let Some(font) = font {
        std::fs::create_dir_all(dir.path().join("gtk-3.0")).unwrap();
        std::fs::write(
            dir.path().join("gtk-3.0/settings.ini"),
            format!("[Settings]\ngtk-font-name={font}\n"),
        )
        .unwrap();
    }
    dir
}

/// The page's sans-serif stack and the family the sidebar's text is drawn in, as the page
/// computes them, with the app's GTK settings in `config`.
async fn fonts_with(config: &tempfile::TempDir) -> (String, String) {
    let home = config.path().to_str().unwrap();
    let s = Session::start(&[("XDG_CONFIG_HOME", home)]).await.unwrap();
    s.el(".sidebar .new-chat").await.unwrap();
    let got = s
        .client
        .execute(
            "return [getComputedStyle(document.documentElement).getPropertyValue('--font-sans').trim(), getComputedStyle(document.querySelector('.sidebar .new-chat')).fontFamily];",
            vec![],
        )
        .await
        .unwrap();
    s.close().await;
    (
        got[0].as_str().unwrap().to_string(),
        got[1].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn the_page_names_the_desktops_font_or_goes_straight_to_sans_serif() {
    let _seat = Seat::take().await.unwrap();

    let named = gtk_config(Some("DejaVu Sans Bold 11"));
    let (stack, family) = fonts_with(&named).await;
    assert_eq!(stack, "\"DejaVu Sans\", sans-serif");
    assert!(family.contains("DejaVu Sans"), "{family}");

    // GTK's own default names no font: no system-ui lookup to fail first.
    for config in [gtk_config(None), gtk_config(Some("Sans 10"))] {
        let (stack, family) = fonts_with(&config).await;
        assert_eq!(stack, "sans-serif");
        assert_eq!(family, "sans-serif");
    }

    // A family name that tries to end its CSS string stays one quoted family.
    let hostile = gtk_config(Some("Evil\", monospace; color: red 10"));
    let (stack, _) = fonts_with(&hostile).await;
    assert!(stack.starts_with("\"Evil"), "{stack}");
    assert!(stack.ends_with("\", sans-serif"), "{stack}");
    assert!(!stack.contains("monospace\","), "{stack}");
}
