//! The summary of one session file, with pi 1.6.0's listing rules (`buildSessionInfo`,
//! pi-reference §1.14 and §7), read in one streaming pass that can be continued when the file grows.
//!
//! pi's fields scan every line after the header, whatever its `id`, across all branches:
//! - the file is a session when its first parsed line (blank, malformed and falsy lines are
//!   skipped) has `type: "session"`; its `id` may be any value;
//! - `name`: every `session_info` sets it to its trimmed name, or clears it when that is empty;
//! - `messageCount`: every `type: "message"` line, of any role;
//! - user and assistant messages that have `content` give the activity time (`message.timestamp`
//!   when it is a number, else the entry timestamp) and their text (a string, or the text blocks
//!   joined with a space); non-empty texts are joined with a space into `allMessagesText`, and the
//!   first user one is `firstMessage`;
//! - `modified`: the latest activity time if above 0, else the header time, else the file mtime.
//!
//! pitree adds, from the same pass:
//! - tokens and cost: the `usage` of every assistant message and every `usage` entry that the
//!   session reader keeps (not one without an id, or with a repeated one, in a v2+ file);
//! - branches: the entries (lines with a string `id`, first of each id) that no other entry names
//!   as its `parentId`; a legacy v1 file (no ids, a chain once migrated) has one when non-empty;
//! - unreadable lines, counted as the session reader counts damage: malformed, not an object,
//!   an entry without an id (v2+), a second header, a repeated id (v2+).
//!
//! Deviations from pi, all where pi's listing would throw and drop the whole file or where pitree's
//! session reader opens a file pi rejects: a leading BOM is ignored (pi drops `bom.jsonl`);
//! `content: null` or content of another type has no text; a non-string `name` clears the name.
//!
//! **Continuing a grown file.** [`ScanState`] holds everything needed to go on from the end of the
//! last complete line. Every field continues exactly, with one documented approximation: ids are
//! only remembered within one pass, so a line appended later that repeats an id from before the
//! continuation point is not counted as unreadable and takes part in the branch count.

use std::collections::HashSet;
use std::fs::File;
use std::hash::BuildHasherDefault;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use crate::session::date;
use crate::session::entry::Usage;
use crate::session::line::without_file_bom;

use super::js;
use super::lines::{Fields, Id, Object, Parsed, with_line};

/// Read size; a longer line grows the buffer.
const BLOCK: usize = 1 << 20;
/// A per-thread buffer grown beyond this by one huge line is given back after the file.
const KEEP_BUFFER: usize = 8 << 20;

/// The header fields the listing shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeaderInfo {
    /// The header id as text (a number as its digits).
    pub id: String,
    pub id_is_string: bool,
    /// `version` as the session reader reads it (`1` when absent).
    pub version: u32,
    /// `timestamp` when it is a string.
    pub timestamp: Option<String>,
    /// `new Date(timestamp).getTime()`, pi's `created`, when valid (a number or `null` is a time
    /// too, which pi's `modified` does not fall back on).
    pub created_ms: Option<i64>,
    /// `cwd` when it is a string, else empty.
    pub cwd: String,
    pub parent_session: Option<String>,
}

/// What the scan of a file has found so far; enough to continue after more lines are appended.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanState {
    pub header: Option<HeaderInfo>,
    /// The first parsed line is not a header: the file is not a session, and is not read further.
    pub rejected: bool,
    pub name: Option<String>,
    pub message_count: u32,
    /// pi's `lastActivityTime` (ms), `None` until a user/assistant message with a time.
    pub last_activity: Option<f64>,
    pub first_message: Option<String>,
    pub all_text: String,
    pub usage: Usage,
    /// Entries of a v1 file (they form one chain once migrated).
    pub v1_entries: u32,
    /// Hashes of the ids no entry names as its parent yet.
    pub tips: IdSet,
    /// Hashes of parent ids named before (or without) an entry of that id.
    pub dangling: IdSet,
    pub unreadable: u32,
}

/// A set of id hashes (the ids are hashed with [`id_hash`], so the set hashes them no further).
pub type IdSet = HashSet<u64, BuildHasherDefault<PassThrough>>;

/// A `Hasher` for keys that are already hashes.
#[derive(Default)]
pub struct PassThrough(u64);

impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// The hash an entry id is remembered by.
pub fn id_hash(id: &str) -> u64 {
    super::hash::hash64(id.as_bytes(), 0x9e37_79b9)
}

/// Ids seen during one pass (for repeated-id detection).
#[derive(Default)]
struct Pass {
    seen: IdSet,
}

impl ScanState {
    /// A copy of this state without its search text (`all_text`, most of what it holds).
    pub fn without_text(&self) -> ScanState {
        ScanState {
            header: self.header.clone(),
            rejected: self.rejected,
            name: self.name.clone(),
            message_count: self.message_count,
            last_activity: self.last_activity,
            first_message: self.first_message.clone(),
            all_text: String::new(),
            usage: self.usage,
            v1_entries: self.v1_entries,
            tips: self.tips.clone(),
            dangling: self.dangling.clone(),
            unreadable: self.unreadable,
        }
    }

    /// Whether the file is a session (its header has been read).
    pub fn is_session(&self) -> bool {
        self.header.is_some() && !self.rejected
    }

    /// Number of branch tips.
    pub fn branches(&self) -> u32 {
        if self.is_v1() { u32::from(self.v1_entries > 0) } else { self.tips.len() as u32 }
    }

    /// pi's `modified` before the mtime fallback: the activity time if above 0, else the header
    /// time when it is a string; `None` when neither is valid.
    pub fn modified_ms(&self) -> Option<i64> {
        match self.last_activity {
            Some(t) if t > 0.0 => Some(clip_time(t)),
            _ => self.header.as_ref()?.timestamp.as_deref().and_then(date::parse_ms),
        }
    }

    /// pi's `created`, `new Date(header.timestamp)`, when valid.
    pub fn created_ms(&self) -> Option<i64> {
        self.header.as_ref()?.created_ms
    }

    fn is_v1(&self) -> bool {
        self.header.as_ref().is_some_and(|h| h.version < 2)
    }

    /// Take one line into account.
    fn apply(&mut self, line: &[u8], pass: &mut Pass) {
        with_line(line, |parsed| match parsed {
            Parsed::Blank => {}
            Parsed::Malformed => self.unreadable += 1,
            Parsed::NotAnObject { falsy } => {
                if self.header.is_none() && !falsy {
                    self.rejected = true;
                } else {
                    self.unreadable += 1;
                }
            }
            Parsed::Object(obj) if self.header.is_none() => self.take_header(obj),
            Parsed::Object(obj) => self.take_entry(obj, pass),
        });
    }

    fn take_header(&mut self, obj: Object<'_>) {
        match (obj.ty.as_deref(), obj.fields) {
            (Some("session"), Some(fields)) => self.header = Some(header(obj.id, &fields)),
            _ => self.rejected = true,
        }
    }

    fn take_entry(&mut self, obj: Object<'_>, pass: &mut Pass) {
        if obj.ty.as_deref() == Some("session") {
            self.unreadable += 1;
            return;
        }
        if obj.ty.as_deref() == Some("message") {
            self.message_count += 1;
        }
        if let Some(fields) = &obj.fields {
            self.take_fields(obj.ty.as_deref(), fields);
        }
        if self.take_tree_position(&obj, pass)
            && let Some(fields) = &obj.fields
        {
            self.take_usage(obj.ty.as_deref(), fields);
        }
    }

    /// pi's listing fields, from every line (pi reads them whatever the line's `id`).
    fn take_fields(&mut self, ty: Option<&str>, fields: &Fields<'_>) {
        match ty {
            Some("session_info") => {
                let name = fields.name().map(js::trim).unwrap_or("");
                self.name = (!name.is_empty()).then(|| name.to_string());
            }
            Some("message") => {
                if let Some(m) = fields.message() {
                    self.take_message(m, fields);
                }
            }
            _ => {}
        }
    }

    /// Tokens and cost, from the entries the session reader keeps (as the tree view counts them).
    fn take_usage(&mut self, ty: Option<&str>, fields: &Fields<'_>) {
        let usage = match ty {
            Some("usage") => fields.usage(),
            Some("message") => {
                fields.message().filter(|m| m.role() == Some("assistant")).and_then(|m| m.usage())
            }
            _ => None,
        };
        if let Some(u) = usage {
            self.usage.add(&u);
        }
    }

    fn take_message(&mut self, m: &super::lines::RawMessage<'_>, fields: &Fields<'_>) {
        let role = m.role();
        if !matches!(role, Some("user" | "assistant")) || !m.has_content() {
            return;
        }
        if let Some(t) = m.timestamp_ms().or_else(|| fields.time_ms().map(|ms| ms as f64)) {
            self.last_activity = Some(self.last_activity.unwrap_or(0.0).max(t));
        }
        let text = m.text();
        if text.is_empty() {
            return;
        }
        if !self.all_text.is_empty() {
            self.all_text.push(' ');
        }
        self.all_text.push_str(&text);
        if self.first_message.is_none() && role == Some("user") {
            self.first_message = Some(text.into_owned());
        }
    }

    /// Branch-tip bookkeeping and id damage; whether the session reader keeps the entry (it
    /// drops one without a string id, and a repeated id, in a v2+ file).
    fn take_tree_position(&mut self, obj: &Object<'_>, pass: &mut Pass) -> bool {
        if self.is_v1() {
            self.v1_entries += 1;
            return true;
        }
        let Id::Str(id) = &obj.id else {
            self.unreadable += 1;
            return false;
        };
        let h = id_hash(id);
        if !pass.seen.insert(h) {
            self.unreadable += 1;
            return false;
        }
        if !self.dangling.remove(&h) {
            self.tips.insert(h);
        }
        if let Some(parent) = obj.parent_id.as_deref().filter(|p| *p != id.as_ref()) {
            let ph = id_hash(parent);
            if !self.tips.remove(&ph) && !pass.seen.contains(&ph) {
                self.dangling.insert(ph);
            }
        }
        true
    }
}

fn header(id: Id<'_>, fields: &Fields<'_>) -> HeaderInfo {
    let (id, id_is_string) = match id {
        Id::Str(s) => (s.into_owned(), true),
        Id::Other(s) => (s, false),
        Id::Missing => (String::new(), false),
    };
    HeaderInfo {
        id,
        id_is_string,
        version: crate::session::parse::migration_version(fields.version()),
        timestamp: fields.timestamp_str().map(str::to_string),
        created_ms: fields.time_ms(),
        cwd: fields.cwd().unwrap_or("").to_string(),
        parent_session: fields.parent_session().map(str::to_string),
    }
}

/// A JavaScript time value as a `Date` keeps it: whole milliseconds, within ±8.64e15.
fn clip_time(t: f64) -> i64 {
    t.trunc().clamp(-8.64e15, 8.64e15) as i64
}

/// Where a scan of a file stopped, and what it had found there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Resume {
    /// Byte offset just after the last complete (`\n`-terminated) line read.
    pub offset: u64,
    pub state: ScanState,
}

/// The result of reading a file (or its new part).
#[derive(Debug, Clone, PartialEq)]
pub struct FileScan {
    /// The state at the last complete line, to continue from when the file grows.
    pub resume: Resume,
    /// The state including an unterminated last line, when there is one (pi reads that line too).
    pub tail: Option<ScanState>,
    /// Bytes read from the file.
    pub bytes_read: u64,
    /// Bytes in the file when reading stopped.
    pub len: u64,
    /// The bytes read from the start offset up to offset [`WINDOW`] of the file (none when the
    /// scan started beyond it).
    pub head: Vec<u8>,
    /// The [`WINDOW`] bytes before the resume offset (fewer when there are fewer), as read or
    /// as handed in as the history of a continued scan.
    pub before: Vec<u8>,
}

/// The size of the windows [`FileScan::head`] and [`FileScan::before`] keep.
pub const WINDOW: usize = 4096;

/// The last [`WINDOW`] bytes of `trail` followed by `more`.
fn push_trail(trail: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= WINDOW {
        trail.clear();
        trail.extend_from_slice(&more[more.len() - WINDOW..]);
        return;
    }
    trail.extend_from_slice(more);
    if trail.len() > WINDOW {
        trail.drain(..trail.len() - WINDOW);
    }
}

impl FileScan {
    /// The state the summary is made from.
    pub fn state(&self) -> &ScanState {
        self.tail.as_ref().unwrap_or(&self.resume.state)
    }
}

/// Reads files with one reused buffer (make one per thread).
#[derive(Default)]
pub struct Scanner {
    buf: Vec<u8>,
}

impl Scanner {
    pub fn new() -> Scanner {
        Scanner::default()
    }

    /// Scan a whole file.
    pub fn scan_file(&mut self, path: &Path) -> io::Result<FileScan> {
        self.scan_from(path, Resume::default())
    }

    /// Continue a scan at `from.offset` with the state found up to there. The caller checks that
    /// the bytes before the offset are unchanged (see [`super::index`]).
    pub fn scan_from(&mut self, path: &Path, from: Resume) -> io::Result<FileScan> {
        let mut file = crate::session::content::open_regular(path)?;
        self.scan_open(&mut file, from, Vec::new())
    }

    /// [`Scanner::scan_from`] on an open file; `history` is the bytes just before `from.offset`
    /// (up to [`WINDOW`]), which [`FileScan::before`] starts from.
    pub fn scan_open(&mut self, file: &mut File, from: Resume, history: Vec<u8>) -> io::Result<FileScan> {
        let Resume { mut offset, mut state } = from;
        let start = offset;
        let mut before = history;
        if state.rejected {
            return Ok(FileScan {
                len: file.metadata()?.len(),
                resume: Resume { offset, state },
                tail: None,
                bytes_read: 0,
                head: Vec::new(),
                before,
            });
        }
        file.seek(SeekFrom::Start(offset))?;
        if self.buf.len() < BLOCK {
            self.buf.resize(BLOCK, 0);
        }
        let mut pass = Pass::default();
        let mut bytes_read = 0u64;
        // The unread data is buf[lo..hi]; buf[lo..searched] holds no newline.
        let (mut lo, mut hi, mut searched) = (0, 0, 0);
        let mut head = Vec::new();
        while !state.rejected {
            if lo > 0 {
                push_trail(&mut before, &self.buf[..lo]);
                self.buf.copy_within(lo..hi, 0);
                (hi, searched, lo) = (hi - lo, searched - lo, 0);
            }
            if hi == self.buf.len() {
                self.buf.resize(self.buf.len() * 2, 0);
            }
            let n = read_some(file, &mut self.buf[hi..])?;
            if n == 0 {
                break;
            }
            let head_room = (WINDOW as u64).saturating_sub(start) as usize;
            if head.len() < head_room {
                let take = (head_room - head.len()).min(n);
                head.extend_from_slice(&self.buf[hi..hi + take]);
            }
            bytes_read += n as u64;
            hi += n;
            while let Some(i) = memchr::memchr(b'\n', &self.buf[searched..hi]) {
                let end = searched + i;
                state.apply(without_file_bom(&self.buf[lo..end], offset), &mut pass);
                offset += (end + 1 - lo) as u64;
                lo = end + 1;
                searched = lo;
                if state.rejected {
                    break;
                }
            }
            searched = hi;
        }
        let rest = &self.buf[lo..hi];
        let tail = (!rest.is_empty() && !state.rejected).then(|| {
            let mut with_tail = state.clone();
            with_tail.apply(without_file_bom(rest, offset), &mut pass);
            with_tail
        });
        let len = offset + rest.len() as u64;
        push_trail(&mut before, &self.buf[..lo]);
        self.release();
        Ok(FileScan { resume: Resume { offset, state }, tail, bytes_read, len, head, before })
    }

    fn release(&mut self) {
        if self.buf.len() > KEEP_BUFFER {
            self.buf = Vec::new();
        }
    }
}

/// One `read`, retried when interrupted; 0 at the end of the file.
fn read_some(file: &mut File, out: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(out) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_bytes(bytes: &[u8]) -> FileScan {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, bytes).unwrap();
        Scanner::new().scan_file(&path).unwrap()
    }

    const HEADER: &str =
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#;

    /// The windows a scan keeps are the file's bytes at those places, over many blocks and when
    /// a scan continues from an offset with its history.
    #[test]
    fn the_windows_are_the_bytes_read() {
        let mut text = format!("{HEADER}\n");
        for i in 0..30_000 {
            let parent = (i > 0).then(|| format!("m{}", i - 1));
            text.push_str(&msg(&format!("m{i}"), parent.as_deref(), "user", &format!("line {i}"), i));
            text.push('\n');
        }
        text.push_str("{\"unterminated");
        let bytes = text.as_bytes();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, bytes).unwrap();
        let whole = Scanner::new().scan_file(&path).unwrap();
        let end = whole.resume.offset as usize;
        assert!(bytes.len() > 2 * BLOCK && end < bytes.len());
        assert_eq!(whole.head, &bytes[..WINDOW]);
        assert_eq!(whole.before, &bytes[end - WINDOW..end]);
        for start in [100, WINDOW + 7, bytes.len() / 2] {
            let start = start + bytes[start..].iter().position(|&b| b == b'\n').unwrap() + 1;
            let history = bytes[start.saturating_sub(WINDOW)..start].to_vec();
            let from = scan_bytes(&bytes[..start]).resume;
            assert_eq!(from.offset, start as u64);
            let mut file = std::fs::File::open(&path).unwrap();
            let part = Scanner::new().scan_open(&mut file, from, history).unwrap();
            assert_eq!(part.resume.offset, whole.resume.offset, "from {start}");
            assert_eq!(part.before, whole.before, "from {start}");
            assert_eq!(part.head, &bytes[start.min(WINDOW)..WINDOW], "from {start}");
        }
    }

    fn msg(id: &str, parent: Option<&str>, role: &str, text: &str, ts: u64) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"timestamp":{ts}}}}}"#
        )
    }

    #[test]
    fn header_only_file() {
        let s = scan_bytes(format!("{HEADER}\n").as_bytes());
        let st = s.state();
        assert!(st.is_session());
        assert_eq!(st.message_count, 0);
        assert_eq!(st.modified_ms(), st.created_ms());
        assert_eq!(st.branches(), 0);
    }

    #[test]
    fn counts_messages_text_and_tips() {
        let lines = [
            HEADER.to_string(),
            msg("a", None, "user", "hello", 1000),
            msg("b", Some("a"), "assistant", "hi", 2000),
            msg("c", Some("b"), "toolResult", "out", 9000),
            msg("d", Some("a"), "user", "other", 1500),
        ];
        let s = scan_bytes((lines.join("\n") + "\n").as_bytes());
        let st = s.state();
        assert_eq!(st.message_count, 4);
        assert_eq!(st.all_text, "hello hi other");
        assert_eq!(st.first_message.as_deref(), Some("hello"));
        assert_eq!(st.modified_ms(), Some(2000));
        assert_eq!(st.branches(), 2);
        assert_eq!(s.resume.offset, s.len);
        assert!(s.tail.is_none());
    }

    #[test]
    fn an_unterminated_last_line_counts_but_is_not_a_resume_point() {
        let body =
            format!("{HEADER}\n{}\n{}", msg("a", None, "user", "x", 1), msg("b", Some("a"), "user", "y", 2));
        let s = scan_bytes(body.as_bytes());
        assert_eq!(s.resume.state.message_count, 1);
        assert_eq!(s.state().message_count, 2);
        assert_eq!(s.resume.offset as usize, body.rfind('\n').unwrap() + 1);
    }

    /// pi's fields count a line whatever its id; tokens count only the entries the tree has.
    #[test]
    fn tokens_come_from_the_entries_the_session_reader_keeps() {
        let usage = |id: &str| {
            format!(
                r#"{{"type":"usage","{id}":"u1","parentId":"a","usage":{{"input":10,"output":1,"cost":{{"total":0.5}}}}}}"#
            )
        };
        let body =
            [HEADER.to_string(), msg("a", None, "user", "x", 1), usage("id"), usage("id"), usage(",,id")]
                .join("\n");
        let s = scan_bytes((body + "\n").as_bytes());
        assert_eq!(s.state().unreadable, 2, "a repeated id and a line without one");
        assert_eq!((s.state().usage.input, s.state().usage.cost), (10.0, 0.5));
        let lost_id = msg("b", Some("a"), "user", "y", 2).replace(r#""id":"b""#, r#""xid":"b""#);
        let s = scan_bytes(format!("{HEADER}\n{}\n{lost_id}\n", msg("a", None, "user", "x", 1)).as_bytes());
        assert_eq!((s.state().message_count, s.state().all_text.as_str()), (2, "x y"), "as pi lists it");
    }

    #[test]
    fn a_file_not_starting_with_a_header_is_rejected_and_not_read_on() {
        let s = scan_bytes(format!("{}\n{HEADER}\n", msg("a", None, "user", "x", 1)).as_bytes());
        assert!(!s.state().is_session());
        assert!(s.state().rejected);
        let s = scan_bytes(format!("garbage\nnull\n{HEADER}\n").as_bytes());
        assert!(s.state().is_session());
        assert_eq!(s.state().unreadable, 2);
    }
}
