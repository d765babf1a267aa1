//! pi's tree flattening (pi-reference §3.2–§3.5), without a terminal: the entries in pi's order
//! (the branch holding the leaf first, a depth-first pre-order), the filters, folds, and the
//! indent / connector / gutter structure recomputed on the visible subset, plus the moves that
//! depend on that structure (nearest visible ancestor, fold-or-up, unfold-or-down).
//!
//! Cost: [`Forest::build`] runs once per session and [`Rows::build`] once per filter, search or
//! fold change; both are O(entries) with explicit stacks (a 20,000-deep chain is an ordinary input),
//! and a row's gutters are a shared linked list, so deep trees stay linear. Cursor moves never
//! rebuild anything.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;
use std::str::FromStr;

use super::Session;
use super::entry::{Entry, Kind, LEAF_MARKER};
use super::graph::{Graph, Ix};
use super::text::{RowText, ToolCalls, row_text, write_row_text};
use crate::memory::prefetch;

/// "No row" / "no gutter" in the compact index fields.
const NONE: u32 = u32::MAX;

/// Columns per indent level.
pub const INDENT_COLS: usize = 3;

/// Levels of indent drawn at most; deeper rows show their hidden depth instead (see [`Rows::prefix`]).
pub const MAX_INDENT_LEVELS: u32 = 24;

/// pi's tree filters (`treeFilterMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum FilterMode {
    /// Everything except settings entries.
    #[default]
    Default,
    /// Default minus tool results.
    NoTools,
    /// Only user messages.
    UserOnly,
    /// Only entries with a label.
    LabeledOnly,
    /// Everything.
    All,
}

impl FilterMode {
    /// The cycle order of Ctrl+O.
    pub const CYCLE: [FilterMode; 5] = [
        FilterMode::Default,
        FilterMode::NoTools,
        FilterMode::UserOnly,
        FilterMode::LabeledOnly,
        FilterMode::All,
    ];

    /// The next mode in Ctrl+O's cycle.
    pub fn next(self) -> FilterMode {
        Self::CYCLE[(self.position() + 1) % Self::CYCLE.len()]
    }

    /// The previous mode (Shift+Ctrl+O).
    pub fn prev(self) -> FilterMode {
        Self::CYCLE[(self.position() + Self::CYCLE.len() - 1) % Self::CYCLE.len()]
    }

    fn position(self) -> usize {
        Self::CYCLE.iter().position(|m| *m == self).unwrap_or(0)
    }

    /// The setting's value: `default`, `no-tools`, `user-only`, `labeled-only`, `all`.
    pub fn name(self) -> &'static str {
        match self {
            FilterMode::Default => "default",
            FilterMode::NoTools => "no-tools",
            FilterMode::UserOnly => "user-only",
            FilterMode::LabeledOnly => "labeled-only",
            FilterMode::All => "all",
        }
    }

    /// The status-line tag pi shows after `(i/N)`.
    pub fn tag(self) -> &'static str {
        match self {
            FilterMode::Default => "",
            FilterMode::NoTools => " [no-tools]",
            FilterMode::UserOnly => " [user]",
            FilterMode::LabeledOnly => " [labeled]",
            FilterMode::All => " [all]",
        }
    }

    /// Whether the mode shows `entry` (before search and folds).
    fn shows(self, entry: &Entry, labeled: impl FnOnce() -> bool) -> bool {
        match self {
            FilterMode::Default => !hidden_by_default(entry),
            FilterMode::NoTools => !hidden_by_default(entry) && !entry.traits().is_tool_result(),
            FilterMode::UserOnly => entry.traits().is_user(),
            FilterMode::LabeledOnly => labeled(),
            FilterMode::All => true,
        }
    }
}

impl FromStr for FilterMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::CYCLE.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            format!("unknown filter '{s}'; use default, no-tools, user-only, labeled-only or all")
        })
    }
}

/// pi's settings entries (label, custom, model and thinking changes, session info), plus pi 1.6.0's
/// bookkeeping entries `usage` and `context_edit`: hidden by the default filter.
fn hidden_by_default(entry: &Entry) -> bool {
    entry.is_settings() || matches!(entry.kind, Kind::Usage { .. } | Kind::ContextEdit { .. })
}

/// Entries that add nothing to the model's context and carry no conversation: a leaf of this kind
/// that the filter hides is represented by its nearest visible ancestor.
fn is_context_neutral(entry: &Entry) -> bool {
    match &entry.kind {
        Kind::Label { .. } | Kind::SessionInfo { .. } | Kind::Usage { .. } => true,
        Kind::Custom { custom_type } => custom_type == LEAF_MARKER,
        _ => false,
    }
}

/// The entry pi effectively continues from: the leaf, or, when the leaf adds nothing to the context
/// (labels, `session_info`, `usage`, `pitree.leaf` markers at the end of the path), the nearest
/// ancestor that does.
pub fn effective_leaf(session: &Session) -> Option<Ix> {
    let mut cur = session.graph.leaf();
    while let Some(ix) = cur {
        if !is_context_neutral(session.entry(ix)) {
            return Some(ix);
        }
        cur = session.graph.parent(ix);
    }
    None
}

/// Every entry of a session in pi's display order, computed once.
#[derive(Debug, Clone, Default)]
pub struct Forest {
    /// Depth-first pre-order; the root and the children holding the leaf come first, the rest keep
    /// the graph's order (roots in file order, children by timestamp).
    order: Vec<Ix>,
    /// For each position in `order`, the position just after its last descendant.
    subtree_end: Vec<u32>,
    /// For each entry, whether it is on the path root → leaf (pi's `•` rows).
    on_path: Vec<bool>,
    leaf: Option<Ix>,
}

impl Forest {
    pub fn build(graph: &Graph) -> Forest {
        let leaf = graph.leaf();
        let on_path = graph.path_mask(leaf);
        let active_first = |list: &mut Vec<Ix>| list.sort_by_key(|&c| !on_path[c as usize]);
        let mut roots: Vec<Ix> = graph.roots().collect();
        active_first(&mut roots);
        let mut order = Vec::with_capacity(graph.len());
        let mut stack: Vec<Ix> = roots.into_iter().rev().collect();
        let mut children = Vec::new();
        while let Some(ix) = stack.pop() {
            order.push(ix);
            children.clear();
            children.extend_from_slice(graph.children(ix));
            active_first(&mut children);
            stack.extend(children.iter().rev());
        }
        let subtree_end = subtree_ends(graph, &order);
        Forest { order, subtree_end, on_path, leaf }
    }

    /// All entries in display order.
    pub fn order(&self) -> &[Ix] {
        &self.order
    }

    /// The leaf the forest was ordered for (the session's leaf).
    pub fn leaf(&self) -> Option<Ix> {
        self.leaf
    }

    /// Whether `ix` is on the path root → leaf.
    pub fn on_path(&self, ix: Ix) -> bool {
        self.on_path[ix as usize]
    }
}

/// For each pre-order position, the position after its subtree (subtree sizes summed bottom-up).
fn subtree_ends(graph: &Graph, order: &[Ix]) -> Vec<u32> {
    let mut size = vec![0u32; graph.len()];
    for &ix in order.iter().rev() {
        size[ix as usize] += 1;
        if let Some(p) = graph.parent(ix) {
            size[p as usize] += size[ix as usize];
        }
    }
    order.iter().enumerate().map(|(pos, &ix)| pos as u32 + size[ix as usize]).collect()
}

/// What decides which entries are rows.
#[derive(Debug, Clone, Copy)]
pub struct Filter<'a> {
    pub mode: FilterMode,
    /// The search result by entry index, or `None` without a query.
    pub matches: Option<&'a [bool]>,
    /// Entries whose descendants are hidden.
    pub folded: &'a HashSet<Ix>,
}

/// One visible row and its place in the visible tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub entry: Ix,
    /// The row of the nearest visible ancestor.
    parent: u32,
    /// How many visible children this row has (they follow it in pre-order).
    children: u32,
    indent: u32,
    just_branched: bool,
    show_connector: bool,
    is_last: bool,
    virtual_root_child: bool,
    /// Head of this row's gutter list.
    gutter: u32,
    /// Head of the gutter list this row's children inherit.
    child_gutter: u32,
}

/// A `│` column an ancestor's connector leaves for its descendants; a linked list, deepest first.
#[derive(Debug, Clone, Copy)]
struct Gutter {
    level: u32,
    show: bool,
    next: u32,
}

/// The visible rows for one filter, search and fold state, in display order.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    rows: Vec<Row>,
    gutters: Vec<Gutter>,
    /// For each entry, its row, or `NONE`.
    row_of: Vec<u32>,
    multiple_roots: bool,
}

impl Rows {
    /// Apply pi's `applyFilter` steps to the forest: the empty-assistant rule, the mode, the search,
    /// the folds; then recompute the visual structure on what is left.
    pub fn build(forest: &Forest, session: &Session, filter: Filter<'_>) -> Rows {
        let entries = session.entries();
        let visible = |ix: Ix| {
            let e = &entries[ix as usize];
            (Some(ix) == forest.leaf || !e.traits().is_empty_assistant())
                && filter.mode.shows(e, || session.graph.label_of(&e.id).is_some())
                && filter.matches.is_none_or(|m| m[ix as usize])
        };
        let mut rows = Vec::new();
        let mut open: Vec<(u32, u32)> = Vec::new();
        let mut pos = 0;
        while pos < forest.order.len() {
            while open.last().is_some_and(|&(end, _)| end as usize <= pos) {
                open.pop();
            }
            let ix = forest.order[pos];
            let end = forest.subtree_end[pos];
            if visible(ix) {
                let parent = open.last().map_or(NONE, |&(_, row)| row);
                open.push((end, rows.len() as u32));
                rows.push(Row::new(ix, parent));
            }
            pos = if filter.folded.contains(&ix) { end as usize } else { pos + 1 };
        }
        let mut out =
            Rows { rows, gutters: Vec::new(), row_of: vec![NONE; entries.len()], multiple_roots: false };
        out.link();
        out
    }

    /// Count children, then give every row pi's indent, connector and gutters, parents first.
    fn link(&mut self) {
        let mut last_child = vec![NONE; self.rows.len()];
        let mut roots = 0;
        let mut last_root = NONE;
        for r in 0..self.rows.len() {
            self.row_of[self.rows[r].entry as usize] = r as u32;
            match self.rows[r].parent {
                NONE => {
                    roots += 1;
                    last_root = r as u32;
                }
                p => {
                    self.rows[p as usize].children += 1;
                    last_child[p as usize] = r as u32;
                }
            }
        }
        let multiple = roots > 1;
        self.multiple_roots = multiple;
        for r in 0..self.rows.len() {
            let row = self.rows[r];
            let mut next = if row.parent == NONE {
                Row {
                    indent: u32::from(multiple),
                    just_branched: multiple,
                    show_connector: multiple,
                    is_last: last_root == r as u32,
                    virtual_root_child: multiple,
                    gutter: NONE,
                    ..row
                }
            } else {
                let p = self.rows[row.parent as usize];
                let branches = p.children > 1;
                let deeper = branches || (p.just_branched && p.indent > 0);
                Row {
                    indent: p.indent + u32::from(deeper),
                    just_branched: branches,
                    show_connector: branches,
                    is_last: last_child[row.parent as usize] == r as u32,
                    virtual_root_child: false,
                    gutter: p.child_gutter,
                    ..row
                }
            };
            next.child_gutter = next.gutter;
            if next.connector_displayed() {
                self.gutters.push(Gutter {
                    level: self.display_indent_of(&next).saturating_sub(1),
                    show: !next.is_last,
                    next: next.gutter,
                });
                next.child_gutter = self.gutters.len() as u32 - 1;
            }
            self.rows[r] = next;
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The entry shown on row `r`.
    pub fn entry(&self, r: usize) -> Ix {
        self.rows[r].entry
    }

    /// The row showing `ix`, if it is visible.
    pub fn row_of(&self, ix: Ix) -> Option<usize> {
        match self.row_of.get(ix as usize) {
            Some(&r) if r != NONE => Some(r as usize),
            _ => None,
        }
    }

    /// The row of `ix` or of its nearest visible ancestor (by real parents).
    pub fn nearest_visible(&self, graph: &Graph, ix: Ix) -> Option<usize> {
        let mut cur = Some(ix);
        let mut steps = 0;
        while let Some(i) = cur {
            if let Some(r) = self.row_of(i) {
                return Some(r);
            }
            steps += 1;
            if steps > graph.len() {
                break;
            }
            cur = graph.parent(i);
        }
        None
    }

    /// pi's selection after a filter change: `prev` or its nearest visible ancestor, else the last
    /// row.
    pub fn select(&self, graph: &Graph, prev: Option<Ix>) -> Option<usize> {
        prev.and_then(|ix| self.nearest_visible(graph, ix)).or_else(|| self.rows.len().checked_sub(1))
    }

    /// The row that stands for the session's leaf: the leaf's own row, or, when the filter hides a
    /// leaf that adds nothing to the context (a label, a `session_info`, a `usage` entry, a
    /// `pitree.leaf` marker, possibly several in a row), the row of its nearest visible ancestor.
    pub fn leaf_row(&self, session: &Session) -> Option<usize> {
        let mut cur = session.graph.leaf();
        while let Some(ix) = cur {
            if let Some(r) = self.row_of(ix) {
                return Some(r);
            }
            if !is_context_neutral(session.entry(ix)) {
                return None;
            }
            cur = session.graph.parent(ix);
        }
        None
    }

    /// The visible parent row of `r`.
    pub fn parent(&self, r: usize) -> Option<usize> {
        match self.rows[r].parent {
            NONE => None,
            p => Some(p as usize),
        }
    }

    /// pi's `isFoldable`: the row has visible children and starts a segment (it is a root, or its
    /// visible parent has several visible children).
    pub fn is_foldable(&self, r: usize) -> bool {
        self.rows[r].children > 0 && self.parent(r).is_none_or(|p| self.rows[p].children > 1)
    }

    /// Ctrl+← / Alt+←: fold the selected row if it can be folded, else jump up to the start of the
    /// segment above (or the root).
    pub fn fold_or_up(&self, sel: usize, folded: &HashSet<Ix>) -> FoldStep {
        if self.is_foldable(sel) && !folded.contains(&self.entry(sel)) {
            return FoldStep::Fold(self.entry(sel));
        }
        let mut cur = sel;
        while let Some(p) = self.parent(cur) {
            if self.rows[p].children > 1 && cur < sel {
                return FoldStep::Select(cur);
            }
            cur = p;
        }
        FoldStep::Select(cur)
    }

    /// Ctrl+→ / Alt+→: unfold the selected row if it is folded, else follow first children down to
    /// the next branch point (selecting its first child) or the end of the branch.
    pub fn unfold_or_down(&self, sel: usize, folded: &HashSet<Ix>) -> FoldStep {
        if folded.contains(&self.entry(sel)) {
            return FoldStep::Unfold(self.entry(sel));
        }
        let mut cur = sel;
        loop {
            match self.rows[cur].children {
                0 => return FoldStep::Select(cur),
                1 => cur += 1,
                _ => return FoldStep::Select(cur + 1),
            }
        }
    }

    fn display_indent_of(&self, row: &Row) -> u32 {
        if self.multiple_roots { row.indent.saturating_sub(1) } else { row.indent }
    }

    /// The indent level pi draws row `r` at.
    pub fn display_indent(&self, r: usize) -> u32 {
        self.display_indent_of(&self.rows[r])
    }

    /// The tree drawing in front of row `r`: per level `│  ` (a gutter), `├⊟ ` / `└─ ` (its own
    /// connector with the fold glyph) or spaces. Rows deeper than [`MAX_INDENT_LEVELS`] draw only
    /// their innermost levels, after a `«N ` mark giving how many levels are cut.
    pub fn prefix(&self, r: usize, folded: bool) -> String {
        let mut out = String::new();
        self.write_prefix(r, folded, &mut out);
        out
    }

    /// [`Rows::prefix`] appended to `out`.
    fn write_prefix(&self, r: usize, folded: bool, out: &mut String) {
        let row = &self.rows[r];
        let depth = self.display_indent_of(row);
        let cut = depth.saturating_sub(MAX_INDENT_LEVELS - 1);
        let mut levels = [None; MAX_INDENT_LEVELS as usize];
        let gutters = &mut levels[..(depth - cut) as usize];
        let mut g = row.gutter;
        while g != NONE {
            let gutter = self.gutters[g as usize];
            if gutter.level < cut {
                // The levels only fall along the list (an ancestor is indented no deeper).
                break;
            }
            if gutter.level < depth {
                gutters[(gutter.level - cut) as usize] = Some(gutter.show);
            }
            g = gutter.next;
        }
        if cut > 0 {
            out.push('«');
            out.push_str(&cut.to_string());
            out.push(' ');
        }
        let last = gutters.len().wrapping_sub(1);
        for (i, gutter) in gutters.iter().enumerate() {
            match gutter {
                Some(true) => out.push_str("│  "),
                Some(false) => out.push_str("   "),
                None if i == last && row.connector_displayed() => {
                    out.push(if row.is_last { '└' } else { '├' });
                    out.push(self.fold_glyph(r, folded));
                    out.push(' ');
                }
                None => out.push_str("   "),
            }
        }
    }

    fn fold_glyph(&self, r: usize, folded: bool) -> char {
        if folded {
            '⊞'
        } else if self.is_foldable(r) {
            '⊟'
        } else {
            '─'
        }
    }

    /// pi's `foldMarker`: `⊞ ` for a folded row that draws no connector of its own (a root).
    pub fn fold_marker(&self, r: usize, folded: bool) -> &'static str {
        if folded && !self.rows[r].connector_displayed() { "⊞ " } else { "" }
    }
}

impl Row {
    fn new(entry: Ix, parent: u32) -> Row {
        Row {
            entry,
            parent,
            children: 0,
            indent: 0,
            just_branched: false,
            show_connector: false,
            is_last: false,
            virtual_root_child: false,
            gutter: NONE,
            child_gutter: NONE,
        }
    }

    fn connector_displayed(&self) -> bool {
        self.show_connector && !self.virtual_root_child
    }
}

/// The result of a fold key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldStep {
    Fold(Ix),
    Unfold(Ix),
    Select(usize),
}

/// The parts of one row as pi draws it after the cursor: prefix, fold marker, path marker, label,
/// label time, text; plus pitree's leaf marker.
#[derive(Debug, Clone, PartialEq)]
pub struct RowParts {
    /// Tree drawing (dim).
    pub prefix: String,
    /// `⊞ ` or empty (accent).
    pub fold_marker: &'static str,
    /// `• ` on the path root → leaf, else empty (accent).
    pub path_marker: &'static str,
    /// The label, without brackets (warning).
    pub label: Option<String>,
    /// The label's time when label times are on (muted).
    pub label_time: Option<String>,
    pub text: RowText,
    /// This row stands for the leaf (pitree draws [`LEAF_TAG`] after the text).
    pub is_leaf: bool,
}

/// What pitree adds after the text of the row that stands for the leaf.
pub const LEAF_TAG: &str = " ← leaf";

impl RowParts {
    /// Prefix + fold marker + path marker: where pi's horizontal pan anchors.
    pub fn anchor(&self) -> String {
        format!("{}{}{}", self.prefix, self.fold_marker, self.path_marker)
    }

    /// `[label] ` with its trailing space, or empty.
    pub fn label_part(&self) -> String {
        self.label.as_deref().map(|l| format!("[{l}] ")).unwrap_or_default()
    }

    /// The label time with its trailing space, or empty.
    pub fn label_time_part(&self) -> String {
        self.label_time.as_deref().map(|t| format!("{t} ")).unwrap_or_default()
    }

    /// The whole row as plain text (what `pitree show` prints).
    pub fn plain(&self) -> String {
        let marks = Marks {
            fold_marker: self.fold_marker,
            path_marker: self.path_marker,
            label: self.label.as_deref().map(Cow::Borrowed),
            label_time: self.label_time.as_deref().map(Cow::Borrowed),
            is_leaf: self.is_leaf,
        };
        let mut out = String::new();
        marks.write(&mut out, |out| out.push_str(&self.prefix), |out| out.push_str(&self.text.plain()));
        out
    }
}

/// What a row shows besides its prefix and its text.
struct Marks<'a> {
    fold_marker: &'static str,
    path_marker: &'static str,
    /// Sanitized.
    label: Option<Cow<'a, str>>,
    label_time: Option<Cow<'a, str>>,
    is_leaf: bool,
}

/// Where the parts of a row written by [`Rows::write_plain`] lie in what it was written to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainRow {
    pub prefix: Range<usize>,
    /// The label, without brackets.
    pub label: Option<Range<usize>>,
    pub text: Range<usize>,
    /// The row is on the path root → leaf (it has the `• ` marker).
    pub on_path: bool,
    /// The row stands for the leaf (it ends with [`LEAF_TAG`]).
    pub is_leaf: bool,
}

impl Marks<'_> {
    /// The row as plain text appended to `out`, the prefix and the text written by `prefix` and
    /// `text`.
    fn write(
        &self,
        out: &mut String,
        prefix: impl FnOnce(&mut String),
        text: impl FnOnce(&mut String),
    ) -> PlainRow {
        let prefix = appended(out, prefix);
        out.push_str(self.fold_marker);
        out.push_str(self.path_marker);
        let label = self.label.as_deref().map(|label| {
            out.push('[');
            let at = appended(out, |out| out.push_str(label));
            out.push_str("] ");
            at
        });
        if let Some(time) = &self.label_time {
            out.push_str(time);
            out.push(' ');
        }
        let text = appended(out, text);
        if self.is_leaf {
            out.push_str(LEAF_TAG);
        }
        PlainRow { prefix, label, text, on_path: !self.path_marker.is_empty(), is_leaf: self.is_leaf }
    }
}

/// Where in `out` what `write` appends to it lies.
fn appended(out: &mut String, write: impl FnOnce(&mut String)) -> Range<usize> {
    let start = out.len();
    write(out);
    start..out.len()
}

/// What [`Rows::prefetched`] asks for how many rows ahead of the row being written. A row reads
/// its entry, the entry's message, and the message's text or the call a tool result answers, each
/// a part of a big session's memory long out of the cache when the row is written: waiting for
/// them in turn was most of the time to write a row. Each is asked for once the one before it has
/// had time to come, since its address is read from it.
#[derive(Debug, Clone, Copy)]
enum Ahead {
    Entry,
    Message,
    Text,
}

impl Ahead {
    const ALL: [Ahead; 3] = [Ahead::Entry, Ahead::Message, Ahead::Text];

    fn rows(self) -> usize {
        match self {
            Ahead::Entry => 8,
            Ahead::Message => 4,
            Ahead::Text => 2,
        }
    }
}

/// What row texts need besides the rows.
pub struct RowContext<'a> {
    pub session: &'a Session,
    pub forest: &'a Forest,
    pub calls: &'a ToolCalls,
    pub folded: &'a HashSet<Ix>,
    pub home: Option<&'a str>,
    /// The row standing for the leaf ([`Rows::leaf_row`]).
    pub leaf_row: Option<usize>,
    /// Formats a label's timestamp (milliseconds) when label times are shown.
    pub label_time: Option<&'a dyn Fn(i64) -> String>,
}

impl Rows {
    /// The parts of row `r`.
    pub fn parts(&self, r: usize, cx: &RowContext<'_>) -> RowParts {
        let ix = self.entry(r);
        let folded = cx.folded.contains(&ix);
        let marks = self.marks(r, folded, cx);
        RowParts {
            prefix: self.prefix(r, folded),
            fold_marker: marks.fold_marker,
            path_marker: marks.path_marker,
            label: marks.label.map(Cow::into_owned),
            label_time: marks.label_time.map(Cow::into_owned),
            text: row_text(cx.session.entry(ix), cx.session.entries(), cx.calls, cx.home),
            is_leaf: marks.is_leaf,
        }
    }

    /// Row `r` as [`RowParts::plain`] has it, appended to `out` without making its parts.
    pub fn write_plain(&self, r: usize, cx: &RowContext<'_>, out: &mut String) -> PlainRow {
        let ix = self.entry(r);
        let folded = cx.folded.contains(&ix);
        let entry = cx.session.entry(ix);
        self.marks(r, folded, cx).write(
            out,
            |out| self.write_prefix(r, folded, out),
            |out| write_row_text(entry, cx.session.entries(), cx.calls, cx.home, out),
        )
    }

    /// `rows` in order, each given once what the rows a few places ahead of it will read when
    /// they are written has been asked of the memory: its entry, then the entry's message, then
    /// the message's text and the calls a tool result looks up, each a few rows ahead (`Ahead`).
    pub fn prefetched<'s>(
        &'s self,
        rows: Range<usize>,
        cx: &'s RowContext<'_>,
    ) -> impl Iterator<Item = usize> + 's {
        let end = rows.end;
        rows.inspect(move |&r| {
            for ahead in Ahead::ALL {
                if r + ahead.rows() < end {
                    self.prefetch(r + ahead.rows(), cx, ahead);
                }
            }
        })
    }

    /// Ask for the part of what writing row `r` reads that `ahead` stands for.
    fn prefetch(&self, r: usize, cx: &RowContext<'_>, ahead: Ahead) {
        let entry = cx.session.entry(self.entry(r));
        match (ahead, entry.message()) {
            (Ahead::Entry, _) => prefetch(entry),
            (Ahead::Message, Some(m)) => prefetch(m),
            (Ahead::Text, Some(m)) => {
                prefetch(m.text.head.as_str());
                if let Some(id) = &m.tool_call_id {
                    cx.calls.prefetch(id);
                }
            }
            (_, None) => {}
        }
    }

    fn marks<'a>(&self, r: usize, folded: bool, cx: &RowContext<'a>) -> Marks<'a> {
        let ix = self.entry(r);
        let label = cx.session.graph.label_of(&cx.session.entry(ix).id);
        let label_time =
            label.zip(cx.label_time).and_then(|(l, format)| super::date::parse_ms(&l.timestamp).map(format));
        Marks {
            fold_marker: self.fold_marker(r, folded),
            path_marker: if cx.forest.on_path(ix) { "• " } else { "" },
            label: label.map(|l| crate::display::sanitize(&l.text)),
            label_time: label_time.map(Cow::Owned),
            is_leaf: cx.leaf_row == Some(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_modes_cycle_both_ways_and_parse() {
        let mut m = FilterMode::Default;
        let mut seen = Vec::new();
        for _ in 0..5 {
            m = m.next();
            seen.push(m.name());
        }
        assert_eq!(seen, ["no-tools", "user-only", "labeled-only", "all", "default"]);
        assert_eq!(FilterMode::Default.prev(), FilterMode::All);
        assert_eq!("labeled-only".parse(), Ok(FilterMode::LabeledOnly));
        assert!("nope".parse::<FilterMode>().is_err());
    }

    /// A session with a row of every kind: labels (one with a time), folds, wide and unsafe
    /// characters, tool calls of every format, long texts, branches, rows deeper than
    /// [`MAX_INDENT_LEVELS`], and a label as the leaf.
    fn every_kind_of_row() -> Session {
        use serde_json::json;
        let mut lines = vec![
            json!({"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}),
        ];
        let mut add = |id: &str, parent: Option<&str>, kind: serde_json::Value| {
            let mut line = json!({"id": id, "parentId": parent, "timestamp": "2025-01-01T00:00:01.000Z"});
            line.as_object_mut().unwrap().extend(kind.as_object().unwrap().clone());
            lines.push(line);
        };
        let message = |message: serde_json::Value| json!({"type": "message", "message": message});
        let call = |id: &str, name: &str, args: serde_json::Value| json!({"type": "toolCall", "id": id, "name": name, "arguments": args});
        let result = |id: &str| {
            message(json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": "x"}))
        };
        let long = format!("日本語 \u{1b}[31m\u{202e}✨ e\u{301}\t{}", "word ".repeat(60));
        add("u0", None, message(json!({"role": "user", "content": long})));
        let calls = json!([
            call("c1", "read", json!({"path": "/home/dev/src/../a.rs", "offset": 10, "limit": 5})),
            call("c2", "bash", json!({"command": format!("cargo\ttest\n{}", "x".repeat(60))})),
            call("c3", "grep", json!({"pattern": "fn\u{1b} main", "path": "/home/dev"})),
            call("c4", "web", json!({"query": "a very long search query that goes on and on"})),
            call("c5", "ls", json!({})),
        ]);
        add("a0", Some("u0"), message(json!({"role": "assistant", "content": calls})));
        let mut parent = "a0".to_string();
        for id in ["c1", "c2", "c3", "c4", "c5", "gone"] {
            let r = format!("r-{id}");
            add(&r, Some(&parent), result(id));
            parent = r;
        }
        add("t0", Some(&parent), message(json!({"role": "toolResult", "content": "x"})));
        add(
            "e0",
            Some("t0"),
            message(
                json!({"role": "assistant", "content": [], "stopReason": "error", "errorMessage": format!(" boom\n{}", "e".repeat(100))}),
            ),
        );
        add("e1", Some("e0"), message(json!({"role": "assistant", "content": [], "stopReason": "aborted"})));
        add(
            "b0",
            Some("e1"),
            message(json!({"role": "bashExecution", "command": " ls\n-la ", "output": ""})),
        );
        add(
            "k0",
            Some("b0"),
            json!({"type": "compaction", "summary": "s", "firstKeptEntryId": "u0", "tokensBefore": 12345}),
        );
        add(
            "s0",
            Some("k0"),
            json!({"type": "branch_summary", "fromId": "u0", "summary": "  went\u{2028}elsewhere  "}),
        );
        add(
            "m0",
            Some("s0"),
            json!({"type": "custom_message", "customType": "note\u{7}", "content": "hi", "display": true}),
        );
        add("i0", Some("m0"), json!({"type": "session_info", "name": ""}));
        add("i1", Some("i0"), json!({"type": "session_info", "name": "ti\u{200b}tle"}));
        add("h0", Some("i1"), json!({"type": "model_change", "provider": "p", "modelId": "m\u{1b}"}));
        add("u1", Some("a0"), message(json!({"role": "user", "content": "another way"})));
        let mut parent = "u1".to_string();
        for level in 0..30 {
            add(&format!("leaf{level}"), Some(&parent), message(json!({"role": "user", "content": "side"})));
            let next = format!("deep{level}");
            add(
                &next,
                Some(&parent),
                message(json!({"role": "assistant", "content": [{"type": "text", "text": "on"}]})),
            );
            parent = next;
        }
        add("l0", Some("u0"), json!({"type": "label", "targetId": "u0", "label": "im\u{1b}portant ✨"}));
        add("l1", Some(&parent), json!({"type": "label", "targetId": "deep29", "label": "deepest"}));
        let text: Vec<String> = lines.iter().map(serde_json::Value::to_string).collect();
        Session::from_parsed(
            super::super::parse::parse_bytes(text.join("\n").as_bytes(), "t.jsonl".into()).unwrap(),
        )
    }

    #[test]
    fn the_plain_writer_writes_what_the_parts_say() {
        let session = every_kind_of_row();
        let forest = Forest::build(&session.graph);
        let calls = ToolCalls::build(session.entries(), forest.order());
        let time = |ms: i64| format!("t{ms}");
        let some_folded: HashSet<Ix> =
            ["u1", "deep5"].iter().filter_map(|id| session.graph.find(id)).collect();
        for folded in [HashSet::new(), some_folded] {
            for mode in FilterMode::CYCLE {
                let rows = Rows::build(&forest, &session, Filter { mode, matches: None, folded: &folded });
                for label_time in [None, Some(&time as &dyn Fn(i64) -> String)] {
                    let cx = RowContext {
                        session: &session,
                        forest: &forest,
                        calls: &calls,
                        folded: &folded,
                        home: Some("/home/dev"),
                        leaf_row: rows.leaf_row(&session),
                        label_time,
                    };
                    let mut out = "before".to_string();
                    for r in 0..rows.len() {
                        let parts = rows.parts(r, &cx);
                        let start = out.len();
                        let plain = rows.write_plain(r, &cx, &mut out);
                        assert_eq!(out[start..], parts.plain());
                        assert_eq!(out[plain.prefix], parts.prefix);
                        assert_eq!(plain.label.map(|l| &out[l]), parts.label.as_deref());
                        assert_eq!(out[plain.text], parts.text.plain());
                        assert_eq!(
                            (plain.on_path, plain.is_leaf),
                            (!parts.path_marker.is_empty(), parts.is_leaf)
                        );
                    }
                }
            }
        }
    }
}
