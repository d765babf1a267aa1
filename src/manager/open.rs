//! Making a manager: a new session (`create`, `in_memory`, `new_session`), an existing file
//! (`open`, `set_session_file`, `continue_recent`), and finding a session file by its id.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::error::{Error, Result};
use super::json::to_json_string;
use super::list::{find_most_recent, read_header};
use super::load::{FileState, lean_entry, read_session};
use super::paths::{filters_by_cwd, resolve_path, session_dir_or_default};
use super::state::OnDisk;
use super::state::SessionManager;
use super::types::{SessionEntry, SessionHeader};
use crate::catalog::locate::CwdMatcher;
use crate::store::ids;

/// Options for a new session (pi's `NewSessionOptions`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewSessionOptions {
    /// A custom session id instead of a new UUIDv7; it must match pi's rule
    /// `^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`.
    pub id: Option<String>,
    /// The header's `parentSession`.
    pub parent_session: Option<String>,
}

impl SessionManager {
    /// A new session for `cwd`, stored in `session_dir` (default: pi's folder for `cwd` under
    /// `<agent dir>/sessions`, created if missing). No file is written until the conversation has
    /// a user or assistant message.
    ///
    /// ```
    /// use pitree::manager::{Error, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let sm = SessionManager::create("/home/u/proj", Some(dir.path()), NewSessionOptions::default())?;
    /// assert_eq!(sm.session_file().unwrap().parent(), Some(dir.path()));
    /// let bad = NewSessionOptions { id: Some("-bad".into()), ..Default::default() };
    /// assert!(matches!(
    ///     SessionManager::create("/p", Some(dir.path()), bad),
    ///     Err(Error::InvalidSessionId(_))
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create(
        cwd: impl AsRef<Path>,
        session_dir: Option<&Path>,
        options: NewSessionOptions,
    ) -> Result<SessionManager> {
        let cwd = cwd.as_ref();
        let dir = session_dir_or_default(cwd, session_dir)?;
        let mut sm = SessionManager::blank(cwd, Some(dir), true);
        sm.new_session(options)?;
        Ok(sm)
    }

    /// Open the session file at `path`. The cwd is `cwd_override`, else the header's `cwd`, else
    /// the current folder; `session_dir` (for later new sessions) defaults to the file's folder.
    /// A missing file starts a new session that will be written to exactly `path`; an empty
    /// (0-byte) file gets a fresh header, as pi does.
    ///
    /// Differences from pi: a file that is not a session is refused with
    /// [`Error::NotASession`] and left untouched (like pi 1.6.0, unlike older pi, which
    /// truncated it); a legacy (v1/v2) file is migrated in memory only, and on disk, with a
    /// backup, just before the first write to it (pi rewrites it on open, without a backup,
    /// dropping unreadable lines); a missing final newline is repaired by the first append,
    /// not on open.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let mut sm = SessionManager::create("/p", Some(dir.path()), NewSessionOptions::default())?;
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// let file = sm.session_file().unwrap().to_path_buf();
    /// let again = SessionManager::open(&file, None, None)?;
    /// assert_eq!(again.session_id(), sm.session_id());
    /// assert_eq!(again.leaf_id(), sm.leaf_id());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(
        path: impl AsRef<Path>,
        session_dir: Option<&Path>,
        cwd_override: Option<&Path>,
    ) -> Result<SessionManager> {
        let path = resolve_path(path.as_ref());
        let header_cwd = read_header(&path).map(|h| h.cwd).filter(|c| !c.is_empty());
        let cwd = match (cwd_override, header_cwd) {
            (Some(cwd), _) => cwd.to_path_buf(),
            (None, Some(cwd)) => PathBuf::from(cwd),
            (None, None) => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        };
        let dir = match session_dir {
            Some(d) => resolve_path(d),
            None => path.parent().map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
        };
        let mut sm = SessionManager::blank(&cwd, Some(dir), true);
        sm.set_session_file(&path)?;
        Ok(sm)
    }

    /// Continue the most recently modified session (by file mtime) in `session_dir` (default:
    /// `cwd`'s folder), or start a new one if there is none. In a folder other than `cwd`'s
    /// default, only sessions whose header `cwd` is `cwd` count.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let mut first = SessionManager::create("/p", Some(dir.path()), NewSessionOptions::default())?;
    /// first.append_message(AgentMessage::user("hi"))?;
    /// let again = SessionManager::continue_recent("/p", Some(dir.path()))?;
    /// assert_eq!(again.session_id(), first.session_id());
    /// let other = SessionManager::continue_recent("/elsewhere", Some(dir.path()))?;
    /// assert_ne!(other.session_id(), first.session_id());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn continue_recent(cwd: impl AsRef<Path>, session_dir: Option<&Path>) -> Result<SessionManager> {
        let cwd = resolve_path(cwd.as_ref());
        let dir = session_dir_or_default(&cwd, session_dir)?;
        let filter = filters_by_cwd(&cwd, session_dir, &dir).then_some(cwd.as_path());
        let mut sm = SessionManager::blank(&cwd, Some(dir.clone()), true);
        match find_most_recent(&dir, filter) {
            Some(file) => sm.set_session_file(&file)?,
            None => {
                sm.new_session(NewSessionOptions::default())?;
            }
        }
        Ok(sm)
    }

    /// A session that is never written, optionally starting from `entries` (the leaf is the last
    /// one). Entries must have distinct string ids.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionEntry, SessionManager};
    /// let entry: SessionEntry = serde_json::from_str(
    ///     r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
    /// )?;
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), vec![entry])?;
    /// assert_eq!(sm.leaf_id(), Some("a1"));
    /// let id = sm.append_thinking_level_change("high")?;
    /// assert_eq!(sm.entry(&id).unwrap().parent_id(), Some("a1"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn in_memory(
        cwd: impl AsRef<Path>,
        options: NewSessionOptions,
        entries: Vec<SessionEntry>,
    ) -> Result<SessionManager> {
        let mut sm = SessionManager::blank(cwd.as_ref(), None, false);
        sm.new_session(options)?;
        let mut lean = Vec::with_capacity(entries.len());
        let mut seen = HashSet::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let e = lean_entry(&to_json_string(entry), i as u32 + 2)?;
            if !seen.insert(e.id.clone()) {
                return Err(Error::InvalidEntry(format!("duplicate entry id {}", e.id)));
            }
            lean.push(e);
        }
        let header = sm.header.clone();
        sm.install(header, entries, lean);
        Ok(sm)
    }

    /// The file in `session_dir` (default: `cwd`'s folder) whose header id is exactly `id`,
    /// reading only headers. In a folder other than `cwd`'s default, the header `cwd` must be
    /// `cwd` too.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let options = NewSessionOptions { id: Some("run-7".into()), ..Default::default() };
    /// let mut sm = SessionManager::create("/p", Some(dir.path()), options)?;
    /// assert_eq!(SessionManager::find_by_id("/p", "run-7", Some(dir.path())), None);
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// assert_eq!(
    ///     SessionManager::find_by_id("/p", "run-7", Some(dir.path())).as_deref(),
    ///     sm.session_file()
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_by_id(cwd: impl AsRef<Path>, id: &str, session_dir: Option<&Path>) -> Option<PathBuf> {
        let cwd = resolve_path(cwd.as_ref());
        let dir = session_dir_or_default(&cwd, session_dir).ok()?;
        let mut matcher = filters_by_cwd(&cwd, session_dir, &dir).then(|| CwdMatcher::new(&cwd));
        std::fs::read_dir(&dir).ok()?.flatten().map(|e| e.path()).find(|path| {
            path.as_os_str().as_encoded_bytes().ends_with(b".jsonl")
                && read_header(path)
                    .is_some_and(|h| h.id == id && matcher.as_mut().is_none_or(|m| m.matches(&h.cwd)))
        })
    }

    /// Start a new, empty session in this manager (new id, new header, no entries, leaf at the
    /// start). A persisted manager gets a new file name in its session folder, returned here;
    /// the file is written once the conversation starts.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let mut sm = SessionManager::create("/p", Some(dir.path()), NewSessionOptions::default())?;
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// let old = sm.session_id().to_string();
    /// let file = sm.new_session(NewSessionOptions::default())?.unwrap();
    /// assert_ne!(sm.session_id(), old);
    /// assert!(sm.entries().is_empty());
    /// assert!(!file.exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new_session(&mut self, options: NewSessionOptions) -> Result<Option<PathBuf>> {
        let id = match options.id {
            Some(id) if !ids::is_valid_session_id(&id) => return Err(Error::InvalidSessionId(id)),
            Some(id) => id,
            None => ids::session_id(),
        };
        let timestamp = ids::now_timestamp();
        let header = SessionHeader::new(&id, &timestamp, &self.cwd.to_string_lossy(), options.parent_session);
        self.install(header, Vec::new(), Vec::new());
        self.disk = None;
        self.backup = None;
        if self.persist {
            let dir = self.session_dir.clone().unwrap_or_default();
            self.file = Some(dir.join(ids::session_file_name(&timestamp, &id)));
        }
        Ok(self.file.clone())
    }

    /// Switch to the session file at `path` (see [`open`](Self::open) for what happens with
    /// missing, empty, invalid and legacy files). The cwd and session folder stay.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// let mut sm = SessionManager::create("/p", Some(dir.path()), NewSessionOptions::default())?;
    /// let path = dir.path().join("explicit.jsonl");
    /// sm.set_session_file(&path)?;
    /// assert_eq!(sm.session_file(), Some(path.as_path()));
    /// assert!(!path.exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_session_file(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = resolve_path(path.as_ref());
        match read_session(&path)? {
            FileState::Missing => {
                self.new_session(NewSessionOptions::default())?;
                self.file = Some(path);
            }
            FileState::Empty => {
                self.new_session(NewSessionOptions::default())?;
                self.file = Some(path.clone());
                if self.persist {
                    self.write_header_into_empty_file(&path)?;
                }
            }
            FileState::Session(loaded) => {
                let loaded = *loaded;
                self.install(loaded.header, loaded.entries, loaded.lean);
                self.damage = loaded.damage;
                self.file = Some(path);
                self.backup = None;
                self.disk = Some(OnDisk { facts: loaded.facts, legacy_version: loaded.legacy_version });
            }
        }
        Ok(())
    }
}
