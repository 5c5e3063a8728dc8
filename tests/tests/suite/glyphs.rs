//! Every character the UI draws has a font (SPEC §7, item 11): a full-width `＋` once drew as an
//! empty box under Xvfb because common Linux fonts lack it. This reads every non-ASCII character
//! in the UI's sources and strings (both languages) and asks fontconfig — what WebKitGTK draws
//! with — whether some installed font has it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "ts" || e == "tsx" || e == "css")
            && !path.to_string_lossy().contains(".test.")
        {
            out.push(path);
        }
    }
}

#[test]
fn every_character_the_ui_draws_has_a_font() {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src");
    let mut files = Vec::new();
    sources(&ui, &mut files);
    let mut chars = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for line in text.lines() {
            let code = line.trim_start();
            // Comments are not drawn.
            if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
                continue;
            }
            chars.extend(line.chars().filter(|c| !c.is_ascii()));
        }
    }
    assert!(chars.contains(&'中'), "the Chinese strings were read");
    let missing: Vec<String> = chars
        .iter()
        .filter(|c| {
            let out = Command::new("fc-list")
                .arg(format!(":charset={:x}", u32::from(**c)))
                .arg("family")
                .output()
                .expect("fc-list (fontconfig) runs");
            out.stdout.iter().all(u8::is_ascii_whitespace)
        })
        .map(|c| format!("{c} (U+{:04X})", u32::from(*c)))
        .collect();
    assert!(
        missing.is_empty(),
        "no installed font draws: {}",
        missing.join(", ")
    );
}
