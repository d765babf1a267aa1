//! The entry tree of one session: parents, children in pi's order, roots (orphans and broken
//! cycles included), the leaf, paths to the root, common ancestors, labels and the session name.
//!
//! Rules (pi-reference §1.9–1.12), with pi's hangs replaced by deterministic answers:
//! - `parentId` null, missing, or equal to the entry's own id makes a root; a `parentId` naming no
//!   entry makes an orphan root.
//! - A `parentId` cycle (which pi loops on forever) is broken at the member that comes first in the
//!   file: that entry becomes a root, and the break is recorded in [`Graph::broken_cycles`].
//! - Roots keep file order; children are sorted by timestamp, stably (an unreadable timestamp sorts
//!   as its file-order predecessor's).
//! - The leaf is the last entry in file order; for a file, the entry its last line's id names
//!   ([`crate::session::parse::ParsedFile::leaf`]).

use indexmap::IndexMap;

use super::entry::{Entry, Kind};
use super::ids::IdIndex;
pub use super::ids::Ix;
use super::js;

/// A resolved label.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub text: String,
    /// Timestamp of the label entry that set it.
    pub timestamp: String,
}

/// Why an entry is a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootKind {
    /// `parentId` is null or absent.
    Plain,
    /// `parentId` is the entry's own id.
    SelfParent,
    /// `parentId` names no entry in the file.
    Orphan,
    /// The entry was in a `parentId` cycle, broken here.
    BrokenCycle,
}

/// The tree over a session's entries.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    index: IdIndex,
    parent: Vec<Option<Ix>>,
    child_start: Vec<u32>,
    children: Vec<Ix>,
    roots: Vec<(Ix, RootKind)>,
    leaf: Option<Ix>,
    /// pi's label map, in insertion order, including targets that do not exist.
    labels: IndexMap<String, Label>,
    name: Option<String>,
}

impl Graph {
    pub fn build(entries: &[Entry]) -> Graph {
        let leaf = entries.len().checked_sub(1).map(|i| i as Ix);
        Graph::with_ids(entries, IdIndex::new(entries.iter().map(|e| e.id.as_str())), leaf)
    }

    /// [`Graph::build`] with the entries' id index already made (the session reader makes it
    /// while it looks for repeated ids) and the leaf it found.
    pub fn with_ids(entries: &[Entry], index: IdIndex, leaf: Option<Ix>) -> Graph {
        let (mut parent, mut root_kind) = link_parents(entries, &index);
        break_cycles(&mut parent, &mut root_kind);
        let roots = (0..entries.len()).filter_map(|i| root_kind[i].map(|k| (i as Ix, k))).collect();
        let (child_start, children) = sorted_children(entries, &parent);
        let (labels, name) = labels_and_name(entries);
        Graph { index, parent, child_start, children, roots, leaf, labels, name }
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    pub fn find(&self, id: &str) -> Option<Ix> {
        self.index.get(id)
    }

    pub fn parent(&self, ix: Ix) -> Option<Ix> {
        self.parent[ix as usize]
    }

    pub fn children(&self, ix: Ix) -> &[Ix] {
        let i = ix as usize;
        &self.children[self.child_start[i] as usize..self.child_start[i + 1] as usize]
    }

    /// Roots in file order.
    pub fn roots(&self) -> impl ExactSizeIterator<Item = Ix> + '_ {
        self.roots.iter().map(|(ix, _)| *ix)
    }

    /// Roots with the reason each one is a root.
    pub fn root_kinds(&self) -> &[(Ix, RootKind)] {
        &self.roots
    }

    /// Entries whose `parentId` cycle was broken (each is now a root).
    pub fn broken_cycles(&self) -> impl Iterator<Item = Ix> + '_ {
        self.roots.iter().filter(|(_, k)| *k == RootKind::BrokenCycle).map(|(ix, _)| *ix)
    }

    /// The last entry in file order, where pi continues.
    pub fn leaf(&self) -> Option<Ix> {
        self.leaf
    }

    /// The path root → `ix`, inclusive.
    pub fn path_to(&self, ix: Ix) -> Vec<Ix> {
        let mut path = Vec::new();
        let mut cur = Some(ix);
        while let Some(i) = cur {
            path.push(i);
            cur = self.parent(i);
            if path.len() > self.len() {
                break;
            }
        }
        path.reverse();
        path
    }

    /// Whether `ancestor` is on the path from the root to `ix` (`ix` included).
    pub fn is_ancestor(&self, ancestor: Ix, ix: Ix) -> bool {
        let mut cur = Some(ix);
        while let Some(i) = cur {
            if i == ancestor {
                return true;
            }
            cur = self.parent(i);
        }
        false
    }

    /// The deepest entry on both root paths, if they share one.
    pub fn common_ancestor(&self, a: Ix, b: Ix) -> Option<Ix> {
        let on_a: std::collections::HashSet<Ix> = self.path_to(a).into_iter().collect();
        let mut cur = Some(b);
        while let Some(i) = cur {
            if on_a.contains(&i) {
                return Some(i);
            }
            cur = self.parent(i);
        }
        None
    }

    /// For every entry, whether it is on the path root → `leaf`.
    pub fn path_mask(&self, leaf: Option<Ix>) -> Vec<bool> {
        let mut mask = vec![false; self.len()];
        if let Some(leaf) = leaf {
            for i in self.path_to(leaf) {
                mask[i as usize] = true;
            }
        }
        mask
    }

    /// The resolved label of an existing entry.
    pub fn label_of(&self, id: &str) -> Option<&Label> {
        self.labels.get(id).filter(|_| self.index.contains(id))
    }

    /// pi's label map: `targetId → label` in insertion order, including missing targets.
    pub fn labels(&self) -> &IndexMap<String, Label> {
        &self.labels
    }

    /// The session name: the latest `session_info` entry's name, trimmed as JavaScript trims (U+FEFF
    /// is whitespace, U+0085 is not); empty clears it.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// Each entry's parent index, and for roots the reason.
fn link_parents(entries: &[Entry], index: &IdIndex) -> (Vec<Option<Ix>>, Vec<Option<RootKind>>) {
    let mut parent = Vec::with_capacity(entries.len());
    let mut root_kind = Vec::with_capacity(entries.len());
    for e in entries {
        let (p, k) = match e.parent_id.as_deref() {
            None => (None, Some(RootKind::Plain)),
            Some(pid) if pid == e.id => (None, Some(RootKind::SelfParent)),
            Some(pid) => match index.get(pid) {
                Some(p) => (Some(p), None),
                None => (None, Some(RootKind::Orphan)),
            },
        };
        parent.push(p);
        root_kind.push(k);
    }
    (parent, root_kind)
}

/// Find every `parentId` cycle and cut it at its first member in file order.
fn break_cycles(parent: &mut [Option<Ix>], root_kind: &mut [Option<RootKind>]) {
    const UNSEEN: u32 = u32::MAX;
    const DONE: u32 = u32::MAX - 1;
    let mut walk_of = vec![UNSEEN; parent.len()];
    let mut stack = Vec::new();
    for start in 0..parent.len() {
        if walk_of[start] != UNSEEN {
            continue;
        }
        let walk = start as u32;
        stack.clear();
        let mut cur = Some(start as Ix);
        while let Some(i) = cur {
            let i = i as usize;
            if walk_of[i] == DONE || (walk_of[i] != UNSEEN && walk_of[i] != walk) {
                break;
            }
            if walk_of[i] == walk {
                let pos = stack.iter().position(|&s| s == i).unwrap_or(0);
                let first = *stack[pos..].iter().min().unwrap_or(&i);
                parent[first] = None;
                root_kind[first] = Some(RootKind::BrokenCycle);
                break;
            }
            walk_of[i] = walk;
            stack.push(i);
            cur = parent[i];
        }
        for &s in &stack {
            walk_of[s] = DONE;
        }
    }
}

/// Children lists (compressed rows), each sorted by timestamp, stably.
fn sorted_children(entries: &[Entry], parent: &[Option<Ix>]) -> (Vec<u32>, Vec<Ix>) {
    let n = entries.len();
    let mut count = vec![0u32; n + 1];
    for p in parent.iter().flatten() {
        count[*p as usize + 1] += 1;
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let child_start = count.clone();
    let mut fill = count;
    let mut children = vec![0 as Ix; child_start[n] as usize];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            let slot = &mut fill[*p as usize];
            children[*slot as usize] = i as Ix;
            *slot += 1;
        }
    }
    for p in 0..n {
        let list = &mut children[child_start[p] as usize..child_start[p + 1] as usize];
        if list.len() > 1 {
            sort_by_time(list, entries);
        }
    }
    (child_start, children)
}

fn sort_by_time(list: &mut [Ix], entries: &[Entry]) {
    let mut last = i64::MIN;
    let mut keyed: Vec<(i64, Ix)> = list
        .iter()
        .map(|&c| {
            let t = entries[c as usize].time_ms.unwrap_or(last);
            last = t;
            (t, c)
        })
        .collect();
    keyed.sort_by_key(|(t, _)| *t);
    for (slot, (_, c)) in list.iter_mut().zip(keyed) {
        *slot = c;
    }
}

/// The label map (latest wins; absent or empty clears) and the session name.
fn labels_and_name(entries: &[Entry]) -> (IndexMap<String, Label>, Option<String>) {
    let mut labels = IndexMap::new();
    let mut name = None;
    for e in entries {
        match &e.kind {
            Kind::Label { target_id, label: Some(text) } if !text.is_empty() => {
                let label = Label { text: text.clone(), timestamp: e.timestamp.to_string() };
                if let Some(slot) = labels.get_mut(target_id) {
                    *slot = label;
                } else {
                    labels.insert(target_id.clone(), label);
                }
            }
            Kind::Label { target_id, .. } => {
                labels.shift_remove(target_id);
            }
            Kind::SessionInfo { name: n } => {
                name = n.as_deref().map(js::trim).filter(|n| !n.is_empty()).map(str::to_string);
            }
            _ => {}
        }
    }
    (labels, name)
}
