//! What can go wrong in the session manager, with pi's own messages where pi has one, so callers
//! can match on the cases they handle (an unknown entry, an invalid id, a file that changed under
//! them) and print the rest.

use std::path::PathBuf;

use crate::store::WriteError;

/// A session manager error.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// No entry has this id (pi: `Entry <id> not found`).
    EntryNotFound(String),
    /// A context edit's target is not on the path root → leaf.
    NotOnActiveBranch(String),
    /// A context edit's target contributes no editable content (it must be a user, assistant or
    /// tool result message, or a custom message).
    NotEditable(String),
    /// A custom session id that pi would refuse.
    InvalidSessionId(String),
    /// A non-empty file that is not a pi session; it was left untouched.
    NotASession(PathBuf),
    /// `fork_from` was given a file that is empty, missing or not a session.
    ForkSourceInvalid(PathBuf),
    /// An entry given to `in_memory` without a string `id`, or with an id another entry has.
    InvalidEntry(String),
    /// The session file changed on disk since it was read (pi may be writing to it), so nothing
    /// was written. Open it again to continue from what is on disk.
    FileChanged { path: PathBuf, source: WriteError },
    /// Reading or writing a file failed; the report says which file and why.
    Storage(color_eyre::Report),
}

/// A session manager result.
pub type Result<T> = std::result::Result<T, Error>;

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::EntryNotFound(id) => write!(f, "Entry {id} not found"),
            Error::NotOnActiveBranch(id) => write!(f, "Entry {id} is not on the active branch"),
            Error::NotEditable(id) => write!(f, "Entry {id} does not contribute editable model content"),
            Error::InvalidSessionId(id) => write!(
                f,
                "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', \
                 and start and end with an alphanumeric character (got {id:?})"
            ),
            Error::NotASession(path) => {
                write!(f, "Session file is not a valid pi session: {}", path.display())
            }
            Error::ForkSourceInvalid(path) => {
                write!(f, "Cannot fork: source session file is empty or invalid: {}", path.display())
            }
            Error::InvalidEntry(why) => write!(f, "invalid session entry: {why}"),
            Error::FileChanged { path, source } => {
                write!(f, "{}: {source}; open the session again", path.display())
            }
            Error::Storage(report) => write!(f, "{report:#}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::FileChanged { source, .. } => Some(source),
            Error::Storage(report) => Some(report.as_ref()),
            _ => None,
        }
    }
}

impl From<color_eyre::Report> for Error {
    fn from(report: color_eyre::Report) -> Self {
        Error::Storage(report)
    }
}
