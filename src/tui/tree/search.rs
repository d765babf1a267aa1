//! The tree's search (pi-reference §3.4, with §6.2's fix): the query is lowercased and split on
//! whitespace, and an entry matches when every token is a substring of its searchable text — the
//! label, pi's type words (the role, `compaction`, `model <id>` …), a tool result's formatted call,
//! and the entry's **full** text — not only the first 200 characters as in pi. Also: where the tokens occur in a displayed text, for highlighting.
//!
//! The searchable texts live lowercased in one arena. Opening the view reads nothing, so the first
//! search uses the texts held in memory (the first 256 characters of each); a [`SearchJob`] reads
//! the file once, on a worker, and replaces that with the full texts. Per entry it keeps up to
//! [`TEXT_CAP`] bytes of conversation text (user, assistant, summaries, custom messages) and up to
//! [`OUTPUT_CAP`] bytes of tool output, so a session of huge logs does not double in memory; the
//! entries it cut are listed, and for each query a [`FullTextJob`] reads just those again and
//! looks for the query in their whole text, so a hit at the end of a long log is found too.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::Arc;

use memchr::memmem::Finder;
use rayon::prelude::*;
use serde_json::Value;

use crate::session::content::{content_text, parse_json};
use crate::session::text::{ToolCalls, head_text, row_text, search_words};
use crate::session::{Entry, Ix, Session};

/// Bytes of conversation text kept per entry.
pub const TEXT_CAP: usize = 64 * 1024;

/// Bytes of tool output (tool results, bash output) kept per entry.
pub const OUTPUT_CAP: usize = 8 * 1024;

/// How many bytes of the file the job reads at once.
const BLOCK: u64 = 2 << 20;

/// Every entry's searchable text, lowercased, in one arena.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    arena: String,
    /// `arena[starts[i]..starts[i + 1]]` is entry `i`'s text.
    starts: Vec<usize>,
    /// Built from the full texts in the file (not only the in-memory heads).
    complete: bool,
    /// The entries whose text was cut to the caps, in order.
    long: Arc<[Ix]>,
}

impl SearchIndex {
    /// The index from what the entries hold in memory: label, type words, row text, text head.
    pub fn from_heads(session: &Session, calls: &ToolCalls, home: Option<&str>) -> SearchIndex {
        let mut index = SearchIndex::default();
        index.extend_with_heads(session, calls, home);
        index
    }

    /// Add the entries after the ones already indexed (the file grew), from their heads.
    pub fn extend_with_heads(&mut self, session: &Session, calls: &ToolCalls, home: Option<&str>) {
        let from = self.indexed();
        let texts: Vec<(String, &str)> = session.entries()[from..]
            .par_iter()
            .with_min_len(1024)
            .map(|e| (base_text(session, e, calls, home), head_text(e)))
            .collect();
        for (base, body) in texts {
            self.push(&base, body);
        }
    }

    fn push(&mut self, base: &str, body: &str) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        push_lower(&mut self.arena, base);
        self.arena.push('\n');
        push_lower(&mut self.arena, body);
        self.starts.push(self.arena.len());
    }

    /// How many entries are indexed.
    pub fn indexed(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The entries whose text the index holds cut to `TEXT_CAP` / `OUTPUT_CAP`.
    pub fn long_entries(&self) -> &Arc<[Ix]> {
        &self.long
    }

    fn text(&self, i: usize) -> &[u8] {
        &self.arena.as_bytes()[self.starts[i]..self.starts[i + 1]]
    }

    /// For each entry, whether every token occurs in its text. With `within`, only the entries
    /// marked there are tested (a query that only grew can only match fewer entries).
    pub fn matches(&self, tokens: &[String], within: Option<&[bool]>) -> Vec<bool> {
        let finders = finders(tokens);
        (0..self.indexed())
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| within.is_none_or(|w| w[i]) && holds_all(&finders, self.text(i)))
            .collect()
    }
}

/// A searcher per query token (already lower-cased).
fn finders(tokens: &[String]) -> Vec<Finder<'_>> {
    tokens.iter().map(|t| Finder::new(t.as_bytes())).collect()
}

/// Whether lower-cased `text` holds every token.
fn holds_all(finders: &[Finder<'_>], text: &[u8]) -> bool {
    finders.iter().all(|f| f.find(text).is_some())
}

/// The label and pi's type words of an entry, and for a tool result the call it shows (its row
/// text): the part of its searchable text that does not come from its content.
fn base_text(session: &Session, entry: &Entry, calls: &ToolCalls, home: Option<&str>) -> String {
    let label = session.graph.label_of(&entry.id).map(|l| l.text.as_str()).unwrap_or("");
    let words = search_words(entry);
    if entry.role() == Some("toolResult") {
        let row = row_text(entry, session.entries(), calls, home).plain();
        format!("{label}\n{words}\n{row}")
    } else {
        format!("{label}\n{words}")
    }
}

/// Append `text` lowercased (ASCII quickly).
fn push_lower(arena: &mut String, text: &str) {
    if text.is_ascii() {
        let start = arena.len();
        arena.push_str(text);
        arena[start..].make_ascii_lowercase();
    } else {
        arena.push_str(&text.to_lowercase());
    }
}

/// The query's tokens: lowercased, split on whitespace.
pub fn tokens(query: &str) -> Vec<String> {
    query.to_lowercase().split_whitespace().map(str::to_string).collect()
}

/// Byte ranges of `text` where any token occurs, compared case-insensitively, merged and sorted.
pub fn hit_ranges(text: &str, tokens: &[String]) -> Vec<Range<usize>> {
    if tokens.is_empty() {
        return Vec::new();
    }
    let mut lower = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len() + 1);
    for (at, c) in text.char_indices() {
        for l in c.to_lowercase() {
            let before = lower.len();
            lower.push(l);
            origin.extend(std::iter::repeat_n(at, lower.len() - before));
        }
    }
    origin.push(text.len());
    let end_of = |lower_end: usize| {
        let start = origin[lower_end - 1];
        start + text[start..].chars().next().map_or(0, char::len_utf8)
    };
    let mut hits: Vec<Range<usize>> = Vec::new();
    for token in tokens.iter().filter(|t| !t.is_empty()) {
        for found in memchr::memmem::find_iter(lower.as_bytes(), token.as_bytes()) {
            hits.push(origin[found]..end_of(found + token.len()));
        }
    }
    hits.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::new();
    for hit in hits {
        match merged.last_mut() {
            Some(last) if hit.start <= last.end => last.end = last.end.max(hit.end),
            _ => merged.push(hit),
        }
    }
    merged
}

/// Reads the whole session file once and builds the full-text [`SearchIndex`]. `Send`: run it on
/// a worker.
pub struct SearchJob {
    pub(super) session: Arc<Session>,
    pub(super) calls: Arc<ToolCalls>,
    pub(super) home: Option<String>,
}

impl SearchJob {
    /// Build the index. A line that cannot be read again (the file changed) falls back to the
    /// entry's in-memory head.
    pub fn run(self) -> SearchIndex {
        let session = &*self.session;
        let entries = session.entries();
        let mut index = SearchIndex { complete: true, ..SearchIndex::default() };
        let mut long = Vec::new();
        let mut file = File::open(&session.file.path).ok();
        let mut first = 0;
        while first < entries.len() {
            let last = block_end(entries, first);
            let block = &entries[first..last];
            let bytes = file.as_mut().and_then(|f| read_range(f, &block_span(block)));
            let texts: Vec<(String, Collected)> = block
                .par_iter()
                .map(|e| {
                    let base = base_text(session, e, &self.calls, self.home.as_deref());
                    let body = bytes
                        .as_deref()
                        .and_then(|b| full_text(slice_of(b, block[0].span.start, e), Caps::Kept))
                        .unwrap_or_else(|| Collected {
                            text: head_text(e).to_string(),
                            ..Collected::default()
                        });
                    (base, body)
                })
                .collect();
            for (base, body) in texts {
                if body.cut {
                    long.push(index.indexed() as Ix);
                }
                index.push(&base, &body.text);
            }
            first = last;
        }
        index.long = long.into();
        index
    }
}

/// Looks for a query in the whole text of the entries the index holds cut
/// ([`SearchIndex::long_entries`]), reading their lines from the file again. `Send`: run it on a
/// worker and report [`super::Report::FullTextMatches`].
pub struct FullTextJob {
    pub(super) session: Arc<Session>,
    pub(super) long: Arc<[Ix]>,
    pub(super) query: String,
}

impl FullTextJob {
    /// How many entries the job reads again.
    pub fn entries(&self) -> usize {
        self.long.len()
    }

    /// The long entries whose whole text holds every token of the query (an entry whose line
    /// cannot be read again, the file having changed, is left out); [`FullTextJob::run`] reports them.
    pub(super) fn matches(&self) -> Vec<Ix> {
        use std::os::unix::fs::FileExt;
        let tokens = tokens(&self.query);
        let finders = finders(&tokens);
        let file = File::open(&self.session.file.path).ok();
        match &file {
            Some(file) => self
                .long
                .par_iter()
                .copied()
                .filter(|&ix| {
                    let span = &self.session.entry(ix).span;
                    let mut line = vec![0; (span.end - span.start) as usize];
                    file.read_exact_at(&mut line, span.start).is_ok()
                        && full_text(&line, Caps::Whole).is_some_and(|body| {
                            let mut lower = String::with_capacity(body.text.len());
                            push_lower(&mut lower, &body.text);
                            holds_all(&finders, lower.as_bytes())
                        })
                })
                .collect(),
            None => Vec::new(),
        }
    }
}

/// The end of the block of entries starting at `first` that spans at most [`BLOCK`] bytes (at
/// least one entry).
fn block_end(entries: &[Entry], first: usize) -> usize {
    let start = entries[first].span.start;
    let mut last = first + 1;
    while last < entries.len()
        && entries[last].span.end.saturating_sub(start) <= BLOCK
        && entries[last].span.start >= entries[last - 1].span.end
    {
        last += 1;
    }
    last
}

fn block_span(block: &[Entry]) -> Range<u64> {
    block[0].span.start..block[block.len() - 1].span.end
}

fn read_range(file: &mut File, span: &Range<u64>) -> Option<Vec<u8>> {
    file.seek(SeekFrom::Start(span.start)).ok()?;
    let mut buf = vec![0; (span.end - span.start) as usize];
    file.read_exact(&mut buf).ok()?;
    Some(buf)
}

fn slice_of<'a>(bytes: &'a [u8], base: u64, entry: &Entry) -> &'a [u8] {
    let from = (entry.span.start - base) as usize;
    let to = (entry.span.end - base) as usize;
    bytes.get(from..to).unwrap_or(&[])
}

/// Whether an entry's text is kept within [`TEXT_CAP`] / [`OUTPUT_CAP`] or whole.
#[derive(Clone, Copy, PartialEq)]
enum Caps {
    Kept,
    Whole,
}

/// An entry's searchable text, and whether the caps cut it.
#[derive(Default)]
struct Collected {
    text: String,
    cut: bool,
}

/// The searchable content of one entry line: message text, thinking, tool calls with their
/// arguments, tool output, error messages, summaries.
fn full_text(line: &[u8], caps: Caps) -> Option<Collected> {
    let value = parse_json(line).ok()?;
    let mut out = Texts { caps, collected: Collected::default() };
    match value.get("type").and_then(Value::as_str) {
        Some("message") => message_text(&value["message"], &mut out),
        Some("custom_message") => {
            out.push(&content_text(&value["content"], "\n").unwrap_or_default(), TEXT_CAP)
        }
        Some("compaction") | Some("branch_summary") => {
            out.push(value["summary"].as_str().unwrap_or(""), TEXT_CAP)
        }
        _ => {}
    }
    Some(out.collected)
}

/// Texts collected for one entry, within the caps or whole.
struct Texts {
    caps: Caps,
    collected: Collected,
}

impl Texts {
    /// Append `text` and a newline, keeping the whole within `cap` bytes (cut at a char boundary)
    /// unless the text is collected whole.
    fn push(&mut self, text: &str, cap: usize) {
        let out = &mut self.collected.text;
        let room = match self.caps {
            Caps::Kept => cap.saturating_sub(out.len()),
            Caps::Whole => usize::MAX,
        };
        let mut end = text.len().min(room);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.collected.cut |= end < text.len();
        out.push_str(&text[..end]);
        out.push('\n');
    }
}

fn message_text(message: &Value, out: &mut Texts) {
    let role = message["role"].as_str().unwrap_or("");
    let cap = if matches!(role, "toolResult" | "bashExecution") { OUTPUT_CAP } else { TEXT_CAP };
    match &message["content"] {
        Value::String(s) => out.push(s, cap),
        Value::Array(blocks) => {
            for block in blocks {
                match block["type"].as_str() {
                    Some("text") => out.push(block["text"].as_str().unwrap_or(""), cap),
                    Some("thinking") => out.push(block["thinking"].as_str().unwrap_or(""), cap),
                    Some("toolCall") => {
                        let call = format!("{} {}", block["name"].as_str().unwrap_or(""), block["arguments"]);
                        out.push(&call, cap)
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    for key in ["output", "errorMessage"] {
        if let Some(s) = message[key].as_str() {
            out.push(s, cap);
        }
    }
}

/// The entries matching `query`, or `None` for an empty query.
pub fn run_query(index: &SearchIndex, query: &str, within: Option<&[bool]>) -> Option<Vec<bool>> {
    let tokens = tokens(query);
    (!tokens.is_empty()).then(|| index.matches(&tokens, within))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_case_insensitive_and_merged() {
        let toks = tokens("AUTH th");
        assert_eq!(toks, ["auth", "th"]);
        let text = "Auth: the AUTHor";
        let hits = hit_ranges(text, &toks);
        let shown: Vec<&str> = hits.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(shown, ["Auth", "th", "AUTH"]);
    }

    #[test]
    fn hits_map_back_through_lowercasing_that_changes_length() {
        let text = "İstanbul x";
        let hits = hit_ranges(text, &tokens("i̇st"));
        assert_eq!(&text[hits[0].clone()], "İst");
    }

    #[test]
    fn capped_text_stays_within_the_cap_on_a_char_boundary() {
        let mut out = Texts { caps: Caps::Kept, collected: Collected::default() };
        out.push(&"é".repeat(10), 5);
        assert_eq!(out.collected.text, "éé\n");
        assert!(out.collected.cut);
        let mut whole = Texts { caps: Caps::Whole, collected: Collected::default() };
        whole.push(&"é".repeat(10), 5);
        assert_eq!(whole.collected.text.len(), 21);
        assert!(!whole.collected.cut);
    }
}
