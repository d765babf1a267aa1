//! Legacy (v1/v2) files on disk, and the sessions-root boundary.
//!
//! pi rewrites a legacy file when it opens it and drops its unreadable lines. pitree reads legacy
//! files with in-memory migration and touches the disk only before its first write to one, and
//! only when that write may go ahead (the file is writable, its owner can be kept): the migrated
//! text goes to a temp file in the same folder (`.<file>.migrating-XXXXXX`, with the original's
//! owner, group and mode, fsync; one a killed migration left is removed by the next migration of
//! that file), the original is kept as `<file>.v<N>.bak` (a hard link), the temp file is renamed
//! over the original, and the folder is fsynced. Unreadable lines, and entries the migration does
//! not change, are kept verbatim. Entry ids are the ones the reader derived, so what the user saw
//! is what lands on disk.

use std::io::Write;
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use serde_json::{Map, Value};

use super::append::sync_dir;
use crate::session::content::parse_json;
use crate::session::{Entry, Kind, Session};

/// `path` resolved, if it lies inside `root`; an error otherwise.
pub fn inside_root(path: &Path, root: &Path) -> Result<PathBuf> {
    let file = path.canonicalize().wrap_err_with(|| format!("cannot resolve {}", path.display()))?;
    check_inside(file, root)
}

/// `path` with its folder resolved but not its file name, if it lies inside `root`: the entry in
/// the folder itself, so that a symlinked session is the link, not the file it points to.
pub fn entry_inside_root(path: &Path, root: &Path) -> Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| eyre!("{} names no file", path.display()))?;
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let folder = folder.canonicalize().wrap_err_with(|| format!("cannot resolve {}", folder.display()))?;
    check_inside(folder.join(name), root)
}

fn check_inside(resolved: PathBuf, root: &Path) -> Result<PathBuf> {
    let root_c = match root.canonicalize() {
        Ok(root_c) => root_c,
        // The default root of someone who keeps sessions elsewhere, or has no pi set up yet.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "the sessions root {} does not exist, and pitree deletes, forks and migrates only files inside \
             it: pass --session-dir with the folder that holds {}",
            root.display(),
            resolved.display()
        ),
        Err(e) => {
            return Err(e).wrap_err_with(|| format!("cannot resolve the sessions root {}", root.display()));
        }
    };
    if !resolved.starts_with(&root_c) || resolved == root_c {
        bail!(
            "{} is outside the sessions root {}; pitree only deletes, forks or migrates files inside it",
            resolved.display(),
            root_c.display()
        );
    }
    Ok(resolved)
}

/// Migrate a legacy session file on disk. Returns the backup's path.
pub fn migrate_on_disk(session: &Session, root: &Path) -> Result<PathBuf> {
    let path = inside_root(&session.file.path, root)?;
    let original = std::fs::read(&path).wrap_err_with(|| format!("cannot read {}", path.display()))?;
    if original.len() as u64 != session.file.facts.len {
        bail!("{} changed while it was being migrated; nothing was written", path.display());
    }
    // The write that follows the migration would be refused: do not replace the file first.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .wrap_err_with(|| format!("cannot write to {}; it was not migrated", path.display()))?;
    let migrated = migrated_text(session, &original)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let prefix = temp_prefix(&path);
    remove_stale_temps(dir, &prefix);
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .tempfile_in(dir)
        .wrap_err("cannot create a temp file for the migration")?;
    tmp.write_all(&migrated)?;
    let meta = std::fs::metadata(&path)?;
    keep_owner(tmp.as_file(), &meta, &path)?;
    tmp.as_file().set_permissions(meta.permissions())?;
    tmp.as_file().sync_all()?;
    let backup = backup_path(&path, session.header().version);
    std::fs::hard_link(&path, &backup)
        .wrap_err_with(|| format!("cannot keep a backup at {}", backup.display()))?;
    if std::fs::metadata(&path)?.len() != original.len() as u64 {
        std::fs::remove_file(&backup)?;
        bail!("{} changed while it was being migrated; nothing was written", path.display());
    }
    tmp.persist(&path).wrap_err_with(|| format!("cannot replace {}", path.display()))?;
    sync_dir(&path)?;
    Ok(backup)
}

/// Give the migrated text the owner and group of the file it replaces (a temp file belongs to
/// whoever runs pitree, so root migrating another user's session would take it from them).
fn keep_owner(tmp: &std::fs::File, file: &std::fs::Metadata, path: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let ours = tmp.metadata()?;
    if (file.uid(), file.gid()) == (ours.uid(), ours.gid()) {
        return Ok(());
    }
    std::os::unix::fs::fchown(tmp, Some(file.uid()), Some(file.gid())).wrap_err_with(|| {
        format!(
            "cannot keep the owner ({}:{}) of {}: migrating it would change who owns it; nothing was written",
            file.uid(),
            file.gid(),
            path.display()
        )
    })
}

/// How long a migration's temp file may sit before another migration of the same file takes it
/// for the leftover of a killed one.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(60);

/// The name prefix of a migration's temp file: `.<file name>.migrating-`, so a leftover (the
/// process was killed before the rename) says what it is.
fn temp_prefix(path: &Path) -> String {
    format!(".{}.migrating-", path.file_name().unwrap_or_default().to_string_lossy())
}

/// Remove what killed migrations of this file left behind (temp files older than [`STALE_TEMP`]).
fn remove_stale_temps(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let stale = entry.file_name().to_string_lossy().starts_with(prefix)
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_TEMP));
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `<file>.v<N>.bak`, or `<file>.v<N>.bak.<k>` when that exists already.
fn backup_path(path: &Path, version: u32) -> PathBuf {
    let base = format!("{}.v{version}.bak", path.display());
    let mut candidate = PathBuf::from(&base);
    let mut k = 1;
    while candidate.exists() {
        candidate = PathBuf::from(format!("{base}.{k}"));
        k += 1;
    }
    candidate
}

/// The file's text after migration: the header at version 3, every entry migrated, every other
/// line (blank, unreadable) kept byte for byte.
fn migrated_text(session: &Session, original: &[u8]) -> Result<Vec<u8>> {
    let by_line: std::collections::HashMap<u32, &Entry> =
        session.entries().iter().map(|e| (e.line, e)).collect();
    let mut out = Vec::with_capacity(original.len() + original.len() / 8);
    let body = original.strip_suffix(b"\n").unwrap_or(original);
    for (i, line) in body.split(|b| *b == b'\n').enumerate() {
        let number = i as u32 + 1;
        if number == session.header().line {
            let mut header = parse_json(line)?;
            set_key(&mut header, "version", Value::from(3));
            out.extend_from_slice(serde_json::to_string(&header)?.as_bytes());
        } else if let Some(entry) = by_line.get(&number) {
            // A line migration leaves as it is (most of a v2 file) is kept byte for byte, so what
            // a JSON value cannot carry through a re-serialization stays: a lone surrogate
            // escape, a number beyond a double, `-0`, the spacing.
            let value = parse_json(line)?;
            let migrated = migrated_entry_json(value.clone(), entry);
            if migrated == value {
                out.extend_from_slice(line);
            } else {
                out.extend_from_slice(serde_json::to_string(&migrated)?.as_bytes());
            }
        } else {
            out.extend_from_slice(line);
        }
        out.push(b'\n');
    }
    Ok(out)
}

/// An entry's JSON as pi's migration leaves it: `id` and `parentId` set (appended if absent, as
/// JavaScript does), a v1 compaction's `firstKeptEntryIndex` replaced by `firstKeptEntryId`, and
/// v2's `hookMessage` role renamed to `custom`.
pub fn migrated_entry_json(mut value: Value, entry: &Entry) -> Value {
    set_key(&mut value, "id", Value::from(entry.id.as_str()));
    set_key(&mut value, "parentId", entry.parent_id.as_deref().map_or(Value::Null, Value::from));
    if let Kind::Compaction { first_kept_entry_index: Some(_), first_kept_entry_id, .. } = &entry.kind {
        if let Some(id) = first_kept_entry_id {
            set_key(&mut value, "firstKeptEntryId", Value::from(id.clone()));
        }
        if let Value::Object(map) = &mut value {
            map.shift_remove("firstKeptEntryIndex");
        }
    }
    if let Some(Value::Object(message)) = value.get_mut("message")
        && message.get("role").and_then(Value::as_str) == Some("hookMessage")
    {
        message.insert("role".to_string(), Value::from("custom"));
    }
    value
}

fn set_key(value: &mut Value, key: &str, v: Value) {
    if let Value::Object(map) = value {
        set_in_map(map, key, v);
    }
}

fn set_in_map(map: &mut Map<String, Value>, key: &str, v: Value) {
    match map.get_mut(key) {
        Some(slot) => *slot = v,
        None => {
            map.insert(key.to_string(), v);
        }
    }
}
