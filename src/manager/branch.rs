//! New sessions made from existing ones: `create_branched_session` (the path root → an entry, in
//! a new file of the same folder, as pi 1.6.0 makes it) and `fork_from` (a whole session copied
//! under another cwd).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use color_eyre::eyre::WrapErr;
use serde_json::Map;

use super::error::{Error, Result};
use super::json::to_json_string;
use super::load::{FileState, lean_entry, read_session};
use super::open::NewSessionOptions;
use super::paths::{resolve_path, session_dir_or_default};
use super::state::SessionManager;
use super::types::{LabelEntry, SessionEntry, SessionHeader};
use crate::store::append::create_new;
use crate::store::ids;

impl SessionManager {
    /// Replace the session with a new one holding the path root → `leaf_id` (pi's
    /// `createBranchedSession`, 1.6.0 rules): label entries are left out and the remaining path
    /// re-chained (each entry's parent is the previous kept one), then the path's labels are
    /// re-created after it with their original timestamps. The new header has a new id, the
    /// current cwd and, when persisted, `parentSession` = the old file. The new file is written
    /// at once if the path holds a user or assistant message, else when the conversation starts.
    /// Returns the new file (`None` in memory).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let mut sm = SessionManager::create("/p", Some(dir.path()), NewSessionOptions::default())?;
    /// let a = sm.append_message(AgentMessage::user("a"))?;
    /// let b = sm.append_message(AgentMessage::assistant("api", "prov", "model", "b"))?;
    /// sm.append_label_change(&b, Some("keep"))?;
    /// sm.append_message(AgentMessage::user("c"))?;
    /// let old = sm.session_file().unwrap().to_path_buf();
    /// let new = sm.create_branched_session(&b)?.unwrap();
    /// assert!(new.exists());
    /// assert_eq!(sm.header().parent_session.as_deref(), Some(old.to_str().unwrap()));
    /// assert_eq!(sm.entries().len(), 3); // a, b, and the re-created label
    /// assert_eq!(sm.label(&b), Some("keep"));
    /// # let _ = a;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_branched_session(&mut self, leaf_id: &str) -> Result<Option<PathBuf>> {
        let path = self.branch_path(Some(leaf_id));
        if path.is_empty() {
            return Err(Error::EntryNotFound(leaf_id.to_string()));
        }
        let mut entries = rechained_without_labels(&path);
        let kept: HashSet<String> = entries.iter().map(|e| e.id().to_string()).collect();
        let labels = self.relabel_entries(&kept, entries.last().map(|e| e.id().to_string()));
        entries.extend(labels);
        let session_id = ids::session_id();
        let timestamp = ids::now_timestamp();
        let parent_session =
            if self.persist { self.file.as_ref().map(|f| f.to_string_lossy().into_owned()) } else { None };
        let header = SessionHeader::new(&session_id, &timestamp, &self.cwd.to_string_lossy(), parent_session);
        let lean = entries
            .iter()
            .enumerate()
            .map(|(i, e)| lean_entry(&to_json_string(e), i as u32 + 2))
            .collect::<Result<Vec<_>>>()?;
        self.install(header, entries, lean);
        self.disk = None;
        self.backup = None;
        if !self.persist {
            return Ok(None);
        }
        let dir = self.session_dir.clone().unwrap_or_default();
        let file = dir.join(ids::session_file_name(&timestamp, &session_id));
        self.file = Some(file.clone());
        if self.has_conversation {
            self.write_new_file(&file)?;
        }
        Ok(Some(file))
    }

    /// Label entries re-creating, in the label map's order, the labels whose targets are `kept`,
    /// chained after `parent`, with their original timestamps.
    fn relabel_entries(&self, kept: &HashSet<String>, mut parent: Option<String>) -> Vec<SessionEntry> {
        let labels: Vec<_> =
            self.graph().labels().iter().filter(|(target, _)| kept.contains(*target)).collect();
        let new_ids = ids::entry_ids(labels.len(), &|id| kept.contains(id));
        labels
            .into_iter()
            .zip(new_ids)
            .map(|((target, label), id)| {
                SessionEntry::Label(LabelEntry {
                    id: id.clone(),
                    parent_id: parent.replace(id),
                    timestamp: label.timestamp.clone(),
                    target_id: target.clone(),
                    label: Some(label.text.clone()),
                    extra: Map::new(),
                })
            })
            .collect()
    }

    /// A new session for `target_cwd` holding every entry of the session at `source` (all
    /// branches, original ids), with a new header whose `parentSession` is `source` (pi's
    /// `forkFrom`). It goes in `session_dir` (default: `target_cwd`'s folder), is written at
    /// once with an exclusive create, and is opened.
    ///
    /// Differences from pi: a legacy (v1/v2) source is migrated first, in memory (the source is
    /// not touched), as pi's later fix does; lines of the source that are not entries
    /// (unreadable, not objects, without an id, duplicate ids) are not copied.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let mut src = SessionManager::create("/a", Some(dir.path()), NewSessionOptions::default())?;
    /// let u = src.append_message(AgentMessage::user("hi"))?;
    /// let source = src.session_file().unwrap().to_path_buf();
    /// let other = tempfile::tempdir()?;
    /// let fork = SessionManager::fork_from(&source, "/b", Some(other.path()), NewSessionOptions::default())?;
    /// assert_eq!(fork.header().cwd, "/b");
    /// assert_eq!(fork.header().parent_session.as_deref(), Some(source.to_str().unwrap()));
    /// assert_eq!(fork.leaf_id(), Some(u.as_str()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fork_from(
        source: impl AsRef<Path>,
        target_cwd: impl AsRef<Path>,
        session_dir: Option<&Path>,
        options: NewSessionOptions,
    ) -> Result<SessionManager> {
        let source = resolve_path(source.as_ref());
        let target_cwd = resolve_path(target_cwd.as_ref());
        let loaded = match read_session(&source) {
            Ok(FileState::Session(loaded)) => loaded,
            Ok(_) | Err(Error::NotASession(_)) => return Err(Error::ForkSourceInvalid(source)),
            Err(e) => return Err(e),
        };
        let dir = session_dir_or_default(&target_cwd, session_dir)?;
        let session_id = match options.id {
            Some(id) if !ids::is_valid_session_id(&id) => return Err(Error::InvalidSessionId(id)),
            Some(id) => id,
            None => ids::session_id(),
        };
        let timestamp = ids::now_timestamp();
        let header = SessionHeader::new(
            &session_id,
            &timestamp,
            &target_cwd.to_string_lossy(),
            Some(source.to_string_lossy().into_owned()),
        );
        let mut text = to_json_string(&header) + "\n";
        for entry in &loaded.entries {
            text.push_str(&to_json_string(entry));
            text.push('\n');
        }
        let file = dir.join(ids::session_file_name(&timestamp, &session_id));
        create_new(&file, text.as_bytes()).wrap_err_with(|| format!("cannot create {}", file.display()))?;
        SessionManager::open(&file, Some(&dir), Some(&target_cwd))
    }
}

/// The path without its label entries, each kept entry's parent being the previous kept one. A
/// compaction whose `firstKeptEntryId` named a dropped label points at the next kept entry.
fn rechained_without_labels(path: &[&SessionEntry]) -> Vec<SessionEntry> {
    let mut out: Vec<SessionEntry> = Vec::with_capacity(path.len());
    let mut label_successor: HashMap<String, String> = HashMap::new();
    let mut pending_labels: Vec<String> = Vec::new();
    for entry in path {
        if matches!(entry, SessionEntry::Label(_)) || entry.entry_type() == "label" {
            pending_labels.push(entry.id().to_string());
            continue;
        }
        for label in pending_labels.drain(..) {
            label_successor.insert(label, entry.id().to_string());
        }
        let mut kept = (*entry).clone();
        kept.set_parent_id(out.last().map(|e| e.id().to_string()));
        if let SessionEntry::Compaction(c) = &mut kept
            && let Some(next) = label_successor.get(&c.first_kept_entry_id)
        {
            c.first_kept_entry_id = next.clone();
        }
        out.push(kept);
    }
    out
}
