//! Reading a session file for a command: whole, or through the parsed-session cache (kept there
//! again beside the command's own work), with a one-line error naming the file.

use std::path::Path;

use color_eyre::eyre::{Result, WrapErr};

use crate::catalog::session_cache::{Level, SessionCache};
use crate::session::Session;
use crate::session::parse::ParseError;

/// A session read for a command (through the parsed-session cache), with a one-line error.
pub(super) fn read_or_say<T>(path: &Path, read: Result<T, ParseError>) -> Result<T> {
    read.map_err(|e| color_eyre::eyre::eyre!("{e}"))
        .wrap_err_with(|| format!("cannot read {}", path.display()))
}

/// Open a session file for a command, with a one-line error.
pub(super) fn open_session(path: &Path) -> Result<Session> {
    read_or_say(path, Session::open(path))
}

/// Do `work` with `session`, keeping it in `cache` at the level `keep` names on a thread beside
/// the work; then leave the session to the process's end, which comes with the command: freeing
/// 100,000 entries one by one would only add time.
pub(super) fn keeping<R>(
    session: Session,
    keep: Option<(&SessionCache, Level)>,
    work: impl FnOnce(&Session) -> R,
) -> R {
    let done = std::thread::scope(|scope| {
        if let Some((cache, level)) = keep {
            let file = &session.file;
            scope.spawn(move || cache.put(file, level));
        }
        work(&session)
    });
    std::mem::forget(session);
    done
}
