//! The bytes of the index's records section: each record's path, change key, fingerprint, trust
//! and scan states written in a fixed order (little-endian numbers, strings and id sets after
//! their length, texts as their places in the texts file), and read back with every length
//! checked, so that damage gives `None`, never a panic or a huge allocation.

use std::path::PathBuf;

use color_eyre::eyre::{Result, bail};

use super::record::{Fingerprint, Record, Slot, Stored, TextOf, TextRef, Trust};
use super::texts::{TEXTS_HEADER_LEN, TextsFile};
use crate::catalog::cache_file::os_string;
use crate::catalog::hash::hash64;
use crate::catalog::locate::FileMeta;
use crate::catalog::scan::{HeaderInfo, IdSet, Resume, ScanState};
use crate::session::entry::Usage;

/// The magic a records file starts with.
const MAGIC: &[u8; 8] = b"PITREEIX";
/// Bumped whenever the layout or the meaning of a field changes.
pub const FORMAT_VERSION: u32 = 8;
/// The records file's header, before its records.
pub(super) const HEADER_LEN: usize = 64;

/// What a records file's header says (see the table in [`super`]).
pub(super) struct Header {
    pub(super) count: u64,
    pub(super) records_len: u64,
    pub(super) records_hash: u64,
    pub(super) texts_len: u64,
    pub(super) texts_id: u64,
}

/// The header `b`, checked: magic, format and hash.
pub(super) fn parse_header(b: &[u8; HEADER_LEN]) -> Result<Header> {
    if &b[..8] != MAGIC {
        bail!("not a pitree index");
    }
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let version = u32::from_le_bytes(b[8..12].try_into().unwrap());
    if version != FORMAT_VERSION {
        bail!("index format {version}, this pitree reads {FORMAT_VERSION}");
    }
    if word(56) != hash64(&b[..56], 4) {
        bail!("the index header is damaged");
    }
    Ok(Header {
        count: word(16),
        records_len: word(24),
        records_hash: word(32),
        texts_len: word(40),
        texts_id: word(48),
    })
}

/// The header and the records section of the index of `records`.
pub(super) fn encode(
    records: &[&Record],
    places: &[Stored],
    texts: &TextsFile,
) -> ([u8; HEADER_LEN], Vec<u8>) {
    let mut body = Writer::default();
    for (r, place) in records.iter().zip(places) {
        body.bytes(r.path.as_os_str().as_encoded_bytes());
        body.u64(r.meta.len);
        body.u64(r.meta.mtime_ns as u64);
        body.u64(r.meta.dev);
        body.u64(r.meta.ino);
        body.u64(r.resume.offset);
        body.u64(r.fingerprint.head);
        body.u64(r.fingerprint.before_offset);
        body.u8(r.trust.code());
        body.state(&r.resume.state, &place.resume);
        body.u8(u8::from(r.tail.is_some()));
        if let (Some(tail), Some(place)) = (&r.tail, &place.tail) {
            body.state(tail, place);
        }
    }
    let mut head = [0u8; HEADER_LEN];
    head[..8].copy_from_slice(MAGIC);
    head[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let words = [records.len() as u64, body.bytes.len() as u64, hash64(&body.bytes, 3), texts.len, texts.id];
    for (i, word) in words.iter().enumerate() {
        head[16 + 8 * i..24 + 8 * i].copy_from_slice(&word.to_le_bytes());
    }
    let header_hash = hash64(&head[..56], 4);
    head[56..].copy_from_slice(&header_hash.to_le_bytes());
    (head, body.bytes)
}

/// Encodes records; a text is written as its place in the texts file and its hash.
#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.bytes.extend_from_slice(b);
    }
    fn opt_str(&mut self, s: Option<&str>) {
        self.u8(u8::from(s.is_some()));
        if let Some(s) = s {
            self.bytes(s.as_bytes());
        }
    }
    fn ids(&mut self, set: &IdSet) {
        self.u64(set.len() as u64);
        let mut ids: Vec<u64> = set.iter().copied().collect();
        ids.sort_unstable();
        for id in ids {
            self.u64(id);
        }
    }
    fn state(&mut self, s: &ScanState, pieces: &[TextRef]) {
        self.u8(u8::from(s.rejected));
        self.u8(u8::from(s.header.is_some()));
        if let Some(h) = &s.header {
            self.bytes(h.id.as_bytes());
            self.u8(u8::from(h.id_is_string));
            self.u32(h.version);
            self.opt_str(h.timestamp.as_deref());
            self.u8(u8::from(h.created_ms.is_some()));
            self.u64(h.created_ms.unwrap_or(0) as u64);
            self.bytes(h.cwd.as_bytes());
            self.opt_str(h.parent_session.as_deref());
        }
        self.opt_str(s.name.as_deref());
        self.u32(s.message_count);
        self.u8(u8::from(s.last_activity.is_some()));
        self.f64(s.last_activity.unwrap_or(0.0));
        self.opt_str(s.first_message.as_deref());
        for v in [s.usage.input, s.usage.output, s.usage.cache_read, s.usage.cache_write, s.usage.cost] {
            self.f64(v);
        }
        self.u32(s.v1_entries);
        self.u32(s.unreadable);
        self.ids(&s.tips);
        self.ids(&s.dangling);
        self.u32(pieces.len() as u32);
        for p in pieces {
            self.u64(p.offset);
            self.u64(p.len);
            self.u64(p.hash);
        }
    }
}

/// Decode the record at `place` of the index `h` and add its texts to `refs` (only when the whole
/// record decodes). Every length is checked, so damage, or the end of what `r` holds, gives
/// `None`, never a panic.
pub(super) fn decode_record(
    r: &mut Reader<'_>,
    h: &Header,
    place: usize,
    refs: &mut Vec<TextOf>,
) -> Option<Record> {
    let path = PathBuf::from(os_string(r.bytes()?)?);
    let meta = FileMeta { len: r.u64()?, mtime_ns: r.u64()? as i64, dev: r.u64()?, ino: r.u64()? };
    let offset = r.u64()?;
    let fingerprint = Fingerprint { head: r.u64()?, before_offset: r.u64()? };
    let trust = Trust::from_code(r.u8()?)?;
    let (state, resume_text) = r.state(h.texts_len)?;
    let (tail, tail_text) = match r.u8()? {
        0 => (None, None),
        1 => {
            let (s, t) = r.state(h.texts_len)?;
            (Some(Box::new(s)), Some(t))
        }
        _ => return None,
    };
    refs.extend(resume_text.iter().map(|&t| (place, Slot::Resume, t)));
    refs.extend(tail_text.iter().flatten().map(|&t| (place, Slot::Tail, t)));
    let stored = Some(Stored { texts_id: h.texts_id, resume: resume_text, tail: tail_text });
    let resume = Resume { offset, state };
    Some(Record { path, meta, resume, tail, fingerprint, trust, stored, prefix: None })
}

/// Reads the values of records from `b`, a part of a records section `section` bytes long.
pub(super) struct Reader<'a> {
    b: &'a [u8],
    /// How many bytes of `b` were read.
    pub(super) i: usize,
    /// The length of the whole section: no count read can be more than it could hold.
    section: usize,
    /// A read went past the end of `b` (more of the section may follow).
    pub(super) short: bool,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `b`, part of a records section `section` bytes long.
    pub(super) fn new(b: &'a [u8], section: usize) -> Reader<'a> {
        Reader { b, i: 0, section, short: false }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.i.checked_add(n)?;
        let Some(s) = self.b.get(self.i..end) else {
            self.short = true;
            return None;
        };
        self.i = end;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    }
    fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    fn string(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_string)
    }
    fn opt_string(&mut self) -> Option<Option<String>> {
        if self.flag()? { self.string().map(Some) } else { Some(None) }
    }
    fn ids(&mut self) -> Option<IdSet> {
        let n = usize::try_from(self.u64()?).ok()?;
        if n > self.section / 8 {
            return None;
        }
        (0..n).map(|_| self.u64()).collect()
    }
    fn state(&mut self, texts_len: u64) -> Option<(ScanState, Vec<TextRef>)> {
        let rejected = self.flag()?;
        let header = if self.flag()? {
            Some(HeaderInfo {
                id: self.string()?,
                id_is_string: self.flag()?,
                version: self.u32()?,
                timestamp: self.opt_string()?,
                created_ms: {
                    let some = self.flag()?;
                    let ms = self.u64()? as i64;
                    some.then_some(ms)
                },
                cwd: self.string()?,
                parent_session: self.opt_string()?,
            })
        } else {
            None
        };
        let name = self.opt_string()?;
        let message_count = self.u32()?;
        let has_activity = self.flag()?;
        let activity = self.f64()?;
        let first_message = self.opt_string()?;
        let usage = Usage {
            input: self.f64()?,
            output: self.f64()?,
            cache_read: self.f64()?,
            cache_write: self.f64()?,
            cost: self.f64()?,
        };
        let v1_entries = self.u32()?;
        let unreadable = self.u32()?;
        let tips = self.ids()?;
        let dangling = self.ids()?;
        let count = self.u32()? as usize;
        if count > self.section / 24 {
            return None;
        }
        let mut pieces = Vec::with_capacity(count);
        for _ in 0..count {
            let text = TextRef { offset: self.u64()?, len: self.u64()?, hash: self.u64()? };
            if text.offset < TEXTS_HEADER_LEN || text.offset.checked_add(text.len)? > texts_len {
                return None;
            }
            pieces.push(text);
        }
        let state = ScanState {
            header,
            rejected,
            name,
            message_count,
            last_activity: has_activity.then_some(activity),
            first_message,
            all_text: String::new(),
            usage,
            v1_entries,
            tips,
            dangling,
            unreadable,
        };
        Some((state, pieces))
    }
}
