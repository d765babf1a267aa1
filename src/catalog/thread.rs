//! The threaded view (pi 1.6.0 `buildSessionTree` / `flattenSessionTree`, pi-reference §2.5): forks
//! under the session they came from.
//!
//! - A session hangs under the session whose path its `parentSessionPath` names (both compared by
//!   their canonical paths); when that session is not in the list, it is a root.
//! - Siblings, roots included, are ordered by the latest `modified` in their subtree, newest first,
//!   keeping list order on ties.
//! - Depth-first, pre-order. The prefix of a row below the root is, per ancestor level, `│  ` when
//!   that ancestor has later siblings (never for the root level) or three spaces, then `└─ ` for a
//!   last child and `├─ ` otherwise.
//! - pi drops sessions on a parent cycle (or pointing at themselves) from this view; pitree shows
//!   every session on a cycle as a root (what hangs off a cycle member stays under it).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::hash::FastMap;

/// One row of the threaded view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    /// Index into the session list.
    pub index: usize,
    pub depth: usize,
    pub prefix: String,
}

/// One session as the tree needs it.
pub struct Node {
    pub key: PathBuf,
    pub parent_key: Option<PathBuf>,
    pub modified_ms: i64,
}

/// Thread the sessions `subset` (indexes into `nodes`, in list order).
pub fn threaded(nodes: &[Node], subset: &[usize]) -> Vec<TreeRow> {
    let n = subset.len();
    let mut parent = parents(nodes, subset);
    break_cycles(&mut parent);
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (pos, p) in parent.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(pos),
            None => roots.push(pos),
        }
    }
    let latest = latest_activity(nodes, subset, &roots, &children);
    let by_latest = |list: &mut Vec<usize>| list.sort_by(|a, b| latest[*b].cmp(&latest[*a]));
    by_latest(&mut roots);
    children.iter_mut().for_each(by_latest);
    flatten(subset, &roots, &children)
}

/// The position in `subset` of each node's parent, if it is there. Keys are compared as paths;
/// when every key is written plainly (see [`is_plain`]) equal paths are equal bytes, which hash much
/// faster than paths.
fn parents(nodes: &[Node], subset: &[usize]) -> Vec<Option<usize>> {
    let plain = subset
        .iter()
        .all(|&i| is_plain(&nodes[i].key) && nodes[i].parent_key.as_deref().is_none_or(is_plain));
    if plain {
        let by_key: FastMap<&OsStr, usize> =
            subset.iter().enumerate().map(|(pos, &i)| (nodes[i].key.as_os_str(), pos)).collect();
        return subset
            .iter()
            .map(|&i| nodes[i].parent_key.as_ref().and_then(|k| by_key.get(k.as_os_str()).copied()))
            .collect();
    }
    let by_key: FastMap<&PathBuf, usize> =
        subset.iter().enumerate().map(|(pos, &i)| (&nodes[i].key, pos)).collect();
    subset.iter().map(|&i| nodes[i].parent_key.as_ref().and_then(|k| by_key.get(k).copied())).collect()
}

/// A path with none of the spellings `Path` comparison ignores (a repeated separator, a `.` after
/// the start, a trailing separator), so two plain paths are equal exactly when their bytes are.
fn is_plain(path: &Path) -> bool {
    let b = path.as_os_str().as_encoded_bytes();
    memchr::memchr_iter(b'/', b).all(|i| match &b[i + 1..] {
        [] => b.len() == 1,
        [b'/', ..] | [b'.'] | [b'.', b'/', ..] => false,
        _ => true,
    })
}

/// Detach every node that lies on a parent cycle.
fn break_cycles(parent: &mut [Option<usize>]) {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }
    let mut state = vec![State::New; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        let mut cur = Some(start);
        while let Some(v) = cur.filter(|v| state[*v] == State::New) {
            state[v] = State::OnPath;
            path.push(v);
            cur = parent[v];
        }
        if let Some(v) = cur.filter(|v| state[*v] == State::OnPath) {
            let from = path.iter().position(|x| *x == v).unwrap_or(0);
            for &x in &path[from..] {
                parent[x] = None;
            }
        }
        for x in path.drain(..) {
            state[x] = State::Done;
        }
    }
}

/// The latest `modified` in each node's subtree.
fn latest_activity(nodes: &[Node], subset: &[usize], roots: &[usize], children: &[Vec<usize>]) -> Vec<i64> {
    let mut latest: Vec<i64> = subset.iter().map(|&i| nodes[i].modified_ms).collect();
    let mut order = Vec::with_capacity(subset.len());
    let mut stack: Vec<usize> = roots.to_vec();
    while let Some(v) = stack.pop() {
        order.push(v);
        stack.extend(&children[v]);
    }
    for &v in order.iter().rev() {
        for &c in &children[v] {
            latest[v] = latest[v].max(latest[c]);
        }
    }
    latest
}

fn flatten(subset: &[usize], roots: &[usize], children: &[Vec<usize>]) -> Vec<TreeRow> {
    struct Item {
        pos: usize,
        depth: usize,
        /// The ancestor columns of this row's prefix.
        ancestors: String,
        is_last: bool,
    }
    let mut rows = Vec::with_capacity(subset.len());
    let mut stack: Vec<Item> = roots
        .iter()
        .enumerate()
        .rev()
        .map(|(k, &pos)| Item { pos, depth: 0, ancestors: String::new(), is_last: k + 1 == roots.len() })
        .collect();
    while let Some(item) = stack.pop() {
        let prefix = if item.depth == 0 {
            String::new()
        } else {
            format!("{}{}", item.ancestors, if item.is_last { "└─ " } else { "├─ " })
        };
        let kids = &children[item.pos];
        let continues = item.depth > 0 && !item.is_last;
        let child_ancestors = match kids.is_empty() {
            true => String::new(),
            false => format!("{}{}", item.ancestors, if continues { "│  " } else { "   " }),
        };
        for (k, &c) in kids.iter().enumerate().rev() {
            stack.push(Item {
                pos: c,
                depth: item.depth + 1,
                ancestors: child_ancestors.clone(),
                is_last: k + 1 == kids.len(),
            });
        }
        rows.push(TreeRow { index: subset[item.pos], depth: item.depth, prefix });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(key: &str, parent: Option<&str>, modified: i64) -> Node {
        Node { key: key.into(), parent_key: parent.map(Into::into), modified_ms: modified }
    }

    fn render(nodes: &[Node]) -> Vec<String> {
        let subset: Vec<usize> = (0..nodes.len()).collect();
        threaded(nodes, &subset)
            .into_iter()
            .map(|r| format!("{}{}", r.prefix, nodes[r.index].key.display()))
            .collect()
    }

    #[test]
    fn children_and_prefixes() {
        let nodes = [
            node("s", None, 50),
            node("c1", Some("s"), 40),
            node("g", Some("c1"), 35),
            node("c2", Some("s"), 30),
            node("r", None, 20),
        ];
        assert_eq!(render(&nodes), ["s", "   ├─ c1", "   │  └─ g", "   └─ c2", "r"]);
    }

    #[test]
    fn subtree_activity_orders_siblings() {
        let nodes = [node("r", None, 50), node("s", None, 40), node("c", Some("s"), 60)];
        assert_eq!(render(&nodes), ["s", "   └─ c", "r"]);
    }

    #[test]
    fn cycle_members_become_roots() {
        let nodes = [
            node("a", Some("b"), 30),
            node("b", Some("a"), 20),
            node("self", Some("self"), 10),
            node("k", Some("b"), 5),
        ];
        assert_eq!(render(&nodes), ["a", "b", "   └─ k", "self"]);
    }

    #[test]
    fn keys_compare_as_paths() {
        let plain = [node("/s/a", None, 3), node("/s/b", Some("/s/a"), 2)];
        assert_eq!(render(&plain), ["/s/a", "   └─ /s/b"]);
        let spelled =
            [node("/s/a", None, 3), node("/s/b", Some("/s//./a/"), 2), node("./c", Some("././s"), 1)];
        assert_eq!(render(&spelled), ["/s/a", "   └─ /s/b", "./c"]);
        for (p, plain) in [
            ("/s/a", true),
            ("/", true),
            ("./a", true),
            ("a/", false),
            ("a//b", false),
            ("a/./b", false),
            ("a/.", false),
        ] {
            assert_eq!(is_plain(Path::new(p)), plain, "{p}");
        }
    }

    #[test]
    fn missing_parent_is_a_root() {
        let nodes = [node("x", Some("gone"), 1)];
        assert_eq!(render(&nodes), ["x"]);
    }
}
