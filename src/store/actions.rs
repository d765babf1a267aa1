//! What each user action writes (product.md §3), built against the file as it is now: if pi
//! appended while the user was deciding, the file is read again and the line rebuilt (bounded), so
//! `parentId` always names the real current leaf.

use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use serde_json::{Map, Value, json};

use super::append::{WriteError, append_line, create_new};
use super::ids;
use super::migrate::{inside_root, migrate_on_disk, migrated_entry_json};
pub use crate::session::entry::LEAF_MARKER;
use crate::session::js;
use crate::session::parse::CURRENT_VERSION;
use crate::session::{Ix, Kind, Session};

/// A change to one session file that appends one line. Entries are named by id, because the file
/// may be re-read before the line is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Move the leaf to `target` (`None` = before the first entry) with a `pitree.leaf` marker.
    MoveLeaf { target: Option<String> },
    /// Move the leaf to `target` with a `branch_summary` entry.
    MoveLeafWithSummary {
        target: Option<String>,
        summary: String,
        read_files: Vec<String>,
        modified_files: Vec<String>,
    },
    /// Set (`Some`) or clear (`None`) the label on `target`.
    Label { target: String, label: Option<String> },
    /// Rename the session; `None` or an empty name clears it.
    Rename { name: Option<String> },
}

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// Id of the new entry.
    pub id: String,
    /// The line as written.
    pub line: Value,
    /// The backup kept when a legacy file was migrated first.
    pub backup: Option<PathBuf>,
}

/// How many times a write is rebuilt when the file keeps growing under it.
const RETRIES: usize = 8;

/// Write `action` to the session at `path`. `known` is the caller's parse of the file, if it has one
/// (it is re-read when stale); `root` is the sessions root, needed only to migrate a legacy file.
pub fn write_action(
    path: &Path,
    known: Option<&Session>,
    root: Option<&Path>,
    action: &Action,
) -> Result<Written> {
    let mut backup = None;
    let mut fresh;
    let mut session = match known {
        Some(s) => s,
        None => {
            fresh = open(path)?;
            &fresh
        }
    };
    for _ in 0..RETRIES {
        if session.header().version < CURRENT_VERSION {
            let root = root.ok_or_else(|| {
                eyre!(
                    "{} is a legacy (v{}) session; pitree needs the sessions root to migrate it",
                    path.display(),
                    session.header().version
                )
            })?;
            backup = Some(migrate_on_disk(session, root)?);
            fresh = open(path)?;
            session = &fresh;
            continue;
        }
        let (id, line) = build_line(session, action)?;
        let text = serde_json::to_string(&line)?;
        match append_line(path, &session.file.facts, text.as_bytes()) {
            Ok(_) => return Ok(Written { id, line, backup }),
            Err(WriteError::Grew) => {
                fresh = reread(session)?;
                session = &fresh;
            }
            Err(e) => return Err(eyre!(e)).wrap_err_with(|| format!("cannot write to {}", path.display())),
        }
    }
    bail!("{} kept changing while pitree tried to write; nothing was written", path.display())
}

fn open(path: &Path) -> Result<Session> {
    Session::open(path).map_err(|e| eyre!("{e}")).wrap_err_with(|| format!("cannot read {}", path.display()))
}

/// [`open`] for a session already read, reading what was appended since ([`Session::reread`]).
fn reread(session: &Session) -> Result<Session> {
    let path = &session.file.path;
    session.reread().map_err(|e| eyre!("{e}")).wrap_err_with(|| format!("cannot read {}", path.display()))
}

fn find(session: &Session, id: &str) -> Result<Ix> {
    session.graph.find(id).ok_or_else(|| eyre!("Entry {id} not found"))
}

/// The entry to append, in pi's key order.
fn build_line(session: &Session, action: &Action) -> Result<(String, Value)> {
    let id = ids::entry_id(&|id| session.graph.find(id).is_some());
    let leaf_id = session.graph.leaf().map(|l| session.entry(l).id.to_string());
    let line = match action {
        Action::MoveLeaf { target } => {
            check_target(session, target.as_deref())?;
            json!({"type": "custom", "customType": LEAF_MARKER, "data": {"fromId": leaf_id}, "id": id, "parentId": target, "timestamp": ids::now_timestamp()})
        }
        Action::MoveLeafWithSummary { target, summary, read_files, modified_files } => {
            check_target(session, target.as_deref())?;
            json!({"type": "branch_summary", "id": id, "parentId": target, "timestamp": ids::now_timestamp(),
                   "fromId": leaf_id.unwrap_or_else(|| "root".to_string()), "summary": summary,
                   "details": {"readFiles": read_files, "modifiedFiles": modified_files}, "fromHook": true})
        }
        Action::Label { target, label } => {
            find(session, target)?;
            let mut m = base("label", &id, leaf_id.as_deref());
            m.insert("targetId".into(), json!(target));
            if let Some(l) = label.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
                m.insert("label".into(), json!(l));
            }
            Value::Object(m)
        }
        Action::Rename { name } => {
            let mut m = base("session_info", &id, leaf_id.as_deref());
            m.insert("name".into(), json!(normalize_name(name.as_deref().unwrap_or(""))));
            Value::Object(m)
        }
    };
    Ok((id, line))
}

fn check_target(session: &Session, target: Option<&str>) -> Result<()> {
    target.map_or(Ok(()), |t| find(session, t).map(|_| ()))
}

fn base(ty: &str, id: &str, parent: Option<&str>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!(ty));
    m.insert("id".into(), json!(id));
    m.insert("parentId".into(), json!(parent));
    m.insert("timestamp".into(), json!(ids::now_timestamp()));
    m
}

/// pi 1.6.0's name rule: every run of CR/LF becomes one space, then trim.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_break = false;
    for c in name.chars() {
        if c == '\r' || c == '\n' {
            if !in_break {
                out.push(' ');
            }
            in_break = true;
        } else {
            out.push(c);
            in_break = false;
        }
    }
    js::trim(&out).to_string()
}

/// Fork the path root … `target` into a new session file in the same folder, as pi 1.6.0's
/// `createBranchedSession` does: a new v3 header (UUIDv7 id, the source's cwd, `parentSession` =
/// the source path), the path's entries with label entries dropped and the chain re-linked, then
/// the path's labels re-created with their original timestamps. Returns the new file's path.
pub fn fork(session: &Session, target: Ix, root: &Path) -> Result<PathBuf> {
    let source = inside_root(&session.file.path, root)?;
    let path = session.graph.path_to(target);
    let kept: Vec<Ix> =
        path.iter().copied().filter(|&i| !matches!(session.entry(i).kind, Kind::Label { .. })).collect();
    let session_id = ids::session_id();
    let timestamp = ids::now_timestamp();
    let header = json!({"type": "session", "version": 3, "id": session_id, "timestamp": timestamp,
                        "cwd": session.header().cwd, "parentSession": source.to_string_lossy()});
    let mut lines = vec![serde_json::to_string(&header)?];
    let mut prev: Option<String> = None;
    for &i in &kept {
        let entry = session.entry(i);
        let mut value = migrated_entry_json(session.load(i)?, entry);
        if let Value::Object(m) = &mut value {
            m.insert("parentId".into(), json!(prev));
        }
        lines.push(serde_json::to_string(&value)?);
        prev = Some(entry.id.to_string());
    }
    lines.extend(relabel_lines(session, &kept, prev)?);
    let file =
        source.parent().unwrap_or(Path::new(".")).join(ids::session_file_name(&timestamp, &session_id));
    let text = lines.join("\n") + "\n";
    create_new(&file, text.as_bytes()).wrap_err_with(|| format!("cannot create {}", file.display()))?;
    Ok(file)
}

/// Label entries re-creating the labels whose targets are on the kept path, chained after it.
fn relabel_lines(session: &Session, kept: &[Ix], mut prev: Option<String>) -> Result<Vec<String>> {
    let on_path: std::collections::HashSet<&str> =
        kept.iter().map(|&i| session.entry(i).id.as_str()).collect();
    let taken = |id: &str| on_path.contains(id);
    let labels: Vec<_> =
        session.graph.labels().iter().filter(|(t, _)| on_path.contains(t.as_str())).collect();
    let new_ids = ids::entry_ids(labels.len(), &taken);
    let mut lines = Vec::new();
    for ((target, label), id) in labels.into_iter().zip(new_ids) {
        let line = json!({"type": "label", "id": id, "parentId": prev, "timestamp": label.timestamp,
                          "targetId": target, "label": label.text});
        lines.push(serde_json::to_string(&line)?);
        prev = Some(id);
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fold_line_breaks_and_trim() {
        assert_eq!(normalize_name("  two\r\nlines  "), "two lines");
        assert_eq!(normalize_name("a\n\n\nb"), "a b");
        assert_eq!(normalize_name("   "), "");
    }
}
