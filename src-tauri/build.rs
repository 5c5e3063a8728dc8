//! Tauri's build step. The app embeds the built UI (`ui/dist`); in a checkout where it was never
//! built (plain `cargo test` or `cargo build` in a fresh clone), a page saying how to build it
//! stands in, so the Rust code still compiles and its tests run. The scripts in `.ci/` always
//! build the real UI first (`.ci/setup.sh` rebuilds over this page).

use std::path::Path;

/// Marks the stand-in page (`.ci/setup.sh` looks for it).
const MARK: &str = "tollgate-ui-not-built";

fn main() {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist");
    if !dist.join("index.html").exists() {
        println!(
            "cargo:warning=ui/dist is missing: the app will show a page saying how to build the UI (bash .ci/setup.sh, or `npm run build` in ui/)"
        );
        let page = format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"{MARK}\"><title>Tollgate</title></head>\n<body><h1>The UI was not built</h1><p>This build of Tollgate has no user interface in it. Build the UI with <code>bash .ci/setup.sh</code> (or <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>), then build the app again.</p></body></html>\n"
        );
        if let Err(e) = std::fs::create_dir_all(&dist)
            .and_then(|()| std::fs::write(dist.join("index.html"), page))
        {
            println!("cargo:warning=could not write the stand-in page: {e}");
        }
    }
    tauri_build::build();
}
