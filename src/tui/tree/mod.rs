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
mod protocol;
mod search;
mod state;

use std::path::Path;
use std::sync::Arc;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::{Frame, Terminal};

use crate::session::{Ix, Session};
use crate::tui::keymap::Keymap;
use crate::tui::theme::Theme;

pub use crate::session::flatten::FilterMode;
pub use detail::{DetailContent, DetailJob};
pub use protocol::{Report, Screen, TreeOptions, TreeOutcome};
pub use search::{FullTextJob, SearchIndex, SearchJob};

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
