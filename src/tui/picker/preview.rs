//! The preview of the highlighted session: its active branch (root → leaf) as a short readable
//! transcript — roles, message texts, one line per tool call — and the tokens and cost on that
//! branch. Built on a worker from the session file; the picker caches it per file version.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use color_eyre::eyre::{Result, eyre};

use crate::catalog::session_cache::{self, Level, SessionCache};
use crate::display::{one_line, sanitize};
use crate::session::entry::{Kind, Message, TextHead, Usage};
use crate::session::text::format_tool_call;
use crate::session::{Ix, Session};

/// The newest items of the branch kept for the preview (the pane shows the end of the branch).
pub const MAX_ITEMS: usize = 400;

/// What the preview pane shows for one session file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Preview {
    pub path: PathBuf,
    /// The file length the preview was built from (a grown file needs a new preview).
    pub file_len: u64,
    /// Entries on the active branch.
    pub branch_entries: usize,
    /// Entries in the whole file.
    pub total_entries: usize,
    /// Tokens and cost of the assistant messages and `usage` entries on the active branch.
    pub branch_usage: Usage,
    /// The model last used on the branch (`provider/model`).
    pub model: Option<String>,
    /// Lines of the file that could not be read.
    pub unreadable_lines: usize,
    /// Items before [`Preview::items`] that were left out.
    pub omitted: usize,
    /// The transcript, oldest first.
    pub items: Vec<Item>,
}

/// One block of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub role: Role,
    /// Sanitized text; may hold line breaks (message texts), or is one line (tool calls).
    pub text: String,
}

/// Who an item comes from, which decides its label and colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    /// One tool call of an assistant message, on one line.
    ToolCall,
    /// A tool result, on one line.
    ToolResult,
    Bash,
    /// A branch summary or a compaction summary.
    Summary,
    /// Custom messages, system prompts and other roles.
    Other,
}

impl Role {
    /// The label drawn before the text (empty for one-line items that carry their own).
    pub fn label(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Summary => "summary",
            Role::Bash => "bash",
            Role::ToolCall | Role::ToolResult | Role::Other => "",
        }
    }
}

/// A preview with the session it was built from, which the tree view opens from when the user
/// presses Enter on that session (so the file is not read a second time).
#[derive(Debug, Clone)]
pub struct Previewed {
    pub preview: Arc<Preview>,
    pub session: Arc<Session>,
}

/// Read `path` and build its preview. `last` is the session the previous preview was built
/// from: when it is the same file, it is used as it is if the file is unchanged on disk, and
/// brought up to date by reading only the appended lines if the file grew (pi is writing to it).
/// Another file is read through `cache`; the level returned is what the read should be kept at
/// in it (see [`session_cache::Read::keep`]).
pub fn load(
    path: &Path,
    last: Option<&Arc<Session>>,
    cache: Option<&SessionCache>,
) -> Result<(Previewed, Option<Level>)> {
    let (session, keep) = match last.filter(|s| s.file.path == path) {
        Some(last) if last.file.unchanged_on_disk() => (Arc::clone(last), None),
        Some(last) => (Arc::new(last.reread().map_err(|e| eyre!("{e}"))?), None),
        None => {
            let read = session_cache::read(cache, path, Level::Whole).map_err(|e| eyre!("{e}"))?;
            (Arc::new(Session::from_parsed(read.file)), read.keep)
        }
    };
    Ok((Previewed { preview: Arc::new(build(&session)), session }, keep))
}

/// The preview of a parsed session.
pub fn build(session: &Session) -> Preview {
    let branch: Vec<Ix> = session.graph.leaf().map(|leaf| session.graph.path_to(leaf)).unwrap_or_default();
    let mut usage = Usage::default();
    let mut model = None;
    let mut items = Vec::new();
    for &ix in &branch {
        let entry = session.entry(ix);
        if let Some(u) = entry.usage() {
            usage.add(u);
        }
        if let Kind::Message(m) = &entry.kind
            && let (Some(p), Some(name)) = (&m.provider, &m.model)
        {
            model = Some(format!("{p}/{name}"));
        }
        if let Kind::ModelChange { provider, model_id } = &entry.kind {
            model = Some(format!("{provider}/{model_id}"));
        }
        push_items(&entry.kind, &mut items);
    }
    let omitted = items.len().saturating_sub(MAX_ITEMS);
    items.drain(..omitted);
    Preview {
        path: session.file.path.clone(),
        file_len: session.file.facts.len,
        branch_entries: branch.len(),
        total_entries: session.entries().len(),
        branch_usage: usage,
        model: model.map(|m| one_line(&m)),
        unreadable_lines: session.file.damage.len(),
        omitted,
        items,
    }
}

fn push_items(kind: &Kind, items: &mut Vec<Item>) {
    let mut push = |role, text: String| {
        if !text.trim().is_empty() {
            items.push(Item { role, text });
        }
    };
    match kind {
        Kind::Message(m) => match m.role.as_str() {
            "user" => push(Role::User, block(&m.text)),
            "assistant" => {
                push(Role::Assistant, assistant_text(m));
                for call in &m.tool_calls {
                    push(Role::ToolCall, format!("→ {}", format_tool_call(call, None)));
                }
            }
            "toolResult" => push(Role::ToolResult, tool_result(m)),
            "bashExecution" => push(Role::Bash, one_line(m.command.as_deref().unwrap_or(""))),
            "system" => {}
            role => push(Role::Other, format!("[{}] {}", one_line(role), one_line(&m.text.head))),
        },
        Kind::BranchSummary { summary, .. } => push(Role::Summary, block(summary)),
        Kind::Compaction { summary, .. } => push(Role::Summary, block(summary)),
        Kind::CustomMessage { custom_type, text, display: true } => {
            push(Role::Other, format!("[{}] {}", one_line(custom_type), one_line(&text.head)))
        }
        _ => {}
    }
}

fn assistant_text(m: &Message) -> String {
    if !m.text.is_empty() {
        return block(&m.text);
    }
    match (&m.stop_reason, &m.error_message) {
        (Some(reason), _) if reason == "aborted" => "(aborted)".into(),
        (_, Some(error)) if !error.is_empty() => format!("(error) {}", one_line(error)),
        _ => String::new(),
    }
}

fn tool_result(m: &Message) -> String {
    let first = m.text.head.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let name = m.tool_name.as_deref().unwrap_or("tool");
    let more = if !m.text.is_complete() || m.text.head.chars().count() > first.chars().count() {
        " …"
    } else {
        ""
    };
    format!("  ⎿ {}: {}{more}", one_line(name), one_line(first))
}

/// A message text kept with its line breaks, each line sanitized, with `…` when it was cut.
fn block(text: &TextHead) -> String {
    let lines: Vec<String> = text.head.trim().lines().map(|l| sanitize(l.trim_end()).into_owned()).collect();
    let mut out = lines.join("\n");
    if !text.is_complete() {
        out.push('…');
    }
    out
}

/// Token counts as pi's footer shows them: `950`, `1.2k`, `34k`, `1.5M`.
pub fn format_tokens(n: f64) -> String {
    if n < 1000.0 {
        format!("{}", n.round() as i64)
    } else if n < 10_000.0 {
        format!("{:.1}k", n / 1000.0)
    } else if n < 1_000_000.0 {
        format!("{}k", (n / 1000.0).round() as i64)
    } else {
        format!("{:.1}M", n / 1_000_000.0)
    }
}

/// `↑input ↓output Rcache-read Wcache-write $cost`, leaving out zero parts.
pub fn format_usage(u: &Usage) -> String {
    let mut parts = Vec::new();
    for (mark, n) in [("↑", u.input), ("↓", u.output), ("R", u.cache_read), ("W", u.cache_write)] {
        if n > 0.0 {
            parts.push(format!("{mark}{}", format_tokens(n)));
        }
    }
    if u.cost > 0.0 {
        parts.push(format!("${:.3}", u.cost));
    }
    if parts.is_empty() { "no usage recorded".into() } else { parts.join(" ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_read_like_pi_footer() {
        assert_eq!(format_tokens(950.0), "950");
        assert_eq!(format_tokens(1234.0), "1.2k");
        assert_eq!(format_tokens(34_400.0), "34k");
        assert_eq!(format_tokens(1_520_000.0), "1.5M");
        let u = Usage {
            input: 10_000.0,
            output: 11_000.0,
            cache_read: 304_000.0,
            cache_write: 19_000.0,
            cost: 0.3671,
        };
        assert_eq!(format_usage(&u), "↑10k ↓11k R304k W19k $0.367");
        assert_eq!(format_usage(&Usage::default()), "no usage recorded");
    }

    fn fixture() -> PathBuf {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent/sessions/--home-dev-alpha--");
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.to_string_lossy().contains("2025-06-06T16-20-00")
                    && p.extension().is_some_and(|e| e == "jsonl")
            })
            .unwrap()
    }

    #[test]
    fn the_active_branch_of_a_fixture_reads_as_a_transcript() {
        let preview = load(&fixture(), None, None).unwrap().0.preview;
        assert!(preview.branch_entries > 0 && preview.branch_entries <= preview.total_entries);
        assert!(preview.items.iter().any(|i| i.role == Role::User));
        for item in &preview.items {
            assert!(!item.text.chars().any(|c| c.is_control() && c != '\n'), "{item:?}");
            if matches!(item.role, Role::ToolCall | Role::ToolResult | Role::Bash) {
                assert!(!item.text.contains('\n'), "one line: {item:?}");
            }
        }
    }

    #[test]
    fn the_last_session_is_kept_while_unchanged_and_brought_up_to_date_when_grown() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        std::fs::copy(fixture(), &file).unwrap();
        let first = load(&file, None, None).unwrap().0;

        let again = load(&file, Some(&first.session), None).unwrap().0;
        assert!(Arc::ptr_eq(&again.session, &first.session), "an unchanged file is not read again");
        assert_eq!(again.preview, first.preview);

        let leaf = first.session.entry(first.session.graph.leaf().unwrap()).id.to_string();
        let line = format!(
            r#"{{"type":"message","id":"0a0b0c0d","parentId":"{leaf}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"one more question","timestamp":1767225600000}}}}"#
        );
        let mut out = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
        std::io::Write::write_all(&mut out, format!("{line}\n").as_bytes()).unwrap();
        let grown = load(&file, Some(&first.session), None).unwrap().0;
        assert_eq!(
            *grown.preview,
            *load(&file, None, None).unwrap().0.preview,
            "the same as reading it whole"
        );
        assert_eq!(grown.preview.items.last().unwrap().text, "one more question");

        let other = tempfile::NamedTempFile::new_in(dir.path()).unwrap();
        std::fs::copy(fixture(), other.path()).unwrap();
        let elsewhere = load(other.path(), Some(&first.session), None).unwrap().0;
        assert_eq!(elsewhere.session.file.path, other.path(), "another file's session is not used");
    }
}
