//! The tree view of one session (product.md §5, pi's `/tree`): pi's flattened rows with the
//! active-path and leaf markers, filters, full-text search with highlighted hits, folds, paging,
//! label editing, copy, fork, and the Enter flow (resume, or move the leaf with an optional branch
//! summary), beside a detail pane with the selected entry's full content and what the model would
//! see there.
//!
//! The component is a pure state machine. [`TreeView::handle_key`] never does I/O and never reads a
//! clock: it returns a [`TreeOutcome`] that the app executes (write a line, fork, copy, run the
//! summarizer, resume pi), and the app reports the result back with [`TreeView::apply`]. The two
//! reads of the session file the view needs (an entry's full JSON for the detail pane, and the
//! full-text search index) are handed out as jobs, not performed, by the state machine:
//! [`TreeView::detail_job`] (or [`TreeView::load_detail`] to run it in place) and
//! [`TreeView::search_job`]. Both are `Send`, so the app may run them on workers.
//!
//! A typical app loop:
//! ```ignore
//! let mut view = TreeView::open(session, TreeOptions { now_ms, home, ..Default::default() });
//! if let Some(job) = view.search_job() { spawn(move || tx.send(Event::SearchIndex(job.run()))); }
//! loop {
//!     match view.handle_key(key) {
//!         TreeOutcome::Write(action) => {
//!             let result = store::write_action(view.path(), Some(view.session()), root, &action)
//!                 .and_then(|_| Ok(view.session().reread()?)); // only the appended line is read
//!             view.apply(Report::Written(result.map_err(|e| e.to_string())));
//!         }
//!         // … Fork, Copy, RunSummarizer, Resume, Close
//!     }
//!     view.load_detail();               // or spawn view.detail_job() on a worker
//!     terminal.draw(|f| view.draw(f, f.area(), &theme))?;
//! }
//! ```
//!
//! Keys: the view takes them from [`TreeOptions::keys`], the app's `Keybindings::tree` (pi's
//! defaults and pitree's `pitree.tree.*` ones, with the user's `keybindings.json` applied), and so
//! do its hint lines and the help overlay. The default table, with the keybinding ids, is in
//! `state.rs`; the reasons for pitree's own keys are in `tui::keymap`. Printable keys type into the
//! search unless bound (Shift+L, Shift+T and `/` by default); in the `/` search field every
//! printable key types. The inputs and dialogs keep fixed keys: in the summary editor Ctrl+S saves
//! and Esc goes back to the move dialog; in the message editor Enter resumes pi and Alt+Enter or
//! Ctrl+J adds a line; in dialogs y/Enter and n/Esc.
//!
//! Drawing: a title line (session name, "open in pi (pid N)", damaged-line count), the search line,
//! the rows (pi's `›` cursor, prefix, `⊞`, `•` path marker, `[label]`, label time, text, and
//! ` ← leaf` on the row that stands for the leaf), the status line `(i/N) [filter]`, the detail
//! pane (right of the rows from 110 columns, below them from 26 rows, else hidden) and a hint line.
//! The list fills its area (pitree is full-screen), so a page is the drawn list height rather than
//! pi's half terminal.

mod detail;
mod dialog;
mod draw;
mod editor;
mod search;
mod state;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::{Frame, Terminal};

use crate::session::{Ix, Session};
use crate::store::Action;
use crate::tui::keymap::{Keybindings, Keymap};
use crate::tui::theme::Theme;

pub use crate::session::flatten::FilterMode;
pub use detail::{DetailContent, DetailJob};
pub use search::{FullTextJob, SearchIndex, SearchJob};

/// How the view starts.
#[derive(Debug, Clone)]
pub struct TreeOptions {
    /// "Now" in milliseconds since the epoch, for label times (Shift+T). Passed in so drawing is
    /// deterministic.
    pub now_ms: i64,
    /// The user's home directory: paths under it show as `~` in row texts.
    pub home: Option<String>,
    /// The first filter (pi's `treeFilterMode` setting).
    pub filter: FilterMode,
    /// The pid of a running pi that holds this file (`store::live::scan().holder(path)`): every write
    /// is confirmed first, because pi does not re-read the file.
    pub live_pid: Option<u32>,
    /// The summarizer command as shown in the move dialog (default `pi -p --no-session`); the app
    /// runs it.
    pub summarizer: Option<String>,
    /// Select this entry id first instead of the leaf (e.g. when re-opening the view).
    pub select: Option<String>,
    /// Show label times from the start (Shift+T toggles).
    pub label_times: bool,
    /// The time zone of label times; `None` is the local zone (tests fix one).
    pub time_zone: Option<chrono::FixedOffset>,
    /// The view's keys: the app passes `Keybindings::tree` (with the user's `keybindings.json`).
    /// The default is pitree's built-in tree keymap.
    pub keys: Keymap,
}

impl Default for TreeOptions {
    fn default() -> TreeOptions {
        TreeOptions {
            now_ms: 0,
            home: None,
            filter: FilterMode::default(),
            live_pid: None,
            summarizer: None,
            select: None,
            label_times: false,
            time_zone: None,
            keys: Keybindings::defaults().tree,
        }
    }
}

/// What the app should do after a key press or a report.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeOutcome {
    /// Nothing changed.
    Ignored,
    /// The view changed; draw it again.
    Redraw,
    /// Leave the tree view (back to the picker).
    Close,
    /// Append one line with [`crate::store::write_action`] on [`TreeView::path`], then report
    /// [`Report::Written`] with the file read again (the leaf or a label changed).
    Write(Action),
    /// Fork the path root … `target` with [`crate::store::actions::fork`], then open the new file
    /// (or report [`Report::Forked`] with the error).
    Fork { target: Ix },
    /// Hand the terminal to `pi --session <file>` (with `-- <prompt>` when given) and exit with its
    /// status.
    Resume { prompt: Option<String> },
    /// Put this text on the clipboard (OSC 52 and a clipboard tool), then report
    /// [`Report::Copied`].
    Copy(String),
    /// Run the summarizer command with [`TreeView::summarizer_input`]`(target)` on its stdin (that
    /// call reads the abandoned entries from the file), then report [`Report::Summary`] with its
    /// stdout. While it runs the view shows a spinner; call [`TreeView::tick`] to animate it.
    RunSummarizer { target: Option<Ix> },
    /// The user cancelled the running summarizer: kill it; no report is needed.
    CancelSummarizer,
}

/// The result of something the app did for the view.
#[derive(Debug)]
pub enum Report {
    /// A [`TreeOutcome::Write`] finished: the file read again after the write, or the error.
    Written(Result<Session, String>),
    /// A [`TreeOutcome::Fork`] failed, or succeeded: the app opens the new file and then reports
    /// this to its view, which says so.
    Forked(Result<PathBuf, String>),
    /// A [`TreeOutcome::Copy`] finished.
    Copied(Result<(), String>),
    /// The summarizer's output, or why it failed (a missing command, a non-zero exit …).
    Summary(Result<String, String>),
    /// What a [`DetailJob`] built for `entry` (stale results are ignored).
    Detail { entry: Ix, content: DetailContent },
    /// The full-text search index built by a [`SearchJob`].
    SearchIndex(SearchIndex),
    /// The long entries whose whole text holds every token of `query` ([`FullTextJob`]), found in
    /// `session` (the view's session when the job started).
    FullTextMatches { query: String, entries: Vec<Ix>, session: Arc<Session> },
    /// The file changed on disk (pi appended): the file read again. Selection, filter, folds and
    /// search are kept.
    Changed(Session),
    /// Whether a running pi holds the file now.
    Live(Option<u32>),
}

/// The tree view component. See the module documentation.
pub struct TreeView {
    state: state::State,
}

impl TreeView {
    /// Build the view: flatten the tree once and select the leaf (or its nearest visible ancestor,
    /// or [`TreeOptions::select`]). Cheap: no file is read.
    pub fn open(session: impl Into<Arc<Session>>, options: TreeOptions) -> TreeView {
        TreeView { state: state::State::new(session.into(), options) }
    }

    /// The frame of a view of an outline ([`Session::outline`]) on a screen of `area`: the
    /// entries of the rows that can be on screen around the selection (and the calls their tool
    /// results show) are read whole first, and the status line says the rest is on its way. The
    /// app shows this frame, answering no key but Esc, until the whole session replaces it; the
    /// outline itself is let go here, so that it is not held beside the whole session.
    pub fn preview(mut self, area: Rect, theme: &Theme) -> std::io::Result<Buffer> {
        self.state.fill_rows(usize::from(area.height))?;
        // Drawing on a test backend cannot fail.
        let Ok(mut terminal) = Terminal::new(TestBackend::new(area.width, area.height));
        let Ok(_) = terminal.draw(|frame| self.draw(frame, frame.area(), theme));
        Ok(terminal.backend().buffer().clone())
    }

    /// React to one key press (filter `KeyEventKind::Press` before), as [`TreeOptions::keys`]
    /// binds it. Pure.
    pub fn handle_key(&mut self, key: KeyEvent) -> TreeOutcome {
        self.state.handle_key(key)
    }

    /// The mouse wheel: one row up or down (wrapping, as `tui.select.up` / `down` do, whatever
    /// keys those have); in a dialog or an editor, what ↑ / ↓ do there. Pure.
    pub fn wheel(&mut self, down: bool) -> TreeOutcome {
        self.state.wheel(down)
    }

    /// A left click at (`column`, `line`): the row drawn there is selected. Pure.
    pub fn click(&mut self, column: u16, line: u16) -> TreeOutcome {
        self.state.click(column, line)
    }

    /// The keys the view reacts to.
    pub fn keys(&self) -> &Keymap {
        &self.state.options.keys
    }

    /// Bracketed paste: appended whole to the search query or the open input. Pure.
    pub fn handle_paste(&mut self, text: &str) -> TreeOutcome {
        self.state.handle_paste(text)
    }

    /// Take the result of an outcome the app executed. Pure.
    pub fn apply(&mut self, report: Report) -> TreeOutcome {
        self.state.apply(report)
    }

    /// Advance the summarizer spinner (call every ~100 ms while [`TreeView::busy`]).
    pub fn tick(&mut self) -> TreeOutcome {
        self.state.tick()
    }

    /// Whether a summarizer run is in progress (the app should send ticks and honour Esc).
    pub fn busy(&self) -> bool {
        self.state.busy()
    }

    /// The job that fills the detail pane for the selected entry, while the pane waits for it:
    /// run it (here or on a worker: it reads the entry and walks the path to the root) and report
    /// what it returns. `None` when the pane has what it needs. Asking twice gives the same job
    /// again; [`DetailJob::entry`] tells whether it was already started.
    pub fn detail_job(&self) -> Option<DetailJob> {
        self.state.detail_job()
    }

    /// Run the detail job in place (the simple alternative to a worker).
    pub fn load_detail(&mut self) {
        if let Some(job) = self.detail_job() {
            self.apply(job.run());
        }
    }

    /// The job that reads the whole file once and builds the full-text search index, the first
    /// time it is asked for (and again after the file was replaced). Run it on a worker and report [`Report::SearchIndex`]. Until then the
    /// search covers the first 256 characters of each text.
    pub fn search_job(&mut self) -> Option<SearchJob> {
        self.state.search_job()
    }

    /// The job that looks for the query in the whole text of the entries the index holds cut, once
    /// per query, one at a time. Run it on a worker and report what it returns.
    pub fn full_text_job(&mut self) -> Option<FullTextJob> {
        self.state.full_text_job()
    }

    /// Draw into `area`. Reads the state only (it remembers the list height for paging).
    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        draw::draw(&self.state, frame, area, theme)
    }

    /// What pi's `serializeConversation` would give the summarizer for a leaf move to `target`:
    /// the abandoned entries as `[User]: …`, `[Assistant]: …`, `[Assistant tool calls]: name(k=v)`,
    /// `[Tool result]: …` (cut to 2000 characters), wrapped in `<conversation>` and followed by pi's
    /// branch-summary instructions. Reads the entries' full text from the file.
    pub fn summarizer_input(&self, target: Option<Ix>) -> String {
        self.state.summarizer_input(target)
    }

    pub fn session(&self) -> &Session {
        self.state.session()
    }

    /// The session, shared, for a worker that reads the file again from it
    /// ([`Session::reread`]).
    pub fn shared_session(&self) -> Arc<Session> {
        Arc::clone(&self.state.session)
    }

    /// The session file.
    pub fn path(&self) -> &Path {
        &self.session().file.path
    }

    /// The selected entry, if the list is not empty.
    pub fn selected(&self) -> Option<Ix> {
        self.state.selected()
    }

    /// The text of the status line under the rows, e.g. `(3/12) [no-tools]`.
    pub fn status_line(&self) -> String {
        self.state.status_line()
    }

    /// The message shown after the status line (the result of the last action), if any.
    pub fn status(&self) -> Option<&str> {
        self.state.status.as_ref().map(|s| s.text.as_str())
    }

    /// What the keys drive now.
    pub fn screen(&self) -> Screen {
        self.state.screen()
    }

    /// The text of the open input or editor (label, name, summary, message to re-send).
    pub fn input_text(&self) -> Option<&str> {
        self.state.input_text()
    }

    /// The choices of the open move dialog, in order.
    pub fn move_choices(&self) -> Vec<String> {
        self.state.move_choices()
    }

    /// The visible rows' entries, in display order.
    pub fn rows(&self) -> Vec<Ix> {
        (0..self.state.rows.len()).map(|r| self.state.rows.entry(r)).collect()
    }

    /// The visible rows as `pitree show` prints them (prefix, markers, label, text, leaf tag).
    pub fn row_texts(&self) -> Vec<String> {
        let cx = self.state.row_context(None);
        (0..self.state.rows.len()).map(|r| self.state.rows.parts(r, &cx).plain()).collect()
    }

    /// The search query.
    pub fn query(&self) -> &str {
        &self.state.query
    }

    pub fn filter(&self) -> FilterMode {
        self.state.filter
    }
}

/// What the keys drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The rows (printable keys type into the search).
    List,
    /// The focused search field (`/`): every printable key types.
    Search,
    LabelInput,
    RenameInput,
    /// "No summary / Write a summary / Summarize with … / Cancel".
    MoveDialog,
    SummaryEditor,
    /// The summarizer command runs.
    Summarizing,
    /// The message to re-send when resuming pi.
    PromptEditor,
    /// A yes/no question (a write to a live session, a fork).
    Confirm,
}
