//! Moving around the tree: the leaf, entries by id, the path to the root, children, labels, the
//! whole tree, and moving the leaf (with or without a branch summary). Cycles and self-parents,
//! on which pi loops forever, are broken as the reader breaks them ([`crate::session::graph`]).

use serde_json::{Map, Value};

use super::error::Result;
use super::message::Usage;
use super::state::SessionManager;
use super::types::{BranchSummaryEntry, SessionEntry};
use crate::session::Ix;

/// The session as a tree (pi's `getTree`), stored flat so that a 100 000-entry chain needs no
/// recursion: node `i` is entry `i`.
#[derive(Debug, Clone)]
pub struct SessionTree<'a> {
    nodes: Vec<TreeNode<'a>>,
    roots: Vec<usize>,
}

/// One entry in the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode<'a> {
    pub entry: &'a SessionEntry,
    /// Indexes of the children (in [`SessionTree::nodes`]), oldest timestamp first.
    pub children: Vec<usize>,
    pub label: Option<&'a str>,
    /// When the label was set (pi 1.6.0's `labelTimestamp`).
    pub label_timestamp: Option<&'a str>,
}

impl<'a> SessionTree<'a> {
    /// Every node; node `i` is the manager's entry `i`.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// assert_eq!(sm.tree().nodes().len(), 1);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn nodes(&self) -> &[TreeNode<'a>] {
        &self.nodes
    }

    /// The roots, in file order: entries without a parent, orphans (parent missing), and entries
    /// where a parent cycle was broken.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_message(AgentMessage::user("one"))?;
    /// sm.reset_leaf();
    /// sm.append_message(AgentMessage::user("two"))?;
    /// assert_eq!(sm.tree().roots().count(), 2);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn roots(&self) -> impl Iterator<Item = &TreeNode<'a>> {
        self.roots.iter().map(|&i| &self.nodes[i])
    }

    /// The children of `node`, oldest timestamp first (ties in file order).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_message(AgentMessage::user("q"))?;
    /// sm.append_message(AgentMessage::user("r"))?;
    /// let tree = sm.tree();
    /// let root = tree.roots().next().unwrap();
    /// assert_eq!(tree.children(root).count(), 1);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn children(&self, node: &TreeNode<'a>) -> impl Iterator<Item = &TreeNode<'a>> {
        node.children.iter().map(|&i| &self.nodes[i])
    }
}

impl SessionManager {
    /// The id of the leaf, where the next entry goes; `None` before the first entry.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// assert_eq!(sm.leaf_id(), None);
    /// let id = sm.append_message(AgentMessage::user("hi"))?;
    /// assert_eq!(sm.leaf_id(), Some(id.as_str()));
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf.map(|i| self.lean[i].id.as_str())
    }

    /// The leaf entry.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_session_info("n")?;
    /// assert_eq!(sm.leaf_entry().unwrap().entry_type(), "session_info");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn leaf_entry(&self) -> Option<&SessionEntry> {
        self.leaf.map(|i| &self.entries[i])
    }

    /// The entry with this id.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let id = sm.append_message(AgentMessage::user("hi"))?;
    /// assert_eq!(sm.entry(&id).unwrap().id(), id);
    /// assert!(sm.entry("nope").is_none());
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn entry(&self, id: &str) -> Option<&SessionEntry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    /// The path root → `from` (default: the leaf), inclusive (pi's `getBranch`); empty for an
    /// unknown id.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let a = sm.append_message(AgentMessage::user("a"))?;
    /// sm.append_message(AgentMessage::user("b"))?;
    /// assert_eq!(sm.branch_path(None).len(), 2);
    /// assert_eq!(sm.branch_path(Some(&a)).len(), 1);
    /// assert!(sm.branch_path(Some("nope")).is_empty());
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn branch_path(&self, from: Option<&str>) -> Vec<&SessionEntry> {
        let start = match from {
            Some(id) => self.by_id.get(id).copied(),
            None => self.leaf,
        };
        start.map_or_else(Vec::new, |ix| {
            self.graph().path_to(ix as Ix).into_iter().map(|i| &self.entries[i as usize]).collect()
        })
    }

    /// The whole tree with labels (pi's `getTree`).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let u = sm.append_message(AgentMessage::user("hi"))?;
    /// sm.append_label_change(&u, Some("start"))?;
    /// let tree = sm.tree();
    /// let root = tree.roots().next().unwrap();
    /// assert_eq!(root.label, Some("start"));
    /// assert!(root.label_timestamp.is_some());
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn tree(&self) -> SessionTree<'_> {
        let graph = self.graph();
        let nodes = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let label = graph.labels().get(entry.id());
                TreeNode {
                    entry,
                    children: graph.children(i as Ix).iter().map(|&c| c as usize).collect(),
                    label: label.map(|l| l.text.as_str()),
                    label_timestamp: label.map(|l| l.timestamp.as_str()),
                }
            })
            .collect();
        SessionTree { nodes, roots: graph.roots().map(|r| r as usize).collect() }
    }

    /// The entries whose `parentId` is `parent_id`, in file order (pi's `getChildren`).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let q = sm.append_message(AgentMessage::user("q"))?;
    /// sm.append_message(AgentMessage::user("first"))?;
    /// sm.branch(&q)?;
    /// sm.append_message(AgentMessage::user("second"))?;
    /// assert_eq!(sm.children(&q).len(), 2);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn children(&self, parent_id: &str) -> Vec<&SessionEntry> {
        self.lean
            .iter()
            .zip(&self.entries)
            .filter(|(lean, _)| lean.parent_id.as_deref() == Some(parent_id))
            .map(|(_, entry)| entry)
            .collect()
    }

    /// The label of an entry (the latest label entry for it wins; an empty one clears it).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let u = sm.append_message(AgentMessage::user("hi"))?;
    /// sm.append_label_change(&u, Some("first"))?;
    /// sm.append_label_change(&u, Some("second"))?;
    /// assert_eq!(sm.label(&u), Some("second"));
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn label(&self, id: &str) -> Option<&str> {
        self.graph().labels().get(id).map(|l| l.text.as_str())
    }

    /// Move the leaf to `entry_id`; the next append becomes its child. Nothing is written: the
    /// move is lost unless something is appended (as in pi).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let a = sm.append_message(AgentMessage::user("a"))?;
    /// sm.append_message(AgentMessage::user("b"))?;
    /// sm.branch(&a)?;
    /// let d = sm.append_message(AgentMessage::user("d"))?;
    /// assert_eq!(sm.entry(&d).unwrap().parent_id(), Some(a.as_str()));
    /// assert!(sm.branch("nope").is_err());
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn branch(&mut self, entry_id: &str) -> Result<()> {
        self.leaf = Some(self.index_of(entry_id)?);
        Ok(())
    }

    /// Move the leaf before the first entry: the next append starts a new root.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_message(AgentMessage::user("a"))?;
    /// sm.reset_leaf();
    /// let e = sm.append_message(AgentMessage::user("e"))?;
    /// assert_eq!(sm.entry(&e).unwrap().parent_id(), None);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
    }

    /// Move the leaf to `entry_id` (`None`: before the first entry) and append a
    /// `branch_summary` there, summarizing the abandoned path. Its `fromId` is the leaf before
    /// the move, or `"root"` (pi 1.6.0; older pi wrote the branch point).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionEntry, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let a = sm.append_message(AgentMessage::user("a"))?;
    /// let b = sm.append_message(AgentMessage::user("b"))?;
    /// let s = sm.branch_with_summary(Some(&a), "tried b", None, None, None)?;
    /// let Some(SessionEntry::BranchSummary(e)) = sm.entry(&s) else { panic!() };
    /// assert_eq!((e.parent_id.as_deref(), e.from_id.as_str()), (Some(a.as_str()), b.as_str()));
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn branch_with_summary(
        &mut self,
        entry_id: Option<&str>,
        summary: &str,
        details: Option<Value>,
        from_hook: Option<bool>,
        usage: Option<Usage>,
    ) -> Result<String> {
        let target = entry_id.map(|id| self.index_of(id)).transpose()?;
        let from_id = self.leaf_id().unwrap_or("root").to_string();
        self.leaf = target;
        let b = self.base();
        self.append_entry(SessionEntry::BranchSummary(Box::new(BranchSummaryEntry {
            id: b.id,
            parent_id: entry_id.map(str::to_string),
            timestamp: b.timestamp,
            from_id,
            summary: summary.to_string(),
            details,
            usage,
            from_hook,
            extra: Map::new(),
        })))
    }
}
