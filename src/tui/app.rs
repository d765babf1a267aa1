//! The application frame: the [`Event`]s everything sends into one channel (defined with the
//! threads that feed it, in [`super::event`]), the pure reducer
//! [`update`] that turns an event into state changes and [`Effect`]s, the [`Runner`] that carries
//! the effects out (workers, writes, the trash, the clipboard, the summarizer, suspending), and
//! [`run_loop`], which drains the channel, updates, and draws once per batch. The loop is generic
//! over the ratatui backend, so whole screens run under `TestBackend`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use color_eyre::eyre::{Result, eyre};
use ratatui::Frame;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

pub use super::event::Event;
use super::event::{Input, Signal};
use super::help::Help;
use super::keymap::{Action as Key, Keybindings};
use super::picker::draw as picker_draw;
use super::picker::keys::command_for;
use super::picker::preview::{self, Previewed};
use super::picker::source::{BuiltIndex, Found, KeyCache, SearchTexts};
use super::picker::state::{self as picker, Picker, PickerOptions, PreviewSlot, ScanUpdate, ScopeKind};
use super::resume::Resume;
use super::summarizer;
use super::theme::Theme;
use super::tree::{DetailJob, FullTextJob, Report, SearchJob, TreeOptions, TreeOutcome, TreeView};
use crate::catalog::search::SearchIndex;
use crate::catalog::session_cache::{self, Level, SessionCache};
use crate::catalog::{Catalog, ScanEvent, Scope};
use crate::session::{Ix, Session};
use crate::store::Action;

/// Two clicks on the same row within this many milliseconds open it.
const DOUBLE_CLICK_MS: i64 = 400;

/// A session file at least this big is shown from its outline first when it opens
/// ([`Session::outline`]): under it the whole parse is quick enough (~50 ms) to wait for.
pub const OUTLINE_BYTES: u64 = 32 << 20;

/// How long start-up warnings stay.
const WARNING_MS: i64 = 8000;

/// How often the summarizer spinner moves.
const SPIN_MS: i64 = 100;

/// What the app asks the runner to do.
pub enum Effect {
    Picker(picker::Effect),
    /// Scan which sessions running pi processes hold.
    ScanLive(Vec<PathBuf>),
    /// Read a session for the tree view.
    OpenTree(PathBuf),
    /// Open a tree view of this session's file as it is now, reading only what was appended.
    ReopenTree(Arc<Session>),
    /// Read the tree view's file again (it changed on disk), from where its session was read.
    ReloadTree(Arc<Session>),
    TreeWrite(Action),
    TreeFork(Ix),
    TreeDetail(DetailJob),
    TreeSearch(SearchJob),
    /// Look for the query in the whole text of the entries the search index holds cut.
    TreeFullText(FullTextJob),
    Copy(String),
    Summarize(Option<Ix>),
    CancelSummarizer,
    /// Ctrl+Z.
    Suspend,
}

/// How the app ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Esc / Ctrl+C.
    Quit,
    /// Resume this session in pi (or print its path with `--print`).
    Resume(Resume),
    /// Both scopes are empty: there is nothing to pick.
    Empty,
    Signal(Signal),
}

/// What is on screen.
pub enum Screen {
    Picker,
    /// A session is being read for the tree view.
    Opening(PathBuf),
    Tree(Box<TreeView>),
}

/// How the app starts.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    pub picker: PickerOptions,
    /// Open this session's tree view first.
    pub open: Option<PathBuf>,
    /// The summarizer command (default `pi -p --no-session`).
    pub summarizer: Option<String>,
    /// The sessions root as shown in empty states.
    pub root_label: String,
    /// `--print`: resuming prints the path.
    pub print: bool,
    /// Problems to show once at the start (e.g. in `keybindings.json`).
    pub warnings: Vec<String>,
}

/// The whole application state.
pub struct App {
    pub now_ms: i64,
    pub size: (u16, u16),
    pub picker: Picker,
    pub screen: Screen,
    /// The last tree view closed with Esc, reused when the same unchanged session is opened again
    /// (its filter, folds and selection are kept).
    last_tree: Option<Box<TreeView>>,
    /// The session the latest preview was built from: Enter on it opens the tree view at once.
    previewed: Option<Arc<Session>>,
    /// While a big session opens: the frame of its outline ([`TreeView::preview`]), shown
    /// instead of the picker while the screen keeps its size.
    outline: Option<Buffer>,
    pub help: Option<Help>,
    pub theme: Theme,
    /// The keys of both screens.
    pub keys: Arc<Keybindings>,
    pub options: AppOptions,
    pub exit: Option<Exit>,
    /// Something changed since the last frame.
    pub dirty: bool,
    /// The entry whose detail was asked for last.
    detail_asked: Option<Ix>,
    next_spin_ms: i64,
    last_click: Option<(i64, usize)>,
    /// The picker's first scan while a session named on the command line opens: held back so that
    /// the parse has the machine to itself, and let go once the screen is no longer `Opening`.
    held: Vec<Effect>,
}

impl App {
    /// The app and the effects that start it (the first scan, or opening a session).
    pub fn new(options: AppOptions, theme: Theme, keys: Arc<Keybindings>, now_ms: i64) -> (App, Vec<Effect>) {
        let (mut picker, first) = Picker::new(options.picker.clone());
        if let Some(first) = options.warnings.first() {
            let more = options.warnings.len() - 1;
            let text = if more > 0 { format!("{first} (and {more} more)") } else { first.clone() };
            picker.set_status_for(&text, true, now_ms + WARNING_MS);
        }
        let scan: Vec<Effect> = first.into_iter().map(Effect::Picker).collect();
        let (screen, effects, held) = match &options.open {
            Some(path) => (Screen::Opening(path.clone()), vec![Effect::OpenTree(path.clone())], scan),
            None => (Screen::Picker, scan, Vec::new()),
        };
        let app = App {
            now_ms,
            size: (80, 24),
            picker,
            screen,
            last_tree: None,
            previewed: None,
            outline: None,
            help: None,
            theme,
            keys,
            options,
            exit: None,
            dirty: true,
            detail_asked: None,
            next_spin_ms: 0,
            last_click: None,
            held,
        };
        (app, effects)
    }

    /// The open tree view.
    pub fn tree(&self) -> Option<&TreeView> {
        match &self.screen {
            Screen::Tree(view) => Some(view),
            _ => None,
        }
    }

    /// When the loop must wake up even without an event (status timeout, spinner).
    pub fn next_deadline(&self) -> Option<i64> {
        let spin = self.tree().filter(|t| t.busy()).map(|_| self.next_spin_ms);
        [self.picker.next_deadline(), spin].into_iter().flatten().min()
    }
}

/// The reducer: apply one event, return what must be done outside. No I/O, no clock.
pub fn update(app: &mut App, event: Event) -> Vec<Effect> {
    let effects = match event {
        Event::Clock(now) => return clock(app, now),
        Event::Resize(w, h) => resized(app, w, h),
        Event::Signal(signal) => {
            app.exit = Some(Exit::Signal(signal));
            Vec::new()
        }
        Event::Key(key) => key_event(app, key),
        Event::Mouse(mouse) => mouse_event(app, mouse),
        Event::Paste(text) => pasted(app, &text),
        Event::Scan { scope, seq, update } => scanned(app, scope, seq, update),
        Event::Live(live) => live_changed(app, live),
        Event::Preview { path, result } => preview_loaded(app, path, result),
        Event::SearchIndex { scope, version, index } => {
            app.picker.index_built(scope, version, index);
            Vec::new()
        }
        Event::FilesChanged(paths) => files_changed(app, &paths),
        Event::Renamed { result } => {
            let effects = app.picker.renamed(result, app.now_ms);
            picker_requests(app, effects)
        }
        Event::Deleted { path, result } => {
            let undo = super::picker::keys::label(&app.keys.picker, Key::UndoDelete);
            let effects = app.picker.deleted(&path, result, &undo, app.now_ms);
            picker_requests(app, effects)
        }
        Event::Restored { trashed, result } => {
            let effects = app.picker.restored(trashed, result, app.now_ms);
            picker_requests(app, effects)
        }
        Event::TreeOutline { path, frame } => {
            if matches!(&app.screen, Screen::Opening(p) if *p == path) {
                app.outline = Some(frame);
            }
            Vec::new()
        }
        Event::TreeOpened { path, result } => tree_opened(app, path, result),
        Event::Tree(report) => match &mut app.screen {
            Screen::Tree(view) => {
                let outcome = view.apply(report);
                tree_outcome(app, outcome)
            }
            _ => Vec::new(),
        },
    };
    app.dirty = true;
    let mut effects = effects;
    effects.extend(tree_requests(app));
    if !matches!(app.screen, Screen::Opening(_)) {
        effects.append(&mut app.held);
        app.outline = None;
    }
    effects
}

/// The terminal's new size: the picker's layout follows it.
fn resized(app: &mut App, w: u16, h: u16) -> Vec<Effect> {
    app.size = (w, h);
    app.picker.preview_fits = picker_draw::preview_fits(Rect::new(0, 0, w, h));
    app.picker.page = picker_draw::list_rows(Rect::new(0, 0, w, h), &app.picker);
    Vec::new()
}

/// Bracketed paste, into the tree view or the picker.
fn pasted(app: &mut App, text: &str) -> Vec<Effect> {
    match &mut app.screen {
        Screen::Tree(view) => {
            let outcome = view.handle_paste(text);
            tree_outcome(app, outcome)
        }
        _ => {
            let effects = app.picker.paste(text);
            picker_requests(app, effects)
        }
    }
}

/// A scan report; once a scan is done, which sessions pi holds is asked again.
fn scanned(app: &mut App, scope: ScopeKind, seq: u64, update: ScanUpdate) -> Vec<Effect> {
    let done = matches!(update, ScanUpdate::Done { .. });
    let effects = app.picker.scanned(scope, seq, update, app.now_ms);
    let mut effects = picker_requests(app, effects);
    if done {
        effects.push(Effect::ScanLive(live_paths(app)));
    }
    effects
}

/// Which sessions running pi processes hold, for the picker and the open tree view.
fn live_changed(app: &mut App, live: HashMap<PathBuf, u32>) -> Vec<Effect> {
    if let Screen::Tree(view) = &mut app.screen {
        let pid = live.get(view.path()).copied();
        view.apply(Report::Live(pid));
    }
    app.picker.set_live(live);
    Vec::new()
}

/// A preview read for the picker (the session it parsed is kept for opening it).
fn preview_loaded(app: &mut App, path: PathBuf, result: Result<Previewed, String>) -> Vec<Effect> {
    let slot = match result {
        Ok(Previewed { preview, session }) => {
            app.previewed = Some(session);
            PreviewSlot::Ready(preview)
        }
        Err(e) => PreviewSlot::Failed(e),
    };
    let effects = app.picker.preview_loaded(path, slot);
    picker_requests(app, effects)
}

/// Work the picker left for the end of a batch (rows rebuilt once after many scan reports).
pub fn settle(app: &mut App) -> Vec<Effect> {
    let effects = app.picker.settle();
    picker_requests(app, effects)
}

fn clock(app: &mut App, now: i64) -> Vec<Effect> {
    let minute_changed = now / 60_000 != app.now_ms / 60_000;
    app.now_ms = now;
    app.dirty |= app.picker.tick(now) || minute_changed;
    if let Screen::Tree(view) = &mut app.screen
        && view.busy()
        && now >= app.next_spin_ms
    {
        app.next_spin_ms = now + SPIN_MS;
        view.tick();
        app.dirty = true;
    }
    Vec::new()
}

/// Ctrl+Z suspends everywhere, as in pi (`app.suspend` is not rebindable in pitree).
fn is_suspend(key: &KeyEvent) -> bool {
    key.code == KeyCode::Char('z') && key.modifiers == KeyModifiers::CONTROL
}

fn key_event(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    if is_suspend(&key) {
        return vec![Effect::Suspend];
    }
    if let Some(help) = &mut app.help {
        if !help.key(key) {
            app.help = None;
        }
        return Vec::new();
    }
    match &mut app.screen {
        Screen::Tree(view) if view.keys().action_for(&key) == Some(Key::Help) => {
            app.help = Some(Help::new(&app.keys));
            Vec::new()
        }
        Screen::Tree(view) => {
            let outcome = view.handle_key(key);
            tree_outcome(app, outcome)
        }
        Screen::Opening(_) => {
            if key.code == KeyCode::Esc {
                app.screen = Screen::Picker;
            }
            Vec::new()
        }
        Screen::Picker => {
            let command = command_for(&app.keys, &app.picker, key);
            let effects = app.picker.command(command, app.now_ms);
            picker_requests(app, effects)
        }
    }
}

/// Picker effects that the app handles itself (help, opening, quitting).
fn picker_requests(app: &mut App, effects: Vec<picker::Effect>) -> Vec<Effect> {
    let mut out = Vec::new();
    for effect in effects {
        match effect {
            picker::Effect::ShowHelp => app.help = Some(Help::new(&app.keys)),
            picker::Effect::Quit => app.exit = Some(Exit::Quit),
            picker::Effect::NothingToShow => app.exit = Some(Exit::Empty),
            picker::Effect::Open(path) => out.extend(open_tree(app, path)),
            picker::Effect::Resume(path) => {
                let cwd = app.picker.sessions().iter().find(|s| s.path == path).map(|s| s.cwd.clone());
                app.exit =
                    Some(Exit::Resume(Resume { session: path, cwd: cwd.unwrap_or_default(), prompt: None }));
            }
            picker::Effect::LoadPreview(path) => {
                // Only one previewed session is kept: let the last one go before the next is read.
                if app.previewed.as_ref().is_some_and(|s| s.file.path != path) {
                    app.previewed = None;
                }
                out.push(Effect::Picker(picker::Effect::LoadPreview(path)));
            }
            other => out.push(Effect::Picker(other)),
        }
    }
    out
}

/// Open the tree view of `path`. A session already read for it is used instead of reading the
/// file again: the last view closed with Esc (its filter, folds and selection kept), else the
/// session the preview was built from. It is shown at once when the picker lists the file at the
/// length it was read at (with a check on a worker that the file did not change meanwhile), and
/// brought up to date by reading what was appended when the file grew.
fn open_tree(app: &mut App, path: PathBuf) -> Vec<Effect> {
    let len = app.picker.sessions().iter().find(|s| s.path == path).map(|s| s.file_len);
    let as_listed = |s: &Session| Some(s.file.facts.len) == len;
    let known = match app.last_tree.take().filter(|view| view.path() == path) {
        Some(view) if as_listed(view.session()) => {
            let check = Effect::ReloadTree(view.shared_session());
            app.screen = Screen::Tree(view);
            return vec![check];
        }
        Some(view) => Some(view.shared_session()),
        None => app.previewed.clone().filter(|s| s.file.path == path),
    };
    match known {
        Some(session) if as_listed(&session) => {
            let check = Effect::ReloadTree(Arc::clone(&session));
            let mut effects = show_tree(app, path, session);
            effects.push(check);
            effects
        }
        Some(session) => {
            app.screen = Screen::Opening(path);
            vec![Effect::ReopenTree(session)]
        }
        None => {
            app.screen = Screen::Opening(path.clone());
            vec![Effect::OpenTree(path)]
        }
    }
}

fn tree_opened(app: &mut App, path: PathBuf, result: Result<Arc<Session>, String>) -> Vec<Effect> {
    if !matches!(&app.screen, Screen::Opening(p) if *p == path) && !matches!(app.screen, Screen::Tree(_)) {
        return Vec::new();
    }
    match result {
        Ok(session) => show_tree(app, path, session),
        Err(e) => {
            app.screen = Screen::Picker;
            app.picker.set_status(&format!("Cannot open {}: {e}", path.display()), true, app.now_ms);
            Vec::new()
        }
    }
}

/// Show a new tree view of `session` and start what it needs.
fn show_tree(app: &mut App, path: PathBuf, session: Arc<Session>) -> Vec<Effect> {
    let mut view = TreeView::open(session, tree_options(app, &path));
    let job = view.search_job();
    app.detail_asked = None;
    app.screen = Screen::Tree(Box::new(view));
    // The session may be outside the sessions root, or opened before the picker's scan
    // (and its check for running pi processes) is done: check it now.
    job.map(Effect::TreeSearch).into_iter().chain([Effect::ScanLive(live_paths(app))]).collect()
}

fn tree_options(app: &App, path: &std::path::Path) -> TreeOptions {
    TreeOptions {
        now_ms: app.now_ms,
        home: app.picker.home.as_ref().map(|h| h.to_string_lossy().into_owned()),
        live_pid: app.picker.live.get(path).copied(),
        summarizer: app.options.summarizer.clone(),
        keys: app.keys.tree.clone(),
        ..TreeOptions::default()
    }
}

/// The files to look for running pi processes in: the picker's sessions and the open tree's.
fn live_paths(app: &App) -> Vec<PathBuf> {
    let mut paths = app.picker.all_paths();
    if let Some(view) = app.tree()
        && !paths.iter().any(|p| p == view.path())
    {
        paths.push(view.path().to_path_buf());
    }
    paths
}

/// What the tree view asked for.
fn tree_outcome(app: &mut App, outcome: TreeOutcome) -> Vec<Effect> {
    match outcome {
        TreeOutcome::Ignored | TreeOutcome::Redraw => Vec::new(),
        TreeOutcome::Close => {
            if let Screen::Tree(view) = std::mem::replace(&mut app.screen, Screen::Picker) {
                let effects = app.picker.follow_session(view.path(), &view.session().header().id);
                app.last_tree = Some(view);
                return picker_requests(app, effects);
            }
            Vec::new()
        }
        TreeOutcome::Write(action) => vec![Effect::TreeWrite(action)],
        TreeOutcome::Fork { target } => vec![Effect::TreeFork(target)],
        TreeOutcome::Resume { prompt } => {
            if let Some(view) = app.tree() {
                app.exit = Some(Exit::Resume(Resume {
                    session: view.path().to_path_buf(),
                    cwd: view.session().header().cwd.clone(),
                    prompt,
                }));
            }
            Vec::new()
        }
        TreeOutcome::Copy(text) => vec![Effect::Copy(text)],
        TreeOutcome::RunSummarizer { target } => {
            app.next_spin_ms = app.now_ms + SPIN_MS;
            vec![Effect::Summarize(target)]
        }
        TreeOutcome::CancelSummarizer => vec![Effect::CancelSummarizer],
    }
}

/// The tree view's detail pane wants an entry read: start its job once.
fn tree_requests(app: &mut App) -> Vec<Effect> {
    let mut effects = Vec::new();
    if let Screen::Tree(view) = &mut app.screen
        && let Some(job) = view.full_text_job()
    {
        effects.push(Effect::TreeFullText(job));
    }
    match app.tree().and_then(TreeView::detail_job) {
        None => app.detail_asked = None,
        Some(job) if app.detail_asked != Some(job.entry()) => {
            app.detail_asked = Some(job.entry());
            effects.push(Effect::TreeDetail(job));
        }
        Some(_) => {}
    }
    effects
}

fn files_changed(app: &mut App, paths: &[PathBuf]) -> Vec<Effect> {
    let refresh = app.picker.refresh();
    let mut effects = picker_requests(app, refresh);
    if let Some(view) = app.tree()
        && paths.iter().any(|p| p == view.path())
    {
        effects.push(Effect::ReloadTree(view.shared_session()));
    }
    effects
}

fn mouse_event(app: &mut App, mouse: MouseEvent) -> Vec<Effect> {
    if app.help.is_some() {
        if matches!(mouse.kind, MouseEventKind::Down(_)) {
            app.help = None;
        }
        return Vec::new();
    }
    if app.outline.is_some() {
        return Vec::new();
    }
    if let Screen::Tree(view) = &mut app.screen {
        let outcome = match mouse.kind {
            MouseEventKind::ScrollUp => view.wheel(false),
            MouseEventKind::ScrollDown => view.wheel(true),
            MouseEventKind::Down(MouseButton::Left) => view.click(mouse.column, mouse.row),
            _ => return Vec::new(),
        };
        return tree_outcome(app, outcome);
    }
    let area = Rect::new(0, 0, app.size.0, app.size.1);
    let at = Position::new(mouse.column, mouse.row);
    let layout = picker_draw::layout(area, &app.picker);
    let in_preview = layout.preview.is_some_and(|p| p.contains(at));
    let command = match mouse.kind {
        MouseEventKind::ScrollUp if in_preview => picker::Command::PreviewUp,
        MouseEventKind::ScrollDown if in_preview => picker::Command::PreviewDown,
        MouseEventKind::ScrollUp => picker::Command::Up,
        MouseEventKind::ScrollDown => picker::Command::Down,
        MouseEventKind::Down(MouseButton::Left) => return click(app, &layout, at),
        _ => return Vec::new(),
    };
    let effects = app.picker.command(command, app.now_ms);
    picker_requests(app, effects)
}

/// Select the clicked row; a second click on it soon after opens it.
fn click(app: &mut App, layout: &picker_draw::Layout, at: Position) -> Vec<Effect> {
    let Some(row) = picker_draw::row_at(layout, &app.picker, at) else {
        return Vec::new();
    };
    let double = app.last_click.is_some_and(|(t, r)| r == row && app.now_ms - t <= DOUBLE_CLICK_MS);
    app.last_click = Some((app.now_ms, row));
    let mut effects = app.picker.click(row);
    if double && app.picker.selected_index() == row {
        app.last_click = None;
        effects.extend(app.picker.command(picker::Command::Confirm, app.now_ms));
    }
    picker_requests(app, effects)
}

/// Draw the whole screen. Reads the state only.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    match (&app.screen, &app.outline) {
        (Screen::Tree(view), _) => view.draw(frame, area, &app.theme),
        (Screen::Opening(_), Some(outline)) if outline.area == area => frame.buffer_mut().clone_from(outline),
        (Screen::Picker | Screen::Opening(_), _) => {
            let opening = match &app.screen {
                Screen::Opening(path) => Some(path.as_path()),
                _ => None,
            };
            picker_draw::draw(
                frame,
                area,
                &picker_draw::Context {
                    picker: &app.picker,
                    theme: &app.theme,
                    keymap: &app.keys.picker,
                    now_ms: app.now_ms,
                    root_label: &app.options.root_label,
                    opening,
                    print: app.options.print,
                },
            );
        }
    }
    if let Some(help) = &app.help {
        help.draw(frame, area, &app.theme);
    }
}

// -------------------------------------------------------------------------------------------
// the runner

/// A way to give the terminal back and take it again (Ctrl+Z); none under `TestBackend`.
pub type Suspend<B> = fn(&mut Terminal<B>) -> std::io::Result<()>;

/// Carries out effects. Owns the workers.
pub struct Runner<B: Backend> {
    tx: Sender<Event>,
    catalog: Arc<Catalog>,
    cwd: PathBuf,
    root: PathBuf,
    previews: PreviewWorker,
    input: Option<Input>,
    suspend: Option<Suspend<B>>,
    /// Where OSC 52 goes (the terminal), if anywhere.
    osc: Option<Box<dyn std::io::Write + Send>>,
    summarizer: Option<summarizer::Running>,
}

/// A session read for a tree view, and the level it should be kept in the parsed-session cache
/// at once the view has it (`None`: it is there already, or it is not a fresh read).
struct Opened {
    session: Session,
    keep: Option<Level>,
}

impl From<session_cache::Read> for Opened {
    fn from(read: session_cache::Read) -> Opened {
        Opened { session: Session::from_parsed(read.file), keep: read.keep }
    }
}

impl Opened {
    /// A read that is not kept.
    fn read(
        session: Result<Session, crate::session::parse::ParseError>,
    ) -> Result<Opened, crate::session::parse::ParseError> {
        session.map(|session| Opened { session, keep: None })
    }
}

impl<B: Backend> Runner<B> {
    /// A runner for sessions under `catalog`'s root, with the current folder `cwd`.
    pub fn new(tx: Sender<Event>, catalog: Arc<Catalog>, cwd: PathBuf) -> Runner<B> {
        let root = catalog.root().path.clone();
        Runner {
            previews: PreviewWorker::spawn(tx.clone(), catalog.session_cache().cloned()),
            tx,
            catalog,
            cwd,
            root,
            input: None,
            suspend: None,
            osc: None,
            summarizer: None,
        }
    }

    /// The terminal's input thread (paused around hand-overs) and how to suspend.
    pub fn with_terminal(
        mut self,
        input: Input,
        suspend: Suspend<B>,
        osc: Box<dyn std::io::Write + Send>,
    ) -> Runner<B> {
        self.input = Some(input);
        self.suspend = Some(suspend);
        self.osc = Some(osc);
        self
    }

    /// Stop reading the terminal (before handing it to pi).
    pub fn pause_input(&self) {
        if let Some(input) = &self.input {
            input.pause();
        }
    }

    /// Carry out one effect. Results come back as events.
    pub fn run(&mut self, effect: Effect, app: &App, terminal: &mut Terminal<B>) -> Result<()> {
        match effect {
            Effect::Picker(effect) => self.picker(effect),
            Effect::ScanLive(paths) => self.on_worker(move || {
                let set = crate::store::live::scan();
                let live = paths.into_iter().filter_map(|p| set.holder(&p).map(|pid| (p, pid))).collect();
                Some(Event::Live(live))
            }),
            Effect::OpenTree(path) => self.open_fresh(path, app),
            Effect::ReopenTree(old) => {
                self.open_in_background(old.file.path.clone(), move || Opened::read(old.reread()), None)
            }
            Effect::ReloadTree(old) => self.on_worker(move || {
                // pitree's own writes come back as changes too, after the view took them in.
                if old.file.unchanged_on_disk() {
                    return None;
                }
                old.reread().ok().map(|session| Event::Tree(Report::Changed(session)))
            }),
            Effect::TreeWrite(action) => self.write_tree(app, &action),
            Effect::TreeFork(target) => self.fork_tree(app, target),
            Effect::TreeDetail(job) => self.on_worker(move || Some(Event::Tree(job.run()))),
            Effect::TreeSearch(job) => {
                self.on_worker(move || Some(Event::Tree(Report::SearchIndex(job.run()))))
            }
            Effect::TreeFullText(job) => self.on_worker(move || Some(Event::Tree(job.run()))),
            Effect::Copy(text) => {
                let out = self.osc.as_deref_mut().map(|w| w as &mut dyn std::io::Write);
                let result = super::clipboard::copy(&text, out);
                self.send(Event::Tree(Report::Copied(result)));
            }
            Effect::Summarize(target) => self.summarize(app, target),
            Effect::CancelSummarizer => {
                if let Some(running) = self.summarizer.take() {
                    running.cancel();
                }
            }
            Effect::Suspend => self.suspend_terminal(terminal)?,
        }
        Ok(())
    }

    /// Run `work` on a thread of its own and send the event it returns, if any.
    fn on_worker(&self, work: impl FnOnce() -> Option<Event> + Send + 'static) {
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            if let Some(event) = work() {
                let _ = tx.send(event);
            }
        });
    }

    /// Append the tree view's line to its file, then report the file read again.
    fn write_tree(&self, app: &App, action: &Action) {
        if let Some(view) = app.tree() {
            let path = view.path().to_path_buf();
            let result = crate::store::write_action(&path, Some(view.session()), Some(&self.root), action)
                .and_then(|_| view.session().reread().map_err(|e| eyre!("{e}")))
                .map_err(|e| format!("{e:#}"));
            self.send(Event::Tree(Report::Written(result)));
        }
    }

    /// Fork the tree view's session at `target` and open the new file (or report the error).
    fn fork_tree(&mut self, app: &App, target: Ix) {
        if let Some(view) = app.tree() {
            match crate::store::actions::fork(view.session(), target, &self.root) {
                // The new view says where it came from once it is shown.
                Ok(file) => {
                    let forked = Report::Forked(Ok(file.clone()));
                    self.open_in_background(
                        file.clone(),
                        move || Opened::read(Session::open(&file)),
                        Some(forked),
                    )
                }
                Err(e) => self.send(Event::Tree(Report::Forked(Err(format!("{e:#}"))))),
            }
        }
    }

    /// Start the summarizer on the entries a leaf move to `target` abandons; its output comes back
    /// as a report.
    fn summarize(&mut self, app: &App, target: Option<Ix>) {
        if let Some(view) = app.tree() {
            let input = view.summarizer_input(target);
            let command = app.options.summarizer.clone().unwrap_or_else(|| summarizer::default_command(None));
            let tx = self.tx.clone();
            match summarizer::start(&command, input, move |r| {
                let _ = tx.send(Event::Tree(Report::Summary(r)));
            }) {
                Ok(running) => self.summarizer = Some(running),
                Err(e) => self.send(Event::Tree(Report::Summary(Err(e)))),
            }
        }
    }

    /// Hand the terminal to the shell (Ctrl+Z) with the input thread paused, and take it back.
    fn suspend_terminal(&self, terminal: &mut Terminal<B>) -> Result<()> {
        if let Some(suspend) = self.suspend {
            self.pause_input();
            let result = suspend(terminal);
            if let Some(input) = &self.input {
                input.resume();
            }
            result.map_err(|e| eyre!("cannot suspend: {e}"))?;
        }
        Ok(())
    }

    fn send(&self, event: Event) {
        let _ = self.tx.send(event);
    }

    /// Read the session at `path` for a new tree view on a thread, as [`Runner::open_in_background`].
    /// A session the parsed-session cache holds whole is read from there (and what was appended
    /// since). Another big one is outlined first (from the cache too, when it holds the outline),
    /// which takes a fraction of the time, and its first frame drawn from the outline and sent
    /// ([`Event::TreeOutline`]), so that the tree is on screen while the whole file is parsed; the
    /// outline is let go (and its memory handed back) before that parse, so the two are never
    /// held at once. A new whole parse is kept in the cache once the view has it.
    fn open_fresh(&self, path: PathBuf, app: &App) {
        let big = std::fs::metadata(&path).is_ok_and(|m| m.len() >= OUTLINE_BYTES);
        let preview =
            big.then(|| (tree_options(app, &path), Rect::new(0, 0, app.size.0, app.size.1), app.theme));
        let tx = self.tx.clone();
        let file = path.clone();
        let cache = self.catalog.session_cache().cloned();
        let read = move || {
            let cache = cache.as_ref();
            if let Some(cached) = cache.and_then(|c| c.get(&file, Level::Whole)) {
                return Ok(Opened::from(session_cache::Read::from(cached)));
            }
            if let Some((options, area, theme)) = preview
                && let Ok(outline) = session_cache::read(cache, &file, Level::Outline)
                && let Ok(frame) =
                    TreeView::open(Session::from_parsed(outline.file), options).preview(area, &theme)
            {
                let _ = tx.send(Event::TreeOutline { path: file.clone(), frame });
                crate::memory::release_freed();
            }
            session_cache::read_fresh(cache, &file, Level::Whole).map(Opened::from)
        };
        self.open_in_background(path, read, None);
    }

    /// Read a session for the tree view of `path` on a thread and send it as
    /// [`Event::TreeOpened`], then `after` for the new view if it could be read; then keep it in
    /// the parsed-session cache if the read says so.
    fn open_in_background(
        &self,
        path: PathBuf,
        read: impl FnOnce() -> Result<Opened, crate::session::parse::ParseError> + Send + 'static,
        after: Option<Report>,
    ) {
        let tx = self.tx.clone();
        let cache = self.catalog.session_cache().cloned();
        std::thread::spawn(move || {
            let (result, keep) = match read() {
                Ok(opened) => (Ok(Arc::new(opened.session)), opened.keep),
                Err(e) => (Err(e.to_string()), None),
            };
            let session = result.as_ref().ok().map(Arc::clone);
            let _ = tx.send(Event::TreeOpened { path, result });
            if let Some(report) = after.filter(|_| session.is_some()) {
                let _ = tx.send(Event::Tree(report));
            }
            keep_read(cache.as_ref(), keep, session.as_deref());
        });
    }

    fn picker(&mut self, effect: picker::Effect) {
        match effect {
            picker::Effect::Scan { scope, seq } => self.scan(scope, seq),
            picker::Effect::LoadPreview(path) => self.previews.request(path),
            picker::Effect::BuildIndex { scope, version, sessions } => {
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    let index = BuiltIndex(Arc::new(SearchIndex::new(&sessions)));
                    let _ = tx.send(Event::SearchIndex { scope, version, index });
                });
            }
            picker::Effect::BuildIndexWithTexts { scope, version, sessions, texts } => {
                // On this one thread, so the other cores stay with the screen.
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    let texts = Some(texts.0.load());
                    let index = BuiltIndex(Arc::new(SearchIndex::with_texts(&sessions, texts, false)));
                    let _ = tx.send(Event::SearchIndex { scope, version, index });
                });
            }
            picker::Effect::Rename { path, name } => {
                let action = Action::Rename { name: Some(name) };
                let result = crate::store::write_action(&path, None, Some(&self.root), &action)
                    .map(|_| ())
                    .map_err(|e| format!("{e:#}"));
                self.send(Event::Renamed { result });
            }
            picker::Effect::Delete { path } => {
                let result = crate::store::trash::delete(&path, &self.root).map_err(|e| format!("{e:#}"));
                self.send(Event::Deleted { path, result });
            }
            picker::Effect::Undo(trashed) => {
                let result = crate::store::trash::undo(&trashed).map_err(|e| format!("{e:#}"));
                self.send(Event::Restored { trashed, result });
            }
            picker::Effect::Open(_)
            | picker::Effect::Resume(_)
            | picker::Effect::ShowHelp
            | picker::Effect::Quit
            | picker::Effect::NothingToShow => {}
        }
    }

    /// Scan a scope on the catalog's worker; resolve each session's thread keys on the way. The
    /// sessions the index answers come before their texts are read: those go to the search index's
    /// worker (sent just before `Done`).
    fn scan(&self, scope: ScopeKind, seq: u64) {
        let catalog_scope = match scope {
            ScopeKind::Current => Scope::CurrentFolder(self.cwd.clone()),
            ScopeKind::All => Scope::All,
        };
        let (scan_tx, scan_rx) = std::sync::mpsc::channel();
        let scanning = self.catalog.scan_in_background_deferring_texts(catalog_scope, scan_tx);
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            forward_scan(&scan_rx, Some(scanning), |update| {
                tx.send(Event::Scan { scope, seq, update }).is_ok()
            })
        });
    }
}

/// How long the scan's forwarder gathers events after the first rows are out: the list then
/// merges, re-sorts and is drawn at most this often while a cold scan finds its sessions file by
/// file (merging and drawing each file into thousands had stalled the picker for seconds).
const SCAN_COALESCE: Duration = Duration::from_millis(16);

/// Forward a scan's events to `send` as picker updates, until the scan ends or `send` fails. The
/// first rows go out with only what is already queued behind them (a warm scan's rows and its end
/// make one update of the list); after that, each batch gathers [`SCAN_COALESCE`] of events, or
/// up to the end of the scan.
fn forward_scan(
    scan_rx: &Receiver<ScanEvent>,
    mut scanning: Option<Scanning>,
    mut send: impl FnMut(ScanUpdate) -> bool,
) {
    let mut keys = KeyCache::default();
    let mut rows_out = false;
    while let Ok(first) = scan_rx.recv() {
        let deadline = Instant::now() + SCAN_COALESCE;
        let mut batch = ScanBatch::default();
        let mut next = Some(first);
        while let Some(event) = next {
            batch.add(event, &mut keys, &mut scanning);
            next = if !batch.end.is_empty() {
                None
            } else if !rows_out && !batch.found.is_empty() {
                scan_rx.try_recv().ok()
            } else {
                scan_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()
            };
        }
        rows_out |= !batch.found.is_empty();
        if !batch.into_updates().into_iter().all(&mut send) {
            return;
        }
    }
}

/// What the scan's forwarder sends at a time: the sessions found meanwhile as one update, the
/// latest progress, and the end of the scan with the texts it deferred.
#[derive(Default)]
struct ScanBatch {
    found: Vec<Found>,
    progress: Option<(usize, usize)>,
    end: Vec<ScanUpdate>,
}

type Scanning = std::thread::JoinHandle<Option<Arc<crate::catalog::DeferredTexts>>>;

impl ScanBatch {
    fn add(&mut self, event: ScanEvent, keys: &mut KeyCache, scanning: &mut Option<Scanning>) {
        match event {
            ScanEvent::Progress { done, total } => self.progress = Some((done, total)),
            ScanEvent::Found(found) => self.found.extend(keys.found(found)),
            ScanEvent::Done { warnings, .. } => {
                let texts = scanning.take().and_then(|s| s.join().ok().flatten());
                self.end.extend(texts.map(|t| ScanUpdate::Texts(SearchTexts(t))));
                let warnings = warnings.iter().map(ToString::to_string).collect();
                self.end.push(ScanUpdate::Done { warnings });
            }
        }
    }

    fn into_updates(self) -> Vec<ScanUpdate> {
        let found = (!self.found.is_empty()).then_some(ScanUpdate::Found(self.found));
        let progress = self.progress.map(|(done, total)| ScanUpdate::Progress { done, total });
        found.into_iter().chain(progress).chain(self.end).collect()
    }
}

/// Loads previews one at a time; a new request replaces one still waiting.
struct PreviewWorker {
    wanted: Arc<(Mutex<Option<PathBuf>>, Condvar)>,
}

impl PreviewWorker {
    fn spawn(tx: Sender<Event>, cache: Option<SessionCache>) -> PreviewWorker {
        let wanted = Arc::new((Mutex::new(None::<PathBuf>), Condvar::new()));
        let shared = Arc::clone(&wanted);
        std::thread::spawn(move || {
            let mut last = None;
            loop {
                let path = {
                    let (lock, wake) = &*shared;
                    let mut slot = lock.lock().unwrap_or_else(|e| e.into_inner());
                    loop {
                        if let Some(path) = slot.take() {
                            break path;
                        }
                        slot = wake.wait(slot).unwrap_or_else(|e| e.into_inner());
                    }
                };
                // The last session is let go before another file is read, so at most one is held.
                let same = last.take().filter(|s: &Arc<Session>| s.file.path == path);
                let loaded =
                    preview::load(&path, same.as_ref(), cache.as_ref()).map_err(|e| format!("{e:#}"));
                let (result, keep) = match loaded {
                    Ok((previewed, keep)) => (Ok(previewed), keep),
                    Err(e) => (Err(e), None),
                };
                last = result.as_ref().ok().map(|p| Arc::clone(&p.session));
                if tx.send(Event::Preview { path, result }).is_err() {
                    return;
                }
                keep_read(cache.as_ref(), keep, last.as_deref());
            }
        });
        PreviewWorker { wanted }
    }

    fn request(&self, path: PathBuf) {
        let (lock, wake) = &*self.wanted;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = Some(path);
        wake.notify_one();
    }
}

/// Milliseconds since the epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Run until the app exits: wait for events, apply a whole batch, carry out the effects, draw.
pub fn run_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    events: &Receiver<Event>,
    runner: &mut Runner<B>,
    first: Vec<Effect>,
) -> Result<Exit>
where
    B::Error: Send + Sync + 'static,
{
    for effect in first {
        runner.run(effect, app, terminal)?;
    }
    loop {
        if app.dirty {
            terminal.draw(|frame| draw(frame, app))?;
            app.dirty = false;
        }
        let Some(batch) = next_batch(events, app.next_deadline())? else {
            return Ok(Exit::Quit);
        };
        let mut effects = update(app, Event::Clock(now_ms()));
        for event in batch {
            effects.extend(update(app, event));
        }
        effects.extend(settle(app));
        for effect in effects {
            runner.run(effect, app, terminal)?;
        }
        if let Some(exit) = app.exit.take() {
            return Ok(exit);
        }
    }
}

/// Wait for at least one event (or the deadline), then take every event already queued.
/// `None` when every sender is gone.
fn next_batch(events: &Receiver<Event>, deadline_ms: Option<i64>) -> Result<Option<Vec<Event>>> {
    let first = match deadline_ms {
        Some(deadline) => {
            let wait = Duration::from_millis(deadline.saturating_sub(now_ms()).clamp(0, 60_000) as u64);
            match events.recv_timeout(wait) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            }
        }
        None => match events.recv() {
            Ok(event) => Some(event),
            Err(_) => return Ok(None),
        },
    };
    let mut batch: Vec<Event> = first.into_iter().collect();
    batch.extend(events.try_iter());
    Ok(Some(batch))
}

/// Keep a session just read in the parsed-session cache when its read said to (at that level);
/// a cache that cannot be written is no cache, so an error is ignored.
fn keep_read(cache: Option<&SessionCache>, level: Option<Level>, session: Option<&Session>) {
    if let (Some(cache), Some(level), Some(session)) = (cache, level, session) {
        let _ = cache.put(&session.file, level);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::channel;

    use super::*;
    use crate::catalog::summary::SessionSummary;

    fn found(n: usize) -> ScanEvent {
        ScanEvent::Found(vec![SessionSummary { path: format!("/s/{n}.jsonl").into(), ..Default::default() }])
    }

    fn done() -> ScanEvent {
        ScanEvent::Done { warnings: Vec::new(), stats: Default::default() }
    }

    fn forwarded(rx: &Receiver<ScanEvent>) -> Vec<ScanUpdate> {
        let mut updates = Vec::new();
        forward_scan(rx, None, |u| {
            updates.push(u);
            true
        });
        updates
    }

    fn found_counts(updates: &[ScanUpdate]) -> Vec<usize> {
        updates
            .iter()
            .filter_map(|u| if let ScanUpdate::Found(f) = u { Some(f.len()) } else { None })
            .collect()
    }

    #[test]
    fn a_warm_scan_makes_one_update_of_the_list_then_its_end() {
        let (tx, rx) = channel();
        tx.send(ScanEvent::Found(
            (0..500)
                .map(|n| SessionSummary { path: format!("/s/{n}").into(), ..Default::default() })
                .collect(),
        ))
        .unwrap();
        tx.send(ScanEvent::Progress { done: 500, total: 500 }).unwrap();
        tx.send(done()).unwrap();
        drop(tx);
        let updates = forwarded(&rx);
        assert_eq!(found_counts(&updates), [500]);
        assert!(matches!(
            updates.as_slice(),
            [ScanUpdate::Found(_), ScanUpdate::Progress { done: 500, .. }, ScanUpdate::Done { .. }]
        ));
    }

    #[test]
    fn a_cold_scan_finding_files_one_by_one_is_forwarded_in_a_few_batches() {
        let (tx, rx) = channel();
        let feeder = std::thread::spawn(move || {
            for n in 0..2000 {
                tx.send(found(n)).unwrap();
                tx.send(ScanEvent::Progress { done: n + 1, total: 2000 }).unwrap();
                if n % 20 == 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            tx.send(done()).unwrap();
        });
        let updates = forwarded(&rx);
        feeder.join().unwrap();
        let counts = found_counts(&updates);
        assert_eq!(counts.iter().sum::<usize>(), 2000, "every session arrives");
        assert!(counts.len() < 100, "{} updates of the list for 2000 files", counts.len());
        assert!(matches!(updates.last(), Some(ScanUpdate::Done { .. })));
    }
}
