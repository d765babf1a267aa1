//! The tree view's state and its reducer: keys and reports in, [`TreeOutcome`]s out, no I/O.
//!
//! Keys come from the view's keymap ([`super::TreeOptions::keys`], the app's
//! `Keybindings::tree`): these are its defaults, each under pi's keybinding id where pi has the
//! action and a `pitree.tree.*` id otherwise; `keybindings.json` replaces an id's keys.
//!
//! | Key | Id | Action |
//! |---|---|---|
//! | ↑ / ↓ | `tui.select.up` / `down` | move, wrapping around |
//! | PgUp / PgDn | `tui.select.pageUp` / `pageDown` | page by the list height |
//! | ← Ctrl+B / → Ctrl+F | `tui.editor.cursorLeft` / `cursorRight` | page (as pi) |
//! | Home / End | `pitree.tree.first` / `last` | first / last row |
//! | Ctrl+← Alt+← / Ctrl+→ Alt+→ | `app.tree.foldOrUp` / `unfoldOrDown` | fold or jump up / unfold or jump down (Alt first on macOS) |
//! | Enter | `tui.select.confirm` | resume on the leaf, else the move dialog; in the search field, leave it |
//! | Esc Ctrl+C | `tui.select.cancel` | clear the search, else close |
//! | Ctrl+X | `app.message.copy` | copy the entry's text |
//! | Ctrl+D | `app.tree.filter.default` | default filter |
//! | Ctrl+T / U / L / A | `app.tree.filter.noTools` / `userOnly` / `labeledOnly` / `all` | that filter, again: default |
//! | Ctrl+O / Shift+Ctrl+O | `app.tree.filter.cycleForward` / `cycleBackward` | cycle filters |
//! | Shift+L / Shift+T | `app.tree.editLabel` / `toggleLabelTimestamp` | label / label times |
//! | / | `pitree.tree.search` | focus the search field: every key types, Enter leaves it |
//! | Ctrl+N / Ctrl+P | `pitree.tree.nextHit` / `prevHit` | next / previous search hit (detail pane, then rows) |
//! | Alt+F | `pitree.tree.fork` | fork the path root … selected into a new session |
//! | Ctrl+R | `pitree.tree.rename` | rename the session |
//! | F1 | `pitree.help` | the help overlay (opened by the app) |
//! | Tab | `pitree.tree.toggleDetail` | show or hide the detail pane |
//! | Shift+↑ / Shift+↓ | `pitree.tree.detailUp` / `detailDown` | scroll the detail pane a line |
//! | Shift+PgUp / Shift+PgDn | `pitree.tree.detailPageUp` / `detailPageDown` | scroll the detail pane a page |
//!
//! Any other printable key types into the search, as in pi, and Backspace deletes from it. The
//! inputs and dialogs (label, name, move dialog, summary and message editors, questions) keep
//! fixed keys.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Position, Rect};
use serde_json::Value;
use unicode_segmentation::UnicodeSegmentation;

use super::detail::{Detail, DetailJob, copy_text};
use super::dialog::{Confirm, DialogKey, MoveChoice, MoveDialog, MovePlan};
use super::editor::Editor;
use super::protocol::{Report, Screen, TreeOptions, TreeOutcome};
use super::search::{self, FullTextJob, SearchIndex, SearchJob};
use crate::display::format_label_time;
use crate::session::flatten::{Filter, FilterMode, FoldStep, Forest, RowContext, Rows, effective_leaf};
use crate::session::summary::{PREAMBLE, abandoned_entries, draft};
use crate::session::text::ToolCalls;
use crate::session::{Ix, Kind, Session};
use crate::store::Action;
use crate::tui::keymap::Action as KeyAction;

/// The summarizer command when none is configured.
pub const DEFAULT_SUMMARIZER: &str = "pi -p --no-session";

/// How many characters of a tool result the summarizer sees (pi's `TOOL_RESULT_MAX_CHARS`).
const TOOL_RESULT_CHARS: usize = 2000;

/// What the keys currently drive.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Browse,
    /// The search field has the focus: every printable key types.
    Search,
    Label {
        target: Ix,
        editor: Editor,
    },
    Rename {
        editor: Editor,
    },
    Move(MoveDialog),
    /// Editing a branch summary before it is written.
    Summary {
        plan: MovePlan,
        editor: Editor,
        read_files: Vec<String>,
        modified_files: Vec<String>,
    },
    /// The summarizer command runs.
    Summarizing {
        plan: MovePlan,
        frame: usize,
    },
    /// The message to re-send when resuming pi after a move.
    Prompt {
        editor: Editor,
    },
    Confirm(Confirm),
}

/// A write the app is executing, and what follows it.
#[derive(Debug, Clone, PartialEq)]
enum Pending {
    Move(MovePlan),
    Label { cleared: bool },
    Rename,
}

/// A one-line message under the rows until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub error: bool,
}

/// The whole view state.
pub struct State {
    pub(super) session: Arc<Session>,
    pub(super) forest: Forest,
    pub(super) calls: Arc<ToolCalls>,
    pub(super) options: TreeOptions,
    pub(super) filter: FilterMode,
    pub(super) query: String,
    index: Option<SearchIndex>,
    job_handed_out: bool,
    /// The query a [`FullTextJob`] is out for, and the one whose results are in `matches`.
    full_text_asked: Option<String>,
    full_text_done: Option<String>,
    matches: Option<Vec<bool>>,
    pub(super) folded: HashSet<Ix>,
    pub(super) rows: Rows,
    /// The selected row (meaningful when `rows` is not empty).
    pub(super) selected: usize,
    /// The entry selected before the list went empty, restored when it fills again.
    last_selected: Option<Ix>,
    pub(super) leaf_row: Option<usize>,
    pub(super) label_times: bool,
    pub(super) show_detail: bool,
    /// On a screen too small for the list and the detail pane side by side or stacked, the
    /// detail pane is shown instead of the list (Tab switches).
    pub(super) detail_instead: bool,
    /// Whether the last frame had room for both panes (set by drawing).
    pub(super) detail_fits: Cell<bool>,
    pub(super) detail: Detail,
    /// Ctrl+N / Ctrl+P moved to another row: go to its first (true) or last hit once it loads.
    hit_after_load: Option<bool>,
    pub(super) mode: Mode,
    pending: Option<Pending>,
    pub(super) status: Option<Status>,
    /// Why the summary editor shows the draft instead of the summarizer's text (drawn in the
    /// editor, which covers the status line).
    pub(super) summary_note: Option<String>,
    /// Where the last frame drew the rows (its height pages the list), and the index of the first
    /// one shown; set by drawing.
    pub(super) list_window: Cell<(Rect, usize)>,
    /// The detail lines the last frame had room for (paging the pane).
    pub(super) detail_height: Cell<usize>,
}

impl State {
    /// See [`super::TreeView::preview`]: every row within `height` of the selection can be on
    /// screen whatever the scroll.
    pub(super) fn fill_rows(&mut self, height: usize) -> std::io::Result<()> {
        let shown = self.selected.saturating_sub(height)..(self.selected + height + 1).min(self.rows.len());
        let mut ixs: Vec<Ix> = shown.map(|r| self.rows.entry(r)).collect();
        let entries = self.session.entries();
        let owners: Vec<Ix> = ixs
            .iter()
            .filter_map(|&ix| {
                self.calls.owner(entries, entries[ix as usize].message()?.tool_call_id.as_deref()?)
            })
            .collect();
        ixs.extend(owners);
        ixs.sort_unstable();
        ixs.dedup();
        Arc::make_mut(&mut self.session).fill(ixs)?;
        self.status = Some(Status { text: "Reading the whole session…".into(), error: false });
        Ok(())
    }

    pub fn new(session: Arc<Session>, options: TreeOptions) -> State {
        let forest = Forest::build(&session.graph);
        let folded = HashSet::new();
        // The tool-call lookup and the first rows each walk every entry; they do not depend on
        // each other, so the first frame waits for the slower of the two only.
        let filter = Filter { mode: options.filter, matches: None, folded: &folded };
        let (calls, rows) = rayon::join(
            || Arc::new(ToolCalls::build(session.entries(), forest.order())),
            || Rows::build(&forest, &session, filter),
        );
        let first = options.select.as_deref().and_then(|id| session.graph.find(id));
        let mut state = State {
            filter: options.filter,
            label_times: options.label_times,
            session,
            forest,
            calls,
            options,
            query: String::new(),
            index: None,
            job_handed_out: false,
            full_text_asked: None,
            full_text_done: None,
            matches: None,
            folded,
            rows,
            selected: 0,
            last_selected: None,
            leaf_row: None,
            show_detail: true,
            detail_instead: false,
            detail_fits: Cell::new(true),
            detail: Detail::default(),
            hit_after_load: None,
            mode: Mode::Browse,
            pending: None,
            status: None,
            summary_note: None,
            list_window: Cell::new((Rect::new(0, 0, 0, 10), 0)),
            detail_height: Cell::new(10),
        };
        state.last_selected = first.or(state.session.graph.leaf());
        state.place_selection();
        state
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn selected(&self) -> Option<Ix> {
        (!self.rows.is_empty()).then(|| self.rows.entry(self.selected))
    }

    pub fn status_line(&self) -> String {
        let position = if self.rows.is_empty() { 0 } else { self.selected + 1 };
        let times = if self.label_times { " [+label time]" } else { "" };
        format!("({position}/{}){}{times}", self.rows.len(), self.filter.tag())
    }

    pub fn screen(&self) -> Screen {
        match &self.mode {
            Mode::Browse => Screen::List,
            Mode::Search => Screen::Search,
            Mode::Label { .. } => Screen::LabelInput,
            Mode::Rename { .. } => Screen::RenameInput,
            Mode::Move(_) => Screen::MoveDialog,
            Mode::Summary { .. } => Screen::SummaryEditor,
            Mode::Summarizing { .. } => Screen::Summarizing,
            Mode::Prompt { .. } => Screen::PromptEditor,
            Mode::Confirm(_) => Screen::Confirm,
        }
    }

    pub fn input_text(&self) -> Option<&str> {
        match &self.mode {
            Mode::Label { editor, .. }
            | Mode::Rename { editor }
            | Mode::Summary { editor, .. }
            | Mode::Prompt { editor } => Some(editor.text()),
            _ => None,
        }
    }

    pub fn move_choices(&self) -> Vec<String> {
        match &self.mode {
            Mode::Move(dialog) => dialog.choices.iter().map(|c| c.text(self.summarizer())).collect(),
            _ => Vec::new(),
        }
    }

    pub fn busy(&self) -> bool {
        matches!(self.mode, Mode::Summarizing { .. })
    }

    pub fn summarizer(&self) -> &str {
        self.options.summarizer.as_deref().unwrap_or(DEFAULT_SUMMARIZER)
    }

    /// What row texts need, for drawing.
    pub fn row_context<'a>(&'a self, label_time: Option<&'a dyn Fn(i64) -> String>) -> RowContext<'a> {
        RowContext {
            session: &self.session,
            forest: &self.forest,
            calls: &self.calls,
            folded: &self.folded,
            home: self.options.home.as_deref(),
            leaf_row: self.leaf_row,
            label_time,
        }
    }

    /// A label time as pi shows it, in the configured zone (else the local one).
    pub fn format_label_time(&self, ts_ms: i64) -> String {
        match &self.options.time_zone {
            Some(tz) => format_label_time(ts_ms, self.options.now_ms, tz),
            None => format_label_time(ts_ms, self.options.now_ms, &chrono::Local),
        }
    }

    /// The query's tokens (for highlighting).
    pub fn tokens(&self) -> Vec<String> {
        search::tokens(&self.query)
    }

    // ----- filtering -------------------------------------------------------------------------

    /// Rebuild the rows after a filter, search or fold change, keeping the selection on the same
    /// entry or its nearest visible ancestor (pi's `applyFilter`).
    fn refilter(&mut self) {
        if let Some(ix) = self.selected() {
            self.last_selected = Some(ix);
        }
        let filter = Filter { mode: self.filter, matches: self.matches.as_deref(), folded: &self.folded };
        self.rows = Rows::build(&self.forest, &self.session, filter);
        self.place_selection();
    }

    /// After the rows changed: find the leaf's row and select the row of the last selected entry
    /// (or of its nearest visible ancestor).
    fn place_selection(&mut self) {
        self.leaf_row = self.rows.leaf_row(&self.session);
        self.selected = self.rows.select(&self.session.graph, self.last_selected).unwrap_or(0);
        self.selection_changed();
    }

    fn set_filter(&mut self, filter: FilterMode) {
        self.filter = filter;
        self.folded.clear();
        self.refilter();
    }

    /// A filter key: that filter, or back to the default one when it is on already.
    fn toggle_filter(&mut self, filter: FilterMode) -> TreeOutcome {
        let next = if self.filter == filter { FilterMode::Default } else { filter };
        self.set_filter(next);
        TreeOutcome::Redraw
    }

    /// Change the query: re-match (only among the previous matches when the query just grew),
    /// clear the folds, refilter, and find the hits in the detail pane.
    fn set_query(&mut self, query: String) {
        let grew = query.starts_with(&self.query) && !self.query.trim().is_empty();
        let within = if grew { self.matches.take() } else { None };
        self.query = query;
        self.match_query(within.as_deref());
        self.folded.clear();
        self.refilter();
        self.detail.find_hits(&self.tokens());
    }

    /// The entries matching the query (building the index from the in-memory heads if there is
    /// none yet), or `None` without a query.
    fn match_query(&mut self, within: Option<&[bool]>) {
        if self.query.trim().is_empty() {
            self.matches = None;
            return;
        }
        let index = self.index.get_or_insert_with(|| {
            SearchIndex::from_heads(&self.session, &self.calls, self.options.home.as_deref())
        });
        self.matches = search::run_query(index, &self.query, within);
        self.full_text_done = None;
    }

    /// Point the detail pane at the selected entry (it loads lazily).
    fn selection_changed(&mut self) {
        self.hit_after_load = None;
        let sel = self.selected();
        if self.detail.entry != sel {
            self.detail = Detail::request(sel);
        }
    }

    fn select_row(&mut self, row: usize) {
        self.selected = row;
        self.selection_changed();
    }

    // ----- keys ------------------------------------------------------------------------------

    pub fn handle_key(&mut self, key: KeyEvent) -> TreeOutcome {
        self.status = None;
        match std::mem::replace(&mut self.mode, Mode::Browse) {
            Mode::Browse => self.browse_key(key, false),
            Mode::Search => {
                self.mode = Mode::Search;
                self.browse_key(key, true)
            }
            Mode::Label { target, editor } => self.label_key(key, target, editor),
            Mode::Rename { editor } => self.rename_key(key, editor),
            Mode::Move(dialog) => self.move_key(key, dialog),
            Mode::Summary { plan, editor, read_files, modified_files } => {
                self.summary_key(key, plan, editor, read_files, modified_files)
            }
            Mode::Summarizing { plan, frame } => self.summarizing_key(key, plan, frame),
            Mode::Prompt { editor } => self.prompt_key(key, editor),
            Mode::Confirm(confirm) => self.confirm_key(key, confirm),
        }
    }

    pub fn handle_paste(&mut self, text: &str) -> TreeOutcome {
        self.status = None;
        match &mut self.mode {
            Mode::Label { editor, .. }
            | Mode::Rename { editor }
            | Mode::Summary { editor, .. }
            | Mode::Prompt { editor } => editor.insert(text),
            Mode::Browse | Mode::Search => {
                let clean: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
                let query = format!("{}{clean}", self.query);
                self.set_query(query);
            }
            Mode::Move(_) | Mode::Summarizing { .. } | Mode::Confirm(_) => return TreeOutcome::Ignored,
        }
        TreeOutcome::Redraw
    }

    /// Keys of the list (and of the focused search field when `typing`): the keymap says which
    /// action a key is. A printable key that is not bound types into the search, and in the search
    /// field every printable key types; Backspace deletes the last character.
    fn browse_key(&mut self, key: KeyEvent, typing: bool) -> TreeOutcome {
        if key.kind == KeyEventKind::Release {
            return TreeOutcome::Ignored;
        }
        let printable = match key.code {
            KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                Some(c)
            }
            _ => None,
        };
        let action = match printable {
            Some(_) if typing => None,
            _ => self.options.keys.action_for(&key),
        };
        match (action, printable) {
            (Some(action), _) => self.browse_action(action, typing),
            (None, Some(c)) => {
                let query = format!("{}{c}", self.query);
                self.set_query(query);
                TreeOutcome::Redraw
            }
            (None, None) if key.code == KeyCode::Backspace => {
                let mut query = self.query.clone();
                if let Some((at, _)) = query.grapheme_indices(true).next_back() {
                    query.truncate(at);
                    self.set_query(query);
                }
                TreeOutcome::Redraw
            }
            (None, None) => TreeOutcome::Ignored,
        }
    }

    /// What an action does in the list (and in the focused search field when `typing`).
    fn browse_action(&mut self, action: KeyAction, typing: bool) -> TreeOutcome {
        let redraw = TreeOutcome::Redraw;
        match action {
            KeyAction::Up => self.step(-1),
            KeyAction::Down => self.step(1),
            KeyAction::PageUp => self.page(-1),
            KeyAction::PageDown => self.page(1),
            KeyAction::First => self.jump(0),
            KeyAction::Last => self.jump(usize::MAX),
            KeyAction::FoldOrUp => self.fold_step(true),
            KeyAction::UnfoldOrDown => self.fold_step(false),
            KeyAction::Confirm if typing => {
                self.mode = Mode::Browse;
                redraw
            }
            KeyAction::Confirm => self.confirm(),
            KeyAction::Cancel => self.cancel(),
            KeyAction::FilterDefault => {
                self.set_filter(FilterMode::Default);
                redraw
            }
            KeyAction::FilterNoTools => self.toggle_filter(FilterMode::NoTools),
            KeyAction::FilterUserOnly => self.toggle_filter(FilterMode::UserOnly),
            KeyAction::FilterLabeledOnly => self.toggle_filter(FilterMode::LabeledOnly),
            KeyAction::FilterAll => self.toggle_filter(FilterMode::All),
            KeyAction::FilterCycle => {
                self.set_filter(self.filter.next());
                redraw
            }
            KeyAction::FilterCycleBack => {
                self.set_filter(self.filter.prev());
                redraw
            }
            KeyAction::EditLabel => self.start_label(),
            KeyAction::ToggleLabelTime => {
                self.label_times = !self.label_times;
                redraw
            }
            KeyAction::Copy => self.copy(),
            KeyAction::Fork => self.start_fork(),
            KeyAction::Rename => {
                let name = self.session.graph.name().unwrap_or("");
                self.mode = Mode::Rename { editor: Editor::new(name, false) };
                redraw
            }
            KeyAction::FocusSearch => {
                self.mode = Mode::Search;
                redraw
            }
            KeyAction::SearchNext => self.next_hit(true),
            KeyAction::SearchPrev => self.next_hit(false),
            KeyAction::ToggleDetail => {
                match self.detail_fits.get() {
                    true => self.show_detail = !self.show_detail,
                    false => self.detail_instead = !self.detail_instead,
                }
                redraw
            }
            KeyAction::DetailUp => self.scroll_detail(-1),
            KeyAction::DetailDown => self.scroll_detail(1),
            KeyAction::DetailPageUp => self.scroll_detail(-(self.detail_height.get().max(1) as isize)),
            KeyAction::DetailPageDown => self.scroll_detail(self.detail_height.get().max(1) as isize),
            // The app opens the help; the picker's actions are not on this screen.
            KeyAction::Help
            | KeyAction::ResumeNow
            | KeyAction::ToggleScope
            | KeyAction::ToggleSort
            | KeyAction::ToggleNamed
            | KeyAction::TogglePath
            | KeyAction::Delete
            | KeyAction::DeleteNoninvasive
            | KeyAction::UndoDelete => TreeOutcome::Ignored,
        }
    }

    /// The mouse wheel: a row in the list, else what ↑ / ↓ do in the open dialog or editor.
    pub fn wheel(&mut self, down: bool) -> TreeOutcome {
        match self.mode {
            Mode::Browse | Mode::Search => {
                self.status = None;
                self.step(if down { 1 } else { -1 })
            }
            _ => {
                let code = if down { KeyCode::Down } else { KeyCode::Up };
                self.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
            }
        }
    }

    /// A click at (`column`, `line`): select the row drawn there (while browsing or searching).
    pub fn click(&mut self, column: u16, line: u16) -> TreeOutcome {
        let (area, start) = self.list_window.get();
        let inside = area.contains(Position::new(column, line));
        let row =
            Some(start + usize::from(line.saturating_sub(area.y))).filter(|&r| inside && r < self.rows.len());
        match (row, &self.mode) {
            (Some(row), Mode::Browse | Mode::Search) => {
                self.status = None;
                self.select_row(row);
                TreeOutcome::Redraw
            }
            _ => TreeOutcome::Ignored,
        }
    }

    fn scroll_detail(&mut self, lines: isize) -> TreeOutcome {
        self.detail.scroll_by(lines);
        TreeOutcome::Redraw
    }

    /// ↑/↓: one row, wrapping around.
    fn step(&mut self, delta: isize) -> TreeOutcome {
        let n = self.rows.len();
        if n == 0 {
            return TreeOutcome::Ignored;
        }
        let next = (self.selected as isize + delta).rem_euclid(n as isize) as usize;
        self.select_row(next);
        TreeOutcome::Redraw
    }

    /// Page keys: by the list height, clamped at both ends.
    fn page(&mut self, direction: isize) -> TreeOutcome {
        let page = self.list_window.get().0.height.max(1) as isize;
        let target = (self.selected as isize + direction * page).max(0) as usize;
        self.jump(target)
    }

    fn jump(&mut self, row: usize) -> TreeOutcome {
        if self.rows.is_empty() {
            return TreeOutcome::Ignored;
        }
        self.select_row(row.min(self.rows.len() - 1));
        TreeOutcome::Redraw
    }

    fn fold_step(&mut self, up: bool) -> TreeOutcome {
        if self.rows.is_empty() {
            return TreeOutcome::Ignored;
        }
        let step = if up {
            self.rows.fold_or_up(self.selected, &self.folded)
        } else {
            self.rows.unfold_or_down(self.selected, &self.folded)
        };
        match step {
            FoldStep::Fold(ix) => {
                self.folded.insert(ix);
                self.refilter();
            }
            FoldStep::Unfold(ix) => {
                self.folded.remove(&ix);
                self.refilter();
            }
            FoldStep::Select(row) => self.select_row(row),
        }
        TreeOutcome::Redraw
    }

    /// Esc / Ctrl+C: clear the search (and the folds), else leave the view.
    fn cancel(&mut self) -> TreeOutcome {
        self.mode = Mode::Browse;
        if self.detail_instead && !self.detail_fits.get() {
            self.detail_instead = false;
            return TreeOutcome::Redraw;
        }
        if self.query.is_empty() {
            return TreeOutcome::Close;
        }
        self.set_query(String::new());
        TreeOutcome::Redraw
    }

    /// Ctrl+N / Ctrl+P: the next hit in the detail pane; past its last one, the next row's first.
    fn next_hit(&mut self, forward: bool) -> TreeOutcome {
        if self.query.trim().is_empty() || self.rows.is_empty() {
            return TreeOutcome::Ignored;
        }
        if !self.detail.pending() && self.detail.step_hit(forward) {
            return TreeOutcome::Redraw;
        }
        let out = self.step(if forward { 1 } else { -1 });
        self.hit_after_load = Some(forward);
        out
    }

    // ----- Enter and the move flow -------------------------------------------------------------

    /// Enter: on the row standing for the leaf, resume; else plan a leaf move and ask how.
    fn confirm(&mut self) -> TreeOutcome {
        let Some(target) = self.selected() else {
            return TreeOutcome::Ignored;
        };
        if Some(self.selected) == self.leaf_row {
            return TreeOutcome::Resume { prompt: None };
        }
        let graph = &self.session.graph;
        let (new_leaf, prompt) = match &self.session.entry(target).kind {
            Kind::Message(m) if m.role == "user" => (graph.parent(target), Some(self.full_text(target))),
            Kind::CustomMessage { .. } => (graph.parent(target), Some(self.full_text(target))),
            _ => (Some(target), None),
        };
        let current = effective_leaf(&self.session);
        if new_leaf == current {
            return self.after_move(prompt);
        }
        let abandoned = abandoned_entries(&self.session, current, Some(target));
        self.mode = Mode::Move(MoveDialog::new(MovePlan { target, new_leaf, prompt, abandoned }));
        TreeOutcome::Redraw
    }

    /// An entry's full text: from the loaded detail when it is there, else the in-memory head.
    fn full_text(&self, ix: Ix) -> String {
        let loaded = self.detail.json.as_ref().filter(|_| self.detail.entry == Some(ix));
        loaded
            .and_then(copy_text)
            .unwrap_or_else(|| crate::session::text::head_text(self.session.entry(ix)).to_string())
    }

    fn move_key(&mut self, key: KeyEvent, mut dialog: MoveDialog) -> TreeOutcome {
        let choice = match dialog.handle_key(key) {
            DialogKey::Stay => {
                self.mode = Mode::Move(dialog);
                return TreeOutcome::Redraw;
            }
            DialogKey::Chosen(choice) => choice,
        };
        let plan = dialog.plan;
        match choice {
            MoveChoice::Cancel => TreeOutcome::Redraw,
            MoveChoice::NoSummary => {
                let target = self.id_of(plan.new_leaf);
                self.write(Action::MoveLeaf { target }, Pending::Move(plan))
            }
            MoveChoice::Draft => {
                self.summary_note = None;
                let d = draft(&self.session, &plan.abandoned);
                self.mode = Mode::Summary {
                    plan,
                    editor: Editor::new(&d.text, true),
                    read_files: d.read_files,
                    modified_files: d.modified_files,
                };
                TreeOutcome::Redraw
            }
            MoveChoice::Summarizer => {
                let target = Some(plan.target);
                self.mode = Mode::Summarizing { plan, frame: 0 };
                TreeOutcome::RunSummarizer { target }
            }
        }
    }

    fn summary_key(
        &mut self,
        key: KeyEvent,
        plan: MovePlan,
        mut editor: Editor,
        read_files: Vec<String>,
        modified_files: Vec<String>,
    ) -> TreeOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('s') if ctrl => {
                let action = Action::MoveLeafWithSummary {
                    target: self.id_of(plan.new_leaf),
                    summary: editor.text().trim_end().to_string(),
                    read_files,
                    modified_files,
                };
                return self.write(action, Pending::Move(plan));
            }
            KeyCode::Esc => {
                self.mode = Mode::Move(MoveDialog::new(plan));
                return TreeOutcome::Redraw;
            }
            _ => {
                editor.handle_key(key);
            }
        }
        self.mode = Mode::Summary { plan, editor, read_files, modified_files };
        TreeOutcome::Redraw
    }

    fn summarizing_key(&mut self, key: KeyEvent, plan: MovePlan, frame: usize) -> TreeOutcome {
        let cancel = key.code == KeyCode::Esc
            || (key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL));
        if cancel {
            self.mode = Mode::Move(MoveDialog::new(plan));
            self.status = Some(Status { text: "Summarizer cancelled".into(), error: false });
            return TreeOutcome::CancelSummarizer;
        }
        self.mode = Mode::Summarizing { plan, frame };
        TreeOutcome::Ignored
    }

    /// After a leaf move (or when no move was needed): offer the message to re-send, if any.
    fn after_move(&mut self, prompt: Option<String>) -> TreeOutcome {
        if let Some(text) = prompt {
            self.mode = Mode::Prompt { editor: Editor::new(&text, true) };
        }
        TreeOutcome::Redraw
    }

    /// Enter resumes pi with the (edited) message; Alt+Enter or Ctrl+J adds a line; Esc stays.
    fn prompt_key(&mut self, key: KeyEvent, mut editor: Editor) -> TreeOutcome {
        let newline = (key.code == KeyCode::Enter && key.modifiers.contains(KeyModifiers::ALT))
            || (key.code == KeyCode::Char('j') && key.modifiers.contains(KeyModifiers::CONTROL));
        match key.code {
            _ if newline => editor.insert("\n"),
            KeyCode::Enter => {
                let text = editor.text().trim();
                let prompt = (!text.is_empty()).then(|| text.to_string());
                return TreeOutcome::Resume { prompt };
            }
            KeyCode::Esc => {
                self.status = Some(Status { text: "The message was not sent".into(), error: false });
                return TreeOutcome::Redraw;
            }
            _ => {
                editor.handle_key(key);
            }
        }
        self.mode = Mode::Prompt { editor };
        TreeOutcome::Redraw
    }

    // ----- labels, rename, copy, fork ----------------------------------------------------------

    fn start_label(&mut self) -> TreeOutcome {
        let Some(target) = self.selected() else {
            return TreeOutcome::Ignored;
        };
        let current = self.session.graph.label_of(&self.session.entry(target).id);
        let editor = Editor::new(current.map_or("", |l| l.text.as_str()), false);
        self.mode = Mode::Label { target, editor };
        TreeOutcome::Redraw
    }

    /// Enter saves (trimmed; empty clears), Esc or Ctrl+C cancels.
    fn label_key(&mut self, key: KeyEvent, target: Ix, mut editor: Editor) -> TreeOutcome {
        if is_cancel(key) {
            return TreeOutcome::Redraw;
        }
        if key.code == KeyCode::Enter {
            let text = editor.text().trim();
            let label = (!text.is_empty()).then(|| text.to_string());
            let cleared = label.is_none();
            let action = Action::Label { target: self.session.entry(target).id.to_string(), label };
            return self.write(action, Pending::Label { cleared });
        }
        editor.handle_key(key);
        self.mode = Mode::Label { target, editor };
        TreeOutcome::Redraw
    }

    fn rename_key(&mut self, key: KeyEvent, mut editor: Editor) -> TreeOutcome {
        if is_cancel(key) {
            return TreeOutcome::Redraw;
        }
        if key.code == KeyCode::Enter {
            let name = Some(editor.text().to_string());
            return self.write(Action::Rename { name }, Pending::Rename);
        }
        editor.handle_key(key);
        self.mode = Mode::Rename { editor };
        TreeOutcome::Redraw
    }

    /// Ctrl+X: pi's copy text of the selected entry (from its loaded JSON).
    fn copy(&mut self) -> TreeOutcome {
        let Some(ix) = self.selected() else {
            return TreeOutcome::Ignored;
        };
        let loaded = self.detail.json.as_ref().filter(|_| self.detail.entry == Some(ix));
        match loaded.map(copy_text) {
            Some(Some(text)) => TreeOutcome::Copy(text),
            Some(None) => self.fail("Selected entry has no text to copy"),
            None => self.fail("The entry is still loading; try again"),
        }
    }

    fn start_fork(&mut self) -> TreeOutcome {
        let Some(target) = self.selected() else {
            return TreeOutcome::Ignored;
        };
        let n = self.session.graph.path_to(target).len();
        self.mode = Mode::Confirm(Confirm {
            lines: vec![
                format!("Fork: copy the path root … this entry ({n} entries) into a new session"),
                "and open it? This session stays as it is.".to_string(),
            ],
            then: Box::new(TreeOutcome::Fork { target }),
        });
        TreeOutcome::Redraw
    }

    fn confirm_key(&mut self, key: KeyEvent, confirm: Confirm) -> TreeOutcome {
        match confirm.handle_key(key) {
            DialogKey::Stay => {
                self.mode = Mode::Confirm(confirm);
                TreeOutcome::Ignored
            }
            DialogKey::Chosen(true) => *confirm.then,
            DialogKey::Chosen(false) => {
                self.pending = None;
                self.status = Some(Status { text: "Nothing was written".into(), error: false });
                TreeOutcome::Redraw
            }
        }
    }

    /// Ask the app to write `action`; first ask the user when a running pi holds the file.
    fn write(&mut self, action: Action, pending: Pending) -> TreeOutcome {
        self.pending = Some(pending);
        let write = TreeOutcome::Write(action);
        let Some(pid) = self.options.live_pid else {
            return write;
        };
        self.mode = Mode::Confirm(Confirm {
            lines: vec![
                format!("A running pi (pid {pid}) has this session open."),
                "pi does not re-read the file: it will not see this change, and what it".to_string(),
                "writes next continues from its own position. Write anyway?".to_string(),
            ],
            then: Box::new(write),
        });
        TreeOutcome::Redraw
    }

    fn id_of(&self, ix: Option<Ix>) -> Option<String> {
        ix.map(|i| self.session.entry(i).id.to_string())
    }

    fn fail(&mut self, text: &str) -> TreeOutcome {
        self.status = Some(Status { text: text.to_string(), error: true });
        TreeOutcome::Redraw
    }

    // ----- reports -----------------------------------------------------------------------------

    pub fn apply(&mut self, report: Report) -> TreeOutcome {
        match report {
            Report::Written(Ok(session)) => self.written(session),
            Report::Written(Err(e)) => {
                self.pending = None;
                self.fail(&format!("Nothing was written: {e}"))
            }
            Report::Forked(Ok(path)) => {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                self.status =
                    Some(Status { text: format!("Forked: this is the new session {name}"), error: false });
                TreeOutcome::Redraw
            }
            Report::Forked(Err(e)) => self.fail(&format!("Fork failed: {e}")),
            Report::Copied(Ok(())) => {
                self.status =
                    Some(Status { text: "Copied selected message to clipboard".into(), error: false });
                TreeOutcome::Redraw
            }
            Report::Copied(Err(e)) => self.fail(&format!("Copy failed: {e}")),
            Report::Summary(result) => self.summarized(result),
            Report::Detail { entry, content } => {
                if self.detail.entry != Some(entry) {
                    return TreeOutcome::Ignored;
                }
                self.detail.fill(content);
                self.detail.find_hits(&self.tokens());
                if let Some(forward) = self.hit_after_load.take() {
                    self.detail.step_hit(forward);
                }
                TreeOutcome::Redraw
            }
            Report::FullTextMatches { query, entries, session } => {
                self.full_text_matched(query, entries, &session)
            }
            Report::SearchIndex(mut index) => {
                if index.indexed() < self.session.entries().len() {
                    index.extend_with_heads(&self.session, &self.calls, self.options.home.as_deref());
                }
                self.index = Some(index);
                self.match_query(None);
                self.refilter();
                TreeOutcome::Redraw
            }
            Report::Changed(session) => {
                self.reload(session);
                TreeOutcome::Redraw
            }
            Report::Live(pid) => {
                self.options.live_pid = pid;
                TreeOutcome::Redraw
            }
        }
    }

    /// A write succeeded: take the re-read file and follow up (select the new leaf, offer the
    /// message to re-send).
    fn written(&mut self, session: Session) -> TreeOutcome {
        self.reload(session);
        let (text, next) = match self.pending.take() {
            Some(Pending::Move(plan)) => {
                if let Some(row) = self.leaf_row {
                    self.select_row(row);
                }
                ("Leaf moved: pi continues from here", plan.prompt)
            }
            Some(Pending::Label { cleared: true }) => ("Label cleared", None),
            Some(Pending::Label { cleared: false }) => ("Label saved", None),
            Some(Pending::Rename) => ("Session renamed", None),
            None => ("Written", None),
        };
        self.status = Some(Status { text: text.to_string(), error: false });
        self.after_move(next)
    }

    /// The summarizer finished: edit its output (or, when it failed, the draft) before writing.
    fn summarized(&mut self, result: Result<String, String>) -> TreeOutcome {
        let Mode::Summarizing { plan, .. } = std::mem::replace(&mut self.mode, Mode::Browse) else {
            return TreeOutcome::Ignored;
        };
        let d = draft(&self.session, &plan.abandoned);
        self.summary_note = None;
        let text = match result {
            Ok(out) => format!("{PREAMBLE}{}{}", out.trim(), file_tags(&d.read_files, &d.modified_files)),
            Err(e) => {
                let text = format!("Summarizer failed: {e}; showing the draft");
                self.status = Some(Status { text: text.clone(), error: true });
                self.summary_note = Some(text);
                d.text
            }
        };
        self.mode = Mode::Summary {
            plan,
            editor: Editor::new(&text, true),
            read_files: d.read_files,
            modified_files: d.modified_files,
        };
        TreeOutcome::Redraw
    }

    pub fn tick(&mut self) -> TreeOutcome {
        match &mut self.mode {
            Mode::Summarizing { frame, .. } => {
                *frame += 1;
                TreeOutcome::Redraw
            }
            _ => TreeOutcome::Ignored,
        }
    }

    /// Take a newer read of the file, keeping filter, search, folds and the selected entry.
    fn reload(&mut self, session: Session) {
        let old = self.session.entries();
        let appended = session.entries().len() >= old.len()
            && old.iter().zip(session.entries()).all(|(a, b)| a.id == b.id);
        let keep_id = self.selected().map(|ix| self.session.entry(ix).id.clone());
        let folded_ids: Vec<String> =
            self.folded.iter().map(|&ix| self.session.entry(ix).id.to_string()).collect();
        self.session = Arc::new(session);
        self.forest = Forest::build(&self.session.graph);
        self.calls = Arc::new(ToolCalls::build(self.session.entries(), self.forest.order()));
        match (&mut self.index, appended) {
            (Some(index), true) => {
                index.extend_with_heads(&self.session, &self.calls, self.options.home.as_deref())
            }
            _ => {
                self.index = None;
                self.job_handed_out = false;
            }
        }
        let graph = &self.session.graph;
        self.folded = folded_ids.iter().filter_map(|id| graph.find(id)).collect();
        self.last_selected = keep_id.and_then(|id| graph.find(&id));
        self.rows = Rows::default();
        self.detail = Detail::default();
        self.match_query(None);
        self.refilter();
    }

    // ----- requests for the app ----------------------------------------------------------------

    pub fn detail_job(&self) -> Option<DetailJob> {
        self.detail.job(&self.session, self.options.home.as_deref())
    }

    pub fn full_text_job(&mut self) -> Option<FullTextJob> {
        let index = self.index.as_ref().filter(|i| i.is_complete() && !i.long_entries().is_empty())?;
        let wanted = self.matches.is_some() && self.full_text_done.as_deref() != Some(self.query.as_str());
        if !wanted || self.full_text_asked.is_some() {
            return None;
        }
        self.full_text_asked = Some(self.query.clone());
        Some(FullTextJob {
            session: Arc::clone(&self.session),
            long: Arc::clone(index.long_entries()),
            query: self.query.clone(),
        })
    }

    /// A [`FullTextJob`] came back: add its entries to the matches if the query is still the one
    /// it looked for and the file only grew since (else the next job looks again).
    fn full_text_matched(&mut self, query: String, entries: Vec<Ix>, searched: &Session) -> TreeOutcome {
        self.full_text_asked = None;
        if query != self.query || !searched.file.facts.grew_into(&self.session.file.facts) {
            return TreeOutcome::Ignored;
        }
        let Some(matches) = self.matches.as_mut() else { return TreeOutcome::Ignored };
        let mut added = 0;
        for ix in entries {
            if let Some(matched) = matches.get_mut(ix as usize)
                && !*matched
            {
                *matched = true;
                added += 1;
            }
        }
        self.full_text_done = Some(query);
        if added == 0 {
            return TreeOutcome::Ignored;
        }
        self.refilter();
        TreeOutcome::Redraw
    }

    pub fn search_job(&mut self) -> Option<SearchJob> {
        if self.job_handed_out || self.index.as_ref().is_some_and(SearchIndex::is_complete) {
            return None;
        }
        self.job_handed_out = true;
        Some(SearchJob {
            session: Arc::clone(&self.session),
            calls: Arc::clone(&self.calls),
            home: self.options.home.clone(),
        })
    }

    /// pi's `serializeConversation` of the entries a move to `target` abandons, wrapped for the
    /// summarizer.
    pub fn summarizer_input(&self, target: Option<Ix>) -> String {
        let abandoned = abandoned_entries(&self.session, effective_leaf(&self.session), target);
        let parts: Vec<String> = abandoned
            .iter()
            .filter_map(|&ix| self.session.load(ix).ok())
            .flat_map(|json| serialize_entry(&json))
            .collect();
        format!("<conversation>\n{}\n</conversation>\n\n{SUMMARY_INSTRUCTIONS}", parts.join("\n\n"))
    }
}

/// What the summarizer is asked to write (pi's branch-summary sections).
const SUMMARY_INSTRUCTIONS: &str = "The conversation above is a branch the user is leaving. Summarize it so that \
the work can be picked up again later. Use exactly these sections:\n\n## Goal\nWhat the user wanted in this branch.\n\n\
## Constraints & Preferences\n- Requirements and preferences the user stated, or (none).\n\n## Progress\n### Done\n\
- [x] Finished tasks and changes.\n\n### In Progress\n- [ ] Work started but not finished.\n\n### Blocked\n\
- What stopped progress, if anything.\n\n## Key Decisions\n- **Decision**: short reason.\n\n## Next Steps\n\
1. What should happen next.\n\nBe brief. Keep file paths, function names and error messages exactly as written.";

/// One entry as pi's `serializeConversation` writes its messages.
fn serialize_entry(json: &Value) -> Vec<String> {
    use crate::session::content::content_text;
    let text_of = |v: &Value| content_text(v, "").unwrap_or_default();
    let mut out = Vec::new();
    let mut push = |tag: &str, text: String| {
        if !text.is_empty() {
            out.push(format!("[{tag}]: {text}"));
        }
    };
    match json["type"].as_str().unwrap_or("") {
        "message" => {
            let m = &json["message"];
            match m["role"].as_str().unwrap_or("") {
                "user" => push("User", text_of(&m["content"])),
                "assistant" => serialize_assistant(m, &mut push),
                "toolResult" => push("Tool result", cut(&text_of(&m["content"]), TOOL_RESULT_CHARS)),
                "bashExecution" => push(
                    "User",
                    format!(
                        "Ran `{}`\n{}",
                        m["command"].as_str().unwrap_or(""),
                        cut(m["output"].as_str().unwrap_or(""), TOOL_RESULT_CHARS)
                    ),
                ),
                _ => {}
            }
        }
        "custom_message" => push("User", text_of(&json["content"])),
        "branch_summary" | "compaction" => push("User", json["summary"].as_str().unwrap_or("").to_string()),
        _ => {}
    }
    out
}

fn serialize_assistant(m: &Value, push: &mut impl FnMut(&str, String)) {
    let blocks = m["content"].as_array().map(Vec::as_slice).unwrap_or_default();
    let of = |ty: &str, key: &str| -> Vec<String> {
        blocks
            .iter()
            .filter(|b| b["type"] == ty)
            .filter_map(|b| b[key].as_str().map(str::to_string))
            .collect()
    };
    let calls: Vec<String> = blocks
        .iter()
        .filter(|b| b["type"] == "toolCall")
        .map(|b| {
            let args = b["arguments"]
                .as_object()
                .map(|a| a.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "));
            format!("{}({})", b["name"].as_str().unwrap_or(""), args.unwrap_or_default())
        })
        .collect();
    if let Some(s) = m["content"].as_str() {
        push("Assistant", s.to_string());
    }
    push("Assistant thinking", of("thinking", "thinking").join("\n"));
    push("Assistant", of("text", "text").join("\n"));
    push("Assistant tool calls", calls.join("; "));
}

/// `text` cut to `max` characters, saying how many were left out.
fn cut(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    format!("{head}\n\n[... {} more characters truncated]", total - max)
}

/// The `<read-files>` / `<modified-files>` blocks pi appends to a branch summary.
fn file_tags(read: &[String], modified: &[String]) -> String {
    let mut out = String::new();
    for (tag, files) in [("read-files", read), ("modified-files", modified)] {
        if !files.is_empty() {
            out.push_str(&format!("\n\n<{tag}>\n{}\n</{tag}>", files.join("\n")));
        }
    }
    out
}

fn is_cancel(key: KeyEvent) -> bool {
    key.code == KeyCode::Esc
        || (key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL))
}
