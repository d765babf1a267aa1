//! What the catalog knows about one session file: pi's `SessionInfo` fields (pi-reference §1.14,
//! pi 1.6.0 rules) plus pitree's additions.

use std::path::PathBuf;

use crate::session::entry::Usage;

/// One session as listed by the picker and `pitree list`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionSummary {
    pub path: PathBuf,
    /// The header id (a numeric id as its digits).
    pub id: String,
    /// The header `cwd`, or empty.
    pub cwd: String,
    /// The latest `session_info` name, trimmed; `None` when cleared or never set.
    pub name: Option<String>,
    /// The header's `parentSession`.
    pub parent_session_path: Option<String>,
    /// The header timestamp as written.
    pub created: Option<String>,
    pub created_ms: Option<i64>,
    /// Latest user/assistant message time, else the header time, else the file mtime (ms).
    pub modified_ms: i64,
    /// Every `message` entry, all branches and roles.
    pub message_count: u32,
    /// Text of the first user message with text, or `(no messages)`.
    pub first_message: String,
    /// User and assistant texts in file order, joined with a space (what search looks at).
    pub all_messages_text: String,
    /// Tokens and cost summed over every assistant message and `usage` entry.
    pub usage: Usage,
    /// Number of branch tips (entries without children); 1 for a linear session.
    pub branches: u32,
    /// Lines that could not be read.
    pub unreadable_lines: u32,
    /// A running pi process has the file open (Linux only).
    pub live: bool,
    pub file_len: u64,
    /// The file's modification time, in nanoseconds since the epoch.
    pub mtime_ns: i64,
}

impl SessionSummary {
    /// What a picker row shows: the name if set, else the first message.
    pub fn title(&self) -> &str {
        self.name.as_deref().filter(|n| !n.trim().is_empty()).unwrap_or(&self.first_message)
    }
}
