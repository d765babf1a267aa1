//! What the tree view and the app say to each other: how the view starts ([`TreeOptions`]), what
//! a key press asks the app to do ([`TreeOutcome`]), what the app reports back ([`Report`], which
//! the view's jobs also produce: their `run` is here, over the work their modules do), and what the
//! keys drive ([`Screen`]). The view's parts below the state machine take these from here.

use std::path::PathBuf;
use std::sync::Arc;

use super::detail::{DetailContent, DetailJob};
use super::search::{FullTextJob, SearchIndex};
use crate::session::flatten::FilterMode;
use crate::session::{Ix, Session};
use crate::store::Action;
use crate::tui::keymap::{Keybindings, Keymap};

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
    /// Append one line with [`crate::store::write_action`] on [`super::TreeView::path`], then report
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
    /// Run the summarizer command with [`super::TreeView::summarizer_input`]`(target)` on its stdin (that
    /// call reads the abandoned entries from the file), then report [`Report::Summary`] with its
    /// stdout. While it runs the view shows a spinner; call [`super::TreeView::tick`] to animate it.
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
    /// The full-text search index built by a [`super::SearchJob`].
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

impl DetailJob {
    /// Build the content (reads the entry's line from the file).
    pub fn run(self) -> Report {
        let entry = self.entry();
        Report::Detail { entry, content: self.build() }
    }
}

impl FullTextJob {
    /// The long entries whose whole text holds every token of the query (an entry whose line
    /// cannot be read again, the file having changed, is left out).
    pub fn run(self) -> Report {
        let entries = self.matches();
        Report::FullTextMatches { query: self.query, entries, session: self.session }
    }
}
