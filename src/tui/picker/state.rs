//! The resume picker's state and its reducer (product.md §4, pi-reference §2): two scopes loaded
//! in the background and cached, search as you type, three sorts, the named filter, the path
//! column, folds of the threaded tree, rename and delete (with undo), the preview cache, and the
//! selection — which starts on the most recent session and then follows the session (by id) as
//! the list re-filters.
//!
//! Nothing here does I/O or reads a clock: every change comes in as a call with the data it needs
//! (keys already resolved to [`Command`]s, scan results, "now"), and whatever must happen outside
//! goes out as [`Effect`]s.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ratatui::crossterm::event::KeyEvent;

use super::preview::Preview;
use super::source::{BuiltIndex, Found, Row, SearchTexts, SessionList, SortMode};
use crate::catalog::{SessionSummary, TieBreak};
use crate::store::trash::Trashed;
use crate::tui::widgets::input::Input;

/// How long a status message stays, in milliseconds.
pub const STATUS_MS: i64 = 3000;
/// How long an error stays: long enough to read a path in it.
pub const ERROR_STATUS_MS: i64 = 10_000;

/// Which sessions the picker lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScopeKind {
    /// Sessions whose `cwd` is the current folder.
    Current,
    All,
}

impl ScopeKind {
    fn index(self) -> usize {
        match self {
            ScopeKind::Current => 0,
            ScopeKind::All => 1,
        }
    }

    fn other(self) -> ScopeKind {
        match self {
            ScopeKind::Current => ScopeKind::All,
            ScopeKind::All => ScopeKind::Current,
        }
    }
}

/// Where a scope's list is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Load {
    NotStarted,
    /// A scan runs; `progress` is `(done, total)` once the first progress report came in.
    Loading {
        progress: Option<(usize, usize)>,
    },
    Loaded,
}

/// One scope's sessions, newest first.
#[derive(Debug)]
pub struct ScopeList {
    pub sessions: SessionList,
    pub load: Load,
    /// The number of the scan whose results are wanted; older scans' events are dropped.
    pub seq: u64,
    /// A refresh scan replaces the list when it is done instead of showing its rows one by one.
    quiet: Option<Vec<Found>>,
    /// The texts a refresh scan left to read, for the list it brings.
    quiet_texts: Option<SearchTexts>,
}

impl ScopeList {
    fn new(ties: TieBreak) -> ScopeList {
        ScopeList {
            sessions: SessionList::new(ties),
            load: Load::NotStarted,
            seq: 0,
            quiet: None,
            quiet_texts: None,
        }
    }

    pub fn is_loading(&self) -> bool {
        matches!(self.load, Load::Loading { .. })
    }
}

/// What the scan of a scope reports.
#[derive(Debug, Clone)]
pub enum ScanUpdate {
    Progress {
        done: usize,
        total: usize,
    },
    Found(Vec<Found>),
    /// The texts of the sessions found without them (sent before `Done`).
    Texts(SearchTexts),
    Done {
        warnings: Vec<String>,
    },
}

/// A key press, resolved by the keymap (see [`super::keys`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    ToggleScope,
    ToggleSort,
    ToggleNamed,
    TogglePath,
    Delete,
    /// Ctrl+Backspace: delete only when the query is empty, else the key edits the query.
    DeleteNoninvasive(KeyEvent),
    Rename,
    Undo,
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    /// Fold the selected thread, or go to its parent.
    FoldOrUp,
    /// Unfold the selected thread, or go to its first fork.
    UnfoldOrDown,
    PreviewUp,
    PreviewDown,
    PreviewPageUp,
    PreviewPageDown,
    TogglePreview,
    /// Enter: open the tree view.
    Confirm,
    /// Alt+Enter: resume in pi at once.
    Resume,
    Cancel,
    /// F1: the key list.
    Help,
    /// `?`: the key list when the query is empty, else it types.
    HelpOrType(KeyEvent),
    /// Anything else goes to the focused input.
    Edit(KeyEvent),
}

/// What the picker needs done outside.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Start scanning a scope; tag every report with `seq`.
    Scan {
        scope: ScopeKind,
        seq: u64,
    },
    /// Build the search index of a scope's list (version `version`) on a worker.
    BuildIndex {
        scope: ScopeKind,
        version: u64,
        sessions: Arc<Vec<SessionSummary>>,
    },
    /// [`Effect::BuildIndex`] for a list whose texts are still to read: read them, then build.
    BuildIndexWithTexts {
        scope: ScopeKind,
        version: u64,
        sessions: Arc<Vec<SessionSummary>>,
        texts: SearchTexts,
    },
    LoadPreview(PathBuf),
    Rename {
        path: PathBuf,
        name: String,
    },
    Delete {
        path: PathBuf,
    },
    Undo(Trashed),
    /// Open the session's tree view.
    Open(PathBuf),
    /// Resume the session in pi (or print it with `--print`).
    Resume(PathBuf),
    ShowHelp,
    /// Leave pitree.
    Quit,
    /// Both scopes are empty: leave, saying so.
    NothingToShow,
}

/// The dialogs that take over the keyboard.
#[derive(Debug, Clone)]
pub enum Mode {
    Browse,
    /// "Delete session?" for this file.
    ConfirmDelete {
        path: PathBuf,
        live_pid: Option<u32>,
    },
    /// A running pi holds the session to rename: say what that means first.
    LiveRenameWarning {
        path: PathBuf,
        pid: u32,
    },
    /// The rename panel.
    Rename {
        path: PathBuf,
        input: Input,
    },
}

/// A message under the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub error: bool,
    /// When it disappears (ms since the epoch).
    pub until_ms: i64,
}

/// The preview of one file, once loaded.
#[derive(Debug, Clone)]
pub enum PreviewSlot {
    Ready(Arc<Preview>),
    Failed(String),
}

/// Which session the selection follows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Follow {
    /// The user has not moved yet: the most recent session (the best match while searching). Once
    /// the list has loaded, the one that was the most recent then (`pinned`), so that a session pi
    /// is writing to does not take the selection over.
    Newest { pinned: Option<(PathBuf, String)> },
    /// This session (path and header id).
    Session { path: PathBuf, id: String },
}

/// How the picker starts.
#[derive(Debug, Clone, Default)]
pub struct PickerOptions {
    /// Start in the All scope.
    pub all: bool,
    /// The user's home folder, shown as `~`.
    pub home: Option<PathBuf>,
    /// How pi orders sessions of the same time in the All scope (see [`TieBreak::of`]); in the
    /// current folder's, it is always by name.
    pub all_ties: TieBreak,
}

/// The picker's whole state.
#[derive(Debug)]
pub struct Picker {
    pub scope: ScopeKind,
    lists: [ScopeList; 2],
    pub query: Input,
    pub sort: SortMode,
    pub named_only: bool,
    pub show_path: bool,
    pub show_preview: bool,
    /// Whether the screen has room for the list and the preview together (set on resize).
    pub preview_fits: bool,
    /// On a screen without that room, the preview is shown instead of the list (F2 switches).
    pub preview_instead: bool,
    /// Lines the preview is scrolled up from its end.
    pub preview_scroll: usize,
    /// The list as shown: filtered, sorted, threaded, folds applied.
    rows: Vec<Row>,
    /// The query failed to parse (a bad regex): the list is empty and this says why.
    pub query_error: Option<String>,
    selected: usize,
    follow: Follow,
    /// Threads folded by the user (parent session paths).
    folded: HashSet<PathBuf>,
    pub mode: Mode,
    pub status: Option<Status>,
    /// The last delete, while it can be undone.
    pub undo: Option<Trashed>,
    previews: HashMap<PathBuf, PreviewSlot>,
    /// The preview asked for last (the worker answers the latest request).
    preview_wanted: Option<PathBuf>,
    /// Sessions a running pi holds, with its pid.
    pub live: HashMap<PathBuf, u32>,
    pub home: Option<PathBuf>,
    /// Rows the list area showed at the last layout (for paging).
    pub page: usize,
    /// Sessions arrived since the rows were built; [`Picker::settle`] rebuilds them once per batch.
    stale: bool,
}

impl Picker {
    /// A picker that starts loading its first scope.
    pub fn new(options: PickerOptions) -> (Picker, Vec<Effect>) {
        let scope = if options.all { ScopeKind::All } else { ScopeKind::Current };
        let mut picker = Picker {
            scope,
            lists: [ScopeList::new(TieBreak::Name), ScopeList::new(options.all_ties)],
            query: Input::default(),
            sort: SortMode::Threaded,
            named_only: false,
            show_path: false,
            show_preview: true,
            preview_fits: true,
            preview_instead: false,
            preview_scroll: 0,
            rows: Vec::new(),
            query_error: None,
            selected: 0,
            follow: Follow::Newest { pinned: None },
            folded: HashSet::new(),
            mode: Mode::Browse,
            status: None,
            undo: None,
            previews: HashMap::new(),
            preview_wanted: None,
            live: HashMap::new(),
            home: options.home,
            page: 10,
            stale: false,
        };
        let effects = picker.start_scan(scope).into_iter().collect();
        (picker, effects)
    }

    // ---------------------------------------------------------------------------------------
    // reading the state

    pub fn list(&self, scope: ScopeKind) -> &ScopeList {
        &self.lists[scope.index()]
    }

    fn active(&self) -> &ScopeList {
        self.list(self.scope)
    }

    /// The sessions of the active scope (rows index into this).
    pub fn sessions(&self) -> &[SessionSummary] {
        self.active().sessions.sessions()
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The index of the selected row (meaningless when there are no rows).
    pub fn selected_index(&self) -> usize {
        self.selected
    }

    /// The selected session.
    pub fn selected(&self) -> Option<&SessionSummary> {
        self.rows.get(self.selected).map(|r| &self.sessions()[r.session])
    }

    pub fn summary(&self, row: &Row) -> &SessionSummary {
        &self.sessions()[row.session]
    }

    /// Byte ranges of the query's matches in a shown row's title
    /// ([`crate::catalog::display::display_title`]), found when asked for (for the rows drawn).
    pub fn title_hits(&self, row: &Row) -> Vec<std::ops::Range<usize>> {
        self.active().sessions.title_hits(row.session)
    }

    /// The preview of the selected session, if it has been loaded.
    pub fn preview(&self) -> Option<&PreviewSlot> {
        let selected = self.selected()?;
        self.previews
            .get(&selected.path)
            .filter(|slot| !matches!(slot, PreviewSlot::Ready(p) if p.file_len != selected.file_len))
    }

    /// The pid of a running pi that holds `path`, if any.
    pub fn live_pid(&self, summary: &SessionSummary) -> Option<u32> {
        self.live.get(&summary.path).copied()
    }

    /// When the status message goes away, so the loop can wake up for it.
    pub fn next_deadline(&self) -> Option<i64> {
        self.status.as_ref().map(|s| s.until_ms)
    }

    // ---------------------------------------------------------------------------------------
    // keys

    /// React to a resolved key press.
    pub fn command(&mut self, command: Command, now_ms: i64) -> Vec<Effect> {
        match &self.mode {
            Mode::ConfirmDelete { .. } => return self.confirm_delete_key(command),
            Mode::LiveRenameWarning { .. } => return self.live_warning_key(command),
            Mode::Rename { .. } => return self.rename_key(command),
            Mode::Browse => {}
        }
        match command {
            Command::ToggleScope => return self.toggle_scope(),
            Command::ToggleSort => {
                self.sort = self.sort.next();
                self.refilter(Refilter::KeepSelection);
            }
            Command::ToggleNamed => {
                self.named_only = !self.named_only;
                self.refilter(Refilter::KeepSelection);
            }
            Command::TogglePath => self.show_path = !self.show_path,
            Command::Delete => self.start_delete(),
            Command::DeleteNoninvasive(key) => {
                if self.query.value().is_empty() {
                    self.start_delete();
                } else {
                    self.edit_query(key);
                }
            }
            Command::Rename => self.start_rename(),
            Command::Undo => return self.undo_delete(now_ms),
            Command::Up => self.move_by(-1),
            Command::Down => self.move_by(1),
            Command::PageUp => self.move_by(-(self.page.max(1) as isize)),
            Command::PageDown => self.move_by(self.page.max(1) as isize),
            Command::First => self.select(0),
            Command::Last => self.select(self.rows.len().saturating_sub(1)),
            Command::FoldOrUp => self.fold_or_up(),
            Command::UnfoldOrDown => self.unfold_or_down(),
            Command::PreviewUp => self.preview_scroll = self.preview_scroll.saturating_add(3),
            Command::PreviewDown => self.preview_scroll = self.preview_scroll.saturating_sub(3),
            Command::PreviewPageUp => {
                self.preview_scroll = self.preview_scroll.saturating_add(self.page.max(1))
            }
            Command::PreviewPageDown => {
                self.preview_scroll = self.preview_scroll.saturating_sub(self.page.max(1))
            }
            Command::TogglePreview if self.preview_fits => self.show_preview = !self.show_preview,
            Command::TogglePreview => self.preview_instead = !self.preview_instead,
            Command::Confirm => return self.selected_path().map(Effect::Open).into_iter().collect(),
            Command::Resume => return self.selected_path().map(Effect::Resume).into_iter().collect(),
            Command::Cancel if self.preview_instead && !self.preview_fits => self.preview_instead = false,
            Command::Cancel => return vec![Effect::Quit],
            Command::Help => return vec![Effect::ShowHelp],
            Command::HelpOrType(key) => {
                if self.query.value().is_empty() {
                    return vec![Effect::ShowHelp];
                }
                self.edit_query(key);
            }
            Command::Edit(key) => self.edit_query(key),
        }
        self.preview_effects()
    }

    /// Bracketed paste: into the focused input.
    pub fn paste(&mut self, text: &str) -> Vec<Effect> {
        let text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        match &mut self.mode {
            Mode::Rename { input, .. } => input.insert_str(&text),
            Mode::Browse => {
                self.query.insert_str(&text);
                self.refilter(Refilter::QueryChanged);
                return self.preview_effects();
            }
            _ => {}
        }
        Vec::new()
    }

    fn selected_path(&self) -> Option<PathBuf> {
        self.selected().map(|s| s.path.clone())
    }

    fn edit_query(&mut self, key: KeyEvent) {
        let before = self.query.value().to_string();
        self.query.handle_key(&key);
        if self.query.value() != before {
            self.refilter(Refilter::QueryChanged);
        }
    }

    /// Tab: switch scope; the other scope loads on first use and stays cached.
    fn toggle_scope(&mut self) -> Vec<Effect> {
        self.scope = self.scope.other();
        let mut effects = Vec::new();
        if self.active().load == Load::NotStarted {
            effects.extend(self.start_scan(self.scope));
        }
        self.refilter(Refilter::KeepSelection);
        effects.extend(self.preview_effects());
        effects
    }

    fn start_scan(&mut self, scope: ScopeKind) -> Option<Effect> {
        let list = &mut self.lists[scope.index()];
        if list.is_loading() {
            return None;
        }
        list.seq += 1;
        list.load = Load::Loading { progress: None };
        list.quiet = None;
        list.quiet_texts = None;
        Some(Effect::Scan { scope, seq: list.seq })
    }

    /// Scan the loaded scopes again without emptying them (files changed on disk, a rename, an
    /// undo): the new list replaces the old one when the scan is done.
    pub fn refresh(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        for scope in [ScopeKind::Current, ScopeKind::All] {
            let list = &mut self.lists[scope.index()];
            if list.load != Load::Loaded {
                continue;
            }
            list.seq += 1;
            list.quiet = Some(Vec::new());
            list.quiet_texts = None;
            effects.push(Effect::Scan { scope, seq: list.seq });
        }
        effects
    }

    // ---------------------------------------------------------------------------------------
    // moving

    fn move_by(&mut self, delta: isize) {
        if self.rows.is_empty() {
            return;
        }
        let last = self.rows.len() - 1;
        let target = (self.selected as isize + delta).clamp(0, last as isize) as usize;
        self.select(target);
    }

    /// Select row `index` (clamped) and follow its session from now on.
    pub fn select(&mut self, index: usize) {
        if self.rows.is_empty() {
            return;
        }
        self.selected = index.min(self.rows.len() - 1);
        let s = &self.sessions()[self.rows[self.selected].session];
        self.follow = Follow::Session { path: s.path.clone(), id: s.id.clone() };
        self.preview_scroll = 0;
    }

    /// Select the session at `path` (header id `id`), and follow it: the tree view of it was just
    /// closed, so the picker shows where the user was, also when it was opened from the command line.
    pub fn follow_session(&mut self, path: &Path, id: &str) -> Vec<Effect> {
        self.follow = Follow::Session { path: path.to_path_buf(), id: id.to_string() };
        self.refilter(Refilter::KeepSelection);
        self.preview_effects()
    }

    /// Select a row with the mouse.
    pub fn click(&mut self, index: usize) -> Vec<Effect> {
        if matches!(self.mode, Mode::Browse) && index < self.rows.len() {
            self.select(index);
        }
        self.preview_effects()
    }

    fn fold_or_up(&mut self) {
        let Some(row) = self.rows.get(self.selected).cloned() else { return };
        let path = self.sessions()[row.session].path.clone();
        if row.has_children && !self.folded.contains(&path) {
            self.folded.insert(path);
            self.refilter(Refilter::KeepSelection);
        } else if let Some(parent) = self.rows[..self.selected].iter().rposition(|r| r.depth < row.depth) {
            self.select(parent);
        }
    }

    fn unfold_or_down(&mut self) {
        let Some(row) = self.rows.get(self.selected).cloned() else { return };
        let path = self.sessions()[row.session].path.clone();
        if self.folded.remove(&path) {
            self.refilter(Refilter::KeepSelection);
        } else if row.has_children {
            self.select(self.selected + 1);
        }
    }

    // ---------------------------------------------------------------------------------------
    // rename and delete

    fn start_delete(&mut self) {
        if let Some(s) = self.selected() {
            let path = s.path.clone();
            let live_pid = self.live_pid(s);
            self.mode = Mode::ConfirmDelete { path, live_pid };
        }
    }

    /// While a delete is being confirmed: Enter confirms, Esc/Ctrl+C cancels, nothing else counts.
    fn confirm_delete_key(&mut self, command: Command) -> Vec<Effect> {
        let Mode::ConfirmDelete { path, .. } = &self.mode else {
            return Vec::new();
        };
        let path = path.clone();
        match command {
            Command::Confirm => {
                self.mode = Mode::Browse;
                vec![Effect::Delete { path }]
            }
            Command::Cancel => {
                self.mode = Mode::Browse;
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn start_rename(&mut self) {
        if self.active().is_loading() {
            return;
        }
        let Some(s) = self.selected() else { return };
        let path = s.path.clone();
        match self.live.get(&path).copied() {
            Some(pid) => self.mode = Mode::LiveRenameWarning { path, pid },
            None => self.open_rename(path),
        }
    }

    fn open_rename(&mut self, path: PathBuf) {
        let name = self.sessions().iter().find(|s| s.path == path).and_then(|s| s.name.as_deref());
        let mut input = Input::default();
        input.set_value(&name.map(crate::display::one_line).unwrap_or_default());
        self.mode = Mode::Rename { path, input };
    }

    fn live_warning_key(&mut self, command: Command) -> Vec<Effect> {
        let Mode::LiveRenameWarning { path, .. } = &self.mode else {
            return Vec::new();
        };
        let path = path.clone();
        match command {
            Command::Confirm => self.open_rename(path),
            Command::Cancel => self.mode = Mode::Browse,
            _ => {}
        }
        Vec::new()
    }

    /// The rename panel: Enter saves a non-empty trimmed name, Esc/Ctrl+C closes, other keys edit.
    fn rename_key(&mut self, command: Command) -> Vec<Effect> {
        let Mode::Rename { path, input } = &mut self.mode else {
            return Vec::new();
        };
        match command {
            Command::Confirm => {
                let name = input.value().trim().to_string();
                if name.is_empty() {
                    return Vec::new();
                }
                let path = path.clone();
                self.mode = Mode::Browse;
                vec![Effect::Rename { path, name }]
            }
            Command::Cancel => {
                self.mode = Mode::Browse;
                Vec::new()
            }
            Command::Edit(key) | Command::HelpOrType(key) | Command::DeleteNoninvasive(key) => {
                input.handle_key(&key);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn undo_delete(&mut self, now_ms: i64) -> Vec<Effect> {
        match self.undo.take() {
            Some(trashed) => vec![Effect::Undo(trashed)],
            None => {
                self.set_status("Nothing to undo", false, now_ms);
                Vec::new()
            }
        }
    }

    /// The rename was written (or failed).
    pub fn renamed(&mut self, result: Result<(), String>, now_ms: i64) -> Vec<Effect> {
        match result {
            Ok(()) => {
                self.set_status("Session renamed", false, now_ms);
                self.refresh()
            }
            Err(e) => {
                self.set_status(&format!("Failed to rename: {e}"), true, now_ms);
                Vec::new()
            }
        }
    }

    /// The file went to the trash (or did not).
    pub fn deleted(
        &mut self,
        path: &Path,
        result: Result<Trashed, String>,
        undo_key: &str,
        now_ms: i64,
    ) -> Vec<Effect> {
        match result {
            Ok(trashed) => {
                for list in &mut self.lists {
                    list.sessions.remove(path);
                }
                self.previews.remove(path);
                let hint = if crate::store::trash::CAN_UNDO {
                    self.undo = Some(trashed);
                    format!(" · {undo_key} to undo")
                } else {
                    String::new()
                };
                self.set_status(&format!("Session moved to trash{hint}"), false, now_ms);
                self.refilter(Refilter::KeepSelection);
                let mut effects = self.index_effects();
                effects.extend(self.preview_effects());
                effects
            }
            Err(e) => {
                self.set_status(&format!("Failed to delete: {e}"), true, now_ms);
                Vec::new()
            }
        }
    }

    /// The undo finished.
    pub fn restored(&mut self, trashed: Trashed, result: Result<(), String>, now_ms: i64) -> Vec<Effect> {
        match result {
            Ok(()) => {
                self.set_status("Session restored from the trash", false, now_ms);
                self.refresh()
            }
            Err(e) => {
                self.undo = Some(trashed);
                self.set_status(&format!("Failed to restore: {e}"), true, now_ms);
                Vec::new()
            }
        }
    }

    pub fn set_status(&mut self, text: &str, error: bool, now_ms: i64) {
        let stays = if error { ERROR_STATUS_MS } else { STATUS_MS };
        self.set_status_for(text, error, now_ms + stays);
    }

    /// A status message that stays until `until_ms`.
    pub fn set_status_for(&mut self, text: &str, error: bool, until_ms: i64) {
        self.status = Some(Status { text: text.to_string(), error, until_ms });
    }

    /// Time passed: drop an expired status. Returns whether anything changed.
    pub fn tick(&mut self, now_ms: i64) -> bool {
        if self.status.as_ref().is_some_and(|s| s.until_ms <= now_ms) {
            self.status = None;
            return true;
        }
        false
    }

    // ---------------------------------------------------------------------------------------
    // background results

    /// A report from the scan of `scope` number `seq`.
    pub fn scanned(&mut self, scope: ScopeKind, seq: u64, update: ScanUpdate, now_ms: i64) -> Vec<Effect> {
        let list = &mut self.lists[scope.index()];
        if seq != list.seq {
            return Vec::new();
        }
        let visible = scope == self.scope;
        let finished = matches!(update, ScanUpdate::Done { .. });
        match update {
            ScanUpdate::Progress { done, total } => {
                if list.quiet.is_none() {
                    list.load = Load::Loading { progress: Some((done, total)) };
                }
                return Vec::new();
            }
            ScanUpdate::Found(found) => match &mut list.quiet {
                Some(pending) => {
                    pending.extend(found);
                    return Vec::new();
                }
                None => {
                    list.sessions.merge(found);
                    self.stale |= visible;
                    return Vec::new();
                }
            },
            ScanUpdate::Texts(texts) => {
                match list.quiet {
                    Some(_) => list.quiet_texts = Some(texts),
                    None => {
                        list.sessions.set_texts(texts);
                        self.stale |= visible;
                    }
                }
                return Vec::new();
            }
            ScanUpdate::Done { warnings } => {
                if let Some(pending) = list.quiet.take() {
                    list.sessions.replace(pending);
                    if let Some(texts) = list.quiet_texts.take() {
                        list.sessions.set_texts(texts);
                    }
                }
                list.load = Load::Loaded;
                if let Some(first) = warnings.first() {
                    let more = match warnings.len() {
                        1 => String::new(),
                        n => format!(" (and {} more)", n - 1),
                    };
                    self.set_status(&format!("{first}{more}"), true, now_ms);
                }
                if self.both_empty() {
                    return vec![Effect::NothingToShow];
                }
            }
        }
        if visible {
            self.refilter(Refilter::KeepSelection);
            if finished {
                self.pin_newest();
            }
        }
        let mut effects = self.index_effects();
        effects.extend(self.preview_effects());
        effects
    }

    /// The list has loaded: the most recent session stays selected while others change.
    fn pin_newest(&mut self) {
        if let Follow::Newest { pinned: pinned @ None } = &mut self.follow
            && self.query.value().trim().is_empty()
            && let Some(row) = self.rows.get(self.selected)
        {
            let s = &self.lists[self.scope.index()].sessions.sessions()[row.session];
            *pinned = Some((s.path.clone(), s.id.clone()));
        }
    }

    /// Ask for the search index of every loaded scope that lacks one.
    fn index_effects(&self) -> Vec<Effect> {
        [ScopeKind::Current, ScopeKind::All]
            .into_iter()
            .filter(|&scope| {
                let list = self.list(scope);
                list.load == Load::Loaded && !list.sessions.has_index() && !list.sessions.is_empty()
            })
            .map(|scope| {
                let list = &self.list(scope).sessions;
                let (version, sessions) = list.snapshot();
                match list.texts() {
                    Some(texts) => {
                        Effect::BuildIndexWithTexts { scope, version, sessions, texts: texts.clone() }
                    }
                    None => Effect::BuildIndex { scope, version, sessions },
                }
            })
            .collect()
    }

    /// A search index built on a worker.
    pub fn index_built(&mut self, scope: ScopeKind, version: u64, index: BuiltIndex) {
        self.lists[scope.index()].sessions.offer_index(version, index);
    }

    /// Rebuild the rows if sessions arrived since the last call. The loop calls this once per batch
    /// of events, so a scan reporting file after file rebuilds the list once per frame, not once
    /// per file.
    pub fn settle(&mut self) -> Vec<Effect> {
        if !std::mem::take(&mut self.stale) {
            return Vec::new();
        }
        self.refilter(Refilter::KeepSelection);
        self.preview_effects()
    }

    /// pi closes the picker when the All scope finished empty and the current folder is empty too.
    fn both_empty(&self) -> bool {
        let all = self.list(ScopeKind::All);
        let current = self.list(ScopeKind::Current);
        all.load == Load::Loaded
            && all.sessions.is_empty()
            && current.sessions.is_empty()
            && !current.is_loading()
    }

    /// A preview finished loading.
    pub fn preview_loaded(&mut self, path: PathBuf, slot: PreviewSlot) -> Vec<Effect> {
        if self.preview_wanted.as_ref() == Some(&path) {
            self.preview_wanted = None;
        }
        if self.previews.len() > 64 {
            let keep = self.selected_path();
            self.previews.retain(|p, _| Some(p) == keep.as_ref());
        }
        self.previews.insert(path, slot);
        self.preview_effects()
    }

    /// The sessions running pi processes hold, scanned again.
    pub fn set_live(&mut self, live: HashMap<PathBuf, u32>) {
        self.live = live;
    }

    /// Every session path of both scopes (to check which ones a running pi holds).
    pub fn all_paths(&self) -> Vec<PathBuf> {
        let mut seen = crate::catalog::hash::FastSet::default();
        self.lists
            .iter()
            .flat_map(|l| l.sessions.sessions())
            .filter(|s| seen.insert(s.path.as_os_str()))
            .map(|s| s.path.clone())
            .collect()
    }

    /// Ask for the selected session's preview when it is not cached (or its file grew).
    fn preview_effects(&mut self) -> Vec<Effect> {
        let Some(selected) = self.selected() else {
            return Vec::new();
        };
        let path = selected.path.clone();
        if self.preview().is_some() || self.preview_wanted.as_ref() == Some(&path) {
            return Vec::new();
        }
        self.preview_wanted = Some(path.clone());
        vec![Effect::LoadPreview(path)]
    }

    // ---------------------------------------------------------------------------------------
    // the list

    /// Rebuild the rows and put the selection back on the session it follows.
    fn refilter(&mut self, why: Refilter) {
        self.stale = false;
        let previous = self.selected;
        let (query, sort, named) = (self.query.value().to_string(), self.sort, self.named_only);
        let list = &mut self.lists[self.scope.index()].sessions;
        let (rows, error) = match list.rows(&query, sort, named) {
            Ok(rows) => (rows, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let sessions = list.sessions();
        self.rows = fold(rows, sessions, &self.folded);
        self.query_error = error;
        let found = match &self.follow {
            Follow::Newest { .. } if !query.trim().is_empty() => Some(0),
            Follow::Newest { pinned: None } => newest(&self.rows, sessions),
            Follow::Newest { pinned: Some((path, id)) } => {
                position_of(&self.rows, sessions, path, id).or_else(|| newest(&self.rows, sessions))
            }
            Follow::Session { path, id } => position_of(&self.rows, sessions, path, id),
        };
        let fallback = match why {
            Refilter::QueryChanged => 0,
            Refilter::KeepSelection => previous,
        };
        self.selected = found.unwrap_or(fallback).min(self.rows.len().saturating_sub(1));
        if found.is_none() && matches!(self.follow, Follow::Session { .. }) && !self.rows.is_empty() {
            let s = &sessions[self.rows[self.selected].session];
            self.follow = Follow::Session { path: s.path.clone(), id: s.id.clone() };
        }
    }
}

/// Why the list is rebuilt, which decides where the selection goes when its session is gone.
#[derive(Debug, Clone, Copy)]
enum Refilter {
    /// The query changed: the best match.
    QueryChanged,
    /// Anything else: the row now at the same place.
    KeepSelection,
}

/// The row of the session at `path`, else of one with the header id `id`.
fn position_of(rows: &[Row], sessions: &[SessionSummary], path: &Path, id: &str) -> Option<usize> {
    rows.iter()
        .position(|r| sessions[r.session].path == *path)
        .or_else(|| rows.iter().position(|r| sessions[r.session].id == *id))
}

/// The row of the most recently active session.
fn newest(rows: &[Row], sessions: &[SessionSummary]) -> Option<usize> {
    rows.iter()
        .enumerate()
        .max_by(|(ia, a), (ib, b)| {
            sessions[a.session].modified_ms.cmp(&sessions[b.session].modified_ms).then(ib.cmp(ia))
        })
        .map(|(i, _)| i)
}

/// Hide the rows under folded threads.
fn fold(rows: Vec<Row>, sessions: &[SessionSummary], folded: &HashSet<PathBuf>) -> Vec<Row> {
    if folded.is_empty() {
        return rows;
    }
    let mut out: Vec<Row> = Vec::with_capacity(rows.len());
    let mut hiding_below: Option<usize> = None;
    for row in rows {
        if let Some(depth) = hiding_below {
            if row.depth > depth {
                if let Some(folded_row) = out.last_mut() {
                    folded_row.hidden += 1;
                }
                continue;
            }
            hiding_below = None;
        }
        if row.has_children && folded.contains(&sessions[row.session].path) {
            hiding_below = Some(row.depth);
        }
        out.push(row);
    }
    out
}
