//! Reading a whole session file: lines to entries with byte ranges, the header, every damaged line
//! counted with its reason, and legacy (v1/v2) files migrated in memory the way pi migrates them.
//!
//! The file is streamed in blocks whose lines are parsed in parallel, so a 300 MB session is never
//! held in memory as text. A file that only grew since it was parsed can be brought up to date by
//! reading just its new lines ([`parse_appended`]).

use foldhash::{HashSet as FastSet, HashSetExt};
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

use super::entry::{Entry, Kind, Text};
use super::ids::IdIndex;
use super::line::{HeaderLine, Line};
use super::walk::{outline_line, whole_line};

/// The session format version pi writes today.
pub const CURRENT_VERSION: u32 = 3;

/// The header (first line) of a session file.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The session id as text (a numeric id is kept as its digits).
    pub id: String,
    /// Whether the header's `id` was a JSON string, as pi requires for opening.
    pub id_is_string: bool,
    /// `version` as written; `1` when absent.
    pub version: u32,
    pub timestamp: Option<String>,
    /// `cwd` when it is a string, else empty.
    pub cwd: String,
    pub parent_session: Option<String>,
    /// 1-based line of the header (a garbage line may come before it).
    pub line: u32,
}

/// The version a file is read (and migrated) as, from its header's `version` taken as JavaScript's
/// `ToNumber` takes it: pi takes `header.version ?? 1` and migrates when it is `< 2` (from v1) or
/// `< 3` (from v2), so a value that is not a number (`"abc"`) needs no migration, and `"2"` is v2.
pub fn migration_version(version: Option<f64>) -> u32 {
    match version.unwrap_or(1.0) {
        v if v < 2.0 => 1,
        v if v < 3.0 => 2,
        v if v.is_nan() => CURRENT_VERSION,
        v => v.min(u32::MAX as f64) as u32,
    }
}

/// Why a line was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DamageKind {
    /// Not valid JSON (often a line cut off by a crash).
    Malformed,
    /// Valid JSON that is not an object (`null`, `42`, `"x"`, `[]`).
    NotAnObject,
    /// An object without a string `id`.
    MissingId,
    /// A second `session` header in the middle of the file.
    ExtraHeader,
    /// An entry whose id an earlier line already uses; the first line wins.
    DuplicateId,
}

impl DamageKind {
    pub fn describe(self) -> &'static str {
        match self {
            DamageKind::Malformed => "not valid JSON",
            DamageKind::NotAnObject => "not a JSON object",
            DamageKind::MissingId => "entry without an id",
            DamageKind::ExtraHeader => "second session header",
            DamageKind::DuplicateId => "duplicate entry id",
        }
    }
}

/// One line pitree could not use.
#[derive(Debug, Clone, PartialEq)]
pub struct Damage {
    pub line: u32,
    pub kind: DamageKind,
}

/// Facts about the file as it was read, used to re-check it before a write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileFacts {
    pub len: u64,
    /// The file is empty or ends with `\n`.
    pub ends_with_newline: bool,
    /// Number of physical lines (an unterminated last line counts).
    pub lines: u32,
    /// The first physical line's bytes, to detect a replaced file.
    pub first_line: Vec<u8>,
}

impl FileFacts {
    /// Whether `later` can be this file with lines appended: the same first line, no shorter.
    pub fn grew_into(&self, later: &FileFacts) -> bool {
        self.first_line == later.first_line && self.len <= later.len
    }
}

/// A parsed session file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    pub path: PathBuf,
    pub header: Header,
    /// Entries in file order (duplicates of an earlier id are left out and counted as damage).
    pub entries: Vec<Entry>,
    pub damage: Vec<Damage>,
    pub facts: FileFacts,
    /// The entry pi continues from: the one the last entry line's id names. pi's leaf is the last
    /// line's id, so when that line repeats an earlier id it is the first entry with that id
    /// (the one pitree keeps), not the entry before it in `entries`.
    pub leaf: Option<super::graph::Ix>,
    /// The positions of `entries` by id, as read. [`crate::session::Session::from_parsed`] hands
    /// it to the graph (so the ids are hashed once) and leaves it empty here.
    pub ids: IdIndex,
    /// The file's modification time before it was read (`None` for a session read from memory).
    pub modified: Option<SystemTime>,
}

impl ParsedFile {
    /// Whether the file still has the length and modification time it had when it was read: its
    /// content is then taken as the same (pi only appends, and an append changes both).
    pub fn unchanged_on_disk(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|meta| self.unchanged_as(&meta))
    }

    /// [`ParsedFile::unchanged_on_disk`] with the file's metadata as it is now.
    pub fn unchanged_as(&self, meta: &std::fs::Metadata) -> bool {
        self.modified.is_some() && meta.len() == self.facts.len && meta.modified().ok() == self.modified
    }
}

/// Why a file could not be read as a session.
#[derive(Debug)]
pub enum ParseError {
    Io(std::io::Error),
    /// 0 bytes.
    Empty,
    /// The first readable line is not a `session` header.
    NotASession {
        first_line: Option<u32>,
    },
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Io(e) => write!(f, "{e}"),
            ParseError::Empty => f.write_str("the file is empty (0 bytes), so it holds no session"),
            ParseError::NotASession { first_line: Some(n) } => {
                write!(
                    f,
                    "not a pi session file: line {n} is the first readable line and is not a session header"
                )
            }
            ParseError::NotASession { first_line: None } => {
                f.write_str("not a pi session file: no line of it is readable JSON")
            }
        }
    }
}

impl std::error::Error for ParseError {}

impl From<std::io::Error> for ParseError {
    fn from(e: std::io::Error) -> Self {
        ParseError::Io(e)
    }
}

/// Block size for streaming; a longer line simply grows the buffer.
const BLOCK: usize = 1 << 20;

/// Read and parse a session file (a regular file: anything else is an error, never a wait). A
/// `message` line is read by the walk ([`whole_line`]), any other by [`super::line::parse_line`].
pub fn parse_file(path: &Path) -> Result<ParsedFile, ParseError> {
    read_file(path, whole_line)
}

/// The outline of a session file: [`parse_file`] with each `message` line read only as far as
/// the tree needs ([`super::walk`]), for the first frame of a big session.
pub fn outline_file(path: &Path) -> Result<ParsedFile, ParseError> {
    read_file(path, outline_line)
}

/// How one line is read: its bytes (without the `\n`), 1-based number and offset.
type LineReader = fn(&[u8], u32, u64) -> Line;

fn read_file(path: &Path, read: LineReader) -> Result<ParsedFile, ParseError> {
    let (file, meta) = super::content::open_regular_with_meta(path)?;
    let mut state = Builder::for_file_of(meta.len());
    read_lines(file, block_for(meta.len()), Position::default(), read, |lines| state.push_all(lines))?;
    state.finish(path.to_path_buf(), meta.modified().ok())
}

/// `old` as its file is now, reading only what was appended to it since: `None` when the file
/// has to be read whole instead — it did not grow, its first line or the newline that ended the
/// part read is not there any more (it was replaced or rewritten), that part ended without a
/// newline (the appended bytes may complete its last line), or it is a legacy file (migrated in
/// memory as a whole). The result is what [`parse_file`] gives for the whole file.
pub fn parse_appended(old: &ParsedFile) -> Result<Option<ParsedFile>, ParseError> {
    let Some((file, meta)) = continuation(old)? else { return Ok(None) };
    let copy = ParsedFile {
        path: old.path.clone(),
        header: old.header.clone(),
        entries: old.entries.clone(),
        damage: old.damage.clone(),
        facts: old.facts.clone(),
        leaf: old.leaf,
        ids: IdIndex::default(),
        modified: old.modified,
    };
    read_appended(copy, file, meta).map(Some)
}

/// [`parse_appended`] that takes `old` over instead of copying its entries (it is gone when the
/// file has to be read whole).
pub fn parse_appended_to(old: ParsedFile) -> Result<Option<ParsedFile>, ParseError> {
    match continuation(&old)? {
        Some((file, meta)) => read_appended(old, file, meta).map(Some),
        None => Ok(None),
    }
}

/// `old`'s file, opened, with its metadata, when it can be brought up to date by reading what
/// follows the part read: a current-version file read to a newline, now longer, with the same
/// first line and the newline where the read ended.
fn continuation(old: &ParsedFile) -> Result<Option<(std::fs::File, std::fs::Metadata)>, ParseError> {
    let facts = &old.facts;
    if old.header.version != CURRENT_VERSION || facts.len == 0 || !facts.ends_with_newline {
        return Ok(None);
    }
    let (file, meta) = super::content::open_regular_with_meta(&old.path)?;
    let grew = meta.len() > facts.len && still_starts_as_read(&file, facts)?;
    Ok(grew.then_some((file, meta)))
}

/// `old` and the lines of `file` (its [`continuation`]) after the part it was read from.
fn read_appended(
    old: ParsedFile,
    mut file: std::fs::File,
    meta: std::fs::Metadata,
) -> Result<ParsedFile, ParseError> {
    let facts = old.facts;
    file.seek(std::io::SeekFrom::Start(facts.len))?;
    let mut state = Builder {
        last_id: old.leaf.map(|ix| old.entries[ix as usize].id.clone()),
        header: Some(old.header),
        entries: old.entries,
        damage: old.damage,
        ..Builder::default()
    };
    let from = Position { offset: facts.len, line: facts.lines };
    read_lines(file, block_for(meta.len().saturating_sub(facts.len)), from, whole_line, |lines| {
        state.push_all(lines)
    })?;
    state.facts.first_line = facts.first_line;
    state.finish(old.path, meta.modified().ok())
}

/// Whether `file` still has the first line that was read, and a newline where the part read ended.
fn still_starts_as_read(file: &std::fs::File, facts: &FileFacts) -> std::io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let mut first = vec![0; facts.first_line.len() + 1];
    let mut end = [0];
    file.read_exact_at(&mut first, 0)?;
    file.read_exact_at(&mut end, facts.len - 1)?;
    Ok(first[..facts.first_line.len()] == facts.first_line[..]
        && first[facts.first_line.len()] == b'\n'
        && end == [b'\n'])
}

/// Parse a session held in memory (tests, the library's in-memory sessions).
pub fn parse_bytes(bytes: &[u8], path: PathBuf) -> Result<ParsedFile, ParseError> {
    let mut state = Builder::default();
    read_lines(bytes, block_for(bytes.len() as u64), Position::default(), whole_line, |lines| {
        state.push_all(lines)
    })?;
    state.finish(path, None)
}

/// The read size for `len` bytes: all of them (and one more, to see the end) when they fit in
/// [`BLOCK`], so a small session does not cost a whole block.
fn block_for(len: u64) -> usize {
    usize::try_from(len).map_or(BLOCK, |len| len.saturating_add(1).clamp(4096, BLOCK))
}

/// One physical line and where it is.
struct RawLine<'a> {
    bytes: &'a [u8],
    start: u64,
    number: u32,
}

/// Where a read starts: the byte offset in the file, and the number of the physical lines before it.
#[derive(Clone, Copy, Default)]
struct Position {
    offset: u64,
    line: u32,
}

/// Stream `reader` (the file from `from` on) in blocks of `block` bytes; hand each block's complete
/// lines, each read by `read` in parallel, to `sink`. A reader thread fetches the next block while
/// the current one is parsed.
fn read_lines<R: Read + Send>(
    reader: R,
    block: usize,
    from: Position,
    read: LineReader,
    mut sink: impl FnMut(LineBatch),
) -> Result<(), ParseError> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let (recycle, spare) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(move || read_chunks(reader, block, from.offset, tx, spare));
        let mut line_no: u32 = from.line;
        let mut facts = FileFacts::default();
        for chunk in rx {
            let chunk: Chunk = chunk?;
            let lines = raw_lines(&chunk, &mut line_no);
            if from.line == 0
                && facts.lines == 0
                && let Some(first) = lines.first()
            {
                facts.first_line = first.bytes.to_vec();
            }
            facts.lines = line_no;
            let parsed: Vec<(u32, Line)> =
                lines.par_iter().map(|l| (l.number, read(l.bytes, l.number, l.start))).collect();
            sink(LineBatch { lines: parsed, facts: None });
            if let Some(ends_with_newline) = chunk.end {
                facts.len = chunk.offset + chunk.bytes.len() as u64;
                facts.ends_with_newline = ends_with_newline;
                sink(LineBatch { lines: Vec::new(), facts: Some(std::mem::take(&mut facts)) });
            }
            let _ = recycle.send(chunk.bytes);
        }
        Ok(())
    })
}

/// Whole lines of the file from `offset` on; the last chunk has `end` set to whether the file
/// ends with a newline, and holds the unterminated tail if there is one.
struct Chunk {
    bytes: Vec<u8>,
    offset: u64,
    end: Option<bool>,
    /// Where each physical line of `bytes` starts and ends (without its `\n`).
    lines: Vec<(usize, usize)>,
}

/// The reader thread of [`read_lines`]: reads blocks, cuts them after their last newline (a line
/// longer than a block doubles the next read), finds their lines (so the parsing threads never
/// wait for that) and sends them in order until the end or an error. Buffers come back through
/// `spare` once parsed, so their pages are not faulted in again.
fn read_chunks<R: Read>(
    mut reader: R,
    block: usize,
    mut offset: u64,
    tx: std::sync::mpsc::SyncSender<std::io::Result<Chunk>>,
    spare: std::sync::mpsc::Receiver<Vec<u8>>,
) {
    let mut carry: Vec<u8> = Vec::new();
    let mut last_byte = None;
    loop {
        let want = block.max(carry.len());
        let mut buf = spare.try_recv().unwrap_or_default();
        buf.clear();
        buf.reserve(carry.len() + want);
        buf.append(&mut carry);
        let n = match reader.by_ref().take(want as u64).read_to_end(&mut buf) {
            Ok(n) => n,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        if n > 0 {
            last_byte = buf.last().copied();
        }
        let eof = n == 0;
        let cut = if eof { buf.len() } else { memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1) };
        carry = buf.split_off(cut);
        if cut > 0 || eof {
            let len = buf.len() as u64;
            let end = eof.then(|| last_byte.is_none_or(|b| b == b'\n'));
            let lines = line_ranges(&buf);
            if tx.send(Ok(Chunk { bytes: buf, offset, end, lines })).is_err() || eof {
                return;
            }
            offset += len;
        }
    }
}

/// The physical lines of a block (an unterminated last piece counts as a line).
fn line_ranges(block: &[u8]) -> Vec<(usize, usize)> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < block.len() {
        let end = memchr::memchr(b'\n', &block[start..]).map_or(block.len(), |i| start + i);
        lines.push((start, end));
        start = end + 1;
    }
    lines
}

/// The lines of a chunk with their file offsets and numbers; `line_no` is the last number used.
fn raw_lines<'a>(chunk: &'a Chunk, line_no: &mut u32) -> Vec<RawLine<'a>> {
    let mut lines = Vec::with_capacity(chunk.lines.len());
    for &(start, end) in &chunk.lines {
        *line_no += 1;
        let start_in_file = chunk.offset + start as u64;
        lines.push(RawLine { bytes: &chunk.bytes[start..end], start: start_in_file, number: *line_no });
    }
    lines
}

struct LineBatch {
    lines: Vec<(u32, Line)>,
    facts: Option<FileFacts>,
}

/// Collects parsed lines into the header, entries and damage.
#[derive(Default)]
struct Builder {
    header: Option<Header>,
    /// Lines that parsed as JSON before the header (they make the file "not a session").
    first_parsed: Option<u32>,
    entries: Vec<Entry>,
    /// v1 entries have no id; kept apart until the header's version is known to be 1.
    idless: Vec<Entry>,
    damage: Vec<Damage>,
    facts: FileFacts,
    not_a_session: bool,
    /// The id of the last entry line (repeated ids included); `None` for a v1 file.
    last_id: Option<Text>,
}

/// The line length room for entries is reserved for ([`entries_room`]); pi's lines are longer on
/// average, and room not filled is address space only.
const RESERVED_LINE_LEN: u64 = 1024;
/// At most this many entries are reserved for before the lines are read.
const MAX_RESERVED: usize = 1 << 20;

/// How many entries to make room for before `bytes` of a session file's lines are read, so that
/// the vector they go to is not grown (and copied, or its huge pages split) as they come.
pub fn entries_room(bytes: u64) -> usize {
    usize::try_from(bytes / RESERVED_LINE_LEN).map_or(MAX_RESERVED, |n| n.min(MAX_RESERVED))
}

impl Builder {
    /// A builder for a file of `len` bytes, with room for its entries reserved at once on huge
    /// pages ([`crate::memory::prefer_huge_pages`]): the entries of a big session are tens of MB
    /// filled by one thread.
    fn for_file_of(len: u64) -> Builder {
        let mut entries = Vec::with_capacity(entries_room(len));
        crate::memory::prefer_huge_pages(&mut entries);
        Builder { entries, ..Builder::default() }
    }

    fn push_all(&mut self, batch: LineBatch) {
        for (number, line) in batch.lines {
            self.push(number, line);
        }
        if let Some(facts) = batch.facts {
            self.facts = facts;
        }
    }

    fn push(&mut self, number: u32, line: Line) {
        if self.not_a_session {
            return;
        }
        match line {
            Line::Blank => {}
            Line::Malformed => self.damage(number, DamageKind::Malformed),
            Line::NotAnObject if self.header.is_none() => self.reject(number),
            Line::NotAnObject | Line::Falsy => self.damage(number, DamageKind::NotAnObject),
            Line::Header(h) if self.header.is_none() => self.header = Some(header(*h, number)),
            Line::Header(_) => self.damage(number, DamageKind::ExtraHeader),
            _ if self.header.is_none() => self.reject(number),
            Line::NoId(e) if self.is_v1() => self.idless.push(e),
            Line::NoId(_) => self.damage(number, DamageKind::MissingId),
            Line::Entry(e) if self.is_v1() => self.idless.push(e),
            Line::Entry(e) => {
                self.last_id = Some(e.id.clone());
                self.entries.push(e);
            }
        }
    }

    fn is_v1(&self) -> bool {
        self.header.as_ref().is_some_and(|h| h.version < 2)
    }

    fn reject(&mut self, number: u32) {
        self.first_parsed.get_or_insert(number);
        self.not_a_session = true;
    }

    fn damage(&mut self, line: u32, kind: DamageKind) {
        self.damage.push(Damage { line, kind });
    }

    /// The parsed file at `path`, last modified at `modified` before it was read.
    fn finish(mut self, path: PathBuf, modified: Option<SystemTime>) -> Result<ParsedFile, ParseError> {
        if self.facts.len == 0 {
            return Err(ParseError::Empty);
        }
        let header = match (self.header.take(), self.not_a_session) {
            (Some(h), false) => h,
            _ => {
                return Err(ParseError::NotASession { first_line: self.first_parsed });
            }
        };
        let mut entries = if header.version < 2 {
            migrate_v1(std::mem::take(&mut self.idless), &self.facts.first_line)
        } else {
            std::mem::take(&mut self.entries)
        };
        let last_id = self.last_id.take().or_else(|| entries.last().map(|e| e.id.clone()));
        let ids = drop_duplicates(&mut entries, &mut self.damage);
        let leaf = last_id.and_then(|id| ids.get(&id));
        entries.shrink_to_fit();
        self.damage.sort_by_key(|d| d.line);
        Ok(ParsedFile { path, header, entries, damage: self.damage, facts: self.facts, leaf, ids, modified })
    }
}

fn header(h: HeaderLine, line: u32) -> Header {
    Header {
        id: h.id.unwrap_or_default(),
        id_is_string: h.id_is_string,
        version: migration_version(h.version),
        timestamp: h.timestamp,
        cwd: h.cwd.unwrap_or_default(),
        parent_session: h.parent_session,
        line,
    }
}

/// Keep the first entry of each id; later ones are counted as damage. Returns the index of the
/// entries that are left.
fn drop_duplicates(entries: &mut Vec<Entry>, damage: &mut Vec<Damage>) -> IdIndex {
    let index = |entries: &[Entry]| IdIndex::new(entries.iter().map(|e| e.id.as_str()));
    let ids = index(entries);
    if ids.len() == entries.len() {
        return ids;
    }
    let mut seen: FastSet<Text> = FastSet::new();
    entries.retain(|e| {
        if seen.insert(e.id.clone()) {
            true
        } else {
            damage.push(Damage { line: e.line, kind: DamageKind::DuplicateId });
            false
        }
    });
    index(entries)
}

/// pi's v1→v2 migration, in memory: every entry gets a new id and the previous entry as its
/// parent; a compaction's `firstKeptEntryIndex` (header = index 0) becomes `firstKeptEntryId`.
///
/// pi draws the new ids at random, so they change on every open. pitree derives them from the
/// header line and the line number instead, so they are the same on every read and the same as the
/// ones [`crate::store`] writes when it migrates the file on disk.
fn migrate_v1(mut entries: Vec<Entry>, header_line: &[u8]) -> Vec<Entry> {
    let ids = legacy_ids(header_line, entries.iter().map(|e| e.line));
    let mut parent: Option<Text> = None;
    for (entry, id) in entries.iter_mut().zip(&ids) {
        entry.id = Text::from(id.as_str());
        entry.parent_id = parent.replace(Text::from(id.as_str()));
    }
    for (position, entry) in entries.iter_mut().enumerate() {
        if let Kind::Compaction { first_kept_entry_id, first_kept_entry_index: Some(index), .. } =
            &mut entry.kind
        {
            *first_kept_entry_id = kept_entry_id(&ids, position, *index);
        }
    }
    entries
}

/// The id a v1 `firstKeptEntryIndex` resolves to: index 0 is the header, and an index at or after
/// the compaction itself names an entry pi has not migrated yet, so it resolves to nothing.
fn kept_entry_id(ids: &[String], compaction_position: usize, index: f64) -> Option<String> {
    if index.fract() != 0.0 || index < 1.0 {
        return None;
    }
    let target = index as usize - 1;
    (target < compaction_position).then(|| ids[target].clone())
}

/// Deterministic 8-hex ids for the entries of a legacy file, unique within it.
pub fn legacy_ids(header_line: &[u8], lines: impl Iterator<Item = u32>) -> Vec<String> {
    let seed = fnv1a(header_line);
    let mut used = FastSet::new();
    lines
        .map(|line| {
            let mut salt = 0u64;
            loop {
                let h = fnv1a_u64(seed ^ (u64::from(line) << 20) ^ salt);
                let id = format!("{:08x}", h as u32);
                if used.insert(id.clone()) {
                    return id;
                }
                salt += 1;
            }
        })
        .collect()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100000001b3))
}

fn fnv1a_u64(v: u64) -> u64 {
    fnv1a(&v.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_version_is_compared_as_pi_compares_it() {
        let version = |json: &str| {
            let header = format!(r#"{{"type":"session","version":{json},"id":"s","cwd":"/p"}}"#);
            parse_bytes(header.as_bytes(), PathBuf::from("s.jsonl")).unwrap().header.version
        };
        assert_eq!(version("3"), 3);
        assert_eq!(version(r#""3""#), 3, "a numeric string is its number");
        assert_eq!(version(r#""2""#), 2);
        assert_eq!(version("2.5"), 2, "2.5 < 3: migrated from v2");
        assert_eq!(version(r#""abc""#), 3, "NaN is neither < 2 nor < 3: nothing to migrate");
        assert_eq!(version("null"), 1, "null ?? 1");
        assert_eq!(version("true"), 1, "true < 2");
        assert_eq!(version("-4"), 1);
        assert_eq!(version("7"), 7);
    }

    const HEADER: &str =
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#;

    fn user(id: &str, parent: Option<&str>, text: &str) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}"}}}}"#
        )
    }

    /// The user messages' texts (the text module, which reads what this one parses, is not needed).
    fn texts(file: &ParsedFile) -> Vec<String> {
        let text = |e: &Entry| match &e.kind {
            Kind::Message(m) => m.text.head.to_string(),
            other => panic!("not a message: {other:?}"),
        };
        file.entries.iter().map(text).collect()
    }

    fn session_file(lines: &[String]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        (dir, path)
    }

    fn append(path: &Path, text: &str) {
        use std::io::Write;
        std::fs::OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn a_last_line_that_repeats_an_id_makes_that_entry_the_leaf_as_in_pi() {
        let lines = [
            HEADER.into(),
            user("a", None, "one"),
            user("b", Some("a"), "two"),
            user("c", Some("b"), "three"),
        ];
        let (_dir, path) = session_file(&[&lines[..], &[user("b", Some("a"), "two again")]].concat());
        let file = parse_file(&path).unwrap();
        assert_eq!(texts(&file), ["one", "two", "three"], "the first entry with an id is kept");
        assert_eq!(file.leaf, Some(1), "pi's leaf is the last line's id: b");
        // Lines appended that hold no entry keep that leaf; a new entry becomes the leaf.
        append(&path, "not json\n");
        let grown = parse_appended(&file).unwrap().unwrap();
        assert_eq!(grown.leaf, Some(1));
        append(&path, &format!("{}\n", user("d", Some("b"), "four")));
        assert_eq!(parse_appended(&grown).unwrap().unwrap().leaf, Some(3));
        assert_eq!(parse_file(&path).unwrap().leaf, Some(3));
    }

    #[test]
    fn a_grown_file_has_only_its_new_lines_read() {
        let (_dir, path) = session_file(&[HEADER.into(), user("a", None, "one")]);
        let old = parse_file(&path).unwrap();
        // A change inside the part already read is not seen: that part is not read again.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, String::from_utf8(bytes).unwrap().replace("one", "ONE")).unwrap();
        append(&path, &format!("{}\n", user("b", Some("a"), "two")));
        let grown = parse_appended(&old).unwrap().expect("read from where the first read stopped");
        assert_eq!(texts(&grown), ["one", "two"]);
        assert_eq!(grown.facts.lines, 3);
        assert_eq!(grown.entries[1].line, 3);
        assert_eq!(grown.entries[1].span.start, old.facts.len);
        assert_eq!(grown.facts.first_line, old.facts.first_line);
    }

    #[test]
    fn a_file_is_unchanged_on_disk_until_its_length_or_time_changes() {
        let (_dir, path) = session_file(&[HEADER.into(), user("a", None, "one")]);
        let read = parse_file(&path).unwrap();
        assert!(read.unchanged_on_disk());
        let bytes = std::fs::read(&path).unwrap();
        let rewritten = String::from_utf8(bytes).unwrap().replace("one", "ONE");
        std::fs::write(&path, &rewritten).unwrap();
        let later = read.modified.unwrap() + std::time::Duration::from_secs(1);
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(later).unwrap();
        assert!(!read.unchanged_on_disk(), "same length, later time");
        let again = parse_file(&path).unwrap();
        assert!(again.unchanged_on_disk());
        append(&path, &format!("{}\n", user("b", Some("a"), "two")));
        assert!(!again.unchanged_on_disk(), "longer");
        std::fs::remove_file(&path).unwrap();
        assert!(!again.unchanged_on_disk(), "gone");
    }

    #[test]
    fn a_replaced_shrunk_unchanged_or_torn_file_is_read_whole() {
        let (_dir, path) = session_file(&[HEADER.into(), user("a", None, "one")]);
        let old = parse_file(&path).unwrap();
        assert!(parse_appended(&old).unwrap().is_none(), "nothing was appended");
        std::fs::write(
            &path,
            format!(
                "{}\n{}\n{}\n",
                HEADER.replace("\"s\"", "\"t\""),
                user("a", None, "x"),
                user("b", None, "y")
            ),
        )
        .unwrap();
        assert!(parse_appended(&old).unwrap().is_none(), "the first line changed");
        std::fs::write(&path, format!("{HEADER}\n")).unwrap();
        assert!(parse_appended(&old).unwrap().is_none(), "the file shrank");

        std::fs::write(&path, format!("{HEADER}\n{}", &user("a", None, "one")[..30])).unwrap();
        let torn = parse_file(&path).unwrap();
        append(&path, &format!("{}\n", &user("a", None, "one")[30..]));
        assert!(parse_appended(&torn).unwrap().is_none(), "the last line read had no newline yet");
    }
}
