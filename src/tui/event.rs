//! The threads that feed the app's one event channel: terminal input (pausable while another
//! program owns the terminal), signals (SIGTERM, SIGHUP, SIGINT) and terminal hang-ups, and file
//! changes under the sessions root (debounced), and the [`Event`] they send. Workers for scans,
//! previews and the summarizer send their results into the same channel, and the app's reducer
//! ([`super::app::update`]) takes them from it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{self as term, KeyEvent, KeyEventKind, MouseEvent};

use super::picker::preview::Previewed;
use super::picker::source::BuiltIndex;
use super::picker::state::{ScanUpdate, ScopeKind};
use super::tree::Report;
use crate::session::Session;
use crate::store::trash::Trashed;

/// How long the input thread waits for a key before it checks whether it should pause.
const POLL: Duration = Duration::from_millis(40);

/// How long [`Input::pause`] waits for the input thread.
const PAUSE_WAIT: Duration = Duration::from_millis(500);

/// File changes are collected this long after the first one, then sent as one event.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// Everything the app reacts to. A tree view's report is the largest (a session read again
/// travels in it, and it was no smaller when a newly opened one did too); events go through the
/// channel a few at a time, so they are not boxed.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Event {
    /// The wall clock (ms since the epoch). The loop sends one before every batch.
    Clock(i64),
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    Paste(String),
    Signal(Signal),
    /// A report from the scan of a scope.
    Scan {
        scope: ScopeKind,
        seq: u64,
        update: ScanUpdate,
    },
    /// Which sessions running pi processes hold.
    Live(HashMap<PathBuf, u32>),
    Preview {
        path: PathBuf,
        result: Result<Previewed, String>,
    },
    /// A scope's search index, built on a worker from version `version` of its list.
    SearchIndex {
        scope: ScopeKind,
        version: u64,
        index: BuiltIndex,
    },
    /// Session files changed on disk (debounced).
    FilesChanged(Vec<PathBuf>),
    Renamed {
        result: Result<(), String>,
    },
    Deleted {
        path: PathBuf,
        result: Result<Trashed, String>,
    },
    Restored {
        trashed: Trashed,
        result: Result<(), String>,
    },
    /// The first frame of a big session being read for the tree view, drawn from its outline
    /// ([`super::tree::TreeView::preview`]) at the screen's size when it was asked for.
    TreeOutline {
        path: PathBuf,
        frame: Buffer,
    },
    /// A session was read for the tree view.
    TreeOpened {
        path: PathBuf,
        result: Result<Arc<Session>, String>,
    },
    /// A result for the tree view.
    Tree(Report),
}

/// A signal the app must react to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT from outside (Ctrl+C itself arrives as a key in raw mode).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGHUP: the terminal went away.
    Hangup,
}

impl Signal {
    /// The exit status a shell reports for a process ended by this signal.
    pub fn exit_status(self) -> i32 {
        128 + match self {
            Signal::Interrupt => 2,
            Signal::Terminate => 15,
            Signal::Hangup => 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputState {
    Running,
    PauseRequested,
    Paused,
}

/// The terminal input thread: reads keys, mouse, resize and paste events and sends them on.
pub struct Input {
    control: Arc<(Mutex<InputState>, Condvar)>,
}

impl Input {
    /// Start reading the terminal.
    pub fn spawn(tx: Sender<Event>) -> Input {
        let control = Arc::new((Mutex::new(InputState::Running), Condvar::new()));
        let shared = Arc::clone(&control);
        thread::Builder::new()
            .name("pitree-input".into())
            .spawn(move || read_terminal(&shared, &tx))
            .expect("cannot start the input thread");
        Input { control }
    }

    /// Stop reading the terminal; returns once the thread is no longer reading, so another program
    /// can take the terminal — or after `PAUSE_WAIT` when the thread is stuck in a read of a
    /// terminal that went away.
    pub fn pause(&self) {
        let (lock, wake) = &*self.control;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        *state = InputState::PauseRequested;
        let _ = wake
            .wait_timeout_while(state, PAUSE_WAIT, |s| *s != InputState::Paused)
            .unwrap_or_else(|e| e.into_inner());
    }

    /// Read the terminal again after [`Input::pause`].
    pub fn resume(&self) {
        let (lock, wake) = &*self.control;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = InputState::Running;
        wake.notify_all();
    }
}

fn read_terminal(control: &(Mutex<InputState>, Condvar), tx: &Sender<Event>) {
    loop {
        wait_while_paused(control);
        match term::poll(POLL) {
            Ok(false) => continue,
            Ok(true) => {}
            Err(_) => return,
        }
        let Ok(event) = term::read() else { return };
        if let Some(event) = translate(event)
            && tx.send(event).is_err()
        {
            return;
        }
    }
}

fn wait_while_paused(control: &(Mutex<InputState>, Condvar)) {
    let (lock, wake) = control;
    let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
    while *state != InputState::Running {
        if *state == InputState::PauseRequested {
            *state = InputState::Paused;
            wake.notify_all();
        }
        state = wake.wait(state).unwrap_or_else(|e| e.into_inner());
    }
}

/// The terminal events the app uses; key releases and repeats (Windows, kitty) are dropped.
pub fn translate(event: term::Event) -> Option<Event> {
    match event {
        term::Event::Key(key) if key.kind == KeyEventKind::Press => Some(Event::Key(key)),
        term::Event::Mouse(mouse) => Some(Event::Mouse(mouse)),
        term::Event::Resize(w, h) => Some(Event::Resize(w, h)),
        term::Event::Paste(text) => Some(Event::Paste(text)),
        _ => None,
    }
}

/// Turn SIGTERM, SIGHUP and SIGINT into events, so the loop can restore the terminal and exit.
/// The handlers stay installed for the life of the process: while pi runs in the foreground a
/// Ctrl+C is pi's, not a reason for pitree to die.
#[cfg(unix)]
pub fn spawn_signals(tx: Sender<Event>) -> Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT])
        .wrap_err("cannot install the signal handlers")?;
    thread::Builder::new()
        .name("pitree-signals".into())
        .spawn(move || {
            for number in signals.forever() {
                let signal = match number {
                    SIGTERM => Signal::Terminate,
                    SIGHUP => Signal::Hangup,
                    _ => Signal::Interrupt,
                };
                if tx.send(Event::Signal(signal)).is_err() {
                    return;
                }
            }
        })
        .wrap_err("cannot start the signal thread")?;
    Ok(())
}

#[cfg(not(unix))]
pub fn spawn_signals(_tx: Sender<Event>) -> Result<()> {
    Ok(())
}

/// How often the terminal is checked for a hang-up.
const HANGUP_CHECK: Duration = Duration::from_millis(500);

/// Send [`Signal::Hangup`] when the terminal goes away without a SIGHUP reaching pitree (its
/// window closed under a non-interactive shell): reading a hung-up terminal makes crossterm's
/// `poll` spin instead of failing, so the loop must be told some other way.
#[cfg(unix)]
pub fn watch_hangup(tx: Sender<Event>) -> Result<()> {
    use std::os::fd::AsRawFd;
    let tty = std::fs::File::open("/dev/tty").wrap_err("cannot open the terminal")?;
    thread::Builder::new()
        .name("pitree-hangup".into())
        .spawn(move || {
            loop {
                thread::sleep(HANGUP_CHECK);
                // SAFETY: tcgetattr only writes into the termios we own; the fd stays open.
                let alive = unsafe {
                    let mut termios = std::mem::zeroed::<libc::termios>();
                    libc::tcgetattr(tty.as_raw_fd(), &mut termios) == 0
                };
                if !alive {
                    let _ = tx.send(Event::Signal(Signal::Hangup));
                    return;
                }
            }
        })
        .wrap_err("cannot start the hang-up watch")?;
    Ok(())
}

#[cfg(not(unix))]
pub fn watch_hangup(_tx: Sender<Event>) -> Result<()> {
    Ok(())
}

/// Watches the sessions root; keep it alive as long as events are wanted.
pub struct Watcher {
    _watcher: notify::RecommendedWatcher,
}

/// Watch `root` recursively and send [`Event::FilesChanged`] with the session files (`.jsonl`)
/// that changed, at most once per [`DEBOUNCE`]: a running pi writes one line per message, and a
/// burst of appends becomes one refresh.
pub fn watch(root: &Path, tx: Sender<Event>) -> Result<Watcher> {
    let (raw_tx, raw_rx) = mpsc::channel::<PathBuf>();
    let mut watcher = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
        if let Ok(event) = result {
            for path in event.paths {
                let _ = raw_tx.send(path);
            }
        }
    })
    .wrap_err("cannot watch the sessions folder")?;
    notify::Watcher::watch(&mut watcher, root, notify::RecursiveMode::Recursive)
        .wrap_err_with(|| format!("cannot watch {}", root.display()))?;
    thread::Builder::new()
        .name("pitree-watch".into())
        .spawn(move || debounce(&raw_rx, &tx, DEBOUNCE))
        .wrap_err("cannot start the file-watch thread")?;
    Ok(Watcher { _watcher: watcher })
}

/// [`watch`] set up on a thread of its own, so that the first frame does not wait for it: notify
/// adds a watch for every folder under the root and, as it follows symlinks, looks at every file
/// on the way (15 ms for 5,000 sessions on the build machine, as long as the rest of a warm
/// picker's launch). A file that changes in those first milliseconds, after the first scan has
/// read it, shows at its next change. The watcher lives until the guard is dropped.
pub fn watch_in_background(root: PathBuf, tx: Sender<Event>) -> WatchGuard {
    let (stop, stopped) = mpsc::channel::<()>();
    // Without the thread there is no watcher: the list then refreshes only when asked.
    let _ = thread::Builder::new().name("pitree-watch-setup".into()).spawn(move || {
        let _watcher = watch(&root, tx);
        let _ = stopped.recv();
    });
    WatchGuard { _stop: stop }
}

/// Keeps the watcher of [`watch_in_background`] alive.
pub struct WatchGuard {
    _stop: Sender<()>,
}

/// Collect paths for `window` after the first one, then send them as one event.
fn debounce(raw: &mpsc::Receiver<PathBuf>, tx: &Sender<Event>, window: Duration) {
    while let Ok(first) = raw.recv() {
        let mut batch = BTreeSet::new();
        batch.insert(first);
        let deadline = Instant::now() + window;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match raw.recv_timeout(left) {
                Ok(path) => {
                    batch.insert(path);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        let sessions: Vec<PathBuf> =
            batch.into_iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect();
        if !sessions.is_empty() && tx.send(Event::FilesChanged(sessions)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_changes_becomes_one_event_with_session_files_only() {
        let (raw_tx, raw_rx) = mpsc::channel();
        let (tx, rx) = mpsc::channel();
        let worker = thread::spawn(move || debounce(&raw_rx, &tx, Duration::from_millis(50)));
        for name in ["a.jsonl", "b.jsonl", "a.jsonl", "notes.txt"] {
            raw_tx.send(PathBuf::from(name)).unwrap();
        }
        let Event::FilesChanged(paths) = rx.recv_timeout(Duration::from_secs(5)).unwrap() else {
            panic!("expected FilesChanged");
        };
        assert_eq!(paths, [PathBuf::from("a.jsonl"), PathBuf::from("b.jsonl")]);
        drop(raw_tx);
        worker.join().unwrap();
        assert!(rx.try_recv().is_err(), "one event for the burst");
    }

    /// The watcher set up in the background reports a session file written under the root (once
    /// it is up: the file is written again until an event comes), and stops with its guard.
    #[test]
    fn the_background_watch_reports_changes_until_its_guard_is_dropped() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("--home-dev--");
        std::fs::create_dir(&folder).unwrap();
        let (tx, rx) = mpsc::channel();
        let guard = watch_in_background(root.path().to_path_buf(), tx);
        let file = folder.join("s.jsonl");
        let deadline = Instant::now() + Duration::from_secs(10);
        let paths = loop {
            std::fs::write(&file, "{}\n").unwrap();
            match rx.recv_timeout(Duration::from_millis(300)) {
                Ok(Event::FilesChanged(paths)) => break paths,
                Ok(_) => panic!("expected FilesChanged"),
                Err(_) => assert!(Instant::now() < deadline, "no event from the background watch"),
            }
        };
        assert_eq!(paths, [file]);
        drop(guard);
        let gone = Instant::now() + Duration::from_secs(10);
        while !matches!(rx.recv_timeout(Duration::from_millis(50)), Err(RecvTimeoutError::Disconnected)) {
            assert!(Instant::now() < gone, "the watch thread ended and let go of the channel");
        }
    }

    #[test]
    fn signals_map_to_shell_exit_statuses() {
        assert_eq!(Signal::Terminate.exit_status(), 143);
        assert_eq!(Signal::Hangup.exit_status(), 129);
        assert_eq!(Signal::Interrupt.exit_status(), 130);
    }
}
