//! The detail pane: the selected entry's full content (read from the file as JSON) as sanitized
//! lines, and, for the path root … selected, the entry count, tokens, cost, and the context the
//! model would get if pi resumed there. Also pi's copy rules (`getEntryCopyText`). Scrolling and
//! search-hit positions over those lines live here too.

use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

use super::search::hit_ranges;
use crate::display::{char_end, one_line, sanitize, truncate};
use crate::session::content::content_text;
use crate::session::entry::{ToolCall, Usage};
use crate::session::text::{Tone, format_tool_call};
use crate::session::{Ix, Kind, Session};
use crate::tui::picker::preview::{format_tokens, format_usage};

/// A text block longer than this many lines shows its head and tail only.
const LONG_LINES: usize = 400;
const HEAD_LINES: usize = 150;
const TAIL_LINES: usize = 50;
/// A line longer than this many characters is split (base64 blobs, minified files, huge logs).
const LINE_CHARS: usize = 1000;
/// A context longer than this many messages lists its first and last ones only.
const LONG_CONTEXT: usize = 200;
const CONTEXT_HEAD: usize = 20;
const CONTEXT_TAIL: usize = 100;
/// Columns of each context message's text.
const CONTEXT_TEXT_COLS: usize = 60;

/// One line of the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub tone: Tone,
    pub text: String,
}

fn line(tone: Tone, text: impl AsRef<str>) -> Line {
    Line { tone, text: sanitize(text.as_ref()).into_owned() }
}

/// What the pane shows for one entry.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    /// The entry shown or awaited.
    pub entry: Option<Ix>,
    /// The entry's JSON once loaded (kept for copying).
    pub json: Option<Value>,
    pub lines: Vec<Line>,
    /// First line shown.
    pub scroll: usize,
    /// Search hits as (line, byte range).
    pub hits: Vec<(usize, Range<usize>)>,
    /// The current hit (Ctrl+N / Ctrl+P).
    pub hit: Option<usize>,
}

/// Reads one entry's full JSON from the session file and builds what the detail pane shows:
/// the content, and the path's entries, tokens, cost and model context (which walks the whole path,
/// so on a 100,000-deep chain it takes milliseconds: run it on a worker). `Send`.
pub struct DetailJob {
    session: Arc<Session>,
    entry: Ix,
    home: Option<String>,
}

/// What a [`DetailJob`] built, for [`Report::Detail`](super::Report::Detail).
#[derive(Debug, Clone)]
pub struct DetailContent {
    lines: Vec<Line>,
    json: Option<Value>,
}

impl DetailJob {
    /// The entry the job is for (to skip starting the same job twice).
    pub fn entry(&self) -> Ix {
        self.entry
    }

    /// Build the content (reads the entry's line from the file); [`DetailJob::run`] reports it.
    pub(super) fn build(self) -> DetailContent {
        let session = &*self.session;
        let ix = self.entry;
        let mut lines = header_lines(session, ix);
        let json = match session.load(ix) {
            Ok(value) => {
                lines.extend(entry_lines(&value, self.home.as_deref()));
                Some(value)
            }
            Err(e) => {
                lines.push(line(Tone::Error, format!("cannot read this entry: {e:#}")));
                None
            }
        };
        lines.extend(path_lines(session, ix));
        DetailContent { lines, json }
    }
}

impl Detail {
    /// Wait for `entry` (nothing is shown until its content arrives).
    pub fn request(entry: Option<Ix>) -> Detail {
        Detail { entry, ..Detail::default() }
    }

    /// The job that builds the content, while it is missing.
    pub fn job(&self, session: &Arc<Session>, home: Option<&str>) -> Option<DetailJob> {
        let entry = self.entry.filter(|_| self.pending())?;
        Some(DetailJob { session: Arc::clone(session), entry, home: home.map(str::to_string) })
    }

    /// Whether the JSON of the entry is still missing.
    pub fn pending(&self) -> bool {
        self.entry.is_some() && self.lines.is_empty()
    }

    /// Show the content built by a [`DetailJob`].
    pub fn fill(&mut self, content: DetailContent) {
        self.lines = content.lines;
        self.json = content.json;
        self.scroll = 0;
    }

    /// Recompute the hits for a query's tokens.
    pub fn find_hits(&mut self, tokens: &[String]) {
        self.hits = self
            .lines
            .iter()
            .enumerate()
            .flat_map(|(i, l)| hit_ranges(&l.text, tokens).into_iter().map(move |r| (i, r)))
            .collect();
        self.hit = None;
    }

    /// Go to the next (or previous) hit and scroll its line to the top; false when there is none
    /// in that direction.
    pub fn step_hit(&mut self, forward: bool) -> bool {
        let next = match (self.hit, forward) {
            (None, true) => Some(0),
            (None, false) => self.hits.len().checked_sub(1),
            (Some(h), true) => Some(h + 1),
            (Some(h), false) => h.checked_sub(1),
        };
        match next.filter(|&n| n < self.hits.len()) {
            Some(n) => {
                self.hit = Some(n);
                self.scroll = self.hits[n].0;
                true
            }
            None => false,
        }
    }

    /// Scroll by `delta` lines, within the content.
    pub fn scroll_by(&mut self, delta: isize) {
        let max = self.lines.len().saturating_sub(1);
        self.scroll = self.scroll.saturating_add_signed(delta).min(max);
    }
}

/// Type, id, time, line and label of the entry.
fn header_lines(session: &Session, ix: Ix) -> Vec<Line> {
    let e = session.entry(ix);
    let kind = match e.role() {
        Some(role) => format!("{} ({role})", e.type_name()),
        None => e.type_name().to_string(),
    };
    let mut out = vec![line(Tone::Accent, format!("{kind} · {} · line {}", e.id, e.line))];
    out.push(line(Tone::Dim, &e.timestamp));
    if let Some(label) = session.graph.label_of(&e.id) {
        out.push(line(Tone::Warning, format!("[{}] (set {})", label.text, label.timestamp)));
    }
    out.push(line(Tone::Normal, ""));
    out
}

/// The entry's content by type; unknown shapes as pretty JSON.
fn entry_lines(value: &Value, home: Option<&str>) -> Vec<Line> {
    let mut out = Vec::new();
    match value["type"].as_str().unwrap_or("") {
        "message" => message_lines(&value["message"], home, &mut out),
        "custom_message" => {
            out.push(line(Tone::CustomLabel, format!("[{}]", value["customType"].as_str().unwrap_or(""))));
            push_text(&mut out, Tone::Normal, &content_text(&value["content"], "\n").unwrap_or_default());
        }
        "compaction" => {
            let tokens = value["tokensBefore"].as_f64().unwrap_or(0.0);
            out.push(line(Tone::BorderAccent, format!("compaction of {tokens} tokens")));
            if let Some(kept) = value["firstKeptEntryId"].as_str() {
                out.push(line(Tone::Dim, format!("kept from entry {kept}")));
            }
            push_text(&mut out, Tone::Normal, value["summary"].as_str().unwrap_or(""));
        }
        "branch_summary" => {
            out.push(line(
                Tone::Warning,
                format!("branch summary (from {})", value["fromId"].as_str().unwrap_or("?")),
            ));
            push_text(&mut out, Tone::Normal, value["summary"].as_str().unwrap_or(""));
        }
        _ => push_text(&mut out, Tone::Dim, &serde_json::to_string_pretty(value).unwrap_or_default()),
    }
    out
}

fn message_lines(m: &Value, home: Option<&str>, out: &mut Vec<Line>) {
    let role = m["role"].as_str().unwrap_or("");
    if let Some(cmd) = m["command"].as_str() {
        out.push(line(Tone::Dim, format!("$ {}", one_line(cmd))));
    }
    if let Some(name) = m["toolName"].as_str() {
        let error = if m["isError"].as_bool() == Some(true) { " (error)" } else { "" };
        out.push(line(Tone::Muted, format!("result of {name}{error}")));
    }
    match &m["content"] {
        Value::String(s) => push_text(out, Tone::Normal, s),
        Value::Array(blocks) => blocks.iter().for_each(|b| block_lines(b, home, out)),
        _ => {}
    }
    if let Some(output) = m["output"].as_str() {
        push_text(out, Tone::Normal, output);
    }
    if let Some(code) = m["exitCode"].as_i64() {
        out.push(line(Tone::Dim, format!("exit code {code}")));
    }
    if let Some(err) = m["errorMessage"].as_str() {
        out.push(line(Tone::Error, format!("error: {err}")));
    }
    if role == "assistant" {
        let model =
            format!("{}/{}", m["provider"].as_str().unwrap_or("?"), m["model"].as_str().unwrap_or("?"));
        let stop = m["stopReason"].as_str().unwrap_or("?");
        out.push(line(Tone::Dim, format!("{model} · stop: {stop}")));
    }
}

fn block_lines(block: &Value, home: Option<&str>, out: &mut Vec<Line>) {
    match block["type"].as_str().unwrap_or("") {
        "text" => push_text(out, Tone::Normal, block["text"].as_str().unwrap_or("")),
        "thinking" => {
            out.push(line(Tone::Dim, "thinking:"));
            push_text(out, Tone::Dim, block["thinking"].as_str().unwrap_or(""));
        }
        "toolCall" => {
            let args = &block["arguments"];
            let call = ToolCall::new(
                Default::default(),
                block["name"].as_str().unwrap_or("").into(),
                crate::session::tool_args::of_value(args),
            );
            out.push(line(Tone::Muted, format!("→ {}", format_tool_call(&call, home))));
            push_text(out, Tone::Dim, &serde_json::to_string_pretty(args).unwrap_or_default());
        }
        "image" => out.push(line(Tone::Muted, image_text(block))),
        other => out.push(line(Tone::Dim, format!("[{other} block]"))),
    }
}

/// `[image: image/png, 12 KB]` from a base64 image block.
fn image_text(block: &Value) -> String {
    let mime = block["mimeType"].as_str().unwrap_or("?");
    let bytes = block["data"].as_str().map_or(0, |d| d.len() * 3 / 4);
    format!("[image: {mime}, {} KB]", bytes.div_ceil(1024))
}

/// A text as lines; a very long one as its first and last lines around a count of the rest.
fn push_text(out: &mut Vec<Line>, tone: Tone, text: &str) {
    let lines: Vec<&str> = text.lines().flat_map(split_long).collect();
    if lines.len() <= LONG_LINES {
        out.extend(lines.iter().map(|l| line(tone, l)));
        return;
    }
    out.extend(lines[..HEAD_LINES].iter().map(|l| line(tone, l)));
    let hidden = lines.len() - HEAD_LINES - TAIL_LINES;
    out.push(line(Tone::Muted, format!("… {hidden} more lines ({} in all) …", lines.len())));
    out.extend(lines[lines.len() - TAIL_LINES..].iter().map(|l| line(tone, l)));
}

/// A line cut into pieces of at most [`LINE_CHARS`] characters.
fn split_long(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    loop {
        let at = char_end(rest, LINE_CHARS);
        if at == rest.len() {
            break;
        }
        pieces.push(&rest[..at]);
        rest = &rest[at..];
    }
    pieces.push(rest);
    pieces
}

/// Entries, tokens and cost on the path root … `ix`, and the model's context there.
fn path_lines(session: &Session, ix: Ix) -> Vec<Line> {
    let path = session.graph.path_to(ix);
    let mut usage = Usage::default();
    let mut context_size = None;
    for &i in &path {
        if let Some(u) = session.entry(i).usage() {
            usage.add(u);
            if session.entry(i).role() == Some("assistant") {
                context_size = Some(u.total_tokens());
            }
        }
    }
    let mut out = vec![
        line(Tone::Normal, ""),
        line(Tone::Accent, "── path root … here"),
        line(Tone::Normal, format!("{} entries · {}", path.len(), format_usage(&usage))),
    ];
    if let Some(size) = context_size {
        out.push(line(Tone::Dim, format!("context at the last reply: {} tokens", format_tokens(size))));
    }
    let messages = session.context_messages(Some(ix));
    out.push(line(
        Tone::Accent,
        format!("── what the model sees if pi resumes here ({} messages)", messages.len()),
    ));
    let shown: Vec<usize> = if messages.len() > LONG_CONTEXT {
        (0..CONTEXT_HEAD).chain(messages.len() - CONTEXT_TAIL..messages.len()).collect()
    } else {
        (0..messages.len()).collect()
    };
    for (n, &i) in shown.iter().enumerate() {
        if n == CONTEXT_HEAD && messages.len() > LONG_CONTEXT {
            out.push(line(
                Tone::Muted,
                format!("… {} more messages …", messages.len() - CONTEXT_HEAD - CONTEXT_TAIL),
            ));
        }
        let m = &messages[i];
        let edited = if m.replaced_by.is_some() { " (edited)" } else { "" };
        let text = context_head(session, m.entry, &m.role);
        out.push(line(
            role_tone(&m.role),
            format!("{}{edited}: {}", m.role, truncate(&text, CONTEXT_TEXT_COLS)),
        ));
    }
    out
}

/// The short text of a context message, from what the entry holds in memory.
fn context_head(session: &Session, ix: Ix, role: &str) -> String {
    let e = session.entry(ix);
    let text = match (&e.kind, role) {
        (Kind::Compaction { .. }, "system") => "(system prompt snapshot)",
        _ => crate::session::text::head_text(e),
    };
    one_line(text)
}

fn role_tone(role: &str) -> Tone {
    match role {
        "user" => Tone::Accent,
        "assistant" => Tone::Success,
        "branchSummary" | "compactionSummary" => Tone::Warning,
        _ => Tone::Muted,
    }
}

/// pi's copy text: a bash execution's command; a message's full text (an assistant's error message
/// when it has none); a custom message's text; a summary. `None`: nothing to copy.
pub fn copy_text(value: &Value) -> Option<String> {
    let text = match value["type"].as_str()? {
        "message" => {
            let m = &value["message"];
            match m["command"].as_str() {
                Some(cmd) if m["role"] == "bashExecution" => Some(cmd.to_string()),
                _ => content_text(&m["content"], "\n")
                    .filter(|t| !t.is_empty())
                    .or_else(|| m["errorMessage"].as_str().map(str::to_string)),
            }
        }
        "custom_message" => content_text(&value["content"], "\n"),
        "compaction" | "branch_summary" => value["summary"].as_str().map(str::to_string),
        _ => None,
    };
    text.filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A line is cut every [`LINE_CHARS`] characters (not bytes); one of exactly that many, or
    /// an empty one, stays whole.
    #[test]
    fn long_lines_are_cut_every_line_chars_characters() {
        let line = "é".repeat(2 * LINE_CHARS + 500);
        let pieces = split_long(&line);
        let counts: Vec<usize> = pieces.iter().map(|p| p.chars().count()).collect();
        assert_eq!(counts, [LINE_CHARS, LINE_CHARS, 500]);
        assert_eq!(pieces.concat(), line);
        assert_eq!(split_long(&"x".repeat(LINE_CHARS)).len(), 1);
        assert_eq!(split_long(""), [""]);
    }

    #[test]
    fn images_show_their_type_and_size() {
        let block = json!({"type": "image", "mimeType": "image/png", "data": "A".repeat(4096)});
        assert_eq!(image_text(&block), "[image: image/png, 3 KB]");
    }

    #[test]
    fn long_texts_keep_head_and_tail_with_a_count() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let mut out = Vec::new();
        push_text(&mut out, Tone::Normal, &text);
        assert_eq!(out.len(), HEAD_LINES + 1 + TAIL_LINES);
        assert_eq!(out[HEAD_LINES].text, "… 800 more lines (1000 in all) …");
        assert_eq!(out.last().unwrap().text, "line 999");
    }

    #[test]
    fn very_long_lines_are_split_not_cut() {
        let text = format!("{}end", "x".repeat(2500));
        let mut out = Vec::new();
        push_text(&mut out, Tone::Normal, &text);
        assert_eq!(out.len(), 3);
        assert!(out[2].text.ends_with("end"));
    }

    #[test]
    fn copy_follows_pi_rules() {
        let bash =
            json!({"type": "message", "message": {"role": "bashExecution", "command": "ls", "output": "x"}});
        assert_eq!(copy_text(&bash).as_deref(), Some("ls"));
        let err = json!({"type": "message", "message": {"role": "assistant", "content": [], "errorMessage": "boom"}});
        assert_eq!(copy_text(&err).as_deref(), Some("boom"));
        let blocks = json!({"type": "message", "message": {"role": "user", "content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}});
        assert_eq!(copy_text(&blocks).as_deref(), Some("a\nb"));
        assert_eq!(copy_text(&json!({"type": "label", "targetId": "x"})), None);
    }

    #[test]
    fn every_line_is_sanitized() {
        let value =
            json!({"type": "message", "message": {"role": "user", "content": "a\u{1b}[2Jb\u{202e}c\u{9b}d"}});
        for l in entry_lines(&value, None) {
            assert!(!l.text.chars().any(|c| c.is_control() || c == '\u{202e}'), "{:?}", l.text);
        }
    }
}
