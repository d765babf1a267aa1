//! `pitree --demo`: the bundled demo sessions (`assets/demo/sessions/--<cwd>--/*.jsonl`, written
//! by pi itself and embedded in the binary by `build.rs`, or `$PITREE_DEMO_DIR/sessions` when that
//! is set) copied into a fresh temporary agent folder, so the user can try everything —
//! rename, delete, move the leaf — without touching real sessions. Forks name their parent by
//! the absolute path they were generated at; the copy's headers are pointed at the copied files so
//! the threaded view still nests them. The folder is removed when the [`Demo`] is dropped.

use std::fs;
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, bail};
use serde_json::Value;

/// A folder holding `sessions/` to use instead of the embedded demo.
pub const SOURCE_ENV: &str = "PITREE_DEMO_DIR";

include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// A temporary agent folder holding a copy of the demo sessions.
pub struct Demo {
    dir: tempfile::TempDir,
}

impl Demo {
    /// The demo sessions from `$PITREE_DEMO_DIR`, else the embedded ones.
    pub fn prepare() -> Result<Demo> {
        match std::env::var_os(SOURCE_ENV) {
            Some(dir) => Demo::from_source(Path::new(&dir)),
            None => Demo::with_sessions(write_embedded),
        }
    }

    /// Copy the demo sessions from `source` (a folder holding `sessions/`).
    pub fn from_source(source: &Path) -> Result<Demo> {
        let from = source.join("sessions");
        if !from.is_dir() {
            bail!("{} holds no sessions/ folder (from {SOURCE_ENV})", source.display());
        }
        Demo::with_sessions(|sessions| copy_tree(&from, sessions))
    }

    /// A fresh temporary agent folder whose `sessions/` is filled by `fill`.
    fn with_sessions(fill: impl FnOnce(&Path) -> Result<()>) -> Result<Demo> {
        let dir = tempfile::Builder::new()
            .prefix("pitree-demo-")
            .tempdir()
            .wrap_err("cannot create a temporary folder for the demo")?;
        let demo = Demo { dir };
        let sessions = demo.sessions_root();
        fill(&sessions)?;
        relink_parents(&sessions)?;
        fs::create_dir_all(demo.cache_dir()).wrap_err("cannot create the demo's cache folder")?;
        Ok(demo)
    }

    /// The temporary agent folder (`PI_CODING_AGENT_DIR` for the demo).
    pub fn agent_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The copied sessions root.
    pub fn sessions_root(&self) -> PathBuf {
        self.agent_dir().join("sessions")
    }

    /// A cache folder inside the temporary folder, so the demo leaves no index behind.
    pub fn cache_dir(&self) -> PathBuf {
        self.agent_dir().join("cache")
    }
}

/// Write the embedded demo sessions under `sessions`.
fn write_embedded(sessions: &Path) -> Result<()> {
    for (name, bytes) in DEMO_FILES {
        let path = sessions.join(name);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).wrap_err_with(|| format!("cannot create {}", dir.display()))?;
        }
        fs::write(&path, bytes).wrap_err_with(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Copy the folder `from` to `to` (regular files and folders; nothing else is followed).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).wrap_err_with(|| format!("cannot create {}", to.display()))?;
    let entries = fs::read_dir(from).wrap_err_with(|| format!("cannot read {}", from.display()))?;
    for entry in entries {
        let entry = entry.wrap_err_with(|| format!("cannot read {}", from.display()))?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &target).wrap_err_with(|| {
                format!("cannot copy {} to {}", entry.path().display(), target.display())
            })?;
        }
    }
    Ok(())
}

/// Point every copied header's absolute `parentSession` at the copied file with the same
/// `<folder>/<file>` (or flat `<file>`) under `root`.
pub fn relink_parents(root: &Path) -> Result<()> {
    for file in session_files(root)? {
        relink_header(&file, root)?;
    }
    Ok(())
}

fn session_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = fs::read_dir(&folder).wrap_err_with(|| format!("cannot read {}", folder.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Rewrite the header line of `file` (the rest is copied byte for byte) when its `parentSession`
/// names a file that exists under `root` by its last path components.
fn relink_header(file: &Path, root: &Path) -> Result<()> {
    let bytes = fs::read(file).wrap_err_with(|| format!("cannot read {}", file.display()))?;
    let end = bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len());
    let Ok(Value::Object(mut header)) = serde_json::from_slice::<Value>(&bytes[..end]) else {
        return Ok(());
    };
    let Some(Value::String(parent)) = header.get("parentSession") else {
        return Ok(());
    };
    let Some(copied) = copied_parent(Path::new(parent), root) else {
        return Ok(());
    };
    header.insert("parentSession".into(), Value::String(copied.to_string_lossy().into_owned()));
    let mut out = serde_json::to_vec(&Value::Object(header))?;
    out.extend_from_slice(&bytes[end..]);
    fs::write(file, out).wrap_err_with(|| format!("cannot write {}", file.display()))
}

fn copied_parent(parent: &Path, root: &Path) -> Option<PathBuf> {
    if !parent.is_absolute() || parent.starts_with(root) {
        return None;
    }
    let name = parent.file_name()?;
    let nested = parent.parent().and_then(Path::file_name).map(|folder| root.join(folder).join(name));
    nested.into_iter().chain([root.join(name)]).find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forks_are_relinked_to_the_copy_and_the_source_is_untouched() {
        let source = tempfile::tempdir().unwrap();
        let folder = source.path().join("sessions/--home-dev-x--");
        fs::create_dir_all(&folder).unwrap();
        let parent = r#"{"type":"session","version":3,"id":"p","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/home/dev/x"}"#;
        fs::write(folder.join("p.jsonl"), format!("{parent}\n")).unwrap();
        let child = r#"{"type":"session","version":3,"id":"c","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/home/dev/x","parentSession":"/gen/agent/sessions/--home-dev-x--/p.jsonl"}"#;
        let body = "{\"type\":\"message\",\"id\":\"a\"}\n";
        fs::write(folder.join("c.jsonl"), format!("{child}\n{body}")).unwrap();

        let demo = Demo::from_source(source.path()).unwrap();
        let copy = fs::read_to_string(demo.sessions_root().join("--home-dev-x--/c.jsonl")).unwrap();
        let (header, rest) = copy.split_once('\n').unwrap();
        let header: Value = serde_json::from_str(header).unwrap();
        let expected = demo.sessions_root().join("--home-dev-x--/p.jsonl");
        assert_eq!(header["parentSession"], expected.to_string_lossy().as_ref());
        assert_eq!(
            header.as_object().unwrap().keys().next().map(String::as_str),
            Some("type"),
            "key order kept"
        );
        assert_eq!(rest, body);
        assert_eq!(fs::read_to_string(folder.join("c.jsonl")).unwrap(), format!("{child}\n{body}"));
        assert!(demo.cache_dir().is_dir());

        let dir = demo.agent_dir().to_path_buf();
        drop(demo);
        assert!(!dir.exists(), "the temporary folder is removed");
    }

    #[test]
    fn unknown_parents_are_left_alone() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(copied_parent(Path::new("/elsewhere/x/missing.jsonl"), root.path()), None);
        assert_eq!(copied_parent(Path::new("relative.jsonl"), root.path()), None);
    }
}
