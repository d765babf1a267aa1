//! One scope's sessions as the picker keeps them, and the rows it shows: the catalog's search
//! (pi's query language, sorts, named filter) and thread tree, over a list that grows while it
//! loads. The search index (every field lower-cased once) is built on a worker once the list is
//! complete ([`SessionList::snapshot`], [`SessionList::offer_index`]) — or on the first keystroke
//! if that comes first — and reused for every further keystroke. The threaded view's parent links use the
//! canonical paths computed on the scan worker ([`Keys`]), so building rows does no I/O.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::SessionSummary;
use crate::catalog::locate::canonical_key;
use crate::catalog::search::SearchIndex;
use crate::catalog::thread::{self, Node};

pub use crate::catalog::search::SortMode;

/// A session's canonical path and its parent's, the links of the threaded view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    pub key: PathBuf,
    pub parent: Option<PathBuf>,
}

impl Keys {
    /// Resolve `summary`'s paths (reads the file system: call it on a worker).
    pub fn of(summary: &SessionSummary) -> Keys {
        Keys {
            key: canonical_key(&summary.path),
            parent: summary.parent_session_path.as_deref().map(|p| canonical_key(Path::new(p))),
        }
    }
}

/// A summary as the scan worker hands it over, with its keys resolved.
#[derive(Debug, Clone)]
pub struct Found {
    pub summary: SessionSummary,
    pub keys: Keys,
}

impl Found {
    pub fn new(summary: SessionSummary) -> Found {
        let keys = Keys::of(&summary);
        Found { summary, keys }
    }
}

/// A search index built on a worker, for the event that carries it.
#[derive(Clone)]
pub struct BuiltIndex(pub Arc<SearchIndex>);

impl std::fmt::Debug for BuiltIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BuiltIndex")
    }
}

/// One shown row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Index into the scope's sessions.
    pub session: usize,
    /// Depth in the thread tree (0 in flat lists).
    pub depth: usize,
    /// pi's tree prefix (`│  └─ `), empty in flat lists.
    pub prefix: String,
    /// Forks hang under this session in the threaded view.
    pub has_children: bool,
    /// Rows hidden under this one because it is folded.
    pub hidden: usize,
    /// Byte ranges of the query's matches in the row's title
    /// ([`crate::catalog::display::display_title`]).
    pub title_hits: Vec<Range<usize>>,
}

/// A scope's sessions in pi's listing order, with what the rows are computed from.
#[derive(Default)]
pub struct SessionList {
    sessions: Arc<Vec<SessionSummary>>,
    keys: Vec<Keys>,
    /// Built on demand, dropped when the list changes.
    index: Option<Arc<SearchIndex>>,
    /// Counts the changes, so an index built from an older list is refused.
    version: u64,
}

impl std::fmt::Debug for SessionList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionList").field("sessions", &self.sessions.len()).finish()
    }
}

impl SessionList {
    pub fn sessions(&self) -> &[SessionSummary] {
        &self.sessions
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Add `found`, replacing sessions with the same path, and restore pi's order.
    pub fn merge(&mut self, found: Vec<Found>) {
        let fresh: std::collections::HashSet<&Path> =
            found.iter().map(|f| f.summary.path.as_path()).collect();
        let mut items: Vec<(SessionSummary, Keys)> = self
            .take_sessions()
            .into_iter()
            .zip(std::mem::take(&mut self.keys))
            .filter(|(s, _)| !fresh.contains(s.path.as_path()))
            .collect();
        items.extend(found.into_iter().map(|f| (f.summary, f.keys)));
        self.set(items);
    }

    /// Replace the whole list.
    pub fn replace(&mut self, found: Vec<Found>) {
        self.set(found.into_iter().map(|f| (f.summary, f.keys)).collect());
    }

    /// Drop the session at `path`.
    pub fn remove(&mut self, path: &Path) {
        let items = self
            .take_sessions()
            .into_iter()
            .zip(std::mem::take(&mut self.keys))
            .filter(|(s, _)| s.path != path)
            .collect();
        self.set(items);
    }

    fn set(&mut self, mut items: Vec<(SessionSummary, Keys)>) {
        items.sort_by(|(a, _), (b, _)| {
            b.modified_ms
                .cmp(&a.modified_ms)
                .then(b.mtime_ms.cmp(&a.mtime_ms))
                .then_with(|| b.path.file_name().cmp(&a.path.file_name()))
        });
        let (sessions, keys): (Vec<SessionSummary>, Vec<Keys>) = items.into_iter().unzip();
        self.sessions = Arc::new(sessions);
        self.keys = keys;
        self.index = None;
        self.version += 1;
    }

    fn take_sessions(&mut self) -> Vec<SessionSummary> {
        let shared = std::mem::take(&mut self.sessions);
        Arc::try_unwrap(shared).unwrap_or_else(|shared| (*shared).clone())
    }

    /// The list as it is now, to build its search index on a worker.
    pub fn snapshot(&self) -> (u64, Arc<Vec<SessionSummary>>) {
        (self.version, Arc::clone(&self.sessions))
    }

    /// Whether the search index for the current list is there.
    pub fn has_index(&self) -> bool {
        self.index.is_some()
    }

    /// Take an index built from [`SessionList::snapshot`] number `version`; refused if the list
    /// changed since.
    pub fn offer_index(&mut self, version: u64, index: BuiltIndex) {
        if version == self.version {
            self.index = Some(index.0);
        }
    }

    /// The rows for a query, sort and named filter; `Err` says why a query cannot be used (the
    /// list is then empty, as in pi).
    pub fn rows(&mut self, query: &str, sort: SortMode, named: bool) -> Result<Vec<Row>, String> {
        if query.trim().is_empty() {
            let subset: Vec<usize> = (0..self.sessions.len())
                .filter(|&i| !named || self.sessions[i].name.as_deref().is_some_and(|n| !n.trim().is_empty()))
                .collect();
            return Ok(match sort {
                SortMode::Threaded => self.threaded(&subset),
                _ => subset.into_iter().map(flat).collect(),
            });
        }
        let sessions: &[SessionSummary] = &self.sessions;
        let index = self.index.get_or_insert_with(|| Arc::new(SearchIndex::new(sessions)));
        let rows = index.search(sessions, query, sort, named).map_err(|e| e.to_string())?;
        Ok(rows.into_iter().map(|r| Row { title_hits: r.matches.title, ..flat(r.index) }).collect())
    }

    fn threaded(&self, subset: &[usize]) -> Vec<Row> {
        let nodes: Vec<Node> = self
            .sessions
            .iter()
            .zip(&self.keys)
            .map(|(s, k)| Node {
                key: k.key.clone(),
                parent_key: k.parent.clone(),
                modified_ms: s.modified_ms,
            })
            .collect();
        let tree = thread::threaded(&nodes, subset);
        let depths: Vec<usize> = tree.iter().map(|r| r.depth).collect();
        tree.into_iter()
            .enumerate()
            .map(|(i, r)| Row {
                session: r.index,
                depth: r.depth,
                prefix: r.prefix,
                has_children: depths.get(i + 1).is_some_and(|&d| d > r.depth),
                hidden: 0,
                title_hits: Vec::new(),
            })
            .collect()
    }
}

fn flat(session: usize) -> Row {
    Row { session, depth: 0, prefix: String::new(), has_children: false, hidden: 0, title_hits: Vec::new() }
}
