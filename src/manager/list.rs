//! Finding sessions: pi's `list` and `listAll` through pitree's catalog (streamed, parallel, with
//! pi 1.6.0's listing rules), and the header-only discovery `continue_recent` and `find_by_id` use.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::Result;
use super::paths::{agent_sessions_root, resolve_path};
use super::state::SessionManager;
use crate::catalog::locate::{CwdMatcher, RootSource, Scope, SessionsRoot};
use crate::catalog::{Catalog, SessionSummary};
use crate::session::parse::{Header, parse_bytes};

/// How much of a file header discovery reads, as pi 1.6.0's `readSessionHeader`.
const HEADER_SCAN_BYTES: u64 = 1 << 20;

impl SessionManager {
    /// The sessions of `cwd`, newest activity first: those in `session_dir` (default: `cwd`'s
    /// folder under `<agent dir>/sessions`) whose header `cwd` is `cwd`. `on_progress(done,
    /// total)` is called as files are read (from several threads).
    ///
    /// Differences from pi: the header-`cwd` filter also applies in `cwd`'s default folder (two
    /// cwds can share one, e.g. `/a-b` and `/a/b`); with a `session_dir`, the files of its
    /// `--<cwd>--` subfolder are listed too; a missing default folder is not created.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// for cwd in ["/a", "/b"] {
    ///     let mut sm = SessionManager::create(cwd, Some(dir.path()), NewSessionOptions::default())?;
    ///     sm.append_message(AgentMessage::user(format!("hello from {cwd}")))?;
    /// }
    /// let sessions = SessionManager::list("/a", Some(dir.path()), |_, _| {})?;
    /// assert_eq!(sessions.len(), 1);
    /// assert_eq!(sessions[0].first_message, "hello from /a");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list(
        cwd: impl AsRef<Path>,
        session_dir: Option<&Path>,
        on_progress: impl Fn(usize, usize) + Sync,
    ) -> Result<Vec<SessionSummary>> {
        let root = root_of(session_dir)?;
        let scope = Scope::CurrentFolder(resolve_path(cwd.as_ref()));
        Ok(Catalog::open(root, None).scan(&scope, &on_progress).sessions)
    }

    /// Every session, newest activity first: the files in the subfolders of `<agent dir>/sessions`
    /// (files directly in it are ignored, as in pi), or, with `session_dir`, the files in that
    /// folder (and, unlike pi, in its subfolders).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let dir = tempfile::tempdir()?;
    /// for cwd in ["/a", "/b"] {
    ///     let mut sm = SessionManager::create(cwd, Some(dir.path()), NewSessionOptions::default())?;
    ///     sm.append_message(AgentMessage::user("hi"))?;
    /// }
    /// assert_eq!(SessionManager::list_all(Some(dir.path()), |_, _| {})?.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_all(
        session_dir: Option<&Path>,
        on_progress: impl Fn(usize, usize) + Sync,
    ) -> Result<Vec<SessionSummary>> {
        Ok(Catalog::open(root_of(session_dir)?, None).scan(&Scope::All, &on_progress).sessions)
    }
}

fn root_of(session_dir: Option<&Path>) -> Result<SessionsRoot> {
    match session_dir {
        Some(dir) => Ok(SessionsRoot::new(resolve_path(dir), RootSource::Flag)),
        None => agent_sessions_root(),
    }
}

/// The header of the session file at `path`, if its first readable line (within 1 MiB) is a
/// header with a string id.
pub(super) fn read_header(path: &Path) -> Option<Header> {
    let mut prefix = Vec::new();
    std::fs::File::open(path).ok()?.take(HEADER_SCAN_BYTES).read_to_end(&mut prefix).ok()?;
    let parsed = parse_bytes(&prefix, path.to_path_buf()).ok()?;
    parsed.header.id_is_string.then_some(parsed.header)
}

/// The `.jsonl` file of `dir` with the newest mtime that holds a session (whose header `cwd` is
/// `cwd`, when given).
pub(super) fn find_most_recent(dir: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.as_os_str().as_encoded_bytes().ends_with(b".jsonl"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut matcher = cwd.map(CwdMatcher::new);
    files
        .into_iter()
        .map(|(_, p)| p)
        .find(|p| read_header(p).is_some_and(|h| matcher.as_mut().is_none_or(|m| m.matches(&h.cwd))))
}
