//! The manager's state: the [`SessionManager`] struct (the header, the entries with their lean
//! views and id map, the leaf, the tree built on demand, what is on disk) with the few changes
//! every operation makes to it (install a session, push and pop an entry) and its plain accessors.
//! The operations themselves are `impl SessionManager` blocks in the sibling modules (open, append,
//! branch, tree, build, persist), which take the state from here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::error::{Error, Result};
use super::paths::resolve_path;
use super::types::{SessionEntry, SessionHeader};
use crate::session::parse::{Damage, FileFacts};
use crate::session::{Entry, Graph};

/// The session file as the manager last read or wrote it.
#[derive(Debug, Clone)]
pub(super) struct OnDisk {
    pub facts: FileFacts,
    /// The version on disk of a legacy file that is not migrated on disk yet.
    pub legacy_version: Option<u32>,
}

/// pi's `SessionManager`: one session (a header and a tree of entries) held in memory, with the
/// leaf where the next entry goes, written to its JSONL file as pi writes it. See the
/// [module documentation](super) for a tour.
#[derive(Debug, Clone)]
pub struct SessionManager {
    /// Resolved working directory (new headers get it as `cwd`).
    pub(super) cwd: PathBuf,
    /// Where new session files go; `None` for an in-memory session.
    pub(super) session_dir: Option<PathBuf>,
    /// The session file (it may not exist yet).
    pub(super) file: Option<PathBuf>,
    /// Whether anything is ever written (`false` for `in_memory`).
    pub(super) persist: bool,
    pub(super) header: SessionHeader,
    pub(super) entries: Vec<SessionEntry>,
    /// The reader's view of each entry, same order: the tree and the context are built from it.
    pub(super) lean: Vec<Entry>,
    pub(super) by_id: HashMap<String, usize>,
    /// Index of the leaf entry; `None` before the first entry (or after `reset_leaf`).
    pub(super) leaf: Option<usize>,
    pub(super) graph: OnceLock<Graph>,
    /// `None` until the file holds the session.
    pub(super) disk: Option<OnDisk>,
    /// The session holds a user or assistant message (pi creates the file from then on).
    pub(super) has_conversation: bool,
    /// Lines of the opened file that could not be used.
    pub(super) damage: Vec<Damage>,
    /// The backup kept when a legacy file was migrated on disk.
    pub(super) backup: Option<PathBuf>,
}

impl SessionManager {
    /// A manager with no session loaded yet; callers install one.
    pub(super) fn blank(cwd: &Path, session_dir: Option<PathBuf>, persist: bool) -> SessionManager {
        SessionManager {
            cwd: resolve_path(cwd),
            session_dir,
            file: None,
            persist,
            header: SessionHeader::new("", "", "", None),
            entries: Vec::new(),
            lean: Vec::new(),
            by_id: HashMap::new(),
            leaf: None,
            graph: OnceLock::new(),
            disk: None,
            has_conversation: false,
            damage: Vec::new(),
            backup: None,
        }
    }

    /// Replace the session with `header` and `entries` (with their lean views); the leaf is the
    /// last entry.
    pub(super) fn install(&mut self, header: SessionHeader, entries: Vec<SessionEntry>, lean: Vec<Entry>) {
        self.header = header;
        self.by_id = lean.iter().enumerate().map(|(i, e)| (e.id.to_string(), i)).collect();
        self.has_conversation = lean.iter().any(is_conversation);
        self.leaf = lean.len().checked_sub(1);
        self.entries = entries;
        self.lean = lean;
        self.graph = OnceLock::new();
        self.damage.clear();
    }

    /// Add an entry at the end; it becomes the leaf.
    pub(super) fn push(&mut self, entry: SessionEntry, lean: Entry) {
        self.has_conversation |= is_conversation(&lean);
        self.by_id.insert(lean.id.to_string(), self.lean.len());
        self.leaf = Some(self.lean.len());
        self.entries.push(entry);
        self.lean.push(lean);
        self.graph = OnceLock::new();
    }

    /// Undo the last `push` (its write failed), restoring the leaf.
    pub(super) fn pop(&mut self, leaf: Option<usize>) {
        if let Some(lean) = self.lean.pop() {
            self.by_id.remove(lean.id.as_str());
        }
        self.entries.pop();
        self.has_conversation = self.lean.iter().any(is_conversation);
        self.leaf = leaf;
        self.graph = OnceLock::new();
    }

    /// The tree over the entries, built when first needed after a change.
    pub(super) fn graph(&self) -> &Graph {
        self.graph.get_or_init(|| Graph::build(&self.lean))
    }

    pub(super) fn index_of(&self, id: &str) -> Result<usize> {
        self.by_id.get(id).copied().ok_or_else(|| Error::EntryNotFound(id.to_string()))
    }

    /// The session header.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// assert_eq!(sm.header().version, Some(3));
    /// assert_eq!(sm.header().cwd, "/p");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// Every entry, in file order (the header excluded).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// assert_eq!(sm.entries().len(), 1);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn entries(&self) -> &[SessionEntry] {
        &self.entries
    }

    /// The session name: the latest `session_info` entry's name, trimmed; an empty name clears it.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_session_info("Fix CI")?;
    /// assert_eq!(sm.session_name(), Some("Fix CI"));
    /// sm.append_session_info("")?;
    /// assert_eq!(sm.session_name(), None);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn session_name(&self) -> Option<&str> {
        self.graph().name()
    }

    /// The working directory (resolved), which new headers carry as `cwd`.
    ///
    /// ```
    /// use std::path::Path;
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let sm = SessionManager::in_memory("/p/./q/..", NewSessionOptions::default(), Vec::new())?;
    /// assert_eq!(sm.cwd(), Path::new("/p"));
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Where new session files (from `new_session`, `create_branched_session`) go; `None` for an
    /// in-memory session.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let sm = SessionManager::create("/p", Some(dir.path()), NewSessionOptions::default())?;
    /// assert_eq!(sm.session_dir(), Some(dir.path()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn session_dir(&self) -> Option<&Path> {
        self.session_dir.as_deref()
    }

    /// The session id (the header's `id`).
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let options = NewSessionOptions { id: Some("my-run.1".into()), ..Default::default() };
    /// let sm = SessionManager::in_memory("/p", options, Vec::new())?;
    /// assert_eq!(sm.session_id(), "my-run.1");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn session_id(&self) -> &str {
        &self.header.id
    }

    /// The session file; it does not exist until the conversation starts (see
    /// [`is_persisted`](Self::is_persisted) and the module documentation). `None` in memory.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let mut sm = SessionManager::create("/p", Some(dir.path()), NewSessionOptions::default())?;
    /// let file = sm.session_file().unwrap().to_path_buf();
    /// assert!(!file.exists());
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// assert!(file.exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn session_file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Whether the manager writes to a file at all (`false` for [`in_memory`](Self::in_memory)).
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// assert!(!sm.is_persisted());
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn is_persisted(&self) -> bool {
        self.persist
    }

    /// Lines of the opened file that could not be used (malformed JSON, non-objects, entries
    /// without an id, duplicate ids, extra headers), with their line numbers. pi skips them
    /// silently; they stay in the file untouched.
    ///
    /// ```
    /// use pitree::manager::SessionManager;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.jsonl");
    /// std::fs::write(&path, concat!(
    ///     r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#, "\n",
    ///     "not json\n",
    /// ))?;
    /// let sm = SessionManager::open(&path, None, None)?;
    /// assert_eq!(sm.damage()[0].line, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn damage(&self) -> &[Damage] {
        &self.damage
    }

    /// The backup kept as `<file>.v<N>.bak` when the manager migrated a legacy (v1/v2) file on
    /// disk before its first write to it.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// assert_eq!(sm.migration_backup(), None);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn migration_backup(&self) -> Option<&Path> {
        self.backup.as_deref()
    }
}

/// A user or assistant message, the entries that make pi create the file.
fn is_conversation(e: &Entry) -> bool {
    matches!(e.role(), Some("user" | "assistant"))
}
