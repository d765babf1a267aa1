//! Reading a session file for a command: whole, or through the parsed-session cache, with a
//! one-line error naming the file.

use std::path::Path;

use color_eyre::eyre::{Result, WrapErr};

/// A session read for a command (through the parsed-session cache), with a one-line error.
pub(super) fn read_or_say<T>(path: &Path, read: Result<T, crate::session::parse::ParseError>) -> Result<T> {
    read.map_err(|e| color_eyre::eyre::eyre!("{e}"))
        .wrap_err_with(|| format!("cannot read {}", path.display()))
}

/// Open a session file for a command, with a one-line error.
pub(super) fn open_session(path: &Path) -> Result<crate::session::Session> {
    crate::session::Session::open(path)
        .map_err(|e| color_eyre::eyre::eyre!("{e}"))
        .wrap_err_with(|| format!("cannot read {}", path.display()))
}
