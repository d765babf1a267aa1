//! Embeds the demo sessions (`assets/demo/sessions/**.jsonl`) in the binary, so `pitree --demo`
//! works from an installed binary with no data files next to it.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new("assets/demo/sessions");
    println!("cargo:rerun-if-changed=assets/demo");
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    let mut code = String::from(
        "/// The demo sessions: (path under `sessions/`, contents).\npub static DEMO_FILES: &[(&str, &[u8])] = &[\n",
    );
    // Paths from the manifest folder as the crate is compiled, not absolute ones: this output is
    // cached, and an absolute path would break the build of a checkout that was moved.
    for file in &files {
        let rel = file.strip_prefix(root).expect("under the demo root").to_string_lossy().replace('\\', "/");
        let source = format!("/assets/demo/sessions/{rel}");
        writeln!(code, "    ({rel:?}, include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {source:?}))),")
            .unwrap();
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("demo_files.rs"), code).expect("write demo_files.rs");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            files.push(path);
        }
    }
}
