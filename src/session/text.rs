//! What an entry looks like as one row of pi's tree (pi-reference §3.3) and what the tree's search
//! matches against (§3.4): the row text per entry type, pi's formatted tool calls (`[read: ~/a.ts:10-14]`,
//! `[bash: …]`), and the words pi adds to each entry's searchable text.
//!
//! Differences from pi, on purpose (§6.2): every control and bidi character is sanitized (pi only
//! replaces `\n` and `\t`), texts are cut by grapheme cluster rather than by UTF-16 unit, and
//! `usage` entries (which pi's tree never shows) and unknown types get a generic row text instead
//! of an empty one. A `context_edit` without a `replacement` key reads as omitting its target
//! (pi's context builder fails on it).

use std::borrow::Cow;

use super::entry::{Entry, Kind, LineArg, Message, ToolCall};
use super::graph::Ix;
use super::js::{self, push_number, utf16_head, utf16_len};
use crate::display::{char_end, sanitize};
use crate::memory::prefetch;

/// How many characters of a message text a row shows (pi cuts at 200 UTF-16 units).
pub const ROW_TEXT_CHARS: usize = 200;

/// How many characters of an assistant's error message a row shows.
const ERROR_CHARS: usize = 80;

/// The colour role of a piece of row text, named after pi's theme colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Normal,
    /// `user: `.
    Accent,
    /// `assistant: `.
    Success,
    /// An assistant's error message.
    Error,
    /// `[branch summary]: `.
    Warning,
    /// Tool results, `(aborted)`, `(no content)`.
    Muted,
    /// Settings entries, `[bash]: …`, other roles.
    Dim,
    /// `[<customType>]: ` of a custom message.
    CustomLabel,
    /// `[compaction: …]`.
    BorderAccent,
    /// The italic `empty` of a cleared title.
    Italic,
}

/// One piece of a row text: sanitized, single-line text in one tone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub tone: Tone,
    pub text: String,
}

/// A row's text as pieces, e.g. `user: ` (accent) + `Let's try A.` (normal).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowText {
    pub pieces: Vec<Piece>,
}

impl RowText {
    /// The pieces joined.
    pub fn plain(&self) -> String {
        self.pieces.iter().map(|p| p.text.as_str()).collect()
    }
}

/// Where a row text is written, piece by piece, each in its tone: a [`RowText`] keeps the pieces,
/// a `String` only their text (what `pitree show` prints).
pub trait TextOut {
    /// Append what `write` appends to the string it is given, as text in `tone`.
    fn put_with(&mut self, tone: Tone, write: impl FnOnce(&mut String));

    /// Append `text` in `tone`.
    fn put(&mut self, tone: Tone, text: &str) {
        self.put_with(tone, |out| out.push_str(text));
    }
}

impl TextOut for RowText {
    /// Text in the tone of the last piece extends that piece; an empty piece is left out.
    fn put_with(&mut self, tone: Tone, write: impl FnOnce(&mut String)) {
        match self.pieces.last_mut() {
            Some(last) if last.tone == tone => write(&mut last.text),
            _ => {
                let mut text = String::new();
                write(&mut text);
                if !text.is_empty() {
                    self.pieces.push(Piece { tone, text });
                }
            }
        }
    }
}

impl TextOut for String {
    fn put_with(&mut self, _tone: Tone, write: impl FnOnce(&mut String)) {
        write(self);
    }
}

/// Every tool call in the session by its id, so a tool result's row can show the call it answers.
/// Built in pi's flattening order; when ids repeat, the last one seen wins, as in pi. Kept as
/// sorted `(hash of id, position)` pairs that point into the entries, so a session of 100,000
/// calls does not copy their ids. (Not an [`super::ids::IdIndex`], which keeps a copy of its ids
/// because the graph has no entries to read them from: on the benchmark's 35,000 calls that
/// measured 3 MB more at the first frame for no faster a frame.)
#[derive(Debug, Clone, Default)]
pub struct ToolCalls {
    /// `(hash of the id, order of insertion, entry, call within the entry)`, sorted.
    calls: Vec<(u64, u32, Ix, u32)>,
    /// For each value of the top `bits` bits of a hash, where the calls whose hash
    /// starts with it begin in `calls`, then the end of `calls`: a lookup reads one or two calls
    /// in place of a binary search over all of them (a cache miss per step on 35,000 calls, the
    /// most costly part of `pitree show`'s rows).
    starts: Vec<u32>,
    bits: u32,
}

impl ToolCalls {
    /// Index the tool calls of the assistant messages among `order`.
    pub fn build(entries: &[Entry], order: &[Ix]) -> ToolCalls {
        let mut calls = Vec::new();
        for &ix in order {
            let entry = &entries[ix as usize];
            let Some(m) = entry.message().filter(|_| entry.traits().has_tool_calls()) else {
                continue;
            };
            for (n, call) in m.tool_calls.iter().enumerate() {
                calls.push((call.id_hash(), calls.len() as u32, ix, n as u32));
            }
        }
        calls.sort_unstable();
        // About two calls a bucket: `starts` takes at most 4 bytes a call.
        let bits = (calls.len() / 2).next_power_of_two().trailing_zeros();
        let mut found = ToolCalls { calls, starts: Vec::new(), bits };
        found.starts = found.bucket_starts();
        found
    }

    /// The top `bits` bits of `hash`.
    fn bucket(&self, hash: u64) -> usize {
        hash.checked_shr(64 - self.bits).unwrap_or(0) as usize
    }

    /// [`ToolCalls::starts`], from the sorted calls.
    fn bucket_starts(&self) -> Vec<u32> {
        let buckets = 1 << self.bits;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut at = 0;
        for bucket in 0..=buckets {
            while self.calls.get(at).is_some_and(|c| self.bucket(c.0) < bucket) {
                at += 1;
            }
            starts.push(at as u32);
        }
        starts
    }

    /// Ask the memory for the calls a lookup of this id will read (see [`crate::memory::prefetch`]).
    pub fn prefetch(&self, id: &str) {
        let bucket = self.bucket(ToolCall::hash_id(id));
        if let (Some(&start), Some(&end)) = (self.starts.get(bucket), self.starts.get(bucket + 1)) {
            prefetch(&self.calls[start as usize..end as usize]);
        }
    }

    /// The call with this id.
    pub fn get<'a>(&self, entries: &'a [Entry], id: &str) -> Option<&'a ToolCall> {
        self.find(entries, id).map(|(_, call)| call)
    }

    /// The entry that makes the call with this id.
    pub fn owner(&self, entries: &[Entry], id: &str) -> Option<Ix> {
        self.find(entries, id).map(|(ix, _)| ix)
    }

    fn find<'a>(&self, entries: &'a [Entry], id: &str) -> Option<(Ix, &'a ToolCall)> {
        let hash = ToolCall::hash_id(id);
        let bucket = self.bucket(hash);
        let (&start, &end) = (self.starts.get(bucket)?, self.starts.get(bucket + 1)?);
        self.calls[start as usize..end as usize]
            .iter()
            .rev()
            .filter(|c| c.0 == hash)
            .filter_map(|&(_, _, ix, n)| {
                Some((ix, entries[ix as usize].message()?.tool_calls.get(n as usize)?))
            })
            .find(|(_, call)| call.id == id)
    }
}

/// What the row of `entry` says after its markers and label. `home` is the user's home directory,
/// shown as `~` in tool-call paths.
pub fn row_text(entry: &Entry, entries: &[Entry], calls: &ToolCalls, home: Option<&str>) -> RowText {
    let mut text = RowText::default();
    write_row_text(entry, entries, calls, home, &mut text);
    text
}

/// [`row_text`] written to `out`.
pub fn write_row_text(
    entry: &Entry,
    entries: &[Entry],
    calls: &ToolCalls,
    home: Option<&str>,
    out: &mut impl TextOut,
) {
    match &entry.kind {
        Kind::Message(m) => write_message_text(m, entries, calls, home, out),
        Kind::CustomMessage { custom_type, text, .. } => {
            tagged(out, Tone::CustomLabel, "[", custom_type, "]: ");
            out.put(Tone::Normal, &row_line(&text.head));
        }
        Kind::Compaction { tokens_before, .. } => out
            .put(Tone::BorderAccent, &format!("[compaction: {}k tokens]", (tokens_before / 1000.0).round())),
        Kind::BranchSummary { summary, .. } => {
            out.put(Tone::Warning, "[branch summary]: ");
            out.put(Tone::Normal, &normalize(&summary.head));
        }
        Kind::ModelChange { model_id, .. } => tagged(out, Tone::Dim, "[model: ", model_id, "]"),
        Kind::ThinkingLevelChange { level } => tagged(out, Tone::Dim, "[thinking: ", level, "]"),
        Kind::Custom { custom_type } => tagged(out, Tone::Dim, "[custom: ", custom_type, "]"),
        Kind::Label { label, .. } => match label {
            Some(l) => tagged(out, Tone::Dim, "[label: ", l, "]"),
            None => out.put(Tone::Dim, "[label: (cleared)]"),
        },
        Kind::SessionInfo { name } => match name.as_deref() {
            Some(n) if !n.is_empty() => tagged(out, Tone::Dim, "[title: ", n, "]"),
            _ => {
                out.put(Tone::Dim, "[title: ");
                out.put(Tone::Italic, "empty");
                out.put(Tone::Dim, "]");
            }
        },
        Kind::Usage { kind, .. } => tagged(out, Tone::Dim, "[usage: ", kind, "]"),
        Kind::ContextEdit { target_id, drops } => {
            tagged(out, Tone::Dim, &format!("[context {}: ", edit_verb(*drops)), target_id, "]");
        }
        Kind::Unknown { type_name } => tagged(out, Tone::Dim, "[", type_name, "]"),
    }
}

/// `open`, `text` sanitized, `close`, in one tone.
fn tagged(out: &mut impl TextOut, tone: Tone, open: &str, text: &str, close: &str) {
    out.put_with(tone, |out| {
        out.push_str(open);
        out.push_str(&sanitize(text));
        out.push_str(close);
    });
}

/// [`write_row_text`] for a message, by its role.
fn write_message_text(
    m: &Message,
    entries: &[Entry],
    calls: &ToolCalls,
    home: Option<&str>,
    out: &mut impl TextOut,
) {
    match m.role.as_str() {
        "user" => {
            out.put(Tone::Accent, "user: ");
            out.put(Tone::Normal, &row_line(&m.text.head));
        }
        "assistant" => {
            out.put(Tone::Success, "assistant: ");
            let text = row_line(&m.text.head);
            if !text.is_empty() {
                out.put(Tone::Normal, &text);
            } else if m.stop_reason.as_deref() == Some("aborted") {
                out.put(Tone::Muted, "(aborted)");
            } else if let Some(err) = m.error_message.as_deref().filter(|e| !e.is_empty()) {
                out.put(Tone::Error, cut_chars(&normalize(err), ERROR_CHARS));
            } else {
                out.put(Tone::Muted, "(no content)");
            }
        }
        "toolResult" => {
            let call = m.tool_call_id.as_deref().and_then(|id| calls.get(entries, id));
            match (call, m.tool_name.as_deref()) {
                (Some(call), _) => out.put_with(Tone::Muted, |out| write_tool_call(call, home, out)),
                (None, Some(name)) => tagged(out, Tone::Muted, "[", name, "]"),
                (None, _) => out.put(Tone::Muted, "[tool]"),
            }
        }
        "bashExecution" => {
            out.put(Tone::Dim, "[bash]: ");
            out.put(Tone::Dim, &normalize(m.command.as_deref().unwrap_or("")));
        }
        role => tagged(out, Tone::Dim, "[", role, "]"),
    }
}

/// A message text for a row: cut to [`ROW_TEXT_CHARS`] characters (between grapheme clusters),
/// then normalized.
fn row_line(text: &str) -> Cow<'_, str> {
    normalize(cut_chars(text, ROW_TEXT_CHARS))
}

/// pi's `normalize` (line breaks and tabs become spaces, then trim), with every other control
/// and bidi character sanitized too. Runs of spaces stay, as in pi.
fn normalize(text: &str) -> Cow<'_, str> {
    match sanitize(text) {
        Cow::Borrowed(clean) => Cow::Borrowed(clean.trim()),
        Cow::Owned(clean) => Cow::Owned(clean.trim().to_string()),
    }
}

/// The first `max` characters of `text`, extended to the end of a grapheme cluster.
fn cut_chars(text: &str, max: usize) -> &str {
    let end = ascii_cut(text.as_bytes(), max).unwrap_or_else(|| grapheme_cut(text, max));
    &text[..end]
}

/// Where [`cut_chars`] cuts: clusters are taken while fewer than `max` characters are, so the cut
/// is the first cluster boundary at or after the `max`-th character, found by counting
/// characters and asking the segmenter about that one place (the text is its one chunk, so it
/// can look back as far as a rule needs and never asks for more).
fn grapheme_cut(text: &str, max: usize) -> usize {
    use unicode_segmentation::GraphemeCursor;
    let after_max = char_end(text, max);
    let mut cursor = GraphemeCursor::new(after_max, text.len(), true);
    match cursor.is_boundary(text, 0) {
        Ok(true) => after_max,
        _ => cursor.next_boundary(text, 0).ok().flatten().unwrap_or(text.len()),
    }
}

/// [`cut_chars`] without the grapheme walk when its answer is plain: the first `max` bytes are
/// ASCII without a `\r` (so each is a cluster of one character, and no `\r\n` pair is one of
/// two), and the byte after them, if any, is ASCII too (so it extends no cluster before it).
fn ascii_cut(text: &[u8], max: usize) -> Option<usize> {
    let end = text.len().min(max);
    // `fold` rather than `all`: no early exit, so the bytes are tested a vector at a time.
    let plain = text[..end].iter().fold(true, |ok, &b| ok & b.is_ascii() & (b != b'\r'));
    (plain && text.get(end).is_none_or(u8::is_ascii)).then_some(end)
}

/// pi's `formatToolCall`: a one-line summary of a tool call, sanitized.
pub fn format_tool_call(call: &ToolCall, home: Option<&str>) -> String {
    let mut out = String::new();
    write_tool_call(call, home, &mut out);
    out
}

/// [`format_tool_call`] appended to `out`.
pub fn write_tool_call<'c>(call: &'c ToolCall, home: Option<&str>, out: &mut String) {
    let start = out.len();
    let args = &call.args;
    let shown = |arg: Option<&'c String>, default: &'static str| {
        shorten_path(arg.map_or(default, String::as_str), home)
    };
    let file = || shown(args.path.as_ref().or(args.file_path.as_ref()), "");
    let pattern = args.pattern.as_deref().unwrap_or("");
    match call.name.as_str() {
        "read" => {
            out.extend(["[read: ", &*file()]);
            write_read_range(args.offset, args.limit, out);
            out.push(']');
        }
        "write" => out.extend(["[write: ", &*file(), "]"]),
        "edit" => out.extend(["[edit: ", &*file(), "]"]),
        "bash" => {
            let raw = args.command.as_deref().unwrap_or("");
            let cmd = if raw.contains(['\n', '\t']) {
                Cow::Owned(raw.replace(['\n', '\t'], " "))
            } else {
                Cow::Borrowed(raw)
            };
            let more = if utf16_len(raw) > 50 { "..." } else { "" };
            out.extend(["[bash: ", &*utf16_head(js::trim(&cmd), 50), more, "]"]);
        }
        "grep" => out.extend(["[grep: /", pattern, "/ in ", &*shown(args.path.as_ref(), "."), "]"]),
        "find" => out.extend(["[find: ", pattern, " in ", &*shown(args.path.as_ref(), "."), "]"]),
        "ls" => out.extend(["[ls: ", &*shown(args.path.as_ref(), "."), "]"]),
        name => {
            let more = if !args.json_complete || utf16_len(&args.json_head) > 40 { "..." } else { "" };
            out.extend(["[", name, ": ", &*utf16_head(&args.json_head, 40), more, "]"]);
        }
    }
    sanitize_from(out, start);
}

/// Sanitize, in place, what `out` holds from `start` on.
fn sanitize_from(out: &mut String, start: usize) {
    if let Cow::Owned(clean) = sanitize(&out[start..]) {
        out.truncate(start);
        out.push_str(&clean);
    }
}

/// pi's `formatReadLineRange` appended to `out`: `:START` or `:START-END`, nothing when a bound is
/// not a number.
fn write_read_range(offset: LineArg, limit: LineArg, out: &mut String) {
    let start = match offset {
        LineArg::Absent if limit == LineArg::Absent => return,
        LineArg::Absent => 1.0,
        LineArg::Number(n) => n,
        LineArg::Invalid => return,
    };
    let end = match limit {
        LineArg::Absent => None,
        LineArg::Number(count) => Some(start + count - 1.0).filter(|&end| end != 0.0),
        LineArg::Invalid => return,
    };
    out.push(':');
    push_number(out, start);
    if let Some(end) = end {
        out.push('-');
        push_number(out, end);
    }
}

/// pi's `shortenHomePath`: an absolute path inside `home` (both resolved: `.`, `..` and repeated
/// or trailing slashes gone) as `~` or `~/REST`; any other path as it is.
fn shorten_path<'a>(path: &'a str, home: Option<&str>) -> Cow<'a, str> {
    let Some(home) = home.filter(|h| h.starts_with('/')) else { return Cow::Borrowed(path) };
    if !path.starts_with('/') {
        return Cow::Borrowed(path);
    }
    let (home, resolved) = (resolve(home), resolve(path));
    if resolved == home {
        return Cow::Borrowed("~");
    }
    let within = match resolved.strip_prefix(&*home) {
        Some(rest) if home == "/" => Some(rest),
        Some(rest) => rest.strip_prefix('/'),
        None => None,
    };
    within.map_or(Cow::Borrowed(path), |rest| Cow::Owned(format!("~/{rest}")))
}

/// An absolute path resolved as `path.posix.resolve` does it, without touching the disk.
fn resolve(path: &str) -> Cow<'_, str> {
    let resolved = path.len() > 1 && path.split('/').skip(1).all(|part| !matches!(part, "" | "." | ".."));
    if resolved {
        return Cow::Borrowed(path);
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    Cow::Owned(format!("/{}", parts.join("/")))
}

/// The words pi puts into an entry's searchable text besides its label and its content text:
/// the role or type name (`user`, `compaction`, `branch summary`, `model gpt-5`, …).
pub fn search_words(entry: &Entry) -> String {
    match &entry.kind {
        Kind::Message(m) => match &m.command {
            Some(cmd) => format!("{} {cmd}", m.role),
            None => m.role.to_string(),
        },
        Kind::CustomMessage { custom_type, .. } => custom_type.clone(),
        Kind::Compaction { .. } => "compaction".to_string(),
        Kind::BranchSummary { .. } => "branch summary".to_string(),
        Kind::ModelChange { model_id, .. } => format!("model {model_id}"),
        Kind::ThinkingLevelChange { level } => format!("thinking {level}"),
        Kind::Custom { custom_type } => format!("custom {custom_type}"),
        Kind::Label { label, .. } => format!("label {}", label.as_deref().unwrap_or("")),
        Kind::SessionInfo { name } => format!("title {}", name.as_deref().unwrap_or("")),
        Kind::Usage { kind, .. } => format!("usage {kind}"),
        Kind::ContextEdit { target_id, drops } => format!("context edit {} {target_id}", edit_verb(*drops)),
        Kind::Unknown { type_name } => type_name.clone(),
    }
}

/// pi's word for what a `context_edit` does to its target.
fn edit_verb(drops: bool) -> &'static str {
    if drops { "omit" } else { "replace" }
}

/// The content text an entry carries in memory (the first [`super::entry::TEXT_HEAD_CHARS`] characters), for searching before
/// the full-text index is built.
pub fn head_text(entry: &Entry) -> &str {
    match &entry.kind {
        Kind::Message(m) => &m.text.head,
        Kind::CustomMessage { text, .. } => &text.head,
        Kind::Compaction { summary, .. } | Kind::BranchSummary { summary, .. } => &summary.head,
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entry::{TextHead, ToolArgs};
    use proptest::prelude::*;

    fn call(name: &str, args: ToolArgs) -> ToolCall {
        ToolCall::new("c1".into(), name.into(), args)
    }

    #[test]
    fn tool_calls_are_found_by_id_and_a_repeated_id_finds_the_last() {
        let assistant = |id: &str, calls: &[(&str, &str)]| {
            let blocks: Vec<String> = calls
                .iter()
                .map(|(cid, name)| {
                    format!(r#"{{"type":"toolCall","id":"{cid}","name":"{name}","arguments":{{}}}}"#)
                })
                .collect();
            format!(
                r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{{"role":"assistant","content":[{}]}}}}"#,
                blocks.join(",")
            )
        };
        let text = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#
                .to_string(),
            assistant("a", &[("x", "first"), ("y", "other")]),
            assistant("b", &[("x", "second")]),
        ]
        .join("\n");
        let file = crate::session::parse::parse_bytes(text.as_bytes(), "t.jsonl".into()).unwrap();
        let order: Vec<Ix> = (0..file.entries.len() as Ix).collect();
        let calls = ToolCalls::build(&file.entries, &order);
        let name = |id: &str| calls.get(&file.entries, id).map(|c| c.name.clone());
        assert_eq!(name("x").as_deref(), Some("second"));
        assert_eq!(name("y").as_deref(), Some("other"));
        assert_eq!(name("z"), None);
    }

    #[test]
    fn every_one_of_many_calls_is_found_and_a_repeated_id_finds_the_last() {
        let ids: Vec<String> = (0..3000).map(|n| format!("call_{}", n % 2500)).collect();
        let blocks: Vec<String> = ids
            .iter()
            .enumerate()
            .map(|(n, id)| format!(r#"{{"type":"toolCall","id":"{id}","name":"t{n}","arguments":{{}}}}"#))
            .collect();
        let text = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#
                .to_string(),
            format!(
                r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{{"role":"assistant","content":[{}]}}}}"#,
                blocks.join(",")
            ),
        ]
        .join("\n");
        let file = crate::session::parse::parse_bytes(text.as_bytes(), "t.jsonl".into()).unwrap();
        let calls = ToolCalls::build(&file.entries, &[0]);
        for (n, id) in ids.iter().enumerate() {
            let last = ids.iter().rposition(|other| other == id).unwrap();
            let name = calls.get(&file.entries, id).map(|c| c.name.to_string());
            assert_eq!(name, Some(format!("t{last}")), "call {n}");
        }
        assert_eq!(calls.get(&file.entries, "call_2500").map(|c| c.id.clone()), None);
    }

    #[test]
    fn read_with_offset_and_limit_shows_the_line_range_under_home() {
        let args = ToolArgs {
            path: Some("/home/dev/a.ts".into()),
            offset: LineArg::Number(10.0),
            limit: LineArg::Number(5.0),
            ..Default::default()
        };
        assert_eq!(format_tool_call(&call("read", args), Some("/home/dev")), "[read: ~/a.ts:10-14]");
        let only_limit =
            ToolArgs { path: Some("x".into()), limit: LineArg::Number(3.0), ..Default::default() };
        assert_eq!(format_tool_call(&call("read", only_limit), None), "[read: x:1-3]");
        let only_offset = ToolArgs {
            path: Some("/home/devx/y".into()),
            offset: LineArg::Number(7.0),
            ..Default::default()
        };
        assert_eq!(format_tool_call(&call("read", only_offset), Some("/home/dev")), "[read: /home/devx/y:7]");
    }

    #[test]
    fn long_bash_commands_are_cut_at_50_with_dots() {
        let cmd = "x".repeat(60);
        let args = ToolArgs { command: Some(cmd), ..Default::default() };
        assert_eq!(format_tool_call(&call("bash", args), None), format!("[bash: {}...]", "x".repeat(50)));
    }

    #[test]
    fn grep_find_ls_and_other_tools() {
        let args = ToolArgs { pattern: Some("fn main".into()), ..Default::default() };
        assert_eq!(format_tool_call(&call("grep", args.clone()), None), "[grep: /fn main/ in .]");
        assert_eq!(format_tool_call(&call("find", args), None), "[find: fn main in .]");
        assert_eq!(format_tool_call(&call("ls", ToolArgs::default()), None), "[ls: .]");
        let other = ToolArgs {
            json_head: "{\"query\":\"a very long search query that goes on\"}".into(),
            ..Default::default()
        };
        assert_eq!(
            format_tool_call(&call("web", other), None),
            "[web: {\"query\":\"a very long search query that ...]"
        );
    }

    fn entry(kind: Kind) -> Entry {
        Entry::new("e1".into(), None, Default::default(), None, kind, 2, 0..0)
    }

    #[test]
    fn compaction_rounds_thousands_like_pi() {
        for (tokens, shown) in [(12345.0, "12k"), (1500.0, "2k"), (400.0, "0k")] {
            let e = entry(Kind::Compaction {
                tokens_before: tokens,
                first_kept_entry_id: None,
                first_kept_entry_index: None,
                summary: TextHead::default(),
                has_system_message: false,
            });
            let text = row_text(&e, &[], &ToolCalls::default(), None).plain();
            assert_eq!(text, format!("[compaction: {shown} tokens]"));
        }
    }

    #[test]
    fn assistant_without_text_shows_aborted_error_or_no_content() {
        let assistant = |stop: Option<&str>, err: Option<&str>| {
            let e = entry(Kind::Message(Box::new(Message {
                role: "assistant".into(),
                stop_reason: stop.map(Into::into),
                error_message: err.map(Into::into),
                ..Default::default()
            })));
            row_text(&e, &[], &ToolCalls::default(), None).plain()
        };
        assert_eq!(assistant(Some("aborted"), None), "assistant: (aborted)");
        let long = "e".repeat(100);
        assert_eq!(assistant(Some("error"), Some(&long)), format!("assistant: {}", "e".repeat(80)));
        assert_eq!(assistant(Some("stop"), None), "assistant: (no content)");
    }

    #[test]
    fn message_text_is_cut_to_200_characters_and_sanitized() {
        let text = format!("a\x1b[31m\u{202E}b\n{}", "z".repeat(300));
        let e = entry(Kind::Message(Box::new(Message {
            role: "user".into(),
            text: TextHead::new(&text),
            ..Default::default()
        })));
        let row = row_text(&e, &[], &ToolCalls::default(), None).plain();
        assert!(row.starts_with("user: a [31m b "), "{row}");
        assert!(!row.chars().any(|c| c.is_control() || c == '\u{202E}'));
        assert_eq!(row.chars().count(), "user: ".len() + 200);
    }

    /// Where [`cut_chars`] cuts, walking the clusters from the start of the text.
    fn grapheme_cut_from_the_start(text: &str, max: usize) -> usize {
        use unicode_segmentation::UnicodeSegmentation;
        let mut chars = 0;
        let mut end = 0;
        for (at, g) in text.grapheme_indices(true) {
            if chars >= max {
                break;
            }
            chars += g.chars().count();
            end = at + g.len();
        }
        end
    }

    proptest! {
        #[test]
        fn the_ascii_cut_is_the_grapheme_cut(
            text in proptest::collection::vec(
                prop_oneof![
                    Just("a"), Just(" "), Just("\r"), Just("\n"), Just("\u{301}"), Just("é"), Just("👍🏽"),
                    Just("\u{200d}"), Just("👍"), Just("🇫"), Just("🇷"), Just("\u{fe0f}"), Just("\u{1100}"),
                    Just("\u{1161}"),
                ],
                0..16,
            ),
            max in 0usize..12,
        ) {
            let text = text.concat();
            prop_assert_eq!(cut_chars(&text, max), text[..grapheme_cut(&text, max)].to_string());
            prop_assert_eq!(grapheme_cut(&text, max), grapheme_cut_from_the_start(&text, max));
        }
    }
}
