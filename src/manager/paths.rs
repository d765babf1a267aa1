//! Paths as pi's `SessionManager` resolves them: `~` expanded and made absolute with `.` and `..`
//! resolved (Node's `path.resolve`), and the default session folder of a cwd,
//! `<agent dir>/sessions/--<encoded cwd>--` (agent dir: `PI_CODING_AGENT_DIR`, else `~/.pi/agent`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use color_eyre::eyre::WrapErr;

use super::error::Result;
use crate::catalog::locate::{self, RootSource, SessionsRoot};

/// `path` with `~` / `~/…` expanded, made absolute against the current folder, `.` and `..`
/// resolved textually (pi's `resolvePath`).
///
/// ```
/// use std::path::Path;
/// use pitree::manager::resolve_path;
/// assert_eq!(resolve_path(Path::new("/a/b/../c/.")), Path::new("/a/c"));
/// ```
pub fn resolve_path(path: &Path) -> PathBuf {
    let text = path.as_os_str().as_encoded_bytes();
    let home =
        || std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from).or_else(dirs::home_dir);
    let expanded = match (text, text.strip_prefix(b"~/")) {
        (b"~", _) => home(),
        (_, Some(rest)) => home().map(|h| h.join(OsString::from(String::from_utf8_lossy(rest).into_owned()))),
        _ => None,
    };
    locate::lexical_absolute(&expanded.unwrap_or_else(|| path.to_path_buf()))
}

/// The sessions folder of pi's agent dir, as pi's `SessionManager` finds it. Unlike pi's CLI,
/// the manager ignores `PI_CODING_AGENT_SESSION_DIR`: callers that honor it pass the folder as
/// `session_dir`.
pub(super) fn agent_sessions_root() -> Result<SessionsRoot> {
    let env = |name: &str| match name {
        "PI_CODING_AGENT_SESSION_DIR" => None,
        _ => std::env::var_os(name),
    };
    let root = locate::sessions_root(None, &env)?;
    Ok(SessionsRoot::new(root.path, RootSource::AgentDir))
}

/// The folder pi keeps the sessions of `cwd` in, without creating it (pi's
/// `getDefaultSessionDirPath`).
///
/// ```
/// use std::path::Path;
/// let dir = pitree::manager::default_session_dir(Path::new("/home/u/proj"))?;
/// assert!(dir.ends_with("sessions/--home-u-proj--"));
/// # Ok::<(), pitree::manager::Error>(())
/// ```
pub fn default_session_dir(cwd: &Path) -> Result<PathBuf> {
    let cwd = resolve_path(cwd);
    Ok(agent_sessions_root()?.default_dir(&cwd.to_string_lossy()))
}

/// `dir`, or the default folder of `cwd`; the folder is created (pi's constructor does that).
pub(super) fn session_dir_or_default(cwd: &Path, dir: Option<&Path>) -> Result<PathBuf> {
    let dir = match dir {
        Some(d) => resolve_path(d),
        None => default_session_dir(cwd)?,
    };
    std::fs::create_dir_all(&dir)
        .wrap_err_with(|| format!("cannot create the session folder {}", dir.display()))?;
    Ok(dir)
}

/// Whether pi filters a folder's sessions by header cwd: only when a folder was given and it is
/// not the cwd's default folder.
pub(super) fn filters_by_cwd(cwd: &Path, given: Option<&Path>, dir: &Path) -> bool {
    given.is_some() && default_session_dir(cwd).map_or(true, |default| default != dir)
}
