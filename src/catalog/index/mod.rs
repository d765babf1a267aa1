//! The persistent index: for every session file scanned, its change key and the scan state at the
//! end of its last complete line, so the next listing reads only what changed.
//!
//! **Invalidation.** A record is keyed by path and carries the file's (device, inode, size, mtime
//! in ns):
//! - all four equal → the file is not read at all, unless its [`Trust`] says otherwise: a file
//!   modified less than [`RACY_NS`] before its scan could be rewritten with the same size in the
//!   same timestamp tick (file times advance in ticks) behind an equal key, so it is checked as
//!   below; a file that changed while it was scanned is scanned again from the start;
//! - same device and inode, not smaller, and the bytes before the stored offset unchanged (a hash of
//!   the first 4 KiB and of the 4 KiB before the offset) → only the bytes after the offset are read;
//!   the fingerprint is made of the very bytes the scan read (and the checked 4 KiB before where
//!   it started), so it always describes the bytes the stored state comes from;
//! - otherwise (replaced, rewritten, shrunk) → the file is scanned again from the start;
//! - a file no longer listed in a folder that was listed → its record is dropped.
//!
//! **Format** (little-endian), two files per sessions root in the cache folder: the records
//! `index-<hash of the root>.bin` and their texts `index-<hash of the root>.texts`.
//!
//! | bytes of `.bin` | content |
//! |---|---|
//! | 0..8 | magic `PITREEIX` |
//! | 8..12 | format version ([`FORMAT_VERSION`]) |
//! | 12..16 | zero |
//! | 16..56 | record count, records length, records hash, texts length, texts file id (u64 each) |
//! | 56..64 | hash of bytes 0..56 |
//! | 64.. | records |
//!
//! Records hold the path, change key, offset, fingerprints and scan states (header fields, name,
//! counts, first message, usage, branch bookkeeping), with strings length-prefixed. Every
//! `allMessagesText` sits in the texts file (magic `PITREETX` and its random id, then texts), as
//! a list of pieces (place, length, hash) in its record, joined when read. The texts file only
//! grows: a save appends the texts of the files it read and points the other records at the texts
//! they already have, so a session that grew by 1 MB costs about 1 MB, not the whole index; a
//! session continued without its text in memory gets its new text as one more piece (a text of
//! 16 pieces is written again whole); when less than half of the file is still
//! referenced, a save writes a new texts file (new id) with only the live texts. Listing
//! without a query reads only the records (a few hundred bytes per session); the picker lists
//! first and has the texts read afterwards, from the same open file ([`TextsOnDisk`]). A
//! records file with a wrong magic, another version, a bad length or hash, a record that does not
//! decode, or a texts file with another id, shorter than its records say, or with a text that
//! does not match its hash, is ignored as a whole and rebuilt.
//!
//! **Writing** is atomic: texts are appended first (what they replace stays until a compaction),
//! then the new records go to a uniquely named temp file (mode 0600) in the same folder, which is
//! renamed over the old one; a new texts file is written the same way. A writer first takes an
//! advisory lock on a sidecar `<index>.lock`; when another pitree holds it, this one skips
//! writing (the other is writing an index of the same files). Readers never lock: they see the
//! old file or the new one.
//!
//! **Code.** This module loads and saves; what a record holds is in `record`, the bytes of the
//! records section in `codec`, and the texts file in `texts`.

mod codec;
mod record;
mod texts;

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, bail};
use rayon::prelude::*;

use crate::session::content::open_regular;

use super::cache_file::{create_private_dir, temp_name};
use super::hash::{FastMap, Hasher64, hash64};
use super::locate::FileMeta;
use codec::{HEADER_LEN, Header, Reader, decode_record, encode, parse_header};
use record::{PendingTexts, TextOf, path_key};
use texts::{COMPACT_MIN, Plan, TextsFile, defer, live_texts_len, open_texts, read_texts, set_text};

pub use codec::FORMAT_VERSION;
pub use record::{Fingerprint, Prefix, RACY_NS, Record, Stored, TextRef, Trust, history};
pub use texts::{TextSource, TextsOnDisk, texts_path};

/// The records section is read through a buffer of this size ([`read_records`]).
const READ_BLOCK: usize = 256 << 10;

/// How a file's record can be used.
#[derive(Debug)]
pub enum Reuse {
    /// Nothing changed.
    Unchanged,
    /// The file grew (or was touched): continue from the record's resume point.
    Continue,
    /// Scan from the start.
    Rescan,
}

/// Decide how `record` can serve the file now described by `meta`; also returns the bytes read to
/// check the fingerprint.
pub fn classify(record: &Record, meta: &FileMeta) -> (Reuse, u64) {
    let old = &record.meta;
    if record.trust == Trust::Changed {
        return (Reuse::Rescan, 0);
    }
    if old == meta && record.trust == Trust::Settled {
        return (Reuse::Unchanged, 0);
    }
    if (old.dev, old.ino) != (meta.dev, meta.ino) || meta.len < old.len {
        return (Reuse::Rescan, 0);
    }
    match Fingerprint::of(&record.path, record.resume.offset) {
        Ok((fp, read)) if fp == record.fingerprint => (Reuse::Continue, read),
        Ok((_, read)) => (Reuse::Rescan, read),
        Err(_) => (Reuse::Rescan, 0),
    }
}

/// The index file of a sessions root inside `cache_dir`.
pub fn index_path(cache_dir: &Path, root: &Path) -> PathBuf {
    let key = hash64(root.as_os_str().as_encoded_bytes(), 0);
    cache_dir.join(format!("index-{key:016x}.bin"))
}

/// The records of an index file, with its texts loaded now or on demand.
#[derive(Debug, Default)]
pub struct Index {
    /// Keyed by the file's path.
    pub records: FastMap<OsString, Record>,
    /// The paths of the records in file order (the texts name their record by its place).
    order: Vec<OsString>,
    /// Where the texts still to load are, when they were not loaded with the records.
    pending_texts: Option<PendingTexts>,
}

impl Index {
    /// Load `path`; `with_texts` also loads every `allMessagesText`. Any damage is an error (the
    /// caller starts from an empty index).
    pub fn load(path: &Path, with_texts: bool) -> Result<Index> {
        let (list, pending) = read_index(path)?;
        let order: Vec<OsString> = list.iter().map(|r| r.path.clone().into_os_string()).collect();
        let mut records = FastMap::with_capacity_and_hasher(list.len(), Default::default());
        for (record, key) in list.into_iter().zip(&order) {
            records.insert(key.clone(), record);
        }
        let mut index = Index { records, order, pending_texts: Some(pending) };
        if with_texts {
            index.load_texts()?;
        }
        Ok(index)
    }

    /// The records of `path` in file order for one listing, without the map of
    /// [`Index::load`] (see [`Records`]).
    pub(crate) fn load_records(path: &Path, with_texts: bool) -> Result<Records> {
        let (list, pending) = read_index(path)?;
        // A later record of the same path (or, as rarely as a 64-bit hash collides, of another
        // path with the same key, which is then read again) replaces an earlier one, as in the map.
        let mut by_path = FastMap::with_capacity_and_hasher(list.len(), Default::default());
        let replaced: Vec<usize> = list
            .iter()
            .enumerate()
            .filter_map(|(i, record)| by_path.insert(path_key(&record.path), i))
            .collect();
        let mut slots: Vec<Option<Record>> = list.into_iter().map(Some).collect();
        replaced.into_iter().for_each(|i| slots[i] = None);
        let mut records = Records { slots, by_path, pending_texts: Some(pending) };
        if with_texts {
            records.load_texts()?;
        }
        Ok(records)
    }

    /// Whether the texts of the records are in memory.
    pub fn has_texts(&self) -> bool {
        self.pending_texts.is_none()
    }

    /// Load the texts that [`Index::load`] left on disk.
    pub fn load_texts(&mut self) -> Result<()> {
        if let Some(pending) = self.pending_texts.take() {
            for ((place, slot, _), text) in pending.refs.iter().zip(read_texts(&pending)?) {
                let record = self.order.get(*place).and_then(|path| self.records.get_mut(path));
                set_text(record, *slot, text)?;
            }
        }
        Ok(())
    }

    /// The texts file the records were read with, while their texts are not in memory.
    pub fn text_source(&self) -> Option<TextSource<'_>> {
        self.pending_texts.as_ref().map(PendingTexts::source)
    }

    /// Write `records` to `path` atomically (see the module docs). `source` is the texts file the
    /// records were read with (their texts need not be in memory). Returns `false` when another
    /// process holds the write lock and nothing was written.
    pub fn save<'a>(
        path: &Path,
        records: impl ExactSizeIterator<Item = &'a Record>,
        source: Option<TextSource<'_>>,
    ) -> Result<bool> {
        let dir = path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)
            .wrap_err_with(|| format!("cannot create the cache folder {}", dir.display()))?;
        let lock_path = path.with_extension("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .wrap_err_with(|| format!("cannot open {}", lock_path.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Ok(false),
            Err(fs::TryLockError::Error(e)) => {
                return Err(e).wrap_err("cannot lock the index");
            }
        }
        let records: Vec<&Record> = records.collect();
        let mut texts = TextsFile::open_or_create(&texts_path(path))?;
        if texts.len > COMPACT_MIN && texts.len > 2 * live_texts_len(&records) {
            texts = TextsFile::create(&texts_path(path))?;
        }
        let plans: Vec<Plan> =
            records.par_iter().map(|r| texts.plan_texts(r, source)).collect::<Result<_>>()?;
        let new_texts: Vec<&str> =
            plans.iter().zip(&records).flat_map(|(plan, r)| plan.new_texts(r)).collect();
        let places = texts.place(&records, &plans, &new_texts)?;
        let tmp = temp_name(path);
        // The texts are appended while the records are written; the records take the index's
        // place only once both are done.
        let (appended, written) =
            rayon::join(|| texts.append(&new_texts), || write_private(&tmp, &records, &places, &texts));
        let written = appended.and(written).and_then(|()| {
            fs::rename(&tmp, path).wrap_err_with(|| format!("cannot replace {}", path.display()))
        });
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.map(|()| true)
    }
}

/// The records of an index file in file order, for one listing ([`Index::load_records`]): found
/// by path, then taken out; what is left is the records of the files not listed. Reading them
/// into [`Index::load`]'s map would move every (large) record into a large table.
#[derive(Debug, Default)]
pub(crate) struct Records {
    /// `None` once taken (or replaced by a later record of the same path).
    slots: Vec<Option<Record>>,
    /// The slot of each path, by [`path_key`] (so no path is copied).
    by_path: FastMap<u64, usize>,
    pending_texts: Option<PendingTexts>,
}

impl Records {
    /// The slot of the record of `path`.
    pub(crate) fn find(&self, path: &OsStr) -> Option<usize> {
        let slot = self.by_path.get(&path_key(Path::new(path))).copied()?;
        self.slots.get(slot)?.as_ref().is_some_and(|r| r.path.as_os_str() == path).then_some(slot)
    }

    pub(crate) fn get(&self, slot: usize) -> Option<&Record> {
        self.slots.get(slot)?.as_ref()
    }

    pub(crate) fn take(&mut self, slot: usize) -> Option<Record> {
        self.slots.get_mut(slot)?.take()
    }

    /// Take the records of the slots `marked` says, in slot order. When they are all the records
    /// left (an unchanged listing), the slots' own allocation becomes the result: the records are
    /// neither copied to fresh memory nor faulted in again.
    pub(crate) fn take_marked(&mut self, marked: &[bool]) -> Vec<Record> {
        let is_marked = |i: usize| marked.get(i).copied().unwrap_or(false);
        if self.slots.iter().enumerate().all(|(i, r)| r.is_none() || is_marked(i)) {
            // `filter_map` keeps the collect in place, `flatten` would not.
            #[allow(clippy::filter_map_identity)]
            return std::mem::take(&mut self.slots).into_iter().filter_map(|r| r).collect();
        }
        (0..self.slots.len()).filter(|&i| is_marked(i)).filter_map(|i| self.slots[i].take()).collect()
    }

    /// The records not taken.
    pub(crate) fn remaining(&self) -> impl Iterator<Item = &Record> {
        self.slots.iter().flatten()
    }

    /// The records not taken, with their slots.
    pub(crate) fn remaining_slots(&self) -> impl Iterator<Item = (usize, &Record)> {
        self.slots.iter().enumerate().filter_map(|(i, r)| Some((i, r.as_ref()?)))
    }

    /// How many slots there are (taken or not).
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.by_path.clear();
    }

    pub(crate) fn has_texts(&self) -> bool {
        self.pending_texts.is_none()
    }

    /// [`Index::load_texts`].
    pub(crate) fn load_texts(&mut self) -> Result<()> {
        if let Some(pending) = self.pending_texts.take() {
            for ((place, slot, _), text) in pending.refs.iter().zip(read_texts(&pending)?) {
                set_text(self.slots.get_mut(*place).and_then(Option::as_mut), *slot, text)?;
            }
        }
        Ok(())
    }

    /// The texts of the records in `slots` only (files that continue from their record).
    pub(crate) fn load_texts_of(&mut self, slots: &[usize]) -> Result<()> {
        let Some(pending) = &self.pending_texts else { return Ok(()) };
        for &slot in slots {
            let Some(record) = self.slots.get_mut(slot).and_then(Option::as_mut) else { continue };
            let Some(stored) = &record.stored else { continue };
            let [resume, tail] = pending.source().texts(stored)?;
            record.resume.state.all_text = resume.unwrap_or_default();
            if let (Some(state), Some(text)) = (record.tail.as_mut(), tail) {
                state.all_text = text;
            }
        }
        Ok(())
    }

    /// The texts of `records` (records taken out of these) that were not loaded with them, to read
    /// later; `None` when the texts are loaded. A record's text is the one of the state its summary
    /// is made from ([`Record::state`]).
    pub(crate) fn defer_texts(&mut self, records: &[Record]) -> Option<TextsOnDisk> {
        Some(defer(self.pending_texts.take()?, records, &self.by_path))
    }

    /// The texts file the records were read with, while their texts are not in memory.
    pub(crate) fn text_source(&self) -> Option<TextSource<'_>> {
        self.pending_texts.as_ref().map(PendingTexts::source)
    }
}

/// Read and check an index file: its records in file order, and its texts file, opened.
fn read_index(path: &Path) -> Result<(Vec<Record>, PendingTexts)> {
    let mut file = open_regular(path).wrap_err("cannot open the index")?;
    let mut header = [0u8; HEADER_LEN];
    file.read_exact(&mut header).wrap_err("the index is shorter than its header")?;
    let h = parse_header(&header)?;
    let file_len = file.metadata()?.len();
    if file_len != HEADER_LEN as u64 + h.records_len {
        bail!("the index has {file_len} bytes, its header says otherwise");
    }
    let texts = open_texts(&texts_path(path), h.texts_id, h.texts_len)?;
    let (records, refs) = read_records(&mut file, &h)?;
    Ok((records, PendingTexts { file: texts, id: h.texts_id, refs }))
}

/// Read, decode and check the records section that follows the header in `file`. It is read a
/// block at a time through one buffer, decoded and hashed as it comes: read whole into memory,
/// the 4.5 MB of 5,000 sessions cost a page fault per 4 KiB, more than decoding them. The hash is
/// checked at the end, and what was decoded is dropped when it does not match.
fn read_records(file: &mut File, h: &Header) -> Result<(Vec<Record>, Vec<TextOf>)> {
    let section = usize::try_from(h.records_len)?;
    // A record takes at least 64 bytes (path length, metadata, offset, fingerprint), so a damaged
    // count cannot make this reserve more than the records section could hold.
    let capacity = usize::try_from(h.count)?.min(section / 64);
    let mut records = Vec::with_capacity(capacity);
    let mut refs = Vec::with_capacity(capacity);
    let mut hasher = Hasher64::new(3);
    let mut buf = Vec::new();
    // `buf[..done]` is decoded; `unread` bytes of the section are still in the file.
    let mut done = 0;
    let mut unread = h.records_len;
    while (records.len() as u64) < h.count {
        let mut r = Reader::new(&buf[done..], section);
        let record = decode_record(&mut r, h, records.len(), &mut refs);
        let (used, short) = (r.i, r.short);
        match record {
            Some(record) => {
                done += used;
                records.push(record);
            }
            None if short && unread > 0 => {
                buf.drain(..done);
                done = 0;
                unread -= read_more(file, &mut buf, unread, &mut hasher)?;
            }
            None => bail!("the index records do not decode"),
        }
    }
    if done != buf.len() || unread != 0 {
        bail!("the index records do not decode");
    }
    if hasher.finish() != h.records_hash {
        bail!("the index records are damaged");
    }
    Ok((records, refs))
}

/// Append the next block of the `unread` bytes (more when `buf` already holds a block: a record
/// longer than that) to `buf`, hashing it; returns how many bytes were read.
fn read_more(file: &mut File, buf: &mut Vec<u8>, unread: u64, hasher: &mut Hasher64) -> Result<u64> {
    let want = (READ_BLOCK.max(buf.len()) as u64).min(unread);
    let before = buf.len();
    buf.reserve(usize::try_from(want)?);
    file.take(want).read_to_end(buf).wrap_err("cannot read the index")?;
    if buf.len() == before {
        bail!("the index is truncated");
    }
    hasher.update(&buf[before..]);
    Ok((buf.len() - before) as u64)
}

/// Write the records file of `records`, whose texts are at `places` in `texts`, to a new file at
/// `path` (mode 0600).
fn write_private(path: &Path, records: &[&Record], places: &[Stored], texts: &TextsFile) -> Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).wrap_err_with(|| format!("cannot create {}", path.display()))?;
    let (head, body) = encode(records, places, texts);
    file.write_all(&head)
        .and_then(|()| file.write_all(&body))
        .wrap_err_with(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::texts::{TEXTS_HEADER_LEN, TEXTS_PER_WRITE, texts_id};
    use super::*;
    use crate::catalog::scan::{HeaderInfo, Resume, ScanState};

    fn record(path: &str, text: &str) -> Record {
        let mut state = ScanState {
            header: Some(HeaderInfo {
                id: "s".into(),
                id_is_string: true,
                version: 3,
                timestamp: Some("2025-01-01T00:00:00.000Z".into()),
                created_ms: Some(1_735_689_600_000),
                cwd: "/p".into(),
                parent_session: None,
            }),
            name: Some("n".into()),
            message_count: 3,
            last_activity: Some(5.0),
            first_message: Some("hi".into()),
            all_text: text.into(),
            ..ScanState::default()
        };
        state.tips.insert(42);
        Record {
            path: PathBuf::from(path),
            meta: FileMeta { len: 10, mtime_ns: -5, dev: 1, ino: 2 },
            resume: Resume { offset: 9, state: state.clone() },
            tail: Some(Box::new(ScanState { all_text: format!("{text} more"), ..state })),
            fingerprint: Fingerprint { head: 7, before_offset: 8 },
            trust: if path.starts_with("/b") { Trust::Recent } else { Trust::Settled },
            stored: None,
            prefix: None,
        }
    }

    #[test]
    fn a_record_is_checked_when_its_file_changed_just_before_its_scan_and_rescanned_when_during() {
        let now = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000);
        let old = FileMeta { len: 10, mtime_ns: 1_700_000_000_000_000_000, dev: 1, ino: 2 };
        assert_eq!(Trust::of(&old, Some(&old), now), Trust::Settled);
        assert_eq!(
            Trust::of(&old, Some(&FileMeta { len: 11, ..old }), now),
            Trust::Changed,
            "grew during the scan"
        );
        assert_eq!(Trust::of(&old, None, now), Trust::Changed, "gone after the scan");
        let recent = FileMeta { mtime_ns: 1_800_000_000_000_000_000 - RACY_NS / 2, ..old };
        assert_eq!(Trust::of(&recent, Some(&recent), now), Trust::Recent, "modified just before");
        let changed = Record { trust: Trust::Changed, ..record("/a.jsonl", "x") };
        assert!(matches!(classify(&changed, &changed.meta), (Reuse::Rescan, 0)));
        let settled = record("/a.jsonl", "x");
        assert!(matches!(classify(&settled, &settled.meta), (Reuse::Unchanged, 0)));
    }

    #[test]
    fn round_trips_with_and_without_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let records = [record("/a.jsonl", "hello"), record("/b.jsonl", "wörld")];
        assert!(Index::save(&path, records.iter(), None).unwrap());
        let full = Index::load(&path, true).unwrap();
        assert_eq!(full.records.len(), 2);
        assert_eq!(unstored(&full, "/b.jsonl"), records[1]);
        let mut lazy = Index::load(&path, false).unwrap();
        assert!(!lazy.has_texts());
        assert_eq!(lazy.records[OsStr::new("/a.jsonl")].resume.state.all_text, "");
        lazy.load_texts().unwrap();
        assert_eq!(unstored(&lazy, "/a.jsonl"), records[0]);
    }

    /// More texts than one `writev` call appends, empty ones among them, each read back as it
    /// was saved, at the offsets the records were given.
    #[test]
    fn texts_of_many_writes_read_back_in_their_places() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let text =
            |i: usize| if i.is_multiple_of(7) { String::new() } else { format!("text {i} ").repeat(i % 13) };
        let saved: Vec<Record> =
            (0..3 * TEXTS_PER_WRITE / 2).map(|i| record(&format!("/s/{i:05}.jsonl"), &text(i))).collect();
        assert!(Index::save(&path, saved.iter(), None).unwrap());
        let loaded = Index::load(&path, true).unwrap();
        for r in &saved {
            assert_eq!(unstored(&loaded, r.path.to_str().unwrap()), *r);
        }
    }

    /// A records section of several read blocks, with records across block ends and one longer
    /// than a block, reads back whole; damage anywhere in it is still refused.
    #[test]
    fn a_records_section_longer_than_a_read_block_reads_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let mut saved: Vec<Record> = (0..3000).map(|i| record(&format!("/s/{i:05}.jsonl"), "t")).collect();
        saved[1500].resume.state.first_message = Some("long ".repeat(READ_BLOCK / 2));
        assert!(Index::save(&path, saved.iter(), None).unwrap());
        let records_len = fs::metadata(&path).unwrap().len() - HEADER_LEN as u64;
        assert!(records_len > 3 * READ_BLOCK as u64, "{records_len} bytes");
        let mut loaded = Index::load_records(&path, true).unwrap();
        for r in &saved {
            let slot = loaded.find(r.path.as_os_str()).unwrap();
            assert_eq!(&Record { stored: None, ..loaded.take(slot).unwrap() }, r);
        }
        let mut bytes = fs::read(&path).unwrap();
        for at in [HEADER_LEN + READ_BLOCK + 7, bytes.len() - 3] {
            bytes[at] ^= 0x20;
            fs::write(&path, &bytes).unwrap();
            assert!(Index::load_records(&path, false).is_err(), "flipped byte {at}");
            bytes[at] ^= 0x20;
        }
    }

    /// A listing finds each record by its path only, takes the unchanged ones (all in place, or
    /// some), and the texts it defers are those of the records it took, under their own paths.
    #[test]
    fn records_are_found_by_path_and_taken_with_their_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let saved = [record("/a.jsonl", "alpha"), record("/b.jsonl", "beta"), record("/c.jsonl", "gamma")];
        assert!(Index::save(&path, saved.iter(), None).unwrap());
        let mut records = Index::load_records(&path, false).unwrap();
        assert_eq!(records.find(OsStr::new("/d.jsonl")), None);
        let slots: Vec<usize> =
            ["/c.jsonl", "/a.jsonl"].iter().map(|p| records.find(OsStr::new(p)).unwrap()).collect();
        let mut marked = vec![false; records.slot_count()];
        slots.iter().for_each(|&i| marked[i] = true);
        let taken = records.take_marked(&marked);
        let paths: Vec<&Path> = taken.iter().map(|r| r.path.as_path()).collect();
        assert_eq!(paths, [Path::new("/a.jsonl"), Path::new("/c.jsonl")], "in slot order");
        assert_eq!(records.find(OsStr::new("/a.jsonl")), None, "a taken record is not found again");
        let left: Vec<&Path> = records.remaining().map(|r| r.path.as_path()).collect();
        assert_eq!(left, [Path::new("/b.jsonl")]);
        let texts = records.defer_texts(&taken).unwrap().read().unwrap();
        let texts: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (p.to_str().unwrap(), t.as_str())).collect();
        assert_eq!(texts, [("/a.jsonl", "alpha more"), ("/c.jsonl", "gamma more")], "the tails' texts");

        let mut records = Index::load_records(&path, false).unwrap();
        let all = records.take_marked(&vec![true; records.slot_count()]);
        assert_eq!(all.len(), 3);
        assert_eq!(records.remaining().count(), 0);
        assert_eq!(records.find(OsStr::new("/b.jsonl")), None);
    }

    /// The record of `path` as it was before it was saved.
    fn unstored(index: &Index, path: &str) -> Record {
        Record { stored: None, ..index.records[OsStr::new(path)].clone() }
    }

    fn texts_len(index: &Path) -> u64 {
        fs::metadata(texts_path(index)).unwrap().len()
    }

    #[test]
    fn a_save_appends_only_the_new_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        let big = "old text ".repeat(10_000);
        Index::save(&path, [record("/a.jsonl", "a"), record("/b.jsonl", &big)].iter(), None).unwrap();
        let before = texts_len(&path);
        let lazy = Index::load(&path, false).unwrap();
        let grown = record("/a.jsonl", "a, and more");
        let kept = &lazy.records[OsStr::new("/b.jsonl")];
        Index::save(&path, [&grown, kept].into_iter(), lazy.text_source()).unwrap();
        let appended = texts_len(&path) - before;
        assert_eq!(
            appended,
            ("a, and more".len() + "a, and more more".len()) as u64,
            "b's text is not written again"
        );
        let full = Index::load(&path, true).unwrap();
        assert_eq!(unstored(&full, "/a.jsonl"), grown);
        assert_eq!(unstored(&full, "/b.jsonl"), record("/b.jsonl", &big));
    }

    #[test]
    fn texts_no_record_uses_any_more_are_compacted_away() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        let text = |round: usize| format!("{round} ").repeat(COMPACT_MIN as usize / 4);
        let id = |path: &Path| texts_id(&File::open(texts_path(path)).unwrap()).unwrap();
        Index::save(&path, [record("/a.jsonl", &text(0))].iter(), None).unwrap();
        let first = id(&path);
        for round in 1..=3 {
            let lazy = Index::load(&path, false).unwrap();
            Index::save(&path, [record("/a.jsonl", &text(round))].iter(), lazy.text_source()).unwrap();
        }
        assert_ne!(id(&path), first, "a new texts file");
        let live = 2 * text(3).len() as u64;
        assert!(texts_len(&path) <= 2 * live + TEXTS_HEADER_LEN + 10, "four rounds: {}", texts_len(&path));
        assert_eq!(unstored(&Index::load(&path, true).unwrap(), "/a.jsonl"), record("/a.jsonl", &text(3)));
    }

    #[test]
    fn records_read_from_a_replaced_texts_file_bring_their_texts_along() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        Index::save(&path, [record("/a.jsonl", "alpha"), record("/b.jsonl", "beta")].iter(), None).unwrap();
        let lazy = Index::load(&path, false).unwrap();
        // Another pitree compacts meanwhile: the texts file is a new one.
        fs::remove_file(texts_path(&path)).unwrap();
        Index::save(&path, [record("/c.jsonl", "gamma")].iter(), None).unwrap();
        let kept: Vec<&Record> = lazy.records.values().collect();
        Index::save(&path, kept.into_iter(), lazy.text_source()).unwrap();
        let full = Index::load(&path, true).unwrap();
        assert_eq!(unstored(&full, "/a.jsonl"), record("/a.jsonl", "alpha"));
        assert_eq!(unstored(&full, "/b.jsonl"), record("/b.jsonl", "beta"));
    }

    #[test]
    fn any_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        Index::save(&path, [record("/a.jsonl", "hello")].iter(), None).unwrap();
        let good = fs::read(&path).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            fs::write(&path, &bad).unwrap();
            assert!(Index::load(&path, true).is_err(), "flipped byte {i}");
        }
        for cut in [0, 10, HEADER_LEN, good.len() - 1] {
            fs::write(&path, &good[..cut]).unwrap();
            assert!(Index::load(&path, true).is_err(), "cut at {cut}");
        }
        fs::write(&path, &good).unwrap();
        let texts = fs::read(texts_path(&path)).unwrap();
        for i in 0..texts.len() {
            let mut bad = texts.clone();
            bad[i] ^= 0x40;
            fs::write(texts_path(&path), &bad).unwrap();
            assert!(Index::load(&path, true).is_err(), "flipped texts byte {i}");
        }
        fs::write(texts_path(&path), &texts[..texts.len() - 1]).unwrap();
        assert!(Index::load(&path, false).is_err(), "texts cut short");
        fs::remove_file(texts_path(&path)).unwrap();
        assert!(Index::load(&path, false).is_err(), "texts missing");
    }
}
