//! One cache file: a fixed header with the change key of the session file it was made from, the
//! session's path, a table of segments, then the segments (the file's parts, then its entries in
//! runs of [`SEGMENT_ENTRIES`]), each with its own hash so that the segments are read, checked
//! and decoded in parallel.
//!
//! | bytes | content |
//! |---|---|
//! | 0..8 | magic `PITREESC` |
//! | 8..12 | format version ([`FORMAT_VERSION`]) |
//! | 12..16 | level (0 outline, 1 whole) |
//! | 16..48 | the session file's length, mtime (ns), device and inode when it was read |
//! | 48..64 | hashes of its first 4 KiB and of the 4 KiB before the end of what was read |
//! | 64..80 | path length, segment count |
//! | 80..88 | hash of bytes 0..80, the path and the table |
//! | 88.. | the path, the table (offset, length, entry count, hash per segment), the segments |

use std::fs::{self, File, OpenOptions};
use std::io;
use std::mem::MaybeUninit;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::codec::{FileParts, Reader, Writer};
use crate::catalog::cache_file::{os_string, temp_name};
use crate::catalog::hash::hash64;
use crate::catalog::index::Fingerprint;
use crate::catalog::locate::FileMeta;
use crate::session::Entry;
use crate::session::parse::{CURRENT_VERSION, ParseError, ParsedFile};

const MAGIC: &[u8; 8] = b"PITREESC";
/// Bumped whenever the layout or the meaning of a field changes, and whenever the session
/// reader changes what it keeps of an entry (a cache must hold what a fresh read gives).
pub const FORMAT_VERSION: u32 = 3;
const HEADER_LEN: usize = 88;
const TABLE_ROW: usize = 32;
/// Entries per segment: enough segments for both cores to share, few enough to stay cheap.
const SEGMENT_ENTRIES: usize = 4096;
/// A cache file claiming a longer path or more segments than this is damaged.
const MAX_PATH: u64 = 1 << 16;
const MAX_SEGMENTS: u64 = 1 << 20;
/// No entry takes fewer bytes than this in a segment (its id, parent, timestamp and span), so a
/// table claiming more entries than the file could hold is damaged.
const MIN_ENTRY_LEN: usize = 32;

/// How much of each entry a cache file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// What [`crate::session::Session::outline`] reads: the tree, without row texts.
    Outline,
    /// What [`crate::session::Session::open`] reads.
    Whole,
}

impl Level {
    /// How a session file is read at this level.
    pub fn reader(self) -> fn(&Path) -> Result<ParsedFile, ParseError> {
        match self {
            Level::Outline => crate::session::parse::outline_file,
            Level::Whole => crate::session::parse::parse_file,
        }
    }
}

/// What a cache file says about the session file it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub level: Level,
    /// The session file's metadata when it was read; its length is where the read ended.
    pub meta: FileMeta,
    pub fingerprint: Fingerprint,
    pub path: PathBuf,
}

/// A cache file's key and where its segments are, read and checked without its segments.
pub struct Opened {
    pub key: Key,
    file: File,
    len_on_disk: usize,
    segments: Vec<Segment>,
}

#[derive(Clone, Copy)]
struct Segment {
    offset: u64,
    len: u64,
    entries: u64,
    hash: u64,
}

/// Open the cache file at `path` and check its header and table; `None` when it is missing,
/// foreign, of another format or damaged.
pub fn open(path: &Path) -> Option<Opened> {
    let file = crate::session::content::open_regular(path).ok()?;
    let mut head = [0u8; HEADER_LEN];
    file.read_exact_at(&mut head, 0).ok()?;
    let word = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().unwrap());
    if &head[..8] != MAGIC || u32::from_le_bytes(head[8..12].try_into().unwrap()) != FORMAT_VERSION {
        return None;
    }
    let level = match u32::from_le_bytes(head[12..16].try_into().unwrap()) {
        0 => Level::Outline,
        1 => Level::Whole,
        _ => return None,
    };
    let (path_len, count) = (word(64), word(72));
    if path_len > MAX_PATH || count == 0 || count > MAX_SEGMENTS {
        return None;
    }
    let mut rest = vec![0u8; (path_len + count * TABLE_ROW as u64) as usize];
    file.read_exact_at(&mut rest, HEADER_LEN as u64).ok()?;
    let mut checked = head[..80].to_vec();
    checked.extend_from_slice(&rest);
    if hash64(&checked, 8) != word(80) {
        return None;
    }
    let (path_bytes, table) = rest.split_at(path_len as usize);
    let segments = table
        .chunks_exact(TABLE_ROW)
        .map(|row| {
            let w = |i: usize| u64::from_le_bytes(row[8 * i..8 * i + 8].try_into().unwrap());
            Segment { offset: w(0), len: w(1), entries: w(2), hash: w(3) }
        })
        .collect();
    let meta = FileMeta { len: word(16), mtime_ns: word(24) as i64, dev: word(32), ino: word(40) };
    let fingerprint = Fingerprint { head: word(48), before_offset: word(56) };
    let path = PathBuf::from(os_string(path_bytes)?);
    let len_on_disk = usize::try_from(file.metadata().ok()?.len()).ok()?;
    Some(Opened { key: Key { level, meta, fingerprint, path }, file, segments, len_on_disk })
}

impl Opened {
    /// The cached file's parts and entries (message bodies stepped over when `skeleton`, see
    /// [`Reader::skeleton`]; `None` for a legacy file, whose parts say so before any entry is
    /// read), with room for `room` more entries (those of the lines appended since, read next).
    /// Both cores read, check and decode segments, each into its own place of the one vector of
    /// entries; `None` when any segment is damaged.
    pub fn read(&self, skeleton: bool, room: usize) -> Option<(FileParts, Vec<Entry>)> {
        let (parts, runs) = self.segments.split_first()?;
        let parts = self.with_segment(parts, |r| r.file_parts())?;
        // A legacy file's entries are migrated in memory: its lines read again are not its entries.
        if skeleton && parts.header.version != CURRENT_VERSION {
            return None;
        }
        let counts: Vec<usize> =
            runs.iter().map(|s| usize::try_from(s.entries).ok()).collect::<Option<_>>()?;
        let total = counts.iter().try_fold(0usize, |sum, &n| sum.checked_add(n))?;
        if total > self.len_on_disk / MIN_ENTRY_LEN {
            return None;
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(total.checked_add(room)?);
        crate::memory::prefer_huge_pages(&mut entries);
        let mut places = Vec::with_capacity(runs.len());
        let mut spare = &mut entries.spare_capacity_mut()[..total];
        for &n in &counts {
            let (place, rest) = spare.split_at_mut(n);
            places.push(place);
            spare = rest;
        }
        let decoded: Vec<(usize, bool)> = runs
            .par_iter()
            .zip(places)
            .map_init(Vec::new, |buf, (s, place)| self.decode_run(s, place, buf, skeleton))
            .collect();
        if decoded.iter().all(|&(_, whole)| whole) {
            // SAFETY: every one of the first `total` places was written by `entries_into`.
            unsafe { entries.set_len(total) };
            return Some((parts, entries));
        }
        let mut start = 0;
        for (&n, &(done, _)) in counts.iter().zip(&decoded) {
            // SAFETY: `entries_into` wrote the first `done` places of this segment's `n`.
            unsafe {
                std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                    entries.as_mut_ptr().add(start),
                    done,
                ))
            };
            start += n;
        }
        None
    }

    /// Read segment `s` into `buf` and check its hash.
    fn segment_bytes<'b>(&self, s: &Segment, buf: &'b mut Vec<u8>) -> Option<&'b [u8]> {
        buf.resize(usize::try_from(s.len).ok()?, 0);
        self.file.read_exact_at(buf, s.offset).ok()?;
        (hash64(buf, 9) == s.hash).then_some(&buf[..])
    }

    /// Read segment `s`, check its hash, and decode it whole with `decode`.
    fn with_segment<T>(&self, s: &Segment, decode: impl FnOnce(&mut Reader<'_>) -> Option<T>) -> Option<T> {
        let mut buf = Vec::new();
        let mut reader = Reader::new(self.segment_bytes(s, &mut buf)?)?;
        let value = decode(&mut reader)?;
        reader.is_done().then_some(value)
    }

    /// Decode the entries of segment `s` into `places` (`buf` holds its bytes meanwhile): how
    /// many places were written, and whether that is all of them with the whole segment used.
    fn decode_run(
        &self,
        s: &Segment,
        places: &mut [MaybeUninit<Entry>],
        buf: &mut Vec<u8>,
        skeleton: bool,
    ) -> (usize, bool) {
        let reader = self.segment_bytes(s, buf).and_then(Reader::new);
        let Some(mut reader) = reader.map(|r| if skeleton { r.skeleton() } else { r }) else {
            return (0, false);
        };
        let written = reader.entries_into(places);
        (written, written == places.len() && reader.is_done())
    }

    /// Mark the cache file as just used (eviction drops the least recently used first).
    pub fn touch(&self) {
        let _ = self.file.set_modified(std::time::SystemTime::now());
    }
}

/// Segments encoded at once (in parallel, one a core) before they are written: the encoding of
/// a big session is never all in memory, and a command that keeps its session while it prints
/// (`pitree show`) peaks at little more than the session (8 at once added ~12 MB to its peak).
const SEGMENTS_AT_ONCE: usize = 2;

/// Write the cache file of `file` (read at `key`) to `path`, atomically: a private temp file in
/// the same folder renamed over it, so a reader sees the old file or the new one.
pub fn write(path: &Path, key: &Key, file: &ParsedFile) -> io::Result<()> {
    let temp = temp_name(path);
    let result = (|| {
        let out = OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temp)?;
        write_to(&out, key, file)?;
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// The segments written after the header's place, then the header, the path and the table.
fn write_to(out: &File, key: &Key, file: &ParsedFile) -> io::Result<()> {
    let path_bytes = key.path.as_os_str().as_encoded_bytes();
    let runs: Vec<&[Entry]> = file.entries.chunks(SEGMENT_ENTRIES).collect();
    let count = 1 + runs.len();
    let mut segments = Segments {
        out,
        offset: (HEADER_LEN + path_bytes.len() + count * TABLE_ROW) as u64,
        table: Vec::with_capacity(count * TABLE_ROW),
    };
    let mut parts = Slot::default();
    parts.writer.file_parts(&file.header, &file.damage, &file.facts, file.leaf);
    parts.seal(0);
    segments.write(std::slice::from_ref(&parts))?;
    // Each slot encodes one segment of a batch, its buffers kept from batch to batch.
    let mut slots: Vec<Slot> = (0..SEGMENTS_AT_ONCE).map(|_| Slot::default()).collect();
    for batch in runs.chunks(SEGMENTS_AT_ONCE) {
        let slots = &mut slots[..batch.len()];
        slots.par_iter_mut().zip(batch).for_each(|(slot, run)| {
            slot.writer.entries(run);
            slot.seal(run.len());
        });
        segments.write(slots)?;
    }
    out.write_all_at(&header(key, path_bytes, &segments.table), 0)
}

/// One segment being made: its encoding, hash and number of entries.
#[derive(Default)]
struct Slot {
    writer: Writer,
    bytes: Vec<u8>,
    hash: u64,
    entries: usize,
}

impl Slot {
    /// Finish the values written as this segment's bytes, with `entries` entries.
    fn seal(&mut self, entries: usize) {
        self.writer.finish_into(&mut self.bytes);
        self.hash = hash64(&self.bytes, 9);
        self.entries = entries;
    }
}

/// The segments of a cache file as they are written: where the next one goes, and the table.
struct Segments<'a> {
    out: &'a File,
    offset: u64,
    table: Vec<u8>,
}

impl Segments<'_> {
    /// Write `slots` one after the other (the file system takes one writer at a time per file,
    /// so writing them from more threads gains nothing).
    fn write(&mut self, slots: &[Slot]) -> io::Result<()> {
        for slot in slots {
            self.out.write_all_at(&slot.bytes, self.offset)?;
            for word in [self.offset, slot.bytes.len() as u64, slot.entries as u64, slot.hash] {
                self.table.extend_from_slice(&word.to_le_bytes());
            }
            self.offset += slot.bytes.len() as u64;
        }
        Ok(())
    }
}

/// The header, path and table of a cache file.
fn header(key: &Key, path_bytes: &[u8], table: &[u8]) -> Vec<u8> {
    let mut head = Vec::with_capacity(HEADER_LEN + path_bytes.len() + table.len());
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    head.extend_from_slice(&u32::from(key.level == Level::Whole).to_le_bytes());
    let m = &key.meta;
    let words = [m.len, m.mtime_ns as u64, m.dev, m.ino, key.fingerprint.head, key.fingerprint.before_offset];
    let count = (table.len() / TABLE_ROW) as u64;
    for word in words.into_iter().chain([path_bytes.len() as u64, count]) {
        head.extend_from_slice(&word.to_le_bytes());
    }
    head.extend_from_slice(path_bytes);
    head.extend_from_slice(table);
    let hash = hash64(&head, 8);
    head.splice(80..80, hash.to_le_bytes());
    head
}
