//! Entering and leaving full-screen mode (raw mode, alternate screen, mouse capture, bracketed
//! paste), and putting the terminal back on every exit path: a normal return, an error, a panic
//! (a hook chained after the one already installed), a signal, a suspend (Ctrl+Z) and every
//! hand-over to another program.
//!
//! The screen is drawn on stdout when it is a terminal, else on `/dev/tty`, so that
//! `pi --session "$(pitree --print)"` works: stdout then carries only the chosen path.

use std::fs::File;
use std::io::{self, IsTerminal, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Once, OnceLock};
use std::thread::ThreadId;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute};

/// Whether the terminal is in full-screen mode right now (read by the panic hook).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The thread that draws: only its panic ends the app (a worker's panic only ends that worker).
static UI_THREAD: OnceLock<ThreadId> = OnceLock::new();

/// Where the screen is drawn.
pub enum Tty {
    Stdout(Stdout),
    Device(File),
}

impl Tty {
    /// Stdout when it is a terminal, else the controlling terminal.
    pub fn open() -> io::Result<Tty> {
        let stdout = io::stdout();
        if stdout.is_terminal() {
            return Ok(Tty::Stdout(stdout));
        }
        File::options()
            .write(true)
            .open("/dev/tty")
            .map(Tty::Device)
            .map_err(|e| io::Error::new(e.kind(), format!("no terminal to draw on (/dev/tty: {e})")))
    }
}

impl Write for Tty {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Tty::Stdout(s) => s.write(buf),
            Tty::Device(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Tty::Stdout(s) => s.flush(),
            Tty::Device(f) => f.flush(),
        }
    }
}

/// The real terminal.
pub type TtyTerminal = Terminal<CrosstermBackend<Tty>>;

/// Open the terminal and switch it to full-screen mode.
pub fn init() -> io::Result<TtyTerminal> {
    let _ = UI_THREAD.set(std::thread::current().id());
    install_panic_hook();
    let mut tty = Tty::open()?;
    enter(&mut tty)?;
    Terminal::new(CrosstermBackend::new(tty))
}

/// Switch `out` to full-screen mode.
pub fn enter(out: &mut impl Write) -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(out, EnterAlternateScreen, EnableMouseCapture, EnableBracketedPaste, cursor::Hide)
}

/// Put `out` back the way the shell had it. Safe to call when not in full-screen mode.
pub fn leave(out: &mut impl Write) -> io::Result<()> {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return Ok(());
    }
    let screen =
        execute!(out, DisableBracketedPaste, DisableMouseCapture, LeaveAlternateScreen, cursor::Show);
    let raw = disable_raw_mode();
    screen.and(raw)
}

/// Leave full-screen mode on `terminal`.
pub fn restore(terminal: &mut TtyTerminal) -> io::Result<()> {
    leave(terminal.backend_mut())
}

/// Come back to full-screen mode after a hand-over, and redraw everything.
pub fn reenter(terminal: &mut TtyTerminal) -> io::Result<()> {
    enter(terminal.backend_mut())?;
    terminal.clear()
}

/// Ctrl+Z: give the terminal back, stop this process (as the shell's job control expects), and
/// take the terminal again when the shell continues it.
pub fn suspend(terminal: &mut TtyTerminal) -> io::Result<()> {
    restore(terminal)?;
    stop_self();
    reenter(terminal)
}

#[cfg(unix)]
fn stop_self() {
    // SAFETY: kill(2) on our own pid with a valid signal number has no memory-safety conditions.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGSTOP);
    }
}

#[cfg(not(unix))]
fn stop_self() {}

/// Restore the terminal before the report of a panic on the drawing thread is printed, then run
/// the hook that was installed before (color_eyre's, when the binary installed it). Installed once.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let on_ui_thread = UI_THREAD.get().is_none_or(|ui| *ui == std::thread::current().id());
            if on_ui_thread && let Ok(mut tty) = Tty::open() {
                let _ = leave(&mut tty);
            }
            previous(info);
        }));
    });
}
