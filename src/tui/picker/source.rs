//! One scope's sessions as the picker keeps them, and the rows it shows: the catalog's search
//! (pi's query language, sorts, named filter) and thread tree, over a list that grows while it
//! loads. The search index (every field lower-cased once) is built on a worker once the list is
//! complete ([`SessionList::snapshot`], [`SessionList::offer_index`]) — or on the first keystroke
//! if that comes first — and reused for every further keystroke. The threaded view's parent links
//! use the canonical paths computed on the scan worker ([`Keys`]), so building rows does no I/O.
//!
//! A scan lists sessions without their texts, which come when it ends ([`SearchTexts`]): the worker
//! that builds the search index reads them first; a keystroke that comes before the index does too
//! (waiting for the worker's read if one is under way), and one typed while the scan still runs
//! searches the rest of each session. A search ranks the rows without their match
//! positions; the title matches are found for the rows drawn ([`SessionList::title_hits`]).

use std::ffi::OsString;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::catalog::hash::FastSet;
use crate::catalog::locate::{RealPaths, canonical_key};
use crate::catalog::search::{PreparedQuery, SearchIndex};
use crate::catalog::thread::{self, Node};
use crate::catalog::{DeferredTexts, SessionSummary, TieBreak};

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

    /// [`Found::new`] for many summaries (see [`KeyCache`]).
    pub fn all(summaries: Vec<SessionSummary>) -> Vec<Found> {
        KeyCache::default().found(summaries)
    }
}

/// [`Found::new`] for the summaries of a scan, batch after batch: each folder is resolved and
/// listed once, when the first of its sessions comes ([`RealPaths`]), and the keys of a large batch
/// are found in parallel.
#[derive(Default)]
pub struct KeyCache(RealPaths);

impl KeyCache {
    pub fn found(&mut self, summaries: Vec<SessionSummary>) -> Vec<Found> {
        self.0.add(summaries.iter().flat_map(|s| {
            std::iter::once(s.path.as_path()).chain(s.parent_session_path.as_deref().map(Path::new))
        }));
        let folders = &self.0;
        let found = |summary: SessionSummary| {
            let key = folders.key(&summary.path);
            let parent = summary.parent_session_path.as_deref().map(|p| folders.key(Path::new(p)));
            Found { summary, keys: Keys { key, parent } }
        };
        match summaries.len() {
            0..64 => summaries.into_iter().map(found).collect(),
            _ => summaries.into_par_iter().map(found).collect(),
        }
    }
}

/// The texts a scan of the list handed over when it ended ([`DeferredTexts`]), for the event that
/// carries them (equal when they are the same texts).
#[derive(Debug, Clone)]
pub struct SearchTexts(pub Arc<DeferredTexts>);

impl PartialEq for SearchTexts {
    fn eq(&self, other: &SearchTexts) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
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

/// The hash [`SessionList`] knows a listed path by: of its bytes, as the scan spells it
/// (`Path`'s own hash goes component by component).
fn path_hash(path: &Path) -> u64 {
    crate::catalog::hash::hash64(path.as_os_str().as_encoded_bytes(), 0)
}

/// The [`path_hash`] of each item's path.
fn listed_paths(items: &[Item]) -> FastSet<u64> {
    items.iter().map(|(s, _, _)| path_hash(&s.path)).collect()
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
}

/// A session of a [`SessionList`] being rebuilt: its keys, and its place in the list before.
type Item = (SessionSummary, Keys, Option<usize>);

/// A scope's sessions in pi's listing order, with what the rows are computed from.
#[derive(Default)]
pub struct SessionList {
    sessions: Arc<Vec<SessionSummary>>,
    /// How pi's listing of this scope orders sessions of the same time.
    ties: TieBreak,
    keys: Vec<Keys>,
    /// Built on demand; kept as the list grows, dropped when it is replaced.
    index: Option<Arc<SearchIndex>>,
    /// Counts the changes, so an index built from an older list is refused.
    version: u64,
    /// The texts of the sessions listed without them, by path.
    texts: Option<SearchTexts>,
    /// The query of the rows last made, for their title matches.
    query: Option<PreparedQuery>,
    /// The thread tree's nodes, made on first use, dropped when the list changes.
    nodes: Option<Vec<Node>>,
    /// A hash of each listed path's bytes ([`path_hash`]), so that a merge knows at once whether
    /// any session found is listed already.
    paths: FastSet<u64>,
}

impl std::fmt::Debug for SessionList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionList").field("sessions", &self.sessions.len()).finish()
    }
}

impl SessionList {
    /// An empty list of a scope whose sessions of the same time pi orders by `ties`.
    pub fn new(ties: TieBreak) -> SessionList {
        SessionList { ties, ..SessionList::default() }
    }

    pub fn sessions(&self) -> &[SessionSummary] {
        &self.sessions
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Add `found`, replacing sessions with the same path, and restore pi's order. A search index
    /// is kept, extended by the sessions found (see [`SearchIndex::rearranged`]). The list is in
    /// that order already: only `found` is sorted, then merged in, and the list is looked through
    /// for the same paths only when one of them is listed (a cold scan merges every frame into
    /// thousands of sessions, none of them found before).
    pub fn merge(&mut self, found: Vec<Found>) {
        let ties = self.ties;
        let mut new: Vec<Item> = found.into_iter().map(|f| (f.summary, f.keys, None)).collect();
        new.sort_by(|a, b| ties.cmp(&a.0, &b.0));
        let hashes: Vec<u64> = new.iter().map(|(s, _, _)| path_hash(&s.path)).collect();
        let listed = hashes.iter().any(|h| self.paths.contains(h));
        let fresh: FastSet<OsString> = match listed {
            true => new.iter().map(|(s, _, _)| s.path.as_os_str().to_owned()).collect(),
            false => FastSet::default(),
        };
        let mut old = self.take_items().filter(|(s, _, _)| !fresh.contains(s.path.as_os_str())).peekable();
        let mut items = Vec::with_capacity(old.size_hint().0 + new.len());
        for item in new {
            while let Some(before) = old.next_if(|o| ties.cmp(&o.0, &item.0).is_lt()) {
                items.push(before);
            }
            items.push(item);
        }
        items.extend(old);
        self.paths.extend(hashes);
        self.install(items);
    }

    /// Replace the whole list (the texts of the list it replaces go with it).
    pub fn replace(&mut self, found: Vec<Found>) {
        self.texts = None;
        self.index = None;
        self.set(found.into_iter().map(|f| (f.summary, f.keys, None)).collect());
    }

    /// The texts of the sessions the scan listed without them.
    pub fn set_texts(&mut self, texts: SearchTexts) {
        self.texts = Some(texts);
        self.index = None;
        self.version += 1;
    }

    /// The texts still to read for the search index, if the scan left any.
    pub fn texts(&self) -> Option<&SearchTexts> {
        self.texts.as_ref()
    }

    /// Drop the session at `path`.
    pub fn remove(&mut self, path: &Path) {
        let items = self.take_items().filter(|(s, _, _)| s.path != path).collect();
        self.set(items);
    }

    /// The sessions with their keys and their place in the list, taken out of it.
    fn take_items(&mut self) -> impl Iterator<Item = Item> + use<> {
        let keys = std::mem::take(&mut self.keys);
        self.take_sessions().into_iter().zip(keys).enumerate().map(|(i, (s, k))| (s, k, Some(i)))
    }

    /// Make `items` the list, in pi's order; the search index, if any, follows them.
    fn set(&mut self, items: Vec<Item>) {
        // Sort positions rather than the (large) items, then move each item once.
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by(|&a, &b| self.ties.cmp(&items[a].0, &items[b].0));
        let mut slots: Vec<Option<Item>> = items.into_iter().map(Some).collect();
        let sorted: Vec<Item> = order.into_iter().filter_map(|i| slots[i].take()).collect();
        self.paths = listed_paths(&sorted);
        self.install(sorted);
    }

    /// Make `items`, in pi's order, the list.
    fn install(&mut self, items: Vec<Item>) {
        let (sessions, (keys, was)): (Vec<_>, (Vec<_>, Vec<_>)) =
            items.into_iter().map(|(s, k, was)| (s, (k, was))).unzip();
        self.sessions = Arc::new(sessions);
        self.keys = keys;
        self.index = self
            .index
            .take()
            .and_then(|index| Arc::try_unwrap(index).ok())
            .map(|index| Arc::new(index.rearranged(&self.sessions, &was)));
        self.query = None;
        self.nodes = None;
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
        self.query = None;
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
        let texts = &self.texts;
        let index = self.index.get_or_insert_with(|| {
            Arc::new(SearchIndex::with_texts(sessions, texts.as_ref().map(|t| t.0.load()), true))
        });
        let (rows, prepared) =
            index.search_unmarked(sessions, query, sort, named).map_err(|e| e.to_string())?;
        self.query = prepared;
        Ok(rows.into_iter().map(|r| flat(r.index)).collect())
    }

    /// Byte ranges of the matches of the query the rows were made for, in the title of session
    /// `session` ([`crate::catalog::display::display_title`]).
    pub fn title_hits(&self, session: usize) -> Vec<Range<usize>> {
        match (&self.index, &self.query) {
            (Some(index), Some(query)) => index.title_hits(&self.sessions, session, query),
            _ => Vec::new(),
        }
    }

    fn threaded(&mut self, subset: &[usize]) -> Vec<Row> {
        let (sessions, keys) = (&self.sessions, &self.keys);
        let nodes = self.nodes.get_or_insert_with(|| {
            sessions
                .iter()
                .zip(keys)
                .map(|(s, k)| Node {
                    key: k.key.clone(),
                    parent_key: k.parent.clone(),
                    modified_ms: s.modified_ms,
                })
                .collect()
        });
        let tree = thread::threaded(nodes, subset);
        let depths: Vec<usize> = tree.iter().map(|r| r.depth).collect();
        tree.into_iter()
            .enumerate()
            .map(|(i, r)| Row {
                session: r.index,
                depth: r.depth,
                prefix: r.prefix,
                has_children: depths.get(i + 1).is_some_and(|&d| d > r.depth),
                hidden: 0,
            })
            .collect()
    }
}

fn flat(session: usize) -> Row {
    Row { session, depth: 0, prefix: String::new(), has_children: false, hidden: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(n: i64, text: &str) -> SessionSummary {
        SessionSummary {
            path: format!("/s/{n}.jsonl").into(),
            id: format!("id-{n}"),
            first_message: text.into(),
            all_messages_text: text.into(),
            modified_ms: n,
            ..SessionSummary::default()
        }
    }

    /// Sessions merged batch after batch, some found again with new times, end in the order and
    /// with the contents of the last version of each sorted at once, whatever the batches.
    #[test]
    fn merged_batches_equal_one_sort() {
        use proptest::prelude::*;
        let summary = |(n, modified, ties): (u8, i64, u8)| SessionSummary {
            path: format!("/s/{}/{n}.jsonl", ties % 3).into(),
            modified_ms: modified,
            mtime_ns: i64::from(ties),
            ..SessionSummary::default()
        };
        let batches =
            proptest::collection::vec(proptest::collection::vec((0u8..40, 0i64..6, 0u8..4), 0..12), 1..8);
        proptest!(ProptestConfig::with_cases(200), |(batches in batches)| {
            for ties in [TieBreak::Mtime, TieBreak::Name] {
                let mut list = SessionList::new(ties);
                let mut last = std::collections::BTreeMap::new();
                for batch in &batches {
                    let found: Vec<SessionSummary> = batch.iter().copied().map(summary).collect();
                    for s in &found {
                        last.insert(s.path.clone(), s.clone());
                    }
                    let mut unique: Vec<SessionSummary> = Vec::new();
                    for s in found.into_iter().rev() {
                        if !unique.iter().any(|u| u.path == s.path) {
                            unique.push(s);
                        }
                    }
                    list.merge(Found::all(unique));
                }
                let mut expected: Vec<SessionSummary> = last.into_values().collect();
                crate::catalog::sort_recent(&mut expected, ties);
                prop_assert_eq!(list.sessions(), expected.as_slice());
                prop_assert_eq!(list.keys.len(), expected.len());
            }
        });
    }

    #[test]
    fn a_list_growing_under_a_query_keeps_its_search_index() {
        let mut list = SessionList::default();
        list.merge(Found::all(vec![session(1, "render loop"), session(2, "parser")]));
        let titles = |list: &mut SessionList| -> Vec<String> {
            let rows = list.rows("render", SortMode::Recent, false).unwrap();
            rows.iter().map(|r| list.sessions()[r.session].first_message.clone()).collect()
        };
        assert_eq!(titles(&mut list), ["render loop"]);
        assert!(list.has_index());
        list.merge(Found::all(vec![session(3, "render tests"), session(0, "docs")]));
        assert!(list.has_index(), "the index follows the list instead of being built again");
        assert_eq!(titles(&mut list), ["render tests", "render loop"]);
        list.remove(Path::new("/s/3.jsonl"));
        assert!(list.has_index());
        assert_eq!(titles(&mut list), ["render loop"]);
        list.replace(Found::all(vec![session(5, "render again")]));
        assert!(!list.has_index(), "a replaced list is indexed anew");
        assert_eq!(titles(&mut list), ["render again"]);
    }

    #[test]
    fn a_list_orders_sessions_of_the_same_time_by_its_scopes_tie_break() {
        let tied = |name: &str, mtime_ns| SessionSummary {
            path: format!("/s/{name}.jsonl").into(),
            mtime_ns,
            ..SessionSummary::default()
        };
        let order = |ties| {
            let mut list = SessionList::new(ties);
            list.merge(Found::all(vec![tied("a", 2), tied("b", 1)]));
            list.sessions().iter().map(|s| s.path.display().to_string()).collect::<Vec<_>>()
        };
        assert_eq!(order(TieBreak::Name), ["/s/b.jsonl", "/s/a.jsonl"]);
        assert_eq!(order(TieBreak::Mtime), ["/s/a.jsonl", "/s/b.jsonl"]);
    }

    /// The keys of a batch found through its folders are the keys found path by path, through a
    /// linked folder and a linked file too (the folder reading is `RealPaths`', tested there).
    #[test]
    fn keys_by_folder_are_the_canonical_keys() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("a.jsonl"), "").unwrap();
        std::fs::write(tmp.path().join("target.jsonl"), "").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("target.jsonl"), real.join("link.jsonl")).unwrap();
        std::os::unix::fs::symlink(&real, tmp.path().join("via")).unwrap();
        let summary = SessionSummary {
            path: tmp.path().join("via/a.jsonl"),
            parent_session_path: Some(tmp.path().join("via/link.jsonl").display().to_string()),
            ..SessionSummary::default()
        };
        let found = Found::all(vec![summary.clone()]);
        assert_eq!(found[0].keys, Found::new(summary).keys);
    }
}
