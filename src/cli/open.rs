//! Reading a session file for a command: whole, or through the parsed-session cache, with a
//! one-line error naming the file.

use std::path::Path;

use color_eyre::eyre::{Result, WrapErr};

use crate::catalog::session_cache::SessionCache;

/// Read a session file whole for a command, through `cache`, with a one-line error.
pub(super) fn open_session_cached(
    path: &Path,
    cache: Option<&SessionCache>,
) -> Result<crate::session::Session> {
    crate::catalog::session_cache::parse_whole(cache, path)
        .map(crate::session::Session::from_parsed)
        .map_err(|e| color_eyre::eyre::eyre!("{e}"))
        .wrap_err_with(|| format!("cannot read {}", path.display()))
}

/// Open a session file for a command, with a one-line error.
pub(super) fn open_session(path: &Path) -> Result<crate::session::Session> {
    crate::session::Session::open(path)
        .map_err(|e| color_eyre::eyre::eyre!("{e}"))
        .wrap_err_with(|| format!("cannot read {}", path.display()))
}
