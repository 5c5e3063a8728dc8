//! How the window draws on this machine, decided before GTK and WebKit start.
//!
//! On a machine without a GPU (no DRM render node: virtual machines, containers, remote X
//! sessions, Xvfb) WebKitGTK still sets up GL, and Mesa answers with llvmpipe, its software
//! rasteriser. Measured under Xvfb, compositing through llvmpipe grew the web process from 115 MB
//! to 200 MB, and loading Mesa (with its LLVM) into the app process as well, only to ask it for a
//! render node that does not exist, cost about 21 MB more in all (319 MB → 216 MB for the app
//! and its WebKit processes). WebKit's CPU path draws this UI just as well, so on such machines
//! Tollgate turns GL off before the toolkit starts. (The web process still opens an EGL display,
//! which WebKitGTK requires, so it alone keeps Mesa.)
//!
//! A variable the user already set is left alone, so anyone can still force a mode.

use std::path::Path;

/// Where Linux lists DRM devices.
pub const DRM_DIR: &str = "/dev/dri";

/// The variables that keep GTK and WebKit from starting GL, with their values.
///
/// `WEBKIT_WEB_RENDER_DEVICE_FILE` answers, without starting EGL, the question the app process
/// would otherwise start Mesa to ask (which render node the web process should use). WebKit only
/// uses the file when it names one of the machine's DRM nodes; with none present, any other path
/// means "no device", which is the true answer here.
pub const SOFTWARE_RENDERING: [(&str, &str); 4] = [
    ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
    ("GDK_GL", "disable"),
    ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/null"),
];

/// How the window will draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rendering {
    /// A GPU render node exists (or this is not Linux): GTK and WebKit use their defaults.
    Defaults,
    /// No render node: GL is off. Holds the variables set (those the user had not set already).
    Software { set: Vec<&'static str> },
}

/// Whether `dir` lists a DRM render node (`renderD128` and so on).
pub fn has_render_node(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false)
}

/// The variables of [`SOFTWARE_RENDERING`] to set: those `is_set` says the user has not set.
pub fn plan(is_set: impl Fn(&str) -> bool) -> Vec<(&'static str, &'static str)> {
    SOFTWARE_RENDERING
        .into_iter()
        .filter(|(name, _)| !is_set(name))
        .collect()
}

/// Decides how to draw and sets the variables for it.
///
/// Call it before anything else starts, while the process has one thread: changing the environment
/// is only sound before other threads exist.
pub fn configure() -> Rendering {
    if !cfg!(target_os = "linux") || has_render_node(Path::new(DRM_DIR)) {
        return Rendering::Defaults;
    }
    let vars = plan(|name| std::env::var_os(name).is_some());
    for (name, value) in &vars {
        std::env::set_var(name, value);
    }
    Rendering::Software {
        set: vars.into_iter().map(|(name, _)| name).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_node_means_a_gpu_and_other_drm_entries_do_not() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_render_node(dir.path()), "an empty folder");
        assert!(!has_render_node(&dir.path().join("missing")), "no folder");
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(!has_render_node(dir.path()), "a display node alone");
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dir.path()));
    }

    #[test]
    fn gl_is_turned_off_except_where_the_user_chose() {
        let all = plan(|_| false);
        assert_eq!(all, SOFTWARE_RENDERING.to_vec());
        let kept = plan(|name| name == "GDK_GL");
        assert!(kept.iter().all(|(name, _)| *name != "GDK_GL"));
        assert_eq!(kept.len(), SOFTWARE_RENDERING.len() - 1);
    }
}
